"""Gemini CLI chat files into model messages (FORMATS.md §6.1).

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

import base64
import binascii
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from ...errors import Problem, SourceChanged, how_many
from ...model import (
    AttachmentPart,
    Message,
    NoticePart,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from .._jsonl import _lenient, iter_json_objects, iter_jsonl, json_text, parse_timestamp
from .._times import Times
from ..base import read_regular
from . import SOURCE

ASSISTANT_TYPES = ("gemini", "model")  # "model": the API's own role name, seen in old files
NOTICE_TYPES = {"info": "notification", "warning": "notification", "error": "error"}
# The CLI appends the files a prompt @-mentions between these markers (model-facing only).
REFERENCES_START = "--- Content from referenced files ---"
REFERENCES_END = "--- End of content ---"
# What the CLI sends, recorded as a user message, when its next-speaker check finds that the
# model should go on; typed by a person too, at times (the prompt log tells which).
AUTO_CONTINUE = "Please continue."
TYPED_WITHIN = 5.0  # seconds between a prompt's log entry and its chat record


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
                if not isinstance(obj, dict) or obj.get("id") != _message_id(key):
                    why = f"line {number} no longer holds message {key!r}"
                    raise SourceChanged(path, number, number, why)
                waiting[key] = obj
                while turn is not None and turn in waiting:
                    yield turn, waiting.pop(turn)
                    turn = next(order, None)
                if turn is None:
                    return  # every message handed over: the rest of the files is not read
        if turn is not None:
            file_no, number = self.index[turn]
            why = f"message {turn!r} is no longer at line {number}"
            raise SourceChanged(self.paths[file_no], number, number, why)


def load_json(data: bytes) -> Any:
    """A whole JSON document. What orjson refuses (numbers past 64 bits, invalid UTF-8) gets
    a second, lenient read; raises ``orjson.JSONDecodeError`` when it is not JSON (yet)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        doc = _lenient(data)
        if doc is None:
            raise
        return doc


def _read_document(path: Path, chat: Chat, problems: list[Problem]) -> bool:
    try:
        doc = load_json(read_regular(path))
    except orjson.JSONDecodeError as exc:
        # Rewritten whole on every save: a half-written file is read again next run.
        why = f"not complete JSON, perhaps being saved right now; read again next run ({exc})"
        problems.append(Problem(str(path), why, severity="error", source=SOURCE))
        return False
    except OSError as exc:
        problems.append(Problem(str(path), f"unreadable ({exc})", severity="error", source=SOURCE))
        return False
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        why = "not a Gemini CLI chat (no messages list); skipped"
        problems.append(Problem(str(path), why, source=SOURCE))
        return False
    chat.meta.update({k: v for k, v in doc.items() if k != "messages"})
    for i, rec in enumerate(doc["messages"]):
        if isinstance(rec, dict):
            chat.records[str(rec.get("id") or f"{path.name}#{i}")] = rec
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
            chat.first_seen.setdefault(str(obj.get("type")), (path, number, None))
        elif "sessionId" in obj:
            chat.meta.update(obj)
        else:
            why = "neither metadata nor a message, line skipped"
            problems.append(Problem(str(path), why, number, source=SOURCE))


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
    chat.rewound = {kept(key) for key in chat.rewound}
    chat.after_rewind = True


def _message_id(key: str) -> str:
    """The id a record's line holds (a key of a message left behind by a rewind has more)."""
    return key.partition(_KEPT)[0]


@dataclass(slots=True)
class Built:
    messages: list[Message] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    usage: Usage = Usage()
    first: datetime | None = None
    last: datetime | None = None
    times: Times = field(default_factory=Times)  # the times that could not be read


def build_messages(
    chat: Chat, path: Path, problems: list[Problem], children: dict[str, str] | None = None
) -> Built:
    """Model messages for a chat; ``children`` maps a subagent's own id to its session id."""
    out = Built()
    out.messages.extend(iter_messages(chat, path, problems, children, out))
    return out


