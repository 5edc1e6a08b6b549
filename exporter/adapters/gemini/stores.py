"""The other Gemini CLI stores: the project registry, ``logs.json`` and ``/chat save``
checkpoints (FORMATS.md §6.1)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import orjson

from ...errors import Problem, clipped
from ...model import (
    CommandPart,
    Message,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from .._jsonl import json_text, parse_timestamp
from .._times import Times
from .._values import json_kind, quoted, tool_name
from ..base import read_regular
from . import SOURCE
from .chatfiles import load_json
from .damage import odd_parts
from .prompts import content_text, inline_data, strip_references

HASH_DIR = re.compile(r"[0-9a-f]{64}")
_ABSOLUTE = re.compile(r"(?:[A-Za-z]:\\|/)[^\s\"'`<>|*?]+")
# The first turn of every API history: environment facts the CLI sends, and the model's ack.
_SETUP_PROMPT = "This is the Gemini CLI. We are setting up the context for our chat."
_SETUP_REPLY = "Got it. Thanks for the context!"


def read_registry(path: Path) -> dict[str, str]:
    """``projects.json``: slug -> absolute project root."""
    try:
        doc = load_json(read_regular(path))
    except (OSError, orjson.JSONDecodeError):
        return {}
    projects = doc.get("projects") if isinstance(doc, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {slug: root for root, slug in projects.items() if isinstance(slug, str)}


def project_root(
    folder: Path, registry: dict[str, str], project_hash: Any, candidates: Iterable[str]
) -> str | None:
    """The absolute root of a project folder: its ``.project_root`` marker, the registry, or
    for a folder named by a SHA-256 hash, a candidate path whose hash matches."""
    try:
        marker = read_regular(folder / ".project_root").decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        marker = ""
    if marker:
        return marker
    if folder.name in registry:
        return registry[folder.name]
    wanted = {
        h for h in (folder.name, project_hash) if isinstance(h, str) and HASH_DIR.fullmatch(h)
    }
    if not wanted:
        return None
    for path in chain(registry.values(), _ancestors(candidates)):
        if hashlib.sha256(path.encode("utf-8")).hexdigest() in wanted:
            return path
    return None


def path_candidates(meta: dict[str, Any], records: Iterable[dict[str, Any]]) -> Iterator[str]:
    """The session's ``directories``, then absolute paths in tool-call arguments and results
    (read lazily): a hashed folder's root is one of them or an ancestor, checked by hash."""
    directories = meta.get("directories")
    yield from (
        (d for d in directories if isinstance(d, str)) if isinstance(directories, list) else ()
    )
    for rec in records:
        calls = rec.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                blob = json_text([call.get("args"), call.get("result")])
                yield from _ABSOLUTE.findall(blob.replace("\\\\", "\\"))


def _ancestors(paths: Iterable[str]) -> Iterable[str]:
    seen: set[str] = set()
    for raw in paths:
        path = raw.rstrip(".,;:)")
        pure = PureWindowsPath(path) if re.match(r"[A-Za-z]:\\", path) else PurePosixPath(path)
        for candidate in (pure, *pure.parents):
            text = str(candidate)
            if text not in seen and len(candidate.parts) > 1:
                seen.add(text)
                yield text


# -- logs.json ----------------------------------------------------------------------------


def read_prompt_log(path: Path, problems: list[Problem]) -> dict[str, list[dict[str, Any]]] | None:
    """``logs.json``: session id -> its prompt entries in order; None if unreadable now."""
    try:
        doc = load_json(read_regular(path))
    except (OSError, orjson.JSONDecodeError) as exc:
        problems.append(Problem(str(path), _unread(exc), severity="error", source=SOURCE))
        return None
    if not isinstance(doc, list):
        problems.append(Problem(str(path), "not a prompt log (no list); skipped", source=SOURCE))
        return {}
    sessions: dict[str, list[dict[str, Any]]] = {}
    odd: dict[str, list[int]] = {}  # why an entry is left out -> the entries (from 1)
    for n, entry in enumerate(doc, start=1):
        why = _odd_entry(entry)
        if why:
            odd.setdefault(why, []).append(n)
        else:
            sessions.setdefault(entry["sessionId"], []).append(entry)
    for why, numbers in odd.items():
        first = (
            f"entry {numbers[0]}"
            if len(numbers) == 1
            else f"{len(numbers)} entries, the first {numbers[0]}"
        )
        problems.append(Problem(str(path), f"{first}: {why}: left out", source=SOURCE))
    for entries in sessions.values():
        entries.sort(key=lambda e: e["messageId"] if isinstance(e.get("messageId"), int) else 0)
    return sessions


def _odd_entry(entry: Any) -> str | None:
    """Why a prompt log's entry is not read (None: it is a prompt)."""
    if not isinstance(entry, dict):
        return f"it is {json_kind(entry)}, not an object"
    kind = entry.get("type", "user")
    if isinstance(kind, str) and kind != "user":
        return f'its type is {quoted(kind)}, not "user"'
    for key, value in (("type", kind), ("sessionId", None), ("message", None)):
        value = entry.get(key, value)
        if key not in entry and key != "type":
            return f"it has no {key}"
        if not isinstance(value, str):
            return f"its {key} is {json_kind(value)}, not text"
    return None


