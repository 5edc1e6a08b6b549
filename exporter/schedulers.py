"""The four schedulers ``schedule`` installs the nightly export with, each writing and reading
back its own kind of entry: a crontab line, a systemd user timer, a launchd agent, a Windows
Task Scheduler task. Each takes the folder it writes to and the program runner as
arguments, so tests point them elsewhere; ``Entry`` is what one reads back of ours.
"""

from __future__ import annotations

import locale
import plistlib
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.parsers.expat import ExpatError
from xml.sax.saxutils import escape, unescape

from .errors import ExporterError

NAME = "ccexport-nightly"
LABEL = "com.ccexport.nightly"
CRON_TAG = "# ccexport-nightly (added by `ccexport schedule install`)"
Runner = Callable[[Sequence[str], str | None], subprocess.CompletedProcess[str]]


def run(args: Sequence[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    # Bytes in and out, decoded without newline translation and with surrogateescape: a
    # crontab read and written back keeps every byte of the user's lines (a CR, a Latin-1
    # comment), where text mode would drop the CR or fail on the byte.
    code = locale.getpreferredencoding(False)
    done = subprocess.run(
        list(args),
        input=None if stdin is None else stdin.encode(code, "surrogateescape"),
        capture_output=True,
        check=False,
    )
    out, err = (b.decode(code, "surrogateescape") for b in (done.stdout, done.stderr))
    return subprocess.CompletedProcess(done.args, done.returncode, out, err)


@dataclass(frozen=True, slots=True)
class Entry:
    """What a scheduler holds of ours: as shown, the command it runs (None when it cannot
    be read back), and why it would not run (commented out, disabled), if it would not."""

    shown: str
    command: list[str] | None = None
    off: str | None = None


class _Installed:
    def entry(self) -> Entry | None:
        raise NotImplementedError

    def installed(self) -> str | None:
        """The entry as shown (``doctor`` prints it), or None when nothing is installed."""
        found = self.entry()
        return found.shown if found else None


class CronScheduler(_Installed):
    kind = "cron"

    def __init__(self, crontab: str = "crontab", runner: Runner = run) -> None:
        self.crontab = crontab
        self.runner = runner

    def _read(self) -> list[str]:
        done = self.runner([self.crontab, "-l"], None)
        if done.returncode != 0:
            if "no crontab" in (done.stderr or "").lower():
                return []
            raise ExporterError(f"crontab -l failed: {done.stderr.strip()}")
        # "\n" alone ends a line to cron: a CR or form feed (which splitlines also splits
        # at) is part of the user's line and is written back as it was.
        lines = done.stdout.split("\n")
        if lines[-1] == "":
            lines.pop()
        return lines

    def _write(self, lines: list[str]) -> None:
        done = self.runner([self.crontab, "-"], "".join(line + "\n" for line in lines))
        if done.returncode != 0:
            raise ExporterError(f"crontab - failed: {done.stderr.strip()}")

    @staticmethod
    def line(command: list[str], hour: int, minute: int, env: dict[str, str] | None = None) -> str:
        # sh assignments first: the value quoted, never the name (a quoted name is a command).
        assignments = [f"{name}={shlex.quote(value)}" for name, value in (env or {}).items()]
        # cron turns an unescaped % into a newline: a path holding one must escape it.
        words = " ".join([*assignments, shlex.join(command)]).replace("%", "\\%")
        return f"{minute} {hour} * * * {words} {CRON_TAG}"

    def preview(
        self, command: list[str], hour: int, minute: int, env: dict[str, str] | None = None
    ) -> str:
        line = self.line(command, hour, minute, env)
        return f"add this line to your crontab:\n{line}"

    def install(
        self, command: list[str], hour: int, minute: int, env: dict[str, str] | None = None
    ) -> str:
        lines = [line for line in self._read() if not _ours(line)]
        line = self.line(command, hour, minute, env)
        self._write([*lines, line])
        return f"crontab: {line}"

    def entry(self) -> Entry | None:
        line = next((line for line in self._read() if _ours(line)), None)
        if line is None:
            return None
        text, off = line.rstrip()[: -len(CRON_TAG)].strip(), None
        if text.startswith("#"):
            text, off = text.lstrip("#"), "its crontab line is commented out, so cron skips it"
        try:
            words = shlex.split(text.replace("\\%", "%"))
        except ValueError:
            return Entry(line, None, off)
        words = words[1 if words and words[0].startswith("@") else 5 :]  # the time fields
        while words and re.match(r"[A-Za-z_]\w*=", words[0]):
            words.pop(0)  # the variables set for the run
        return Entry(line, words or None, off)

    def remove(self) -> bool:
        lines = self._read()
        kept = [line for line in lines if not _ours(line)]
        if kept == lines:
            return False
        self._write(kept)
        return True


# A user timer fires only while its user is logged in, unless systemd keeps the user's
# manager running (lingering); ``Persistent=true`` runs a night missed at the next login.
LINGER = (
    "A user timer runs only while you are logged in: `loginctl enable-linger` makes it run "
    "when you are not; a night missed is run at your next login."
)


class SystemdScheduler(_Installed):
    kind = "systemd user timer"

    def __init__(self, unit_dir: Path | None = None, runner: Runner = run) -> None:
        self.unit_dir = unit_dir or Path.home() / ".config" / "systemd" / "user"
        self.runner = runner

    @staticmethod
    def available(runner: Runner = run) -> bool:
        if not shutil.which("systemctl"):
            return False
        return runner(["systemctl", "--user", "show-environment"], None).returncode == 0

    def files(
        self, command: list[str], hour: int, minute: int, env: dict[str, str] | None = None
    ) -> dict[Path, str]:
        environment = "".join(
            f"Environment={_systemd_quote([f'{k}={v}'], dollars=False)}\n"
            for k, v in (env or {}).items()
        )
        return {
            self.unit_dir / f"{NAME}.service": (
                "[Unit]\nDescription=Export AI coding sessions into an Obsidian vault "
                "(ccexport)\n\n"
                f"[Service]\nType=oneshot\n{environment}ExecStart={_systemd_quote(command)}\n"
            ),
            self.unit_dir / f"{NAME}.timer": (
                "[Unit]\nDescription=Nightly ccexport run\n\n"
                f"[Timer]\nOnCalendar=*-*-* {hour:02d}:{minute:02d}:00\nPersistent=true\n\n"
                "[Install]\nWantedBy=timers.target\n"
            ),
        }

    def preview(
        self, command: list[str], hour: int, minute: int, env: dict[str, str] | None = None
    ) -> str:
        files = self.files(command, hour, minute, env)
        parts = ["write these systemd user units,"]
        parts += [f"{path}:\n{text}" for path, text in files.items()]
        # (install runs these itself: "then run: …" read as a step left to the person)
        parts.append(
            f"then start the timer itself (systemctl --user daemon-reload, then "
            f"systemctl --user enable --now {NAME}.timer)."
        )
        return "\n".join(parts)

    def install(
        self, command: list[str], hour: int, minute: int, env: dict[str, str] | None = None
    ) -> str:
        self.unit_dir.mkdir(parents=True, exist_ok=True)
        for path, text in self.files(command, hour, minute, env).items():
            path.write_text(text, encoding="utf-8")
        timer = self.unit_dir / f"{NAME}.timer"
        for args in (["daemon-reload"], ["enable", "--now", f"{NAME}.timer"]):
            done = self.runner(["systemctl", "--user", *args], None)
            if done.returncode != 0:  # else "Installed" would be said of a timer that never runs
                why = (done.stderr or done.stdout or f"exit {done.returncode}").strip()
                raise ExporterError(
                    f"systemctl --user {' '.join(args)} failed ({why}): the units are in "
                    f"{self.unit_dir} but the timer is not running; `ccexport schedule "
                    "remove` takes them away, CCEXPORT_SCHEDULER=cron uses cron instead"
                )
        return f"systemd user timer: {timer}"

    def entry(self) -> Entry | None:
        service = self.unit_dir / f"{NAME}.service"
        if not service.is_file():
            return None
        try:
            text = service.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return Entry(f"{service} (cannot be read: {exc.strerror or exc})")
        # Read as systemd does (the last ExecStart= of [Service]); configparser would stop
        # at a key given twice, which systemd allows.
        section, value = "", None
        for raw in text.splitlines():
            line = raw.strip()
            if line.startswith("["):
                section = line
            elif section == "[Service]" and line.startswith("ExecStart="):
                value = line.removeprefix("ExecStart=")
        if value is None:
            return Entry(f"{service} (no ExecStart= line)")
        try:
            words = shlex.split(value.replace("%%", "%").replace("$$", "$"))
        except ValueError:
            words = []
        enabled = self.runner(["systemctl", "--user", "is-enabled", f"{NAME}.timer"], None)
        off = None
        if enabled.returncode != 0:
            said = (enabled.stdout or enabled.stderr or "").strip() or "not enabled"
            off = f"the timer is {said}: systemctl --user enable --now {NAME}.timer"
        return Entry(value, words or None, off)

    def remove(self) -> bool:
        files = [self.unit_dir / f"{NAME}.timer", self.unit_dir / f"{NAME}.service"]
        if not any(f.exists() for f in files):
            return False
        self.runner(["systemctl", "--user", "disable", "--now", f"{NAME}.timer"], None)
        for f in files:
            f.unlink(missing_ok=True)
        self.runner(["systemctl", "--user", "daemon-reload"], None)
        return True


class LaunchdScheduler(_Installed):
    kind = "launchd agent"

    def __init__(self, agents_dir: Path | None = None, runner: Runner = run) -> None:
        self.agents_dir = agents_dir or Path.home() / "Library" / "LaunchAgents"
        self.runner = runner

    @property
    def plist(self) -> Path:
        return self.agents_dir / f"{LABEL}.plist"

    @staticmethod
    def agent(
        command: list[str], hour: int, minute: int, env: dict[str, str] | None = None
    ) -> bytes:
        log = command[command.index("--log-file") + 1]
        data: dict[str, object] = {
            "Label": LABEL,
            "ProgramArguments": command,
            "StartCalendarInterval": {"Hour": hour, "Minute": minute},
            "StandardOutPath": log,
            "StandardErrorPath": log,
            "RunAtLoad": False,
        }
        if env:
            data["EnvironmentVariables"] = dict(env)
        return plistlib.dumps(data)

    def preview(
        self, command: list[str], hour: int, minute: int, env: dict[str, str] | None = None
    ) -> str:
        agent = self.agent(command, hour, minute, env).decode()
        return f"write this launchd agent, {self.plist}:\n{agent}"

    def install(
        self, command: list[str], hour: int, minute: int, env: dict[str, str] | None = None
    ) -> str:
        self.agents_dir.mkdir(parents=True, exist_ok=True)
        if self.plist.exists():
            self.runner(["launchctl", "unload", str(self.plist)], None)
        self.plist.write_bytes(self.agent(command, hour, minute, env))
        done = self.runner(["launchctl", "load", "-w", str(self.plist)], None)
        # launchctl load says "Load failed" on stderr and often still exits 0.
        if done.returncode != 0 or "failed" in (done.stderr or "").lower():
            why = (done.stderr or done.stdout or f"exit {done.returncode}").strip()
            raise ExporterError(
                f"launchctl load -w {self.plist} failed ({why}): the agent is written but "
                "not loaded; `ccexport schedule remove` takes it away"
            )
        return f"launchd agent: {self.plist}"

    def entry(self) -> Entry | None:
        if not self.plist.is_file():
            return None
        try:
            with open(self.plist, "rb") as f:
                data = plistlib.load(f)
        except (OSError, ValueError, ExpatError) as exc:
            return Entry(f"{self.plist} (not a readable property list: {exc})")
        words = data.get("ProgramArguments") if isinstance(data, dict) else None
        if not (isinstance(words, list) and all(isinstance(w, str) for w in words)):
            return Entry(f"{self.plist} (no ProgramArguments)")
        off = None
        if data.get("Disabled") is True:
            off = "the agent is marked Disabled in its property list"
        elif self.runner(["launchctl", "list", LABEL], None).returncode != 0:
            off = f"the agent is not loaded: launchctl load -w {self.plist}"
        return Entry(shlex.join(words), words or None, off)

    def remove(self) -> bool:
        if not self.plist.exists():
            return False
        self.runner(["launchctl", "unload", "-w", str(self.plist)], None)
        self.plist.unlink()
        return True


class SchtasksScheduler(_Installed):
    kind = "Windows Task Scheduler"

    def __init__(self, runner: Runner = run, work_dir: Path | None = None) -> None:
        self.runner = runner
        self.work_dir = work_dir

    def task_xml(self, command: list[str], hour: int, minute: int) -> str:
        args = subprocess.list2cmdline(command[1:])
        return (
            '<?xml version="1.0" encoding="UTF-16"?>\n'
            '<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">\n'
            "  <RegistrationInfo><Description>Nightly ccexport run</Description>"
            "</RegistrationInfo>\n"
            "  <Triggers><CalendarTrigger>\n"
            f"    <StartBoundary>2000-01-01T{hour:02d}:{minute:02d}:00</StartBoundary>\n"
            "    <ScheduleByDay><DaysInterval>1</DaysInterval></ScheduleByDay>\n"
            "  </CalendarTrigger></Triggers>\n"
            "  <Settings><StartWhenAvailable>true</StartWhenAvailable></Settings>\n"
            "  <Actions><Exec>\n"
            f"    <Command>{escape(command[0])}</Command>\n"
            f"    <Arguments>{escape(args)}</Arguments>\n"
            "  </Exec></Actions>\n"
            "</Task>\n"
        )

    def preview(
        self, command: list[str], hour: int, minute: int, env: dict[str, str] | None = None
    ) -> str:
        return f"create the task {NAME} from:\n{self.task_xml(command, hour, minute)}"

    def install(
        self, command: list[str], hour: int, minute: int, env: dict[str, str] | None = None
    ) -> str:
        # A task cannot be given variables: Windows keeps a user's in the registry, which
        # the task's process reads as any other, so ``env`` is not needed here.
        if self.work_dir is None:  # the task's definition is needed only while it is created
            with tempfile.TemporaryDirectory(prefix="ccexport-") as folder:
                return SchtasksScheduler(self.runner, Path(folder)).install(command, hour, minute)
        self.work_dir.mkdir(parents=True, exist_ok=True)
        xml = self.work_dir / f"{NAME}.xml"
        xml.write_text(self.task_xml(command, hour, minute), encoding="utf-16")
        done = self.runner(["schtasks", "/Create", "/TN", NAME, "/XML", str(xml), "/F"], None)
        if done.returncode != 0:
            raise ExporterError(
                f"schtasks /Create failed: {done.stderr.strip() or done.stdout.strip()}"
            )
        return f"Task Scheduler task: {NAME}"

    def entry(self) -> Entry | None:
        done = self.runner(["schtasks", "/Query", "/TN", NAME, "/XML"], None)
        if done.returncode != 0:
            return None
        m = re.search(
            r"<Command>(.*?)</Command>\s*<Arguments>(.*?)</Arguments>", done.stdout, re.DOTALL
        )
        off = None
        if re.search(r"<Settings>.*<Enabled>false</Enabled>", done.stdout, re.DOTALL):
            off = f"the task is disabled: schtasks /Change /TN {NAME} /ENABLE"
        if not m:
            return Entry(NAME, None, off)
        entities = {"&quot;": '"', "&apos;": "'"}
        program, args = unescape(m.group(1), entities), unescape(m.group(2), entities)
        return Entry(f"{program} {args}", [program, *_windows_words(args)], off)

    def remove(self) -> bool:
        if self.installed() is None:
            return False
        self.runner(["schtasks", "/Delete", "/TN", NAME, "/F"], None)
        return True


def _ours(line: str) -> bool:
    return line.rstrip().endswith(CRON_TAG)


def _systemd_quote(words: list[str], dollars: bool = True) -> str:
    """Each word double-quoted for a unit file, with backslashes and quotes escaped, ``%``
    (a specifier) doubled and, in a command line (``dollars``), ``$`` (a variable) too."""
    quoted = []
    for w in words:
        w = w.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
        quoted.append('"' + (w.replace("$", "$$") if dollars else w) + '"')
    return " ".join(quoted)


def _windows_words(line: str) -> list[str]:
    """The words of a Windows command line, by the rules ``subprocess.list2cmdline`` writes
    it in: backslashes are literal except before a quote, where each pair is one."""
    words: list[str] = []
    word: list[str] = []
    in_word = quoted = False
    slashes = 0
    for ch in line:
        if ch == "\\":
            slashes, in_word = slashes + 1, True
            continue
        if ch == '"':
            word.append("\\" * (slashes // 2) + ('"' if slashes % 2 else ""))
            quoted ^= slashes % 2 == 0
            slashes, in_word = 0, True
            continue
        word.append("\\" * slashes)
        slashes = 0
        if ch in " \t" and not quoted:
            if in_word:
                words.append("".join(word))
            word, in_word = [], False
        else:
            word.append(ch)
            in_word = True
    word.append("\\" * slashes)
    if in_word:
        words.append("".join(word))
    return words