def iter_messages(
    chat: Chat,
    path: Path,
    problems: list[Problem],
    children: dict[str, str] | None,
    out: Built,
) -> Iterator[Message]:
    """The messages of a chat one by one; times, models and tokens go to ``out``."""
    unknown: dict[str, int] = {}
    for key, rec in chat.records.items():
        kind = str(rec.get("type"))  # whatever it holds, never a key that cannot be looked up
        stamp = rec.get("timestamp")
        when = parse_timestamp(stamp) or out.times.unread(stamp, f"message {_message_id(key)!r}")
        if when:
            out.first = out.first or when
            out.last = when
        if key in chat.rewound:
            # The person went back (/rewind): what followed that point is gone from the log.
            yield Message("system", (NoticePart("rewound"),), f"{key}#rewound", when)
        if kind == "user":
            parts = user_parts(rec)
            if parts and not _auto_continue(chat, parts, when):
                yield Message("user", tuple(parts), key, when)
        elif kind in ASSISTANT_TYPES:
            model = rec["model"] if isinstance(rec.get("model"), str) and rec["model"] else None
            if model and model not in out.models:
                out.models.append(model)
            out.usage = out.usage + _usage(rec.get("tokens"))
            parts = _assistant_parts(rec, key, children or {})
            if parts:
                yield Message("assistant", tuple(parts), key, when, model)
        elif kind in NOTICE_TYPES:
            text = content_text(rec.get("content")).strip()
            if text:
                notice = NoticePart(NOTICE_TYPES[kind], text)  # type: ignore[arg-type]
                yield Message("system", (notice,), key, when)
        else:
            unknown[kind] = unknown.get(kind, 0) + 1
    for kind, count in unknown.items():
        where, line, number = chat.first_seen.get(kind, (path, None, None))
        if number:  # in a document: its message number
            first = "message" if count == 1 else f"{count} messages, the first is message"
            at = f" ({first} {number})"
        else:  # in a JSONL file: the problem's line
            at = how_many(count, "message")
        why = f"unknown message type {kind!r}{at} skipped"
        problems.append(Problem(str(where), why, line, source=SOURCE))


def _auto_continue(chat: Chat, parts: list[Part], when: datetime | None) -> bool:
    """Is this user message the CLI's own "Please continue." (its next-speaker check), not
    the person's? Only when the prompt log holds this session's prompts and none typed
    then: with no log to tell, it is kept as the person's."""
    if len(parts) != 1 or not isinstance(parts[0], TextPart) or parts[0].text != AUTO_CONTINUE:
        return False
    if not chat.log_read:
        chat.log_read = True
        chat.typed_continues = _typed_continues(chat)
    typed = chat.typed_continues
    if typed is None or when is None:
        return False
    return all(abs((when - at).total_seconds()) > TYPED_WITHIN for at in typed)


def _typed_continues(chat: Chat) -> tuple[datetime, ...] | None:
    """When this session's person typed "Please continue.", by the prompt log; None when
    the log is missing or unreadable or holds no prompt of this session."""
    from .stores import read_prompt_log

    session = chat.meta.get("sessionId")
    if chat.prompt_log is None or not isinstance(session, str):
        return None
    entries = (read_prompt_log(chat.prompt_log, []) or {}).get(session)  # (None: no log)
    if not entries:
        return None
    times = (parse_timestamp(e.get("timestamp")) for e in entries if e["message"] == AUTO_CONTINUE)
    return tuple(t for t in times if t is not None)


