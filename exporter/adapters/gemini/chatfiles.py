"""Gemini CLI chat files read into one ``Chat`` (FORMATS.md §6.1).

Two shapes: the legacy whole document ``{sessionId, projectHash, startTime, lastUpdated,
messages[], summary?}``, rewritten on every save, and the JSONL log, whose lines are a
metadata header, message records (upserted by ``id``: a later line with the same id replaces
the earlier one when results or tokens arrive), ``{"$set": {…}}`` metadata merges and
``{"$rewindTo": id}`` rewinds. Several files of one session are read in order into one
``Chat``, so a legacy file and the ``.jsonl`` it was migrated to count once.

A long session of JSONL files is indexed instead (``read_chat(..., index=True)``): each
record's id keeps its place and the line of its last value, and ``StreamedRecords`` reads
those values again, in order, each time the records are iterated.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from ...errors import Problem, SourceChanged
from .._jsonl import _lenient, damage_said, iter_json_objects, iter_jsonl
from .._values import quoted
from ..base import read_regular
from . import SOURCE


@dataclass(slots=True)
class Chat:
    """What the files of one session say: metadata and messages by id, in order."""

    meta: dict[str, Any] = field(default_factory=dict)
    records: Any = field(default_factory=dict)  # id -> record, or StreamedRecords
    # Messages the conversation went on with after a rewind dropped later ones.
    rewound: set[str] = field(default_factory=set)
    after_rewind: bool = False  # a rewind dropped messages; the next new one continues
    rewinds: int = 0
    # The project's prompt log (logs.json), and when this session's person typed the CLI's
    # own continuation prompt there: read when the chat first holds that prompt.
    prompt_log: Path | None = None
    typed_continues: tuple[datetime, ...] | None = None  # None: the log cannot tell
    log_read: bool = False
    # Where each message type was first seen, for a warning that can be followed up: a
    # JSONL file's line, or a document's message number (from 1).
    first_seen: dict[str, tuple[Path, int | None, int | None]] = field(default_factory=dict)
    # Where each record's value was read (message key -> file, and its line in a JSONL file:
    # the last line of its id, the one whose value the record holds), for a warning about it.
    where: dict[str, tuple[Path, int | None]] = field(default_factory=dict)

    def place(self, key: str, default: Path) -> tuple[Path, int | None]:
        """The file and line of the record ``key`` (``default`` and no line if unknown)."""
        return self.where.get(key, (default, None))


def read_chat(
    paths: Iterable[Path], problems: list[Problem], *, index: bool = False
) -> Chat | None:
    """One session's files merged; None when none of them could be read (retry next run).
    With ``index`` (JSONL files only), records are read again when iterated, not held."""
    chat = Chat()
    read_any = False
    paths = list(paths)
    index = index and all(p.suffix == ".jsonl" for p in paths)  # a document is one value
    for file_no, path in enumerate(paths):
        if path.suffix == ".jsonl":
            _read_jsonl(path, chat, problems, file_no if index else None)
            read_any = True
        elif _read_document(path, chat, problems):
            read_any = True
    if index:
        chat.records = StreamedRecords(paths, chat.records)
    return chat if read_any else None


class StreamedRecords:
    """The records of a chat's JSONL files, read again each time they are iterated: for
    each id in its place, the value of the line the index found last for it (a line whose
    id no longer matches means the files changed since: SourceChanged)."""

    def __init__(self, paths: list[Path], index: dict[str, tuple[int, int]]) -> None:
        self.paths = paths
        self.index = index

    def __len__(self) -> int:
        return len(self.index)

    def values(self) -> Iterator[dict[str, Any]]:
        return (rec for _, rec in self.items())

    def items(self) -> Iterator[tuple[str, dict[str, Any]]]:
        wanted = {where: key for key, where in self.index.items()}
        order = iter(self.index)
        waiting: dict[str, dict[str, Any]] = {}  # read before their turn (updated later)
        turn = next(order, None)
        for file_no, path in enumerate(self.paths):
            for number, obj in iter_jsonl(path, [], SOURCE):
                key = wanted.get((file_no, number))
                if key is None:
                    continue
                if not isinstance(obj, dict) or obj.get("id") != message_id(key):
                    why = f"line {number} no longer holds message {quoted(key)}"
                    raise SourceChanged(path, number, number, why)
                waiting[key] = obj
                while turn is not None and turn in waiting:
                    yield turn, waiting.pop(turn)
                    turn = next(order, None)
                if turn is None:
                    return  # every message handed over: the rest of the files is not read
        if turn is not None:
            file_no, number = self.index[turn]
            why = f"message {quoted(turn)} is no longer at line {number}"
            raise SourceChanged(self.paths[file_no], number, number, why)


def load_json(data: bytes, odd: list[str] | None = None) -> Any:
    """A whole JSON document. What orjson refuses (numbers past 64 bits, invalid UTF-8) gets
    a second, lenient read; raises ``orjson.JSONDecodeError`` when it is not JSON (yet)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        doc = _lenient(data)
        if doc is None:
            raise
        if odd is not None:
            odd += damage_said(data)
        return doc


