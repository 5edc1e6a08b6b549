"""The nightly export: cron or a systemd user timer on Linux, a launchd agent on macOS, a
Task Scheduler task on Windows.

Every scheduler installs the same command: this Python running ``-m exporter --vault V
--quiet --log-file V/.ccexport/nightly.log``. It takes the vault lock like any run, exits
non-zero on failure (so the scheduler records it), and appends one entry per run to the log,
which ``status`` reads back. ``install`` replaces what an earlier install made (never a
second entry); ``remove`` deletes exactly that and nothing else. Each scheduler takes the
folder it writes to and the program runner as arguments, so tests point them elsewhere.
"""

from __future__ import annotations

import configparser
import os
import plistlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from .errors import ConfigError, ExporterError

NAME = "ccexport-nightly"
LABEL = "com.ccexport.nightly"
CRON_TAG = "# ccexport-nightly (added by `ccexport schedule install`)"
LOG_NAME = "nightly.log"
Runner = Callable[[Sequence[str], str | None], subprocess.CompletedProcess[str]]


def run(args: Sequence[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), input=stdin, capture_output=True, text=True, check=False)


def nightly_command(vault: Path) -> list[str]:
    log = vault / ".ccexport" / LOG_NAME
    return [
        sys.executable,
        "-m",
        "exporter",
        "--vault",
        str(vault),
        "--quiet",
        "--log-file",
        str(log),
    ]


def parse_at(at: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})", at.strip())
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        raise ConfigError(f"--at takes a time of day as HH:MM, not {at!r}")
    return int(m.group(1)), int(m.group(2))


class CronScheduler:
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
        return done.stdout.splitlines()

    def _write(self, lines: list[str]) -> None:
        done = self.runner([self.crontab, "-"], "".join(line + "\n" for line in lines))
        if done.returncode != 0:
            raise ExporterError(f"crontab - failed: {done.stderr.strip()}")

    @staticmethod
    def line(command: list[str], hour: int, minute: int) -> str:
        # cron turns an unescaped % into a newline: a path holding one must escape it.
        words = shlex.join(command).replace("%", "\\%")
        return f"{minute} {hour} * * * {words} {CRON_TAG}"

    def preview(self, command: list[str], hour: int, minute: int) -> str:
        return f"a line added to your crontab ({self.crontab}):\n{self.line(command, hour, minute)}"

    def install(self, command: list[str], hour: int, minute: int) -> str:
        lines = [line for line in self._read() if not line.endswith(CRON_TAG)]
        line = self.line(command, hour, minute)
        self._write([*lines, line])
        return f"crontab: {line}"

    def installed(self) -> str | None:
        return next((line for line in self._read() if line.endswith(CRON_TAG)), None)

    def remove(self) -> bool:
        lines = self._read()
        kept = [line for line in lines if not line.endswith(CRON_TAG)]
        if kept == lines:
            return False
        self._write(kept)
        return True