def content_text(content: Any) -> str:
    """The text of a string, a Part or a Part list (thought parts are not the reply)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    return "".join(
        p["text"]
        for p in content
        if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    )


def strip_references(text: str) -> str:
    """The prompt as typed: the contents of @-mentioned files the CLI appended are dropped
    (the mention itself stays)."""
    start = text.find(REFERENCES_START)
    if start < 0:
        return text
    end = text.find(REFERENCES_END, start)
    rest = text[end + len(REFERENCES_END) :] if end >= 0 else ""
    return (text[:start].rstrip() + ("\n\n" + rest.strip() if rest.strip() else "")).strip()


def user_parts(rec: dict[str, Any]) -> list[Part]:
    """What the person typed: ``displayContent`` when there is one (a string or, like
    ``content``, a Part list: a custom command as typed, not the prompt it expands to),
    else ``content``; images from ``content``."""
    shown = content_text(rec.get("displayContent"))
    text = shown if shown.strip() else content_text(rec.get("content"))
    parts: list[Part] = []
    text = strip_references(text)
    if text.strip():
        parts.append(TextPart(text))
    parts.extend(inline_data(rec.get("content")))
    return parts


def inline_data(content: Any) -> list[Part]:
    """Images and files in a Part list (``inlineData`` base64 parts): pasted into a prompt,
    or returned by a tool (``read_file`` of an image)."""
    out: list[Part] = []
    # A Part list, or a single Part (FORMATS.md §6.1: an image sent alone was lost)
    for part in content if isinstance(content, list) else [content]:
        data = part.get("inlineData") if isinstance(part, dict) else None
        if not isinstance(data, dict) or not isinstance(data.get("data"), str):
            continue
        try:
            raw = base64.b64decode(data["data"], validate=True)
        except (binascii.Error, ValueError):
            continue
        out.append(AttachmentPart(str(data.get("mimeType") or "application/octet-stream"), raw))
    return out


def _assistant_parts(rec: dict[str, Any], key: str, children: dict[str, str]) -> list[Part]:
    parts: list[Part] = [ThinkingPart(t) for t in _thoughts(rec.get("thoughts"))]
    text = content_text(rec.get("content") if "content" in rec else rec.get("parts"))
    if text.strip():
        parts.append(TextPart(text))
    calls = rec.get("toolCalls")
    for n, call in enumerate(calls if isinstance(calls, list) else []):
        if not isinstance(call, dict):
            continue
        call_id = str(call.get("id") or f"{key}-call-{n}")
        agent = call.get("agentId")
        parts.append(
            ToolCallPart(
                str(call.get("name") or call.get("displayName") or "tool"),
                call.get("args"),
                call_id,
                subagent_id=children.get(agent) if isinstance(agent, str) else None,
            )
        )
        result = _result(call, call_id)
        if result:
            parts.append(result)
        parts.extend(inline_data(call.get("result")))  # an image a tool read, for instance
    return parts


def _thoughts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    out = []
    for thought in value if isinstance(value, list) else []:
        if not isinstance(thought, dict):
            continue
        pieces = [thought.get("subject"), thought.get("description")]
        text = "\n\n".join(p.strip() for p in pieces if isinstance(p, str) and p.strip())
        if text:
            out.append(text)
    return out


def _result(call: dict[str, Any], call_id: str) -> ToolResultPart | None:
    outputs: list[str] = []
    failed = call.get("status") in ("error", "cancelled")
    for part in call.get("result") if isinstance(call.get("result"), list) else []:
        if not isinstance(part, dict):
            continue
        response = part.get("functionResponse")
        if isinstance(response, dict):
            body = response.get("response")
            if isinstance(body, dict):
                if isinstance(body.get("output"), str):
                    outputs.append(body["output"])
                elif isinstance(body.get("error"), str):
                    outputs.append(body["error"])
                    failed = True
                elif body:
                    outputs.append(json_text(body))
        elif isinstance(part.get("text"), str):
            outputs.append(part["text"])
    if not outputs and isinstance(call.get("resultDisplay"), str) and call["resultDisplay"]:
        outputs.append(call["resultDisplay"])
    if not outputs and not failed:
        return None
    return ToolResultPart("\n".join(outputs), call_id, is_error=failed)


def _usage(tokens: Any) -> Usage:
    if not isinstance(tokens, dict):
        return Usage()
    cached = _int(tokens.get("cached"))
    # The tool-use prompt's tokens (``tool``) are counted apart from ``input``, in ``total``
    return Usage(
        max(0, _int(tokens.get("input")) + _int(tokens.get("tool")) - cached),
        _int(tokens.get("output")) + _int(tokens.get("thoughts")),
        cached,
    )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
