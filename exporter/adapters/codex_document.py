"""The TypeScript CLI's rollouts: one JSON document, ``{session, items}`` (FORMATS.md §2.10),
read as the records of the later JSONL formats, and its problems placed by item."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..errors import Problem
from ._values import json_kind
from .base import cannot_read, read_regular

if TYPE_CHECKING:  # (the scan is imported when a rollout is read, not at start-up)
    from .codex_scan import Record

SOURCE = "codex"


def document_records(path: Path, problems: list[Problem]) -> list[Record]:
    """The TypeScript CLI's single JSON document: ``{session, items}``."""
    try:
        doc = orjson.loads(read_regular(path))
    except OSError as exc:  # (its strerror: the exception's text repeats the path)
        problems.append(Problem(str(path), cannot_read(exc), source=SOURCE))
        return []
    except orjson.JSONDecodeError as exc:
        problems.append(Problem(str(path), f"not a readable JSON document ({exc})", source=SOURCE))
        return []
    if not isinstance(doc, dict):
        problems.append(Problem(str(path), "not a Codex session document", source=SOURCE))
        return []
    out: list[Record] = []
    session, items = doc.get("session"), doc.get("items")
    if isinstance(session, dict):
        out.append((1, "session_meta", session, session.get("timestamp")))
    elif session is not None:
        why = f"its session is {json_kind(session)}, not an object: its id and start left out"
        problems.append(Problem(str(path), why, source=SOURCE))
    if not isinstance(items, list):
        if items is not None:
            why = f"its items are {json_kind(items)}, not a list: the session holds none"
            problems.append(Problem(str(path), why, source=SOURCE))
        items = []
    for i, item in enumerate(items, start=2):
        if isinstance(item, dict):
            out.append((i, "response_item", item, None))
        else:
            why = f"unexpected shape (an item that is {json_kind(item)}), line skipped"
            problems.append(Problem(str(path), why, i, source=SOURCE, left_out=True))
    return out


def placed_in_document(problem: Problem, path: str) -> Problem:
    """A problem of the TypeScript CLI's document, placed by its record: 1 is the
    ``session``, 2 on are ``items[0]`` on (``document_records``). As a line number it would
    point at the wrong line of the document (often one line), so the place goes into the
    message instead."""
    if problem.path != path or problem.line is None:
        return problem
    place = "the session" if problem.line == 1 else f"items[{problem.line - 2}]"
    message = problem.message.replace("line skipped", "item skipped")
    if "lines, the first here" in message:
        message = message.replace("lines, the first here", f"items, the first at {place}")
    else:
        message = f"{message} (at {place})"
    return replace(problem, message=message, line=None)
