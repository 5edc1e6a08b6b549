"""Cursor generation 4: one Agent transcript file as model messages (FORMATS.md §3.7).

A line is ``{"role": "user"|"assistant", "message": {"content": ...}}``: no ids, no times,
no model, no token counts. ``content`` is a string or Anthropic-style blocks (``text``,
``tool_use``, ``thinking``, ``tool_result``). Lines without a role (``turn_ended``) only
mark turn ends and are skipped.

What the person typed sits in ``<user_query>``, among wrappers Cursor adds (their time,
attached files and context: ``wrappers.py``). Thinking is not kept by Cursor: a block that
is only ``[REDACTED]`` (and that marker as a reply's last paragraph) is treated as absent.
Tool calls carry no id, so a result (written by some builds only) is paired with the oldest
call still waiting for one. The older free-text ``.txt`` layout is read best effort
(``read_text_transcript``).
"""

from __future__ import annotations

import base64
import binascii
import re
import textwrap
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from ...errors import Problem, how_many
from ...model import (
    AttachmentPart,
    Message,
    NoticePart,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from .._jsonl import iter_json_objects, json_text
from .._times import Times
from .._values import json_kind, trimmed
from ..base import read_regular
from .wrappers import attached_parts, clean_user_text, workspace_path

SOURCE = "cursor"
REDACTED = "[REDACTED]"
# The mark as a block of its own, or as its last paragraph (after a blank line).
_MARKER_AT_END = re.compile(r"(?:\A\s*|\n[ \t]*\n[ \t]*)" + re.escape(REDACTED) + r"\s*\Z")
CONTROL_TYPES = frozenset({"turn_ended"})  # roleless turn-control lines
# A turn_ended error that is the person's cancel (the IDE's stop button), as Cursor writes it
_CANCELLED = frozenset({"user aborted request", "user aborted request."})
_CALL_TYPES = frozenset({"tool_use", "tool_call"})
_RESULT_TYPES = frozenset({"tool_result", "tool-result"})
# Input keys naming a folder or file a tool worked in (the project is recovered from them).
PATH_KEYS = ("working_directory", "cwd", "path", "file_path", "target_file", "target_directory")


@dataclass(slots=True)
class Transcript:
    """What one transcript file holds, plus the facts the session is built from."""

    messages: list[Message] = field(default_factory=list)
    times: list[datetime] = field(default_factory=list)  # from <timestamp> tags, in order
    paths: list[str] = field(default_factory=list)  # folders and files tool calls named
    first_prompt: str | None = None
    workspace: str | None = None  # the first ``<user_info>``'s ``Workspace Path:``
    results: int = 0  # tool results the file holds (most builds write none)
    # Where Cursor wrote ``[REDACTED]`` for the thinking it does not keep (a block of the
    # mark alone or a reply whose last paragraph it is): how many times.
    thinking_marks: int = 0

    def delegations(self) -> list[tuple[int, int, ToolCallPart]]:
        """(message index, part index, call) of calls that hand a prompt to another agent."""
        return [
            (i, j, p)
            for i, m in enumerate(self.messages)
            for j, p in enumerate(m.parts)
            if isinstance(p, ToolCallPart) and prompt_of(p)
        ]


def _is_control(kind: Any) -> bool:
    return isinstance(kind, str) and kind in CONTROL_TYPES


def prompt_of(call: ToolCallPart) -> str | None:
    value = call.input.get("prompt") if isinstance(call.input, dict) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def read_transcript(path: Path, problems: list[Problem]) -> Transcript:
    """A ``.jsonl`` transcript; bad lines are reported with their number and skipped."""
    reader = _Reader(path)
    unknown: dict[str, tuple[int, int]] = {}  # what -> (its first line, how many)
    for number, obj in iter_json_objects(path, problems, SOURCE):
        role = obj.get("role")
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else obj.get("content")
        if message is not None and not isinstance(message, dict) and role in ("user", "assistant"):
            why = f"its message is {json_kind(message)}, not an object: left out"
            reader.times.wrong_type(why, number)
        try:
            if role == "user":
                reader.user(content, number)
            elif role == "assistant":
                reader.assistant(content, number)
            elif role is None and _is_control(obj.get("type")):
                reader.waiting.clear()  # the turn ended: its calls without a result keep none
                if odd := reader.turn_ended(obj, number):
                    first, seen = unknown.get(odd, (number, 0))
                    unknown[odd] = (first, seen + 1)
                continue
            else:
                kind = f"role {role!r}" if role is not None else f"record type {obj.get('type')!r}"
                first, seen = unknown.get(kind, (number, 0))
                unknown[kind] = (first, seen + 1)
        except (TypeError, AttributeError, ValueError) as exc:  # a value of another type
            why = f"unexpected shape ({type(exc).__name__}: {exc}), line skipped"
            problems.append(Problem(str(path), why, number, source=SOURCE, left_out=True))
    for what, (first, count) in unknown.items():
        why = f"unknown {what}{how_many(count, 'line')} skipped"
        problems.append(Problem(str(path), why, first, source=SOURCE))
    for what, (first, count) in reader.unknown_blocks.items():
        why = f"unknown {what} ({count}), only its text kept"
        problems.append(Problem(str(path), why, first, source=SOURCE))  # (its first line)
    reader.times.report(problems, path, SOURCE)
    return reader.transcript


def read_text_transcript(path: Path, problems: list[Problem]) -> Transcript:
    """The older free-text layout: ``user:``/``assistant:`` blocks, in assistant blocks
    ``[Thinking]``, ``[Tool call] <name>`` and ``[Tool result]`` with indented bodies."""
    reader = _Reader(path)
    try:
        text = read_regular(path).decode("utf-8", errors="replace")
    except OSError as exc:
        problems.append(Problem(str(path), f"could not be read ({exc})", source=SOURCE))
        return reader.transcript
    text = text[: text.rfind("\n") + 1]  # an unterminated last line waits for the next run
    role, start, lines = None, 0, text.split("\n")
    blocks: list[tuple[str, int, list[str]]] = []
    for number, line in enumerate(lines, start=1):
        if line.strip() in ("user:", "assistant:"):
            if role:
                blocks.append((role, start, lines[start : number - 1]))
            role, start = line.strip()[:-1], number
    if role:
        blocks.append((role, start, lines[start:]))
    for role, number, body in blocks:
        if role == "user":
            reader.user("\n".join(body), number)
        else:
            reader.assistant(_text_blocks(body), number)
    reader.times.report(problems, path, SOURCE)
    return reader.transcript


def _text_blocks(lines: list[str]) -> list[dict[str, Any]]:
    """An assistant block of the ``.txt`` layout as content blocks."""
    blocks: list[dict[str, Any]] = []
    prose: list[str] = []
    i = 0

    def flush() -> None:
        if "".join(prose).strip():
            blocks.append({"type": "text", "text": "\n".join(prose).strip("\n")})
        prose.clear()

    while i < len(lines):
        line = lines[i]
        marker = re.match(r"^\[(Thinking|Tool call|Tool result)\]\s*(.*)$", line)
        if not marker:
            prose.append(line)
            i += 1
            continue
        flush()
        body = [marker.group(2)] if marker.group(2) and marker.group(1) == "Thinking" else []
        i += 1
        while i < len(lines) and (lines[i].startswith((" ", "\t")) or not lines[i].strip()):
            body.append(lines[i].strip() if marker.group(1) != "Tool result" else lines[i])
            i += 1
        inner = "\n".join(body).strip("\n")
        if marker.group(1) == "Thinking":
            blocks.append({"type": "thinking", "thinking": inner})
        elif marker.group(1) == "Tool call":
            blocks.append({"type": "tool_use", "name": marker.group(2).strip() or "tool",
                           "input": _call_input(body)})  # fmt: skip
        else:
            blocks.append({"type": "tool_result", "content": _dedent(body)})
    flush()
    return blocks


def _call_input(lines: list[str]) -> Any:
    text = "\n".join(lines).strip()
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    pairs = [line.partition("=") for line in lines if "=" in line]
    return {k.strip(): v.strip() for k, _, v in pairs} if pairs else text


def _dedent(lines: list[str]) -> str:
    return textwrap.dedent("\n".join(lines)).strip("\n")


class _Reader:
    """Turns user and assistant lines into messages, pairing results with calls."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.transcript = Transcript()
        self.waiting: list[str] = []  # ids of calls still without a result, oldest first
        self.unknown_blocks: dict[str, tuple[int, int]] = {}  # what -> its first line, count
        self.times = Times()  # <timestamp> tags that could not be read

    def user(self, content: Any, number: int) -> None:
        parts: list[Part] = []
        results: list[Part] = []
        attached: list[AttachmentPart] = []  # what the person attached: after their words
        when = None
        for block in self._blocks(content, number):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                prompt, stamp = clean_user_text(block["text"], self.times, number)
                when = when or stamp
                if prompt:
                    parts.append(TextPart(prompt))
                attached += attached_parts(block["text"])
                if self.transcript.workspace is None:
                    self.transcript.workspace = workspace_path(block["text"])
            elif kind in _RESULT_TYPES:
                results.append(self._result(block))
            elif kind == "image":
                image = _image(block)
                if image:
                    parts.append(image)
            else:
                self._unknown(block, number)
        if when:
            self.transcript.times.append(when)
        if results:
            self.transcript.messages.append(Message("tool", tuple(results), f"line {number}"))
        if any(isinstance(p, TextPart) for p in parts):
            # A new prompt: the calls before it that got no result never will (most files
            # hold none), and a later result is not theirs (it went to the oldest waiting).
            self.waiting.clear()
        parts += attached
        if parts:
            first = next((p.text for p in parts if isinstance(p, TextPart)), None)
            self.transcript.first_prompt = self.transcript.first_prompt or first
            self.transcript.messages.append(Message("user", tuple(parts), f"line {number}", when))

    def assistant(self, content: Any, number: int) -> None:
        parts: list[Part] = []
        for index, block in enumerate(self._blocks(content, number)):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                text, marked = _without_marker(block["text"])
                if text:
                    parts.append(TextPart(text))
                self.transcript.thinking_marks += marked
            elif kind == "thinking":
                said = block.get("thinking") or block.get("text") or ""
                if not isinstance(said, str):  # (a damaged block: said, never a Python repr)
                    why = f"a thinking block's text is {json_kind(said)}, not text: left out"
                    self.times.wrong_type(why, number)
                    said = ""
                text, marked = _without_marker(said)
                if text:
                    parts.append(ThinkingPart(text))
                self.transcript.thinking_marks += marked
            elif kind in _CALL_TYPES and isinstance(block.get("name"), str):
                parts.append(self._call(block, f"{number}.{index}"))
            elif kind in _RESULT_TYPES:
                parts.append(self._result(block))
            else:
                self._unknown(block, number)
                if isinstance(block.get("text"), str) and block["text"].strip():
                    parts.append(TextPart(block["text"]))  # visible text of a newer block
        if parts:
            self.transcript.messages.append(Message("assistant", tuple(parts), f"line {number}"))

    def turn_ended(self, record: dict[str, Any], number: int) -> str | None:
        """A turn's end: said when it did not succeed. ``aborted`` (Escape in the CLI), or
        ``error`` "User aborted request" (the IDE's stop button), is an interruption; another
        ``error`` is the turn's failure, with its text (a usage limit, a provider's refusal).
        Another status: what is not read of it (reported as an unknown record's)."""
        status, error = record.get("status"), record.get("error")
        if isinstance(error, dict):  # (a newer shape: its message)
            error = error.get("message")
        error = error.strip() if isinstance(error, str) else ""
        where = f"line {number}"
        if status in ("success", None):
            return None
        if status == "aborted" or status == "error" and error.lower() in _CANCELLED:
            self.transcript.messages.append(Message("user", (NoticePart("interrupted"),), where))
        elif status == "error":
            said = error or "The turn ended with an error."
            self.transcript.messages.append(
                Message("assistant", (NoticePart("error", said),), where)
            )
        else:
            return f"turn_ended status {trimmed(str(status))[:40]!r}"
        return None

    def _call(self, block: dict[str, Any], position: str) -> ToolCallPart:
        # No id in the file: the line and block position stand in for one.
        call_id = block.get("id") if isinstance(block.get("id"), str) else position
        data = block.get("input", block.get("arguments"))
        description = data.get("description") if isinstance(data, dict) else None
        self.waiting.append(call_id)
        if isinstance(data, dict):
            for key in PATH_KEYS:
                if isinstance(data.get(key), str) and data[key].strip():
                    self.transcript.paths.append(data[key].strip())
        return ToolCallPart(
            block["name"],
            data,
            call_id,
            description if isinstance(description, str) and description.strip() else None,
        )

    def _result(self, block: dict[str, Any]) -> ToolResultPart:
        self.transcript.results += 1
        named = block.get("tool_use_id")
        if isinstance(named, str) and named in self.waiting:
            call_id: str | None = named
        else:
            call_id = self.waiting[0] if self.waiting else None
        if call_id:
            self.waiting.remove(call_id)
        return ToolResultPart(
            _result_text(block.get("content")), call_id, block.get("is_error") is True
        )

    def _blocks(self, content: Any, number: int) -> list[dict[str, Any]]:
        """The line's content blocks; content or a block of another kind is said."""
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        if not isinstance(content, list):
            if content is not None:
                why = f"its content is {json_kind(content)}, not text or a list: left out"
                self.times.wrong_type(why, number)
            return []
        for block in content:
            if not isinstance(block, dict):
                why = f"a content block is {json_kind(block)}, not an object: left out"
                self.times.wrong_type(why, number)
        return [b for b in content if isinstance(b, dict)]

    def _unknown(self, block: dict[str, Any], number: int) -> None:
        what = f"block type {block.get('type')!r}"
        first, count = self.unknown_blocks.get(what, (number, 0))
        self.unknown_blocks[what] = (first, count + 1)


def _without_marker(text: str) -> tuple[str, bool]:
    """Text with Cursor's stand-in for unkept thinking removed, and whether it stood there:
    a block that is the mark alone, or the mark as the block's last paragraph (after a
    blank line), the forms real transcripts hold. A sentence that ends in the word ("shown
    as [REDACTED]") is the model's and keeps it (review49 M2)."""
    if match := _MARKER_AT_END.search(text):
        return trimmed(text[: match.start()]), True
    return trimmed(text), False  # (the first line's indentation stays: a reply's code block)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return "" if content is None else json_text(content)  # (as JSON, never a Python repr)


def _image(block: dict[str, Any]) -> AttachmentPart | None:
    source = block.get("source")
    if not isinstance(source, dict) or not isinstance(source.get("data"), str):
        return None
    try:
        data = base64.b64decode(source["data"], validate=True)
    except (binascii.Error, ValueError):
        return None
    media = source.get("media_type") if isinstance(source.get("media_type"), str) else "image/png"
    return AttachmentPart(media, data)
