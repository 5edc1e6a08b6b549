"""Codex's ``session_index.jsonl``: the thread names set by a rename or auto-naming, one
line appended per change, the newest line for an id winning (FORMATS.md §2.1, §2.9)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from ..errors import Problem, how_many
from ._values import json_kind
from .base import cannot_read, index_unreadable, open_regular

SOURCE = "codex"


def read_titles(path: Path) -> tuple[dict[str, str], Problem | None]:
    """Thread names from ``session_index.jsonl``; the newest line for an id wins. A last
    line that is not JSON and has no newline yet (one being appended) is passed over; a
    file that is there but cannot be read, or a line that is damaged, is a warning (a title
    it held is kept from the last run)."""
    titles: dict[str, tuple[str, str]] = {}
    try:
        damaged = read_lines(path, lambda raw: _index_entry(raw, titles))
    except FileNotFoundError:
        return {}, None  # no index (an older Codex): nothing is missing
    except OSError as exc:
        return {}, index_unreadable(SOURCE, path, cannot_read(exc), "titles")
    found = {sid: name for sid, (_, name) in titles.items()}
    if damaged is None:
        return found, None
    number, why = damaged
    return found, replace(index_unreadable(SOURCE, path, why, "titles"), line=number)


NOT_JSON = "a line that is not JSON"


def _object_of(raw: bytes, read: Callable[[dict[str, Any]], str | None]) -> str | None:
    if not raw.strip():
        return None
    try:
        entry = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return NOT_JSON
    if not isinstance(entry, dict):
        return f"a line that is {json_kind(entry)}, not an object"
    return read(entry)


def read_lines(path: Path, read: Callable[[dict[str, Any]], str | None]) -> tuple[int, str] | None:
    """Give each object of a JSONL file Codex appends to ``read``, which says what is wrong
    with it, if anything: the first damaged line and what is wrong (with how many there
    are), or None. Blank lines are passed over, and a last line that is not JSON and has
    no newline yet (one being appended). Raises what opening the file raises."""
    damaged: list[tuple[int, str]] = []  # (line, what is wrong)
    with open_regular(path) as f:
        for number, raw in enumerate(f, start=1):
            why = _object_of(raw, read)
            if why is not None and (raw.endswith(b"\n") or why != NOT_JSON):
                damaged.append((number, why))
    if not damaged:
        return None
    number, why = damaged[0]
    return number, why + how_many(len(damaged), "damaged line")


def _index_entry(entry: dict[str, Any], titles: dict[str, tuple[str, str]]) -> str | None:
    """Read one line of the session index into ``titles``; what is wrong with it, if any."""
    sid, name, stamp = entry.get("id"), entry.get("thread_name"), entry.get("updated_at")
    for key, value in (("id", sid), ("thread_name", name)):
        if value is not None and not isinstance(value, str):
            return f"a line whose {key} is {json_kind(value)}, not text"
    if isinstance(sid, str) and isinstance(name, str) and name.strip():
        key, when = sid.lower(), stamp if isinstance(stamp, str) else ""
        if key not in titles or when >= titles[key][0]:
            titles[key] = (when, name.strip())
    if stamp is not None and not isinstance(stamp, str):  # (its title is taken all the same)
        return f"a line whose updated_at is {json_kind(stamp)}, not text"
    return None
