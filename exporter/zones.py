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
from dataclasses import replace
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from . import vaultio
from .state import STATE_DIR

if TYPE_CHECKING:
    from .options import ExportOptions

ZONE_FILE = f"{STATE_DIR}/zone"
_LOCALTIME = Path("/etc/localtime")
_TIMEZONE_FILE = Path("/etc/timezone")  # Debian's and Ubuntu's name of the zone


def named_zone(name: str) -> tzinfo | None:
    """The zone of that IANA name, or None."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if not name or name.startswith("/") or ".." in name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def machine_zone_name(
    env: dict[str, str] | os._Environ[str] = os.environ,
    localtime: Path = _LOCALTIME,
    timezone_file: Path = _TIMEZONE_FILE,
) -> str | None:
    """The IANA name of the zone this process's local time is in, where it has one: ``TZ``
    when set, else what ``/etc/localtime`` links to (Linux, macOS), else
    ``/etc/timezone``."""
    if "TZ" in env:
        name = env["TZ"].removeprefix(":") or "UTC"  # an empty TZ is UTC
        if "zoneinfo/" in name:  # a file of the zone database, by its path
            name = name.split("zoneinfo/", 1)[1]
        return name if named_zone(name) else None
    try:
        target = os.path.realpath(localtime)
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        name = target.split("zoneinfo/", 1)[1].removeprefix("posix/").removeprefix("right/")
        if named_zone(name):
            return name
    try:
        name = timezone_file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return name if named_zone(name) else None


def with_vault_zone(options: ExportOptions, machine: str | None) -> tuple[ExportOptions, str]:
    """``options`` with the vault's zone (``local_zone``), ``timezone`` that zone where
    they name none, and a wall-clock ``since`` (a date) made midnight in the notes' zone;
    and the name to keep in the vault (empty: it keeps one already, or ``machine``, this
    machine's zone by name, is none). A zone kept whose name this machine does not know is
    taken as none kept."""
    kept = kept_zone(options.vault)
    zone = named_zone(kept) if kept else None
    keep = ""
    if zone is None and machine and (zone := named_zone(machine)) is not None:
        keep = machine
    since = options.since  # a wall-clock --since (a date): midnight where the notes' days are
    if since is not None and since.tzinfo is None:
        dated = options.timezone or zone
        since = since.replace(tzinfo=dated) if dated else since.astimezone()
    if zone is None:
        return replace(options, since=since), ""
    timezone = options.timezone or zone
    return replace(options, local_zone=zone, timezone=timezone, since=since), keep


def kept_zone(vault: Path) -> str:
    """The zone's name the vault keeps (empty: none)."""
    try:
        found = vaultio.read_file(vault, ZONE_FILE, limit=200)
    except (OSError, ValueError):  # not a file (a link, a folder): as if none were kept
        return ""
    if found is None:
        return ""
    try:
        return found[0].decode("utf-8").strip()
    except UnicodeDecodeError:
        return ""


def keep_zone(vault: Path, name: str) -> None:
    """Keep ``name`` as the vault's zone."""
    vaultio.write_file(vault, ZONE_FILE, f"{name}\n".encode())
