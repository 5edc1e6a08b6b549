"""Links from a session to its day's note in Obsidian's Daily notes plugin.

The plugin keeps its settings in ``.obsidian/daily-notes.json``: ``folder`` (may be empty)
and ``format``, a Moment.js date format (default ``YYYY-MM-DD``; ``/`` in it makes
subfolders). A session's ``day`` property is a path-qualified wikilink to the note the
plugin would open for the session's first day, so that note's backlinks list the session.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from . import vaultio

DEFAULT_FORMAT = "YYYY-MM-DD"
PLUGIN_FILE = ".obsidian/daily-notes.json"
CORE_PLUGINS_FILE = ".obsidian/core-plugins.json"
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# Moment.js tokens, longest first; [text] is literal; any other character stays as it is.
_TOKEN = re.compile(r"\[[^\]]*\]|YYYY|YY|Q|MMMM|MMM|MM|M|Do|DDDD|DDD|DD|D|dddd|ddd|dd|d")


@dataclass(frozen=True, slots=True)
class DailyNotes:
    folder: str = ""
    format: str = DEFAULT_FORMAT

    def note_path(self, day: date) -> str:
        """The daily note's path in the vault, without ``.md``."""
        name = format_date(day, self.format or DEFAULT_FORMAT).strip("/")
        return f"{self.folder}/{name}" if self.folder else name

    def link(self, day: date) -> str:
        """``[[Journal/2026-11-20|2026-11-20]]``: resolves to that note wherever it sits."""
        path = self.note_path(day)
        shown = path.rsplit("/", 1)[-1]
        return f"[[{path}]]" if shown == path else f"[[{path}|{shown}]]"


def format_date(day: date, pattern: str) -> str:
    """``day`` in a Moment.js format (English names, as Obsidian's default locale)."""

    def token(m: re.Match[str]) -> str:
        t = m.group(0)
        if t.startswith("["):
            return t[1:-1]
        weekday = day.weekday()
        return {
            "YYYY": f"{day.year:04d}",
            "YY": f"{day.year % 100:02d}",
            "Q": str((day.month - 1) // 3 + 1),
            "MMMM": _MONTHS[day.month - 1],
            "MMM": _MONTHS[day.month - 1][:3],
            "MM": f"{day.month:02d}",
            "M": str(day.month),
            "Do": _ordinal(day.day),
            "DDDD": f"{day.timetuple().tm_yday:03d}",
            "DDD": str(day.timetuple().tm_yday),
            "DD": f"{day.day:02d}",
            "D": str(day.day),
            "dddd": _DAYS[weekday],
            "ddd": _DAYS[weekday][:3],
            "dd": _DAYS[weekday][:2],
            "d": str((weekday + 1) % 7),  # Moment: Sunday is 0
        }[t]

    return _TOKEN.sub(token, pattern)


def _ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def daily_notes(
    vault: Path, enabled: bool | None, folder: str | None, fmt: str | None
) -> DailyNotes | None:
    """The daily notes to link to, or None. ``enabled`` None: on when the vault has the
    plugin configured, or when the config names a folder or format; True/False decide."""
    plugin = _plugin_settings(vault)
    if enabled is False:
        return None
    if enabled is None and plugin is None and folder is None and fmt is None:
        return None
    plugin = plugin or {}
    chosen_folder = folder if folder is not None else plugin.get("folder", "")
    chosen_format = fmt or plugin.get("format") or DEFAULT_FORMAT
    return DailyNotes(str(chosen_folder).strip().strip("/"), str(chosen_format).strip())


def _plugin_settings(vault: Path) -> dict[str, str] | None:
    """The plugin's folder and format, or None when it is not set up (or switched off)."""
    settings = _read_json(vault, PLUGIN_FILE)
    if not isinstance(settings, dict):
        return None
    core = _read_json(vault, CORE_PLUGINS_FILE)
    # core-plugins.json: a list of enabled plugins (older) or {id: enabled} (newer).
    if isinstance(core, list) and "daily-notes" not in core:
        return None
    if isinstance(core, dict) and core.get("daily-notes") is False:
        return None
    return {k: v for k, v in settings.items() if k in ("folder", "format") and isinstance(v, str)}


def _read_json(vault: Path, relpath: str) -> object:
    try:
        found = vaultio.read_file(vault, relpath, limit=1 << 20)
    except OSError:  # a link or FIFO planted there, or unreadable: as if absent
        return None
    if found is None:
        return None
    try:
        return json.loads(found[0].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
