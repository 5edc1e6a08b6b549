"""What the Cline family's UI transcript (``ui.py``) records of a call that did not run:
the person rejected it at the approval prompt, or Cline's command permissions denied it."""

from __future__ import annotations

import re

from ...model import Message, Part, Role, ToolCallPart, ToolResultPart
from .results import json_object as _object


def denied(
    messages: list[Message], open_call: str | None, text: str, source_id: str
) -> tuple[list[Part], Role]:
    """``command_permission_denied``: Cline's command permissions (``CLINE_COMMAND_PERMISSIONS``)
    refused a command the model asked to run, so it never ran. Cline checks them before it
    asks the person or says the command, so the entry alone names it (``Command "…" was
    denied by …``): the model's call, not permitted (``not_run``, no error). A command entry
    just before it, without a result (a build that asked first), is that call; a text that
    names no command is the result of no call."""
    if not text.strip():
        return [], "assistant"
    named = _DENIED_COMMAND.match(text)
    if named is None:
        return [ToolResultPart(text, None, not_run="denied")], "tool"
    command = named["command"]
    asked = _last_call(messages, open_call)
    if (
        asked is not None
        and asked.name == "execute_command"
        and isinstance(asked.input, dict)
        and asked.input.get("command") == command
        and not _answered(messages, open_call)
    ):
        return [ToolResultPart(text, open_call, not_run="denied")], "tool"
    call = ToolCallPart("execute_command", {"command": command}, source_id)
    return [call, ToolResultPart(text, source_id, not_run="denied")], "assistant"


_DENIED_COMMAND = re.compile(r'Command "(?P<command>.*)" was denied by ', re.S)


def rejected(messages: list[Message], open_call: str, text: str) -> ToolResultPart | None:
    """The open call's result when the person rejected it at Cline's approval prompt. The
    UI file keeps the question and not the answer; the request Cline sent next
    (``api_req_started``'s ``request``) holds the call's result as the model got it,
    ``[execute_command for 'npm test'] Result:`` then ``The user denied this operation.``
    (and what the person wrote instead, if anything). Only a call with no result yet whose
    command, path or server the header names is taken for it."""
    if "The user denied this operation" not in text:
        return None
    info = _object(text)
    request = info.get("request") if info else None
    call = _last_call(messages, open_call)
    if not isinstance(request, str) or call is None or _answered(messages, open_call):
        return None
    for found in _DENIAL.finditer(request):
        if _names(found["what"], call):
            return ToolResultPart(found["result"].strip(), open_call, not_run="rejected")
    return None


# Cline's toolDenied (and its text with the person's feedback), the whole of a result: the
# request joins its blocks with a blank line.
_DENIAL = re.compile(
    r"\[(?P<what>[^\]\n]{1,500})\] Result:\s*"
    r"(?P<result>The user denied this operation(?:\.| and provided the following feedback:"
    r"\s*<feedback>.*?</feedback>))(?=\s*\n\n|\s*\Z)",
    re.S,
)


def _names(what: str, call: ToolCallPart) -> bool:
    """Does a result header (``execute_command for 'npm test'``) name this call?"""
    subject = call.input if isinstance(call.input, dict) else {}
    named = [subject.get("command"), subject.get("path"), call.name.split("/", 1)[0]]
    return any(isinstance(n, str) and n and what.endswith(f" for '{n}'") for n in named)


def _last_call(messages: list[Message], call_id: str | None) -> ToolCallPart | None:
    """The call of this id in the last message that holds calls (None if it is not there)."""
    for message in reversed(messages[-3:]):
        calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
        if calls:
            return next((c for c in calls if c.call_id == call_id), None)
    return None


def _answered(messages: list[Message], call_id: str | None) -> bool:
    return any(
        isinstance(p, ToolResultPart) and p.call_id == call_id
        for m in messages[-3:]
        for p in m.parts
    )
