"""The person's approvals a log says were still asked when it ends (FORMATS.md §6.6).

Copilot CLI writes ``permission.requested`` when it asks the person whether a call may run
(``{requestId, permissionRequest{kind, toolCallId?, …}, promptRequest?, resolvedByHook?}``)
and ``permission.completed`` (``{requestId, result, toolCallId?}``) once they, a rule or a
hook answered; the tool runs only after that. A request with no answer in the file names a
call still waiting for the person when the session ended or was read: its tool had not run.
A request a hook already answered (``resolvedByHook``) asked no one. The notes say it only
under a call of the last reply with no result (``_unanswered``); these events are shown
nowhere else.

An answer that refused the call (``result.kind`` ``denied-…``) says it did not run: a call
of the last reply the log gives no result of reads as refused (``refusals``), by the person
(``denied-interactively-by-user``) or by a rule, a policy or a hook (any other denial,
shown as not permitted, naming no one), as a refusal the CLI wrote a result of reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ...model import Message, NoticePart, NotRun, ToolCallPart, ToolResultPart

_BY_USER = "denied-interactively-by-user"


class Asked:
    """The requests of a log read so far that no answer followed, by request id."""

    def __init__(self) -> None:
        self.open: dict[str, str | None] = {}  # request id -> the call it asks about
        self.asked: dict[str, str | None] = {}  # every request read so far, the same
        self.refused: dict[str, tuple[NotRun, str]] = {}  # call id -> how, the kind said

    def event(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if kind not in ("permission.requested", "permission.completed"):
            return
        data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
        request = data.get("requestId")
        if kind == "permission.completed":
            if isinstance(request, str):
                self.open.pop(request, None)
                self._answered(data, self.asked.get(request))
            else:  # (an answer to no request known: it may be any of them)
                self.open.clear()
            return
        if not isinstance(request, str):
            return
        self.asked[request] = _call_of(data)
        if data.get("resolvedByHook") is not True:
            self.open[request] = self.asked[request]

    def _answered(self, data: dict[str, Any], asked_of: str | None) -> None:
        """Note the call an answer refused (named by the answer, else by its question)."""
        result = data.get("result") if isinstance(data.get("result"), dict) else {}
        kind = result.get("kind")
        call = data.get("toolCallId") if isinstance(data.get("toolCallId"), str) else asked_of
        if call and isinstance(kind, str) and kind.startswith("denied"):
            self.refused[call] = ("rejected" if kind == _BY_USER else "denied", kind)

    def asks(self, call: ToolCallPart) -> bool:
        """Was ``call`` waiting for the person's approval when the log ends?"""
        return call.call_id is not None and call.call_id in self.open.values()


def _call_of(data: dict[str, Any]) -> str | None:
    for key in ("permissionRequest", "promptRequest"):
        asked = data.get(key)
        call = asked.get("toolCallId") if isinstance(asked, dict) else None
        if isinstance(call, str) and call:
            return call
    return None


def refusals(messages: Iterable[Message], asked: Asked) -> Iterator[Message]:
    """``messages`` as they are; then, if the last reply has calls the log refused (asked,
    and denied) and gives no result of, their results: not run, and who refused them. Held
    and streamed readings alike (``asked`` has read every event once ``messages`` end)."""
    waiting: dict[str, None] = {}  # the last reply's calls with no result, in order
    results = False  # the last message was a result
    when = None
    for message in messages:
        yield message
        when = message.timestamp or when
        calls = [p.call_id for p in message.parts if isinstance(p, ToolCallPart) and p.call_id]
        if message.role == "tool":
            for part in message.parts:
                if isinstance(part, ToolResultPart):
                    waiting.pop(part.call_id or "", None)
            results = True
            continue
        if message.role != "assistant" or any(isinstance(p, NoticePart) for p in message.parts):
            waiting.clear()  # (the chat went on, or a notice says what happened)
        elif results:
            waiting.clear()  # (a new reply: the calls before were answered or went on)
        waiting.update(dict.fromkeys(calls))
        results = False
    refused = [(call, asked.refused[call]) for call in waiting if call in asked.refused]
    if refused:
        parts = [ToolResultPart(_said(kind), call, not_run=how) for call, (how, kind) in refused]
        yield Message("tool", tuple(parts), None, when)


def _said(kind: str) -> str:
    return "denied by the user" if kind == _BY_USER else f"not permitted ({kind})"