def _read_document(path: Path, chat: Chat, problems: list[Problem]) -> bool:
    odd: list[str] = []
    try:
        doc = load_json(read_regular(path), odd)
    except orjson.JSONDecodeError as exc:
        # Rewritten whole on every save: a half-written file is read again next run.
        why = f"not complete JSON, perhaps being saved right now; read again next run ({exc})"
        problems.append(Problem(str(path), why, severity="error", source=SOURCE))
        return False
    except OSError as exc:
        problems.append(Problem(str(path), f"unreadable ({exc})", severity="error", source=SOURCE))
        return False
    problems += [Problem(str(path), why, source=SOURCE) for why in odd]
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        why = "not a Gemini CLI chat (no messages list); skipped"
        problems.append(Problem(str(path), why, source=SOURCE))
        return False
    chat.meta.update({k: v for k, v in doc.items() if k != "messages"})
    for i, rec in enumerate(doc["messages"]):
        if isinstance(rec, dict):
            key = str(rec.get("id") or f"{path.name}#{i}")
            chat.records[key] = rec
            chat.where[key] = (path, None)  # a document's value: no line of its own
            chat.first_seen.setdefault(str(rec.get("type")), (path, None, i + 1))
        else:
            why = f"message {i + 1} is not a JSON object ({type(rec).__name__}); skipped"
            problems.append(Problem(str(path), why, source=SOURCE))
    return True


def _read_jsonl(path: Path, chat: Chat, problems: list[Problem], file_no: int | None) -> None:
    """A JSONL file into ``chat``; with ``file_no``, records as where they are, not values."""
    for number, obj in iter_json_objects(path, problems, SOURCE):
        if isinstance(obj.get("$set"), dict):
            chat.meta.update(obj["$set"])
        elif "$rewindTo" in obj and isinstance(obj["$rewindTo"], str | None):
            _rewind(chat, obj["$rewindTo"])
        elif isinstance(obj.get("id"), str):
            if chat.after_rewind and obj["id"] not in chat.records:
                chat.rewound.add(obj["id"])
                chat.after_rewind = False
            # A known id keeps its place and takes the new value.
            chat.records[obj["id"]] = obj if file_no is None else (file_no, number)
            chat.where[obj["id"]] = (path, number)
            chat.first_seen.setdefault(str(obj.get("type")), (path, number, None))
        elif "sessionId" in obj:
            chat.meta.update(obj)
        else:
            why = "neither metadata nor a message, line skipped"
            problems.append(Problem(str(path), why, number, source=SOURCE, left_out=True))


# A message a rewind went back on, kept in its place under a key of its own: "<id>#rewound-1".
_KEPT = "#rewound-"


def _rewind(chat: Chat, target: Any) -> None:
    """``$rewindTo``: the conversation goes on from before ``target`` (from its start if it
    is unknown). Gemini drops what follows; the note keeps it where it was, as every other
    source's note keeps what the person went back on, and marks where the conversation went
    on. A message coming again with an id left behind is a new one."""
    live = [key for key in chat.records if _KEPT not in key]
    start = live.index(target) if target in live else 0
    left = set(live[start:])
    if not left:
        return
    chat.rewinds += 1

    def kept(key: str) -> str:
        return f"{key}{_KEPT}{chat.rewinds}" if key in left else key

    chat.records = {kept(key): value for key, value in chat.records.items()}
    chat.where = {kept(key): value for key, value in chat.where.items()}
    chat.rewound = {kept(key) for key in chat.rewound}
    chat.after_rewind = True


def message_id(key: str) -> str:
    """The id a record's line holds (a key of a message left behind by a rewind has more)."""
    return key.partition(_KEPT)[0]