class SystemdScheduler:
    kind = "systemd user timer"

    def __init__(self, unit_dir: Path | None = None, runner: Runner = run) -> None:
        self.unit_dir = unit_dir or Path.home() / ".config" / "systemd" / "user"
        self.runner = runner

    @staticmethod
    def available(runner: Runner = run) -> bool:
        if not shutil.which("systemctl"):
            return False
        return runner(["systemctl", "--user", "show-environment"], None).returncode == 0

    def files(self, command: list[str], hour: int, minute: int) -> dict[Path, str]:
        return {
            self.unit_dir / f"{NAME}.service": (
                "[Unit]\nDescription=Export AI coding sessions into an Obsidian vault "
                "(ccexport)\n\n"
                f"[Service]\nType=oneshot\nExecStart={_systemd_quote(command)}\n"
            ),
            self.unit_dir / f"{NAME}.timer": (
                "[Unit]\nDescription=Nightly ccexport run\n\n"
                f"[Timer]\nOnCalendar=*-*-* {hour:02d}:{minute:02d}:00\nPersistent=true\n\n"
                "[Install]\nWantedBy=timers.target\n"
            ),
        }

    def preview(self, command: list[str], hour: int, minute: int) -> str:
        parts = [f"{path}:\n{text}" for path, text in self.files(command, hour, minute).items()]
        parts.append(f"then: systemctl --user enable --now {NAME}.timer")
        return "\n".join(parts)

    def install(self, command: list[str], hour: int, minute: int) -> str:
        self.unit_dir.mkdir(parents=True, exist_ok=True)
        for path, text in self.files(command, hour, minute).items():
            path.write_text(text, encoding="utf-8")
        timer = self.unit_dir / f"{NAME}.timer"
        self.runner(["systemctl", "--user", "daemon-reload"], None)
        self.runner(["systemctl", "--user", "enable", "--now", f"{NAME}.timer"], None)
        return f"systemd user timer: {timer}"

    def installed(self) -> str | None:
        service = self.unit_dir / f"{NAME}.service"
        if not service.is_file():
            return None
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(service, encoding="utf-8")
        return parser.get("Service", "ExecStart", fallback=None)

    def remove(self) -> bool:
        files = [self.unit_dir / f"{NAME}.timer", self.unit_dir / f"{NAME}.service"]
        if not any(f.exists() for f in files):
            return False
        self.runner(["systemctl", "--user", "disable", "--now", f"{NAME}.timer"], None)
        for f in files:
            f.unlink(missing_ok=True)
        self.runner(["systemctl", "--user", "daemon-reload"], None)
        return True


class LaunchdScheduler:
    kind = "launchd agent"

    def __init__(self, agents_dir: Path | None = None, runner: Runner = run) -> None:
        self.agents_dir = agents_dir or Path.home() / "Library" / "LaunchAgents"
        self.runner = runner

    @property
    def plist(self) -> Path:
        return self.agents_dir / f"{LABEL}.plist"

    @staticmethod
    def agent(command: list[str], hour: int, minute: int) -> bytes:
        log = command[command.index("--log-file") + 1]
        data = {
            "Label": LABEL,
            "ProgramArguments": command,
            "StartCalendarInterval": {"Hour": hour, "Minute": minute},
            "StandardOutPath": log,
            "StandardErrorPath": log,
            "RunAtLoad": False,
        }
        return plistlib.dumps(data)

    def preview(self, command: list[str], hour: int, minute: int) -> str:
        return f"{self.plist}:\n{self.agent(command, hour, minute).decode()}"

    def install(self, command: list[str], hour: int, minute: int) -> str:
        self.agents_dir.mkdir(parents=True, exist_ok=True)
        if self.plist.exists():
            self.runner(["launchctl", "unload", str(self.plist)], None)
        self.plist.write_bytes(self.agent(command, hour, minute))
        self.runner(["launchctl", "load", "-w", str(self.plist)], None)
        return f"launchd agent: {self.plist}"

    def installed(self) -> str | None:
        if not self.plist.is_file():
            return None
        with open(self.plist, "rb") as f:
            return shlex.join(plistlib.load(f).get("ProgramArguments", []))

    def remove(self) -> bool:
        if not self.plist.exists():
            return False
        self.runner(["launchctl", "unload", "-w", str(self.plist)], None)
        self.plist.unlink()
        return True


class SchtasksScheduler:
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

    def preview(self, command: list[str], hour: int, minute: int) -> str:
        return f"a task {NAME} created with:\n{self.task_xml(command, hour, minute)}"

    def install(self, command: list[str], hour: int, minute: int) -> str:
        folder = Path(self.work_dir or tempfile.mkdtemp(prefix="ccexport-"))
        folder.mkdir(parents=True, exist_ok=True)
        xml = folder / f"{NAME}.xml"
        xml.write_text(self.task_xml(command, hour, minute), encoding="utf-16")
        done = self.runner(["schtasks", "/Create", "/TN", NAME, "/XML", str(xml), "/F"], None)
        if done.returncode != 0:
            raise ExporterError(
                f"schtasks /Create failed: {done.stderr.strip() or done.stdout.strip()}"
            )
        return f"Task Scheduler task: {NAME}"

    def installed(self) -> str | None:
        done = self.runner(["schtasks", "/Query", "/TN", NAME, "/XML"], None)
        if done.returncode != 0:
            return None
        m = re.search(
            r"<Command>(.*?)</Command>\s*<Arguments>(.*?)</Arguments>", done.stdout, re.DOTALL
        )
        return f"{m.group(1)} {m.group(2)}" if m else NAME

    def remove(self) -> bool:
        if self.installed() is None:
            return False
        self.runner(["schtasks", "/Delete", "/TN", NAME, "/F"], None)
        return True


