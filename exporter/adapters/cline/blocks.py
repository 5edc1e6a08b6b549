"""Anthropic-style message lists, as Cline stores them twice (FORMATS.md §6.2):

- ``api_conversation_history.json`` of a task folder (generations A/B): what the model saw,
  ``{role, content: string | blocks}``, newer builds adding ``ts``, ``modelInfo`` and
  ``metrics`` per message;
- ``<id>.messages.json`` of a Cline 4 SDK session (generation C): the same blocks plus
  ``file{path, content}`` (a file the person attached) and ``image{data, mediaType}``.

Blocks: ``text``, ``image``, ``document``, ``file``, ``tool_use``, ``tool_result``,
``thinking``, ``redacted_thinking``. Injected context is left out where it is a block of its
own: ``<environment_details>`` (the editor state Cline appends to every request). The legacy
task files also wrap prompts in ``<task>``/``<feedback>``/``<answer>`` and send tool results
as user text (``[read_file for 'x'] Result: …``): with ``legacy`` those are unwrapped and
turned into tool output, so they do not read as prompts (and paired with the calls the
model wrote as XML in its text, ``xmlcalls.py``); what Cline sends in the person's
name (``[TASK RESUMPTION] …``, ``[ERROR] You did not use a tool …``) is left out, but for
the person's words in its ``<user_message>``. A tool result's text and an attachment's
bytes are read in ``results.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...model import (
    AttachmentPart,
    Message,
    NoticePart,
    NotRun,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from .._jsonl import json_text, parse_timestamp
from .._times import Times
from .._unanswered import last_reply_marked
from .._values import json_kind, tool_name
from .results import attachment_of, odd_output, tool_output
from .xmlcalls import RESULT_HEADER, LegacyCalls

_WRAPPED = re.compile(r"^\s*<(task|feedback|answer|user_message)>\n?(.*?)\n?</\1>\s*$", re.S)
_LEGACY_RESULT = RESULT_HEADER
# What Cline itself sends as the person's turn: resuming a task (with the person's new
# words, if any, in <user_message>), and its answer to a reply that used no tool.
_HARNESS_TURNS = (
    "[TASK RESUMPTION]", "New message to respond to:", "New instructions for task continuation:",
    "[ERROR] You did not use a tool",
)  # fmt: skip
_USER_MESSAGE = re.compile(r"<user_message>\n?(.*?)\n?</user_message>", re.S)
_ENVIRONMENT = "<environment_details>"


@dataclass(slots=True)
class Conversation:
    """Messages with the usage and cost recorded on them (``metrics``)."""

    messages: list[Message] = field(default_factory=list)
    usage: Usage = Usage()
    cost: float | None = None
    models: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # unknown block types, counted
    first_skipped: dict[str, int] = field(default_factory=dict)  # kind -> its first message
    # (message number, why) of a value of the wrong type, left out of a message kept
    odd: list[tuple[int, str]] = field(default_factory=list)
    times: Times = field(default_factory=Times)  # the times that could not be read
    # Context truncation (``conversationHistoryDeletedRange``): whether an entry held one,
    # and the messages (numbers from 1) whose value was not a pair of message indices.
    ranges_seen: bool = False
    bad_ranges: list[int] = field(default_factory=list)

    def skip(self, kind: str, number: int) -> None:
        """An entry of a kind not known, in message ``number`` (from 1) of its file."""
        self.skipped[kind] = self.skipped.get(kind, 0) + 1
        self.first_skipped.setdefault(kind, number)

    def add_model(self, model: str | None) -> None:
        if model and model not in self.models:
            self.models.append(model)


def parse_messages(
    items: list[Any],
    id_prefix: str,
    *,
    legacy: bool = False,
    model_at: Callable[[Any], str | None] | None = None,
    left_out: tuple[int, int] | None = None,
) -> Conversation:
    """Model messages of an Anthropic-style list; ``model_at(ts)`` names the model in use
    when messages carry no ``modelInfo``. ``left_out``: the index range the task's context
    truncation left out of later requests (its index entry's ``conversationHistoryDeletedRange``):
    a marker follows the last message of that range, as the truncation came after it."""
    out = Conversation()
    calls = LegacyCalls()  # tool calls written as XML in the model's text (legacy only)
    turn = 0  # where the last reply may start: after the person's last turn, even one left out
    for index, item in enumerate(items):
        if left_out and index > left_out[1] and out.messages:
            out.messages.append(
                truncation_marker(left_out, f"{id_prefix}{index}:context", None, where="after")
            )
            left_out = None
        if not isinstance(item, dict):
            not_an_object(out, item, index + 1)
            turn = len(out.messages)
            continue
        if item.get("role") not in ("user", "assistant"):
            out.odd.append((index + 1, f"its role is {_role_shown(item)}, not user or assistant: "
                            "left out"))  # fmt: skip
            turn = len(out.messages)
            continue
        role = item["role"]
        parts = _parts(item.get("content"), role, legacy, out, index + 1)
        source_id = item.get("id") if isinstance(item.get("id"), str) else f"{id_prefix}{index}"
        if legacy:
            parts = calls.reply(parts, source_id) if role == "assistant" else calls.results(parts)
        own = model_of(item.get("modelInfo"))
        timeline = model_at(item.get("ts")) if model_at else None
        # The SDK's messages name their model; Cline's own history takes FORMATS.md §6.2's
        # order, as its UI file does: the timeline, the index, then the message's own.
        model = (timeline or own) if legacy else (own or timeline)
        metrics = item.get("metrics")
        if isinstance(metrics, dict):
            out.usage += _metrics_usage(metrics)
            if isinstance(metrics.get("cost"), int | float):
                out.cost = (out.cost or 0.0) + metrics["cost"]
        if role == "assistant":
            out.add_model(model)
        if role == "user" and not (parts and all(isinstance(p, ToolResultPart) for p in parts)):
            turn = len(out.messages)  # (Cline's own turn, left out, says the session went on)
        if parts:
            ts = item.get("ts")
            when = parse_timestamp(ts) or out.times.unread(ts, f"message {index + 1}")
            if role == "user" and all(isinstance(p, ToolResultPart) for p in parts):
                role = "tool"  # results sent back to the model: part of the model's turn
            model = model if role == "assistant" else None
            out.messages.append(Message(role, tuple(parts), source_id, when, model))
    out.messages[turn:] = _last_reply_marked(out.messages[turn:], legacy)
    if left_out and out.messages:  # the range reaches the last message
        out.messages.append(truncation_marker(left_out, f"{id_prefix}context", None, where="after"))
    return out


def _last_reply_marked(messages: list[Message], legacy: bool) -> list[Message]:
    """The calls of the last reply that no result answers, marked (``_unanswered``): Cline
    sends a reply's results with its next request, so a history that ends with the model's
    calls is one whose tools had not returned (or were waiting for the person's approval:
    the history does not say which). A result the legacy history pairs with no call
    (its header names none) may answer any of them: then none is marked."""
    unpaired = legacy and any(
        isinstance(p, ToolResultPart) and p.call_id is None for m in messages for p in m.parts
    )
    return list(last_reply_marked(messages, lambda call: call.call_id is not None and not unpaired))


def deleted_range(value: Any) -> tuple[int, int] | None:
    """``conversationHistoryDeletedRange``, ``[start, end]``: the indices (from 0, both
    included) of the model's history that Cline left out of every request after it truncated
    the context; None when it is not such a pair."""
    if not isinstance(value, list) or len(value) != 2:
        return None
    start, end = value
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)):
        return None
    return (start, end) if 0 <= start <= end else None


def nothing_deleted(value: Any) -> bool:
    """``[n, n - 1]``: Cline's range when a truncation would remove nothing (its own
    arithmetic gives one): no truncation, and nothing wrong with it."""
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        and value[0] == value[1] + 1
        and value[1] >= 0
    )


def truncation_marker(
    left_out: tuple[int, int],
    source_id: str,
    when: Any,
    sent: int | None = None,
    where: str = "here",
) -> Message:
    """The marker of a context truncation: which messages of the model's history (numbered
    from 1, as a person counts; the file counts from 0) the model no longer saw. ``where``
    it stands: ``here``, where it happened (``sent``: how many messages the history held
    then, when known); ``after`` the messages left out (the model's history read, which
    does not record when); ``unknown`` (only the index says it happened). The messages stay
    in the note: it shows what happened, not only what the model saw."""
    first, last = left_out[0] + 1, left_out[1] + 1
    kept = [_numbers(1, first - 1)] if first > 1 else []
    if sent is None:
        kept.append(f"those after {last}")
    elif sent > last:
        kept.append(_numbers(last + 1, sent))
    only = f" (only {' and '.join(kept)} were sent)" if kept else ""
    dropped = f"messages {_numbers(first, last)} of the model's history"
    if where == "here":
        said = f"from here on, {dropped} were left out of what the model saw{only}"
        text = f"Context truncated: {said}. They stay in this note, above."
    elif where == "after":
        said = f"later requests left {dropped}, up to here, out of what the model saw{only}"
        text = f"Context truncated: {said}. They stay in this note."
    else:
        said = f"from then on, {dropped} were left out of what the model saw{only}"
        text = f"Context truncated (when is not recorded): {said}. They stay in this note, above."
    return Message("system", (NoticePart("notification", text),), source_id, when)


def _numbers(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}–{last}"


def _role_shown(item: dict[str, Any]) -> str:
    """A role not known, as a report names it (a damaged one cut short)."""
    if "role" not in item:
        return "missing"
    role = item["role"]
    if isinstance(role, str):
        return json_text(role if len(role) <= 40 else f"{role[:40]}…")
    return json_kind(role)


def _parts(content: Any, role: str, legacy: bool, out: Conversation, number: int) -> list[Part]:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    parts: list[Part] = []
    if not isinstance(content, list):
        shown = "missing" if content is None else json_kind(content)
        out.odd.append((number, f"its content is {shown}, not text or a list of blocks: left out"))
    blocks = content if isinstance(content, list) else []
    for at, block in enumerate(blocks):
        if not isinstance(block, dict):
            out.odd.append((number, f"content block {at + 1} is {json_kind(block)}, not an "
                            "object: left out"))  # fmt: skip
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            text = block["text"]
            if legacy and role == "user" and parts and _bare_header(parts[-1]):
                # Cline sends a result as its header block, then its text: one result
                if _result_body(blocks, at):
                    parts[-1] = _legacy_result(f"{parts[-1].output}\n{text}")  # type: ignore[union-attr]
                    continue
            part = _text(text, role, legacy)
            if part:
                parts.append(part)
        elif kind in ("image", "document"):
            attachment = attachment_of(block)
            if attachment:
                parts.append(attachment)
        elif kind == "file" and isinstance(block.get("content"), str):
            name = block.get("path") if isinstance(block.get("path"), str) else None
            parts.append(AttachmentPart("text/plain", block["content"].encode(), name))
        elif kind == "tool_use":
            call_id = block.get("id") if isinstance(block.get("id"), str) else None
            name, why = tool_name(block.get("name"))
            if why:
                out.odd.append((number, why))
            parts.append(ToolCallPart(name, block.get("input"), call_id))
        elif kind == "tool_result":
            odd = odd_output(block.get("content"))
            if odd:
                out.odd.append((number, f"a tool result's content {odd}, not text: left out"))
            output, attachments, failed = tool_output(block.get("content"))
            call_id = block.get("tool_use_id")
            call_id = call_id if isinstance(call_id, str) else None
            not_run = did_not_run(output)
            is_error = not not_run and (failed or block.get("is_error") in (True, "true", "True"))
            parts.append(ToolResultPart(output, call_id, is_error, not_run=not_run))
            parts.extend(attachments)
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            if block["thinking"].strip():
                parts.append(ThinkingPart(block["thinking"]))
        elif kind == "redacted_thinking":
            parts.append(ThinkingPart("", redacted=True))
        else:
            out.skip(kind if isinstance(kind, str) else f"({json_kind(kind)})", number)
    return parts


def _text(text: str, role: str, legacy: bool) -> Part | None:
    if not text.strip() or (role == "user" and text.lstrip().startswith(_ENVIRONMENT)):
        return None
    if legacy and role == "user":
        if _LEGACY_RESULT.match(text):
            return _legacy_result(text)
        if _SKIPPED.match(text):  # a call Cline did not run: no one's prompt
            return ToolResultPart(text, not_run="cancelled")
        if text.lstrip().startswith(_HARNESS_TURNS):
            said = _USER_MESSAGE.search(text)
            return TextPart(said.group(1)) if said and said.group(1).strip() else None
        if text.lstrip().startswith(_FEEDBACK):  # Cline's sentence, then the person's words
            said = _FEEDBACK_TEXT.search(text)
            return TextPart(said.group(1)) if said and said.group(1).strip() else None
        wrapped = _WRAPPED.match(text)
        if wrapped:
            text = wrapped.group(2)
    return TextPart(text) if text.strip() else None


def _legacy_result(text: str) -> ToolResultPart:
    """A result sent as text, ``[execute_command for 'x'] Result:`` and what the tool gave."""
    return ToolResultPart(text, not_run=did_not_run(_LEGACY_RESULT.sub("", text, 1).lstrip()))


def _bare_header(part: Part) -> bool:
    """A result's header alone (``[read_file for 'x'] Result:``), its text still to come."""
    return (
        isinstance(part, ToolResultPart)
        and part.call_id is None
        and _LEGACY_RESULT.fullmatch(part.output.strip()) is not None
    )


