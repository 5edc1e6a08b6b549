"""Codex's ``history.jsonl``: one line appended per prompt submitted, in any thread,
``{"session_id", "ts", "text"}`` with ``ts`` in Unix seconds (FORMATS.md §2.1).

Read only for a rollout whose lines carry no time, the early formats (§2.10): their header
holds the start alone, and the last prompt Codex logged for the thread is the last time
known of it (its ``updated``). The rollout's own file time is no witness: a copy or a sync
gives it a new one."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import Problem
from ..model import Session
from ._jsonl import parse_timestamp
from ._values import json_kind
from .base import cannot_read
from .codex_index import read_lines

SOURCE = "codex"


def read_prompt_times(path: Path) -> tuple[dict[str, datetime], Problem | None]:
    """The time of each thread's last prompt in ``history.jsonl`` (id lowercased). An absent
    file is nothing missing (a Codex told to keep no history writes none); one that is there
    but cannot be read, or holds damaged lines, is a warning (what those held is left out).
    A last line that is not JSON and has no newline yet (being appended) is passed over."""
    last: dict[str, datetime] = {}
    try:
        damaged = read_lines(path, lambda raw: _history_entry(raw, last))
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        return {}, Problem(str(path), f"{cannot_read(exc)}; {_THEN}", source=SOURCE)
    if damaged is None:
        return last, None
    number, why = damaged
    return last, Problem(str(path), f"{why}; {_THEN}", number, source=SOURCE)


_THEN = "the prompt times it gives (the end of a rollout that has no times) are left out"


def _history_entry(entry: dict[str, Any], last: dict[str, datetime]) -> str | None:
    """Read one line of the history into ``last``; what is wrong with it, if any."""
    sid, ts = entry.get("session_id"), entry.get("ts")
    if sid is None or ts is None:
        return f"a line with no {'session_id' if sid is None else 'ts'}"
    if not isinstance(sid, str):
        return f"a line whose session_id is {json_kind(sid)}, not text"
    number = type(ts) in (int, float)  # (not a boolean)
    when = parse_timestamp(ts) if number else None
    if when is None:
        kind = f"the number {ts}" if number else json_kind(ts)
        return f"a line whose ts is {kind}, not a time"
    key = sid.lower()
    if key not in last or when > last[key]:
        last[key] = when
    return None


def last_prompts(roots: list[Path], problems: list[Problem]) -> dict[str, datetime]:
    """Each thread's last prompt in the ``history.jsonl`` of each Codex folder, the latest
    of them; what is wrong with a history goes to ``problems``."""
    found: dict[str, datetime] = {}
    for root in roots:
        times, unread = read_prompt_times(root / "history.jsonl")
        for sid, when in times.items():
            if sid not in found or when > found[sid]:
                found[sid] = when
        if unread is not None:
            problems.append(unread)
    return found


def ended_by(session: Session, last: dict[str, datetime]) -> Session:
    """The session ending at its thread's last prompt, when that is later than its start."""
    when = last.get(session.session_id)
    if when is None or session.started_at is None or when <= session.started_at:
        return session  # (only the start known: never a span of no length)
    return replace(session, ended_at=when)