Scheduler = CronScheduler | SystemdScheduler | LaunchdScheduler | SchtasksScheduler


KINDS = {"cron": CronScheduler, "systemd": SystemdScheduler, "launchd": LaunchdScheduler,
         "schtasks": SchtasksScheduler}  # fmt: skip
NO_SCHEDULER = (
    "no scheduler found here: neither systemd user services nor crontab are available; "
    "install cron (e.g. `apt install cron`) or run `ccexport --vault DIR --quiet` from your "
    "own scheduler"
)


def scheduler(env: dict[str, str] | None = None) -> Scheduler:
    """The scheduler of this system; ``CCEXPORT_SCHEDULER`` (cron, systemd, launchd,
    schtasks) chooses one, e.g. to use cron where systemd is also present."""
    env = dict(os.environ) if env is None else env
    chosen = env.get("CCEXPORT_SCHEDULER", "").strip().lower()
    if chosen:
        if chosen not in KINDS:
            raise ConfigError(f"CCEXPORT_SCHEDULER={chosen!r} is not one of {', '.join(KINDS)}")
        if chosen == "cron" and not shutil.which("crontab"):
            raise ExporterError(NO_SCHEDULER)
        return KINDS[chosen]()
    if sys.platform == "darwin":
        return LaunchdScheduler()
    if sys.platform == "win32":
        return SchtasksScheduler()
    if SystemdScheduler.available():
        return SystemdScheduler()
    if not shutil.which("crontab"):
        raise ExporterError(NO_SCHEDULER)
    return CronScheduler()


def install(s: Scheduler, vault: Path, at: str, dry_run: bool = False) -> str:
    hour, minute = parse_at(at)
    if dry_run:
        preview = s.preview(nightly_command(vault), hour, minute)
        return f"Dry run, nothing installed. Would install ({s.kind}) {preview}"
    (vault / ".ccexport").mkdir(parents=True, exist_ok=True)
    where = s.install(nightly_command(vault), hour, minute)
    log = vault / ".ccexport" / LOG_NAME
    return f"Installed the nightly export at {hour:02d}:{minute:02d} ({where}); log: {log}"


def status(s: Scheduler, vault: Path | None) -> str:
    command = s.installed()
    if command is None:
        return f"No nightly export is installed ({s.kind})."
    lines = [f"Installed ({s.kind}): {command}"]
    log = _log_path(command) or (vault / ".ccexport" / LOG_NAME if vault else None)
    last = last_run(log) if log else None
    lines.append(f"Last run: {last}" if last else "Last run: none yet")
    return "\n".join(lines)


def remove(s: Scheduler) -> str:
    return f"Removed the nightly export ({s.kind})." if s.remove() else "Nothing was installed."


def last_run(log: Path) -> str | None:
    """The last entry of the nightly log (written by ``--log-file``)."""
    try:
        lines = log.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    entries = [line for line in lines if line.startswith("[")]
    return entries[-1] if entries else None


def _log_path(command: str) -> Path | None:
    try:
        words = shlex.split(command.replace(CRON_TAG, ""))
    except ValueError:
        return None
    return Path(words[words.index("--log-file") + 1]) if "--log-file" in words[:-1] else None


def _systemd_quote(command: list[str]) -> str:
    """An ExecStart line: each word double-quoted, with backslashes and quotes escaped."""
    return " ".join(
        '"' + w.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%") + '"' for w in command
    )