def _result_body(blocks: list[Any], at: int) -> bool:
    """Is text block ``at`` what the result header before it introduces? Cline pushes a
    result as two blocks, its header then its text (``pushToolResult``); the editor state,
    another result, what Cline says of a call it did not run, and the person's own words
    (an ``<answer>`` to the model's question, ``<feedback>`` on a completion: prompts) are
    not that text."""
    text = blocks[at]["text"]
    return not (
        text.lstrip().startswith((_ENVIRONMENT, *_HARNESS_TURNS, _FEEDBACK))
        or _LEGACY_RESULT.match(text)
        or _SKIPPED.match(text)
        or _WRAPPED.match(text)
    )


_FEEDBACK = "The user has provided feedback on the results"  # (of attempt_completion)
_FEEDBACK_TEXT = re.compile(r"<feedback>\n?(.*?)\n?</feedback>", re.S)


# What Cline returns for a call that did not run: the person said no at its approval prompt
# (toolDenied, with their feedback or not); a call after a rejected one, in the same reply,
# skipped or cut off; a second call in a reply of a build that ran one a reply.
_REJECTED = "The user denied this operation"
_SKIPPED = re.compile(
    r"(?:Skipping (?:MCP )?tool .{0,500}? due to user rejecting a previous tool\."
    r"|(?:MCP )?[Tt]ool .{0,500}? was interrupted and not executed due to user rejecting a "
    r"previous tool\."
    r"|Tool \[[^\]\n]{1,200}\] was not executed because a tool has already been used in this "
    r"message\.)",
    re.S,
)


