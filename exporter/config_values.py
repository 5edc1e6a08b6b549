"""One setting's value checked and read: a choice of "Notes to taste", a size, a folder
inside the vault, a date or time ago (``since``), a time zone. ``fail(key, why)`` makes the
error that names the file and the line (config.py)."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .errors import ConfigError

# "Notes to taste": how much of each turn a note shows (the first value is the default).
VIEW_CHOICES = {
    "tool_output": ("full", "head", "none"),
    "thinking": ("folded", "shown", "hidden"),
    "tools": ("full", "summary", "hidden"),
}
_RELATIVE = re.compile(r"^(\d+)\s*(min|mo|[hdwmy])$")
_UNITS = {
    "min": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(weeks=1),
    "mo": timedelta(days=30),
    "y": timedelta(days=365),  # (review35 15: `--since 1y` was refused)
}


def did_you_mean(word: str, choices: Any) -> str:
    """`` (did you mean dataview?)`` for the choice nearest a mistyped key, or ``""``."""
    near = nearest(word, choices)
    return f" (did you mean {near}?)" if near else ""


def nearest(word: str, choices: Any) -> str | None:
    """The choice nearest a mistyped ``word``, whatever the case of either
    (``europe/berln`` -> ``Europe/Berlin``), or None when none is near."""
    from difflib import get_close_matches

    spelled = {str(choice).lower(): str(choice) for choice in choices}
    near = get_close_matches(str(word).lower(), list(spelled), n=1, cutoff=0.6)
    return spelled[near[0]] if near else None


def view_setting(key: str, value: Any, fail: Any) -> Any:
    """One of the settings of "Notes to taste", checked."""
    if key == "todo_as_checklist":
        if not isinstance(value, bool):
            raise fail(key, "must be true or false")
        return value
    if key == "tool_output_lines":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise fail(key, "must be a number of lines, 1 or more")
        return value
    if value not in VIEW_CHOICES[key]:
        raise fail(key, f"must be one of {', '.join(VIEW_CHOICES[key])}, not {value!r}")
    return value


def byte_size(key: str, value: Any, fail: Any) -> int:
    """A size in bytes: ``4194304``, ``"4 MB"`` or ``"500 KB"`` (powers of 1024)."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)B?\s*", str(value), re.IGNORECASE)
    if isinstance(value, bool) or not isinstance(value, int | str) or not m:
        raise fail(key, 'must be a size such as 4194304, "4 MB" or "500 KB"')
    size = int(m.group(1)) * 1024 ** " KMG".index(m.group(2).upper() or " ")
    if size < 64 * 1024:
        raise fail(key, "must be at least 64 KB")
    return size


def string_value(key: str, value: Any, fail: Any) -> str:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value.strip():
        raise fail(key, "must be a non-empty string")
    return value


def relative_path(base: Path, text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else base / path


# The folders a full path starts with on Linux, macOS, BSD and Cygwin: the same answer on
# every machine (a vault's config may be synced to several).
_SYSTEM_ROOTS = frozenset(
    "Applications bin boot cygdrive dev etc home lib media mnt net opt private proc root "
    "run sbin srv sys System tmp Users usr var Volumes".split()
)


def full_path(text: str) -> bool:
    """Does a ``folder`` or ``attachments`` setting name a folder outside the vault? ``~``,
    a drive, a share, or a path from ``/`` into a system's own folders (``/tmp/x``,
    ``/home/me``): ``/AI Sessions`` reads as the vault's own, as it always did."""
    text = text.strip()
    if re.match(r"(~|[A-Za-z]:|\\\\|//)", text):
        return True
    first = text.lstrip("/\\").replace("\\", "/").split("/")[0]
    return text[:1] in "/\\" and first in _SYSTEM_ROOTS


def parse_since(text: str, fail: Any = None) -> datetime:
    """``2026-11-01``, ``2026-11-01T08:00`` or ``30min`` / ``12h`` / ``7d`` / ``2w`` / ``3mo``
    / ``1y`` ago."""
    text = text.strip()
    m = _RELATIVE.match(text)
    if m and m.group(2) == "m":  # minutes or months? Both are read from "m" somewhere
        error = (
            f"is ambiguous: {text!r} (write {m.group(1)}min for minutes, {m.group(1)}mo for months)"
        )
        raise fail("since", error) if fail else ConfigError(f"--since {error}")
    if m:
        try:
            return datetime.now(UTC) - int(m.group(1)) * _UNITS[m.group(2)]
        except OverflowError:  # before the year 1
            error = f"is too far back: {text!r} (to export everything, leave `since` out)"
            raise (fail("since", error) if fail else ConfigError(f"--since {error}")) from None
    try:
        when = datetime.fromisoformat(text)
        if when.tzinfo is None:
            # A wall-clock date stays naive: options.py reads it in --timezone (else the
            # machine's), the zone the notes' days are in. This only checks it has a time.
            when.astimezone()
        return when
    except (ValueError, OverflowError, OSError):  # OverflowError: year 1 in a local time
        error = f"is not a date: {text!r} (use 2026-11-01 or 30min, 12h, 7d, 2w, 3mo, 1y)"
        raise (fail("since", error) if fail else ConfigError(f"--since {error}")) from None


def unknown_zone(name: str) -> str | None:
    """Why ``name`` is not a time zone, with the zone's name it may have meant (``is not a
    known time zone: 'Europe/Berln' (did you mean Europe/Berlin?)``), or None when it is one."""
    from zoneinfo import available_timezones

    try:
        zone_or_fail(name, ConfigError(name))
    except ConfigError:
        return f"is not a known time zone: {name!r}{did_you_mean(name, available_timezones())}"
    return None


def zone_or_fail(name: str, error: ConfigError) -> Any:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise error from None