def prompt_messages(entries: list[dict[str, Any]], times: Times | None = None) -> list[Message]:
    """Prompts recovered from the log: ``/…`` and ``!…`` lines are commands as typed.
    ``times`` counts the times that cannot be read."""
    out = []
    for entry in entries:
        text: str = entry["message"]
        part: Part
        if text.startswith("/"):
            part = CommandPart(text)
        elif text.startswith("!") and len(text) > 1:
            part = CommandPart(text[1:], shell=True)
        elif text.strip():
            part = TextPart(text)
        else:
            continue
        stamp, number = entry.get("timestamp"), entry.get("messageId", "")
        when = parse_timestamp(stamp)
        if when is None and times is not None:
            where = f"session {quoted(entry['sessionId'])}, message {clipped(number, 20)}"
            times.unread(stamp, where)
        out.append(Message("user", (part,), str(number), when))
    return out


# -- /chat save checkpoints -----------------------------------------------------------------


def read_checkpoint(path: Path, problems: list[Problem]) -> list[dict[str, Any]] | None:
    """The ``Content[]`` history of a checkpoint (``{history}`` or, in old files, bare)."""
    try:
        doc = load_json(read_regular(path))
    except (OSError, orjson.JSONDecodeError) as exc:
        problems.append(Problem(str(path), _unread(exc), severity="error", source=SOURCE))
        return None
    history = doc.get("history") if isinstance(doc, dict) else doc
    if not isinstance(history, list):
        why = "not a saved chat (no history); skipped"
        if history is not None:  # (damaged: said as what it holds)
            why = f"its history is {json_kind(history)}, not a list of turns: nothing to read"
        problems.append(Problem(str(path), why, source=SOURCE))
        return []
    turns = []
    for n, turn in enumerate(history, start=1):
        if not isinstance(turn, dict):
            why = f"turn {n} is {json_kind(turn)}, not an object: left out"
            problems.append(Problem(str(path), why, source=SOURCE))
            continue
        turns.append(turn)
        pieces = turn.get("parts")
        if pieces is not None and not isinstance(pieces, list):
            why = f"turn {n}'s parts are {json_kind(pieces)}, not a list: left out"
            problems.append(Problem(str(path), why, source=SOURCE))
        pieces = pieces if isinstance(pieces, list) else []
        problems += [
            Problem(str(path), why, source=SOURCE) for why in odd_parts(pieces, f"turn {n}")
        ]
        for part in pieces:
            call = part.get("functionCall") if isinstance(part, dict) else None
            if isinstance(call, dict) and (why := tool_name(call.get("name"))[1]):
                problems.append(Problem(str(path), f"turn {n}: {why}", source=SOURCE))
                call["name"] = None  # (shown as "tool", never as a Python repr)
    return turns


def checkpoint_messages(history: list[dict[str, Any]]) -> list[Message]:
    """API ``Content`` turns as messages; calls and responses pair by id, else by name."""
    out: list[Message] = []
    pending: dict[str, list[str]] = {}
    for n, content in enumerate(_without_setup(history)):
        parts: list[Part] = []
        role = content.get("role")
        pieces = content.get("parts") if isinstance(content.get("parts"), list) else []
        for m, part in enumerate(pieces):
            if not isinstance(part, dict):
                continue
            call, response = part.get("functionCall"), part.get("functionResponse")
            if isinstance(call, dict):
                call_id = str(call.get("id") or f"c{n}-{m}")
                pending.setdefault(str(call.get("name")), []).append(call_id)
                parts.append(
                    ToolCallPart(str(call.get("name") or "tool"), call.get("args"), call_id)
                )
            elif isinstance(response, dict):
                waiting = pending.get(str(response.get("name")), [])
                call_id = str(response.get("id") or (waiting.pop(0) if waiting else f"r{n}-{m}"))
                if call_id in waiting:
                    waiting.remove(call_id)
                body = response.get("response")
                failed = isinstance(body, dict) and "error" in body and "output" not in body
                text = body.get("output", body.get("error")) if isinstance(body, dict) else body
                output = text if isinstance(text, str) else json_text(body)
                parts.append(ToolResultPart(output, call_id, is_error=failed))
            elif isinstance(part.get("text"), str) and part["text"].strip():
                if part.get("thought"):
                    parts.append(ThinkingPart(part["text"]))
                elif role == "user":
                    parts.append(TextPart(strip_references(part["text"])))
                else:
                    parts.append(TextPart(part["text"]))
        if role == "user":
            parts.extend(inline_data(content.get("parts")))
        if parts:
            # An image beside a tool's response is what the tool returned, not a paste.
            answered = any(p.kind == "tool_result" for p in parts)
            typed = any(p.kind == "text" or (p.kind == "attachment" and not answered)
                        for p in parts)  # fmt: skip
            speaker = "assistant" if role != "user" else "user" if typed else "tool"
            out.append(Message(speaker, tuple(parts), f"{n}"))
    return out


def _without_setup(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """History minus the environment turn the CLI sends first (and the model's ack)."""
    first = content_text(history[0].get("parts")) if history else ""
    if _SETUP_PROMPT not in first[:200]:
        return history
    rest = history[1:]
    if (
        rest
        and rest[0].get("role") == "model"
        and content_text(rest[0].get("parts")).startswith(_SETUP_REPLY)
    ):
        rest = rest[1:]
    return rest


def user_texts(messages: list[Message]) -> list[str]:
    return [
        p.text for m in messages if m.role == "user" for p in m.parts if isinstance(p, TextPart)
    ]


def _unread(exc: Exception) -> str:
    """Why a JSON document was not read, and that the next run tries again."""
    if isinstance(exc, orjson.JSONDecodeError):
        return f"not complete JSON, perhaps being saved right now; read again next run ({exc})"
    return f"cannot be read ({getattr(exc, 'strerror', None) or exc}); read again next run"