def did_not_run(output: str) -> NotRun | None:
    """Why a call whose result is ``output`` did not run, when Cline's words for it say so."""
    if output.startswith(_REJECTED) and (
        output[len(_REJECTED) :].startswith((".", " and provided the following feedback:"))
    ):
        return "rejected"
    return "cancelled" if _SKIPPED.match(output) else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def model_of(info: Any) -> str | None:
    """The model a message names: ``modelInfo.id`` (the SDK), or ``modelInfo.modelId``
    (Cline's own messages, in ``ui_messages.json`` and its API history)."""
    if not isinstance(info, dict):
        return None
    model = info.get("id") if isinstance(info.get("id"), str) else info.get("modelId")
    return model if isinstance(model, str) and model.strip() else None


def _metrics_usage(metrics: dict[str, Any]) -> Usage:
    """A message's tokens: the SDK's ``inputTokens``…, or Cline's own ``tokens`` object
    (``prompt``, ``completion``, ``cached``: cache writes and reads together, which cannot
    be told apart, counted as reads).

    The SDK's ``inputTokens`` is the whole request's input, its cache reads and writes
    included (the AI SDK's convention); the note's ``tokens_in`` is the input not read from
    or written to the cache, as Cline itself shows it (its webview and ``task.tokens``
    subtract both, never below 0). Cline's own ``tokens.prompt`` is that part already: its
    providers report uncached input apart from the cache."""
    tokens = metrics.get("tokens")
    if isinstance(tokens, dict):
        return Usage(
            _int(tokens.get("prompt")), _int(tokens.get("completion")), _int(tokens.get("cached"))
        )
    read, written = _int(metrics.get("cacheReadTokens")), _int(metrics.get("cacheWriteTokens"))
    return Usage(
        max(0, _int(metrics.get("inputTokens")) - read - written),
        _int(metrics.get("outputTokens")),
        read,
        written,
    )


def not_an_object(out: Conversation, item: Any, number: int) -> None:
    """A message that is not a JSON object (damaged, or a newer shape): counted, reported."""
    out.skip(f"message that is not a JSON object ({type(item).__name__})", number)
