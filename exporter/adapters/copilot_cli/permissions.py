"""The person's approvals a log says were still asked when it ends (FORMATS.md §6.6).

Copilot CLI writes ``permission.requested`` when it asks the person whether a call may run
(``{requestId, permissionRequest{kind, toolCallId?, …}, promptRequest?, resolvedByHook?}``)
and ``permission.completed`` (``{requestId, result, toolCallId?}``) once they, a rule or a
hook answered; the tool runs only after that. A request with no answer in the file names a
call still waiting for the person when the session ended or was read: its tool had not run.
A request a hook already answered (``resolvedByHook``) asked no one. The notes say it only
under a call of the last reply with no result (``_unanswered``); these events are shown
nowhere else.
"""

from __future__ import annotations

from typing import Any

from ...model import ToolCallPart


class Asked:
    """The requests of a log read so far that no answer followed, by request id."""

    def __init__(self) -> None:
        self.open: dict[str, str | None] = {}  # request id -> the call it asks about

    def event(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if kind not in ("permission.requested", "permission.completed"):
            return
        data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
        request = data.get("requestId")
        if kind == "permission.completed":
            if isinstance(request, str):
                self.open.pop(request, None)
            else:  # (an answer to no request known: it may be any of them)
                self.open.clear()
            return
        if not isinstance(request, str) or data.get("resolvedByHook") is True:
            return
        self.open[request] = _call_of(data)

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
