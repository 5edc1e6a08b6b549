"""Gemini CLI chats into model messages (FORMATS.md §6.1): the records ``chatfiles.py``
read, in order, made into messages; times, models and tokens gathered on the way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ...errors import Problem, how_many
from ...model import (
    Message,
    NoticePart,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
    add_usage,
)
from .._jsonl import json_text, parse_timestamp
from .._times import Times
from .._unanswered import last_reply_marked
from .._values import json_kind, quoted
from . import SOURCE
from .chatfiles import Chat, message_id
from .damage import odd_calls, odd_parts, part_list
from .prompts import content_text, inline_data, user_parts
from .results import SHELL_TOOL, shell_result, subagent_report

ASSISTANT_TYPES = ("gemini", "model")  # "model": the API's own role name, seen in old files
# UI notices the CLI showed: its errors are not only the API's (a tool's, a command's).
NOTICE_TYPES = {"info": "notification", "warning": "warning", "error": "error"}
# The info the CLI writes when the person stops a turn (Esc; or they declined every call):
# an interruption, as other sources show one (gemini-cli ui/hooks/useGeminiStream.ts).
STOPPED_BY_USER = frozenset({"Request cancelled.", "User cancelled the request."})
# What the CLI sends, recorded as a user message, when its next-speaker check finds that the
# model should go on; typed by a person too, at times (the prompt log tells which).
AUTO_CONTINUE = "Please continue."
TYPED_WITHIN = 5.0  # seconds between a prompt's log entry and its chat record
# The first line of the result of a cancelled call that returned something, above it.
CANCELLED_WHILE_RUNNING = "Cancelled; what it returned until then:"
# A tool call's statuses before its outcome (success, error, cancelled), in the CLI's types.
_UNFINISHED = frozenset({"validating", "scheduled", "executing", "awaiting_approval"})


@dataclass(slots=True)
class Built:
    messages: list[Message] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    usage: Usage = Usage()
    per_model: dict[str | None, Usage] = field(default_factory=dict)  # ``usage`` per model
    first: datetime | None = None
    last: datetime | None = None
    times: Times = field(default_factory=Times)  # the times that could not be read
    # Ids of the calls recorded before they finished (a status that is no outcome) with
    # no result: one of the last reply says so (the CLI records a call once it is done);
    # ``asked``: those of them still waiting for the person's approval.
    running: set[str] = field(default_factory=set)
    asked: set[str] = field(default_factory=set)


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
    read = _messages(chat, path, problems, children, out)
    return last_reply_marked(
        read, lambda call: call.call_id in out.running, lambda call: call.call_id in out.asked
    )


def _messages(
    chat: Chat,
    path: Path,
    problems: list[Problem],
    children: dict[str, str] | None,
    out: Built,
) -> Iterator[Message]:
    unknown: dict[str, int] = {}
    for key, rec in chat.records.items():
        kind = str(rec.get("type"))  # whatever it holds, never a key that cannot be looked up
        content = rec.get("content")
        at_message = f"message {quoted(message_id(key))}"
        # A warning names the file and line of the record's value (its id's last line).
        where, line = chat.place(key, path)
        if content is not None and not isinstance(content, str | list | dict):
            why = f"its content is {json_kind(content)}, not text or a list: left out"
            problems.append(Problem(str(where), f"{at_message}: {why}", line,
                                    source=SOURCE))  # fmt: skip
        stamp = rec.get("timestamp")
        when = parse_timestamp(stamp) or out.times.unread(stamp, at_message)
        if when:
            out.first = out.first or when
            out.last = when
        if key in chat.rewound:
            # The person went back (/rewind): what followed that point is gone from the log.
            yield Message("system", (NoticePart("rewound"),), f"{key}#rewound", when)
        for why in _odd(rec, kind):
            problems.append(Problem(str(where), f"{at_message}: {why}", line,
                                    source=SOURCE))  # fmt: skip
        if kind == "user":
            parts = user_parts(rec)
            if parts and not _auto_continue(chat, parts, when):
                yield Message("user", tuple(parts), key, when)
        elif kind in ASSISTANT_TYPES:
            model = rec["model"] if isinstance(rec.get("model"), str) and rec["model"] else None
            if model and model not in out.models:
                out.models.append(model)
            tokens = rec.get("tokens")
            if tokens:
                usage = _usage(tokens)
                out.usage = out.usage + usage
                add_usage(out.per_model, model, usage)
            odd: list[str] = []
            parts = _assistant_parts(rec, key, children or {}, odd, out.running, out.asked)
            for why in odd:
                problems.append(Problem(str(where), f"{at_message}: {why}", line,
                                        source=SOURCE))  # fmt: skip
            if parts:
                yield Message("assistant", tuple(parts), key, when, model)
        elif kind in NOTICE_TYPES:
            text = content_text(rec.get("content")).strip()
            if kind == "info" and text in STOPPED_BY_USER:
                yield Message("system", (NoticePart("interrupted", text),), key, when)
            elif text:
                notice = NoticePart(NOTICE_TYPES[kind], text, app=kind == "error")  # type: ignore[arg-type]
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
        why = f"unknown message type {quoted(kind)}{at} skipped"
        problems.append(Problem(str(where), why, line, source=SOURCE))


def _odd(rec: dict[str, Any], kind: str) -> list[str]:
    """Why each part of a record that is of the wrong type or no known kind is left out."""
    if kind == "user":
        return odd_parts(rec.get("content"), "its content", texts=True) + odd_parts(
            rec.get("displayContent"), "its displayContent", texts=True
        )
    if kind in ASSISTANT_TYPES:
        content = rec.get("content") if "content" in rec else rec.get("parts")
        return odd_parts(content, "its content", texts=True) + odd_calls(rec)
    if kind in NOTICE_TYPES:
        return odd_parts(rec.get("content"), "its content", texts=True)
    return []


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


def _assistant_parts(
    rec: dict[str, Any],
    key: str,
    children: dict[str, str],
    odd: list[str],
    running: set[str],
    asked: set[str],
) -> list[Part]:
    """The parts of a reply; a value of the wrong type that is left out is said in ``odd``,
    the ids of its calls not finished, with no result, go to ``running``."""
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
        named = [call.get(k) for k in ("name", "displayName") if call.get(k) is not None]
        name = next((n for n in named if isinstance(n, str) and n), "tool")
        if named and not isinstance(named[0], str):
            why = f"a tool call's name is {json_kind(named[0])}, not text: shown as"
            odd.append(f'{why} "{name}"')
        parts.append(
            ToolCallPart(
                name,
                call.get("args"),
                call_id,
                subagent_id=children.get(agent) if isinstance(agent, str) else None,
            )
        )
        result = _result(call, call_id)
        if result:
            parts.append(result)
        elif isinstance(call.get("status"), str) and call["status"] in _UNFINISHED:
            running.add(call_id)
            if call.get("status") == "awaiting_approval":
                asked.add(call_id)
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
    returned = list(_returned(call.get("result")))
    if call.get("status") == "cancelled":
        return _cancelled(call, returned, call_id)
    failed = call.get("status") == "error" or any(error for _, error in returned)
    outputs = [text for text, _ in returned]
    exit_code = None
    if call.get("name") == SHELL_TOOL and len(returned) == 1 and not failed:
        args = call.get("args")
        command = args.get("command") if isinstance(args, dict) else None
        shell = shell_result(outputs[0], command if isinstance(command, str) else None)
        if shell:  # the command's own output, its exit code apart (a success, for the CLI)
            outputs[0], exit_code, failed = shell
    elif len(returned) == 1 and not failed:
        outputs[0] = subagent_report(outputs[0])
    if not outputs and isinstance(call.get("resultDisplay"), str) and call["resultDisplay"]:
        outputs.append(call["resultDisplay"])
    if not outputs and not failed:
        return None
    return ToolResultPart("\n".join(outputs), call_id, is_error=failed, exit_code=exit_code)


def _returned(result: Any) -> Iterator[tuple[str, bool]]:
    """The texts a call's result parts hold, each with whether it is an error: a
    ``functionResponse`` gives its ``output``, else its ``error``, else the whole response;
    a result may be text, a single Part, or a list of Parts and texts (``PartListUnion``)."""
    for part in part_list(result):
        if isinstance(part, str):
            yield part, False
            continue
        if not isinstance(part, dict):
            continue
        response = part.get("functionResponse")
        if isinstance(response, dict):
            body = response.get("response")
            if isinstance(body, dict):
                if isinstance(body.get("output"), str):
                    yield body["output"], False
                elif isinstance(body.get("error"), str):
                    yield body["error"], True
                elif body:
                    yield json_text(body), False
        elif isinstance(part.get("text"), str):
            yield part["text"], False


def _cancelled(
    call: dict[str, Any], returned: list[tuple[str, bool]], call_id: str
) -> ToolResultPart:
    """A call of status ``cancelled``: shown as cancelled, never as a failure (one Esc
    cancels every active call). Stopped before it ran, the CLI records only an error
    (``[Operation Cancelled] …``), kept as its text. Stopped while it ran, the CLI keeps
    what the tool returned beside that error (``output``: an interrupted shell command's
    output, or its word that it never started), or the output shown live so far
    (``resultDisplay``, when the CLI cancelled the call itself): that is kept under a first
    line saying it was cancelled."""
    ran = [text for text, error in returned if not error and text.strip()]
    if not ran:
        live = _display_text(call.get("resultDisplay"))
        ran = [live] if live.strip() else []
    if ran:
        text = "\n".join([CANCELLED_WHILE_RUNNING, *ran])
        return ToolResultPart(text, call_id, not_run="cancelled")
    said = [text for text, _ in returned if text.strip()] or _errors(call.get("result"))
    return ToolResultPart("\n".join(said), call_id, not_run="cancelled")


def _errors(result: Any) -> list[str]:
    """The ``error`` texts of a call's responses (also where a blank ``output`` hid one)."""
    return [
        body["error"]
        for part in part_list(result)
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
        for body in [part["functionResponse"].get("response")]
        if isinstance(body, dict) and isinstance(body.get("error"), str)
    ]


def _display_text(value: Any) -> str:
    """A ``resultDisplay`` as text: a string, or terminal output (lines of ``{text, …}``
    tokens); anything else (a proposed edit's diff) is no output."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list) or not all(isinstance(line, list) for line in value):
        return ""
    lines = [
        "".join(t["text"] for t in line if isinstance(t, dict) and isinstance(t.get("text"), str))
        for line in value
    ]
    return "\n".join(lines).rstrip()


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
