"""The time zone a vault's notes are dated in when no ``timezone`` is set: the machine's
own, as the vault's first export found it, kept by name in ``.ccexport/zone``. Aider's
times, which carry no zone, are read in it too.

Taking the process's zone anew each run dated a vault's notes in whatever zone each run
had: a nightly run without the ``TZ`` a shell sets, or a laptop abroad, rewrote only the
notes whose sessions grew, in its zone, so a note's ``created`` no longer matched the day
in its name and the index went out of order; an Aider run's time moved by hours. Kept by
name (``Europe/Berlin``), a change of daylight saving time changes nothing. A machine whose
zone has no such name (a ``TZ`` such as ``CET-1CEST``, no zone database) keeps the old way.
A file of its own, not the state: it is read before the sources are, and a version of
ccexport that does not know it leaves it be.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from . import vaultio
from .errors import Problem, clipped, os_reason
from .state import STATE_DIR

if TYPE_CHECKING:
    from .options import ExportOptions

ZONE_FILE = f"{STATE_DIR}/zone"
_LOCALTIME = Path("/etc/localtime")
_TIMEZONE_FILE = Path("/etc/timezone")  # Debian's and Ubuntu's name of the zone


def named_zone(name: str) -> tzinfo | None:
    """The zone of that IANA name, or None (also for ``localtime`` and ``posixrules``:
    names of whatever the machine's zone is, which would not stay what it is now)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if not name or name.startswith("/") or ".." in name or name in _NOT_NAMES:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


_NOT_NAMES = ("localtime", "posixrules", "Factory")


def machine_zone_name(
    env: dict[str, str] | os._Environ[str] = os.environ,
    localtime: Path = _LOCALTIME,
    timezone_file: Path = _TIMEZONE_FILE,
) -> str | None:
    """The IANA name of the zone this process's local time is in, where it has one: ``TZ``
    when set (a name, or a file of the zone database: ``:/etc/localtime``), else what
    ``/etc/localtime`` links to (Linux, macOS), else ``/etc/timezone``."""
    named = env.get("TZ", "").removeprefix(":")
    if "TZ" in env and named not in _NOT_NAMES:
        name = named or "UTC"  # an empty TZ is UTC
        if name.startswith("/"):
            return _name_of_file(Path(name))
        return name if named_zone(name) else None
    if name := _name_of_file(localtime):
        return name
    try:
        name = timezone_file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return name if named_zone(name) else None


MISTYPED_TZ = (
    "{0!r} is not the name of a time zone known here (a typo?), so the system reads it as "
    "UTC and the notes are dated in UTC: set TZ to a zone's name (Europe/Berlin), or set "
    "`timezone` in the config"
)


def mistyped_tz(env: dict[str, str] | os._Environ[str] = os.environ) -> str | None:
    """``TZ`` when it is meant as a zone's name but names none known here (``Mars/Olympus``:
    the C library then takes UTC without a word, review48 L6); not a POSIX rule such as
    ``CET-1CEST`` (it holds its offset's digits), nor a file (``:/etc/localtime``)."""
    typed = env.get("TZ", "").removeprefix(":")
    if not typed or typed.startswith("/") or typed in _NOT_NAMES or named_zone(typed):
        return None
    return None if any(c.isdigit() for c in typed) else typed


def _name_of_file(path: Path) -> str | None:
    """The zone's name a file of the zone database has (``/etc/localtime`` links to one)."""
    try:
        target = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    if "zoneinfo/" not in target:
        return None
    name = target.split("zoneinfo/", 1)[1].removeprefix("posix/").removeprefix("right/")
    return name if named_zone(name) else None


@dataclass(slots=True)
class VaultZone:
    """The run's options dated in the vault's zone, the zone's name to keep in the vault
    (empty: nothing to write), and what to tell the person of it."""

    options: ExportOptions
    keep: str = ""
    problems: list[Problem] = field(default_factory=list)

    def kept_in(self, vault: Path) -> None:
        """Keep the zone in the vault, if it is new there (a run that writes, in its lock)."""
        if self.keep and (why := keep_zone(vault, self.keep)):
            self.problems.append(Problem(str(vault / ZONE_FILE), why))


def with_vault_zone(options: ExportOptions, machine: str | None) -> VaultZone:
    """``options`` with the vault's zone (``local_zone``), ``timezone`` that zone where
    they name none, and a wall-clock ``since`` (a date) made midnight in the notes' zone.
    The zone is the one the vault keeps, else ``machine`` (this machine's zone by name),
    to be kept. A kept zone this machine does not know by its name (a typo, damage) is
    taken as none kept, and said."""
    kept = kept_zone(options.vault)
    zone = named_zone(kept) if kept else None
    unknown = kept is not None and zone is None  # a file there, naming no zone known here
    keep, problems = "", []
    if zone is None and machine and (zone := named_zone(machine)) is not None:
        keep = machine
    if unknown:
        now = f"{machine}, this machine's zone, which it keeps from now" if keep else (
            "this machine's local time")  # fmt: skip
        why = (f"holds {clipped(kept, 40)!r}, not the name of a time zone known here: the "
               f"notes are dated in {now} (set `timezone` to choose one)")  # fmt: skip
        problems.append(Problem(str(options.vault / ZONE_FILE), why))
    if zone is None and options.timezone is None and (typed := mistyped_tz()):
        problems.append(Problem("TZ", MISTYPED_TZ.format(clipped(typed, 40))))
    since = options.since  # a wall-clock --since (a date): midnight where the notes' days are
    if since is not None and since.tzinfo is None:
        dated = options.timezone or zone
        since = since.replace(tzinfo=dated) if dated else since.astimezone()
    found = replace(options, local_zone=zone, timezone=options.timezone or zone, since=since)
    return VaultZone(found, keep, problems)


def kept_zone(vault: Path) -> str | None:
    """The zone's name the vault keeps (None: none; a file that is no text reads as the
    garbage it is, to be replaced). Something else in the file's place (a link, a folder)
    keeps none: keeping one there fails, and says so."""
    try:
        found = vaultio.read_file(vault, ZONE_FILE, limit=200)
    except (OSError, ValueError):
        return None
    if found is None:
        return None
    return found[0].decode("utf-8", "replace").strip()


def keep_zone(vault: Path, name: str) -> str:
    """Keep ``name`` as the vault's zone; what went wrong, if it could not be (empty: it
    was kept). The run goes on, dated in that zone: the next one tries again."""
    try:
        vaultio.write_file(vault, ZONE_FILE, f"{name}\n".encode())
    except OSError as exc:
        why = os_reason(exc)
        return f"could not keep the vault's time zone ({why}); this run dates its notes in {name}"
    return ""
