"""A Codex rollout's files: found on disk (``sessions/`` and ``archived_sessions/``, at any
depth, plain or compressed), named by their thread's id, and read record by record, whatever
the generation (FORMATS.md §2; ``codex.py`` reads them into sessions)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from ..errors import Problem
from ._jsonl import MAX_LINE_BYTES, iter_json_objects
from ._values import json_kind
from .base import open_regular
from .codex_document import document_records

SOURCE = "codex"
_ID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", re.I)
Record = tuple[int, str, dict[str, Any], Any]  # (line, kind, payload, timestamp)


def rollout_files(root: Path) -> list[Path]:
    files: dict[str, Path] = {}
    for base in (root / "sessions", root / "archived_sessions"):
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            # A folder with a rollout's name is listed too: reading it says what it is
            named = (d for d in dirnames if d.endswith(ROLLOUT_SUFFIXES))
            for name in sorted([*filenames, *named]):
                if not name.startswith("rollout-"):
                    continue
                if name.endswith((".jsonl", ".json")):
                    files[str(Path(dirpath) / name)] = Path(dirpath) / name
                elif name.endswith(".jsonl.zst") and name[:-4] not in filenames:
                    files[str(Path(dirpath) / name)] = Path(dirpath) / name
    return list(files.values())


ROLLOUT_SUFFIXES = (".jsonl", ".json", ".jsonl.zst")


def id_from_name(name: str) -> str | None:
    found = _ID.findall(name)
    return found[-1].lower() if found else None


Record = tuple[int, str, dict[str, Any], Any]  # (line, kind, payload, timestamp)


def rollout_records(path: Path, problems: list[Problem]) -> list[Record]:
    """``(line, kind, payload, timestamp)`` for every line, whatever the generation."""
    if path.suffix == ".json":
        return document_records(path, problems)
    return list(iter_records(path, problems))


def subagent_meta(path: Path) -> dict[str, Any] | None:
    """A rollout's first record, when it is the ``session_meta`` of a subagent's thread (it
    holds ``"subagent"``; the caller asks whom it names); None for any other, or a first
    line that cannot be read (the load's to say)."""
    if path.suffix == ".json":  # the TypeScript CLI's: it spawned no subagents
        return None
    try:
        if path.suffix == ".zst":
            records = iter_records(path, [], 0, 1)
            try:
                first = next(records, None)
            finally:
                records.close()
        else:
            line = first_line(path)  # (not a whole read-ahead chunk of every rollout)
            if b'"subagent"' not in line:
                return None  # most rollouts: no parse
            obj = orjson.loads(line)
            first = (1, obj.get("type"), obj.get("payload")) if type(obj) is dict else None
    except Exception:  # noqa: BLE001  (read in its turn, which reports what is wrong)
        return None
    if first is None or first[1] != "session_meta" or not isinstance(first[2], dict):
        return None
    return first[2]


def first_line(path: Path, step: int = 64 * 1024) -> bytes:
    """A rollout's first line, read in small steps (a session_meta is some tens of kB)."""
    pieces: list[bytes] = []
    with open_regular(path) as f:
        while (piece := f.read(step)) and b"\n" not in piece:
            pieces.append(piece)
            if len(pieces) * step > MAX_LINE_BYTES:
                return b""
        pieces.append(piece.split(b"\n", 1)[0])
    return b"".join(pieces)


def iter_records(
    path: Path, problems: list[Problem], skip: int = 0, stop: int | None = None
) -> Iterator[Record]:
    """The records of a JSONL rollout one at a time: from the ``skip``-th on, and with
    ``stop``, only up to that line."""
    index = 0
    for number, obj in iter_json_objects(path, problems, SOURCE, stop):
        kind, why = obj.get("type"), None
        if "payload" in obj:
            if not isinstance(kind, str):
                why = f"its record type is {json_kind(kind)}, not text"
            elif not isinstance(obj["payload"], dict):
                why = f"its payload is {json_kind(obj['payload'])}, not an object"
            else:
                record: Record = (number, kind, obj["payload"], obj.get("timestamp"))
        elif "record_type" in obj:
            continue  # early Rust filler
        elif isinstance(kind, str):
            record = (number, "response_item", obj, None)  # a bare early-Rust item
        elif "id" in obj and "timestamp" in obj:
            record = (number, "session_meta", obj, obj.get("timestamp"))  # early-Rust header
        else:
            why = "no record type" if kind is None else f"its type is {json_kind(kind)}, not text"
        if why is not None:  # (still a record: the records' count places a fork's replay)
            record = (number, "skip", {}, None)
            problems.append(Problem(str(path), f"unexpected shape ({why}), line skipped",
                                    number, source=SOURCE, left_out=True))  # fmt: skip
        index += 1
        if index > skip:
            yield record
