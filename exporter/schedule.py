"""The nightly export: cron or a systemd user timer on Linux, a launchd agent on macOS, a
Task Scheduler task on Windows.

Every scheduler (``schedulers``) installs the same command: this Python running ``-P -m
exporter --vault V --quiet --log-file V/.ccexport/nightly.log``. It takes the vault lock like
any run, exits non-zero on failure (so the scheduler records it), and appends one entry per
run to the log, which ``status`` reads back. ``install`` replaces what an earlier install
made (never a second entry); ``remove`` deletes exactly that and nothing else.

A scheduler starts the run without the login shell, so the variables that move a source or
the settings file (``CLAUDE_CONFIG_DIR``, ``XDG_CONFIG_HOME`` …) set at install time are
installed with the command; otherwise the nightly run would quietly miss those sessions.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from .errors import ConfigError, ExporterError
from .schedulers import (  # noqa: F401  (CRON_TAG, LABEL, NAME, run, _windows_words: this module's API too)
    CRON_TAG,
    LABEL,
    NAME,
    CronScheduler,
    Entry,
    LaunchdScheduler,
    SchtasksScheduler,
    SystemdScheduler,
    _windows_words,
    run,
)

LOG_NAME = "nightly.log"
HOME_NOT_SCHEDULED = (
    "schedule install takes no --home: the nightly run exports this user's home (~). "
    "For sessions kept in another folder DIR, name their folders in [paths] in the vault's "
    '.ccexport/config.toml (claude-code = ["DIR/.claude"], …)'
)


def nightly_command(vault: Path) -> list[str]:
    log = vault / ".ccexport" / LOG_NAME
    return [
        sys.executable,
        "-P",  # without the working folder on sys.path: an exporter.py in $HOME is not run
        "-m",
        "exporter",
        "--vault",
        str(vault),
        "--quiet",
        "--log-file",
        str(log),
    ]


def nightly_environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """The variables set now that tell a run where sources or settings are."""
    from .adapters import ADAPTERS

    env = dict(os.environ) if env is None else env
    names = dict.fromkeys([n for a in ADAPTERS for n in a.env_vars] + ["XDG_CONFIG_HOME"])
    return {name: env[name] for name in names if env.get(name)}


def parse_at(at: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})", at.strip())
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        raise ConfigError(f"--at takes a time of day as HH:MM, not {at!r}")
    return int(m.group(1)), int(m.group(2))


class NoScheduler:
    """No scheduler to use here, and why: ``scheduler()`` gives it rather than failing at
    once, so that ``install`` checks its own arguments first (``--at 25:00`` on a machine
    without cron was answered "no scheduler found", and the next try "--at takes HH:MM").
    Whatever is asked of it fails with ``why``; a dry run of ``install`` shows what the
    scheduler ``would`` (the one ``scheduler()`` picks once present) be given."""

    kind = "none"

    def __init__(self, why: str, would: str = "cron") -> None:
        self.why = why
        self.would = would

    def refuse(self) -> NoReturn:
        raise ExporterError(self.why)

    def preview(self, *_: object) -> str:
        self.refuse()

    def install(self, *_: object) -> str:
        self.refuse()

    def entry(self) -> Entry | None:
        self.refuse()

    def remove(self) -> bool:
        self.refuse()


Scheduler = CronScheduler | SystemdScheduler | LaunchdScheduler | SchtasksScheduler | NoScheduler


KINDS = {"cron": CronScheduler, "systemd": SystemdScheduler, "launchd": LaunchdScheduler,
         "schtasks": SchtasksScheduler}  # fmt: skip
PROGRAMS = {"cron": "crontab", "systemd": "systemctl", "launchd": "launchctl",
            "schtasks": "schtasks"}  # fmt: skip
NO_SCHEDULER = (
    "no scheduler found here: neither systemd user services nor crontab are available; "
    "install cron (e.g. `apt install cron`) or run `ccexport --vault DIR --quiet` from your "
    "own scheduler"
)


def scheduler(env: dict[str, str] | None = None) -> Scheduler:
    """The scheduler of this system; ``CCEXPORT_SCHEDULER`` (cron, systemd, launchd,
    schtasks) chooses one, e.g. to use cron where systemd is also present. None found (or
    the chosen one's program missing): a NoScheduler, which says so when it is used."""
    env = dict(os.environ) if env is None else env
    chosen = env.get("CCEXPORT_SCHEDULER", "").strip().lower()
    if chosen:
        if chosen not in KINDS:
            raise ConfigError(f"CCEXPORT_SCHEDULER={chosen!r} is not one of {', '.join(KINDS)}")
        if not shutil.which(PROGRAMS[chosen]):
            if chosen == "cron":
                return NoScheduler(
                    "CCEXPORT_SCHEDULER=cron, but crontab is not found on this system's PATH; "
                    "install cron (e.g. `apt install cron`) or run `ccexport --vault DIR "
                    "--quiet` from your own scheduler"
                )
            # Said before anything is written, not as a missing program halfway through.
            return NoScheduler(
                f"CCEXPORT_SCHEDULER={chosen}, but {PROGRAMS[chosen]} is not found on this "
                "system's PATH",
                chosen,
            )
        return KINDS[chosen]()
    if sys.platform == "darwin":
        return LaunchdScheduler()
    if sys.platform == "win32":
        return SchtasksScheduler()
    if SystemdScheduler.available():
        return SystemdScheduler()
    if not shutil.which("crontab"):
        return NoScheduler(NO_SCHEDULER)
    return CronScheduler()


def install(
    s: Scheduler,
    vault: Path,
    at: str,
    dry_run: bool = False,
    env: dict[str, str] | None = None,
) -> str:
    """``env``: the variables installed with the command (by default those of
    ``nightly_environment``, read from this process)."""
    hour, minute = parse_at(at)
    env = nightly_environment() if env is None else env
    for text in [str(vault), *env.values()]:
        if "\n" in text or "\r" in text:  # it would end the crontab line or unit file line
            raise ConfigError(f"cannot schedule a run for a path with a line break: {text!r}")
    if isinstance(s, NoScheduler) and not dry_run:  # (the arguments are checked first)
        s.refuse()
    from .scheduleinstall import install_notes, log_folder_needed

    notes = install_notes(s, vault, env)  # (read before anything is written)
    if isinstance(s, NoScheduler):
        # A dry run still shows its plan, for the scheduler that would be used once
        # present, then why nothing can be installed here (exit 0: the plan was shown).
        preview = KINDS[s.would]().preview(nightly_command(vault), hour, minute, env)
        said = f"Dry run, nothing installed. With {s.would}, it would {preview}"
        return "\n".join([said, *notes, f"Attention: {s.why}; until then `schedule install` "
                           "installs nothing here"])  # fmt: skip
    if dry_run:
        preview = s.preview(nightly_command(vault), hour, minute, env)
        return "\n".join([f"Dry run, nothing installed. Would {preview}", *notes])
    if log_folder_needed(s, vault):
        (vault / ".ccexport").mkdir(exist_ok=True)
    where = s.install(nightly_command(vault), hour, minute, env)
    log = vault / ".ccexport" / LOG_NAME
    done = f"Installed the nightly export at {hour:02d}:{minute:02d} ({where}); log: {log}"
    return "\n".join([done, *notes])


def checked_entry(s: Scheduler) -> Entry | None:
    """What ``s`` holds of ours, and why it would not run: also when the Python it names is
    gone (the virtual environment it was installed from was removed or made anew)."""
    found = s.entry()
    program = found.command[0] if found and found.command else ""
    if found and not found.off and os.path.isabs(program) and not os.path.exists(program):
        why = f"{program} no longer exists; run `ccexport schedule install` again"
        return replace(found, off=why)
    return found


def status(s: Scheduler, vault: Path | None) -> str:
    found = checked_entry(s)
    if found is None:
        return f"No nightly export is installed ({s.kind})."
    lines = [f"Installed ({s.kind}): {found.shown}"]
    if found.off:
        lines.append(f"Not running: {found.off}")
    log = log_path(found.command) or (vault / ".ccexport" / LOG_NAME if vault else None)
    last = last_run(log) if log else None
    lines.append(f"Last run: {last}" if last else "Last run: none yet")
    if nothing := found_nothing(last, vault_of(found.command) or vault):
        lines.append(f"Attention: {nothing}")
    if (into := vault_of(found.command) or vault) and not into.expanduser().exists():
        # (a run that finds no session makes no vault, nor its log: ``nightlylog``)
        lines.append(
            f"Attention: {into} does not exist: a nightly run makes it only when it finds a "
            "session to export. If the name is mistyped, install again with the right --vault"
        )
    return "\n".join(lines)


def remove(s: Scheduler, dry_run: bool = False) -> str:
    if dry_run:  # (what ``status`` reads: the entry ``remove`` would take out)
        found = s.entry()
        if found is None:
            return "Dry run: nothing is installed, so nothing would be removed."
        return f"Dry run, nothing removed. Would remove ({s.kind}): {found.shown}"
    return f"Removed the nightly export ({s.kind})." if s.remove() else "Nothing was installed."


SHOWN_LINES = 10  # of the last run's errors and conflicts; the log holds them all


def last_run(log: Path) -> str | None:
    """The last entry of the nightly log (written by ``--log-file``), with the lines under
    it (its errors, the edits it saved aside as conflict copies)."""
    try:
        lines = log.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    starts = [i for i, line in enumerate(lines) if line.startswith("[")]
    if not starts:
        return None
    below = lines[starts[-1] + 1 :]
    shown = below[:SHOWN_LINES]
    if len(below) > SHOWN_LINES:
        shown.append(f"  … {len(below) - SHOWN_LINES} more in {log}")
    return "\n".join([lines[starts[-1]], *shown])


_FOUND_NONE = re.compile(r"\[[^\]]*\] exit 0: 0 sessions found\b")


def found_nothing(last: str | None, vault: Path | None) -> str | None:
    """What to do when the last nightly run (``last``, from ``last_run``) found no session
    while the vault records session notes (None otherwise): the sources were elsewhere when
    the vault was filled (a run with ``--home``, a variable that moves a source not set at
    install), and the scheduled run, which exports this user's home, finds none of them.
    Not said when ``since`` or ``project`` is set: a quiet day finds nothing then."""
    if not last or vault is None or not _FOUND_NONE.match(last):
        return None
    from .config import VAULT_CONFIG, resolve
    from .notefile import INDEX_PREFIX
    from .report import counted
    from .state import State

    vault = vault.expanduser()
    notes = State.load(vault).notes.items()
    recorded = sum(1 for key, r in notes if not key.startswith(INDEX_PREFIX) and not r.deleted)
    if not recorded:
        return None
    try:
        settings = resolve({"vault": vault})
        if settings.since is not None or settings.project:
            return None
    except ExporterError:
        pass  # (a broken config is said by doctor; the run would have stopped on it)
    held = counted(recorded, "session note", "session notes")
    return (
        f"no session found, yet the vault records {held}: a scheduled run exports this "
        f"user's home ({Path.home()}) only, with the variables set at install. For sessions "
        f"exported from another folder (--home DIR), name their folders in [paths] in "
        f'{vault / VAULT_CONFIG} (claude-code = ["DIR/.claude"], …); for a variable that '
        "moves a source (CLAUDE_CONFIG_DIR …), set it and run `ccexport schedule install` again"
    )


def vault_of(words: list[str] | None) -> Path | None:
    """The vault an installed command exports into, if it names one."""
    if not words or "--vault" not in words[:-1]:
        return None
    return Path(words[words.index("--vault") + 1])


def log_path(words: list[str] | None) -> Path | None:
    """The log an installed command writes to, if it names one."""
    if not words or "--log-file" not in words[:-1]:
        return None
    return Path(words[words.index("--log-file") + 1])
