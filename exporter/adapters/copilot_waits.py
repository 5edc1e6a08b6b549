"""What the calls of a chat's last request were waiting on, when VS Code saved it while its
response still ran (FORMATS.md §5.4): kept apart from ``copilot_log``, which reads the
response and puts the notice under each call.

VS Code sets a response NeedsInput exactly while one of its parts waits for the person: a
tool invocation waiting for confirmation (saved with no ``isConfirmed``) or for its result's
approval (after it ran; saved as skipped, ``isConfirmed`` ``{type: 5}``, its result details
left out), a confirmation or a question not answered, an elicitation pending. A call the
person skipped is saved as ``{type: 5}`` too, so a skipped call is read as one whose result
waits only when nothing else in the response can be what it waits on.

Copilot Chat runs a round's calls one after another, but MCP tools' (and ``runSubagent``)
it starts at once: several of those can wait for confirmation together, of the others one
at a time, the ones after it not yet asked (those whose arguments stream are in the response
already, with no ``isConfirmed`` either).
"""

from __future__ import annotations

from typing import Any

from ..model import NoticePart
from .copilot_tools import TOOL_KINDS, is_internal

PENDING, NEEDS_INPUT = 0, 4  # modelState values
_SKIPPED = {"type": 5}  # (ToolConfirmKind.Skipped)
# What a call waited on: its confirmation, its result's approval; or not told (it had not run)
ASKED, RESULT, UNTOLD = "asked", "result", "untold"
# Under a call that ran and whose result waited for the person's approval (a notice every
# template shows: the shipped one as a "Notification" holding this text).
RESULT_WAITING = NoticePart(
    "notification",
    "The tool ran; its result was waiting for the user's approval when the session was saved,"
    " so the model had not read it.",
)
_SAID_KINDS = (None, "markdownContent", "thinking")  # (the model's words)


def running(request: dict[str, Any]) -> str | None:
    """Was the request's response still running when the session was saved (or read)?
    ``modelState`` Pending ("pending") or NeedsInput ("asking": waiting for the person, a
    tool's confirmation above all); before VS Code wrote ``modelState``, a request with no
    ``result`` and not cancelled ("unstated"). None when it was not."""
    state = request.get("modelState")
    if isinstance(state, dict):
        value = state.get("value")
        return "pending" if value == PENDING else "asking" if value == NEEDS_INPUT else None
    done = "result" in request or request.get("isCanceled") is True
    return None if done else "unstated"


def last_round(response: list[Any]) -> list[int]:
    """The calls a running response made after its last text or thinking, by position:
    Copilot records what the tools returned (``result.metadata``) only once the request
    ends, and newer VS Code writes every invocation complete (``isComplete`` true; older
    builds wrote false for one still running or waiting for confirmation, which is said
    wherever it is). With no words between rounds, calls of earlier rounds are among them:
    those returned (the model went on to make the next)."""
    found: list[int] = []
    for i, p in enumerate(response):
        if isinstance(p, str) or isinstance(p, dict) and p.get("kind") in _SAID_KINDS:
            found = []
        elif isinstance(p, dict) and p.get("kind") in TOOL_KINDS and not is_internal(p):
            found.append(i)
    return found


def asked(part: dict[str, Any]) -> bool:
    """Was a call of an older build's running response (before ``modelState``) still waiting
    for the person to confirm it? Those builds confirmed at once a call no one need approve,
    and wrote ``isComplete`` false until it was done."""
    return part.get("isConfirmed") is None and part.get("isComplete") is False


def waits(response: list[Any], state: str | None, last: list[int]) -> dict[int, str]:
    """Call (by position) -> what it waited on (``ASKED``, ``RESULT``), of the calls of a
    NeedsInput response's last round (``last``, as ``last_round`` finds it) the file tells:
    every MCP call not confirmed (asked at once); another call not confirmed, or the last
    call skipped (its result waits), when it is the only part of the response that can be
    what it waits on. Any other call not
    confirmed had not run either, and an MCP call approved and with no result (they all
    record one) had not returned (``UNTOLD``: "no result")."""
    if state != "asking":
        return {}
    calls = [(i, response[i]) for i in last]
    unconfirmed = [i for i, p in calls if p.get("isConfirmed") is None]
    skipped = [i for i, p in calls if p.get("isConfirmed") == _SKIPPED]
    started = {i for i, p in calls if _at_once(p)}
    # an MCP call approved with no result: it may be waiting still (to sign in, say)
    going = [
        i for i, p in calls if i in started and i not in unconfirmed + skipped and not _done(p)
    ]
    found = {i: ASKED if i in started else UNTOLD for i in unconfirmed} | dict.fromkeys(
        going, UNTOLD
    )
    maybe = [i for i in unconfirmed if i not in started] + skipped
    sure = len(unconfirmed) + len(skipped) - len(maybe)  # (MCP calls asked: they wait)
    if len(maybe) == 1 and not sure and not going and not _questions(response):
        (only,) = maybe
        if only in unconfirmed:
            found[only] = ASKED
        elif only == calls[-1][0]:
            found[only] = RESULT
    return found


def _at_once(part: dict[str, Any]) -> bool:
    """Is it a call Copilot Chat starts as soon as the round is read (an MCP tool's, or
    ``runSubagent``), not after the calls before it?"""
    source = part.get("source")
    mcp = isinstance(source, dict) and source.get("type") == "mcp"
    return mcp or part.get("toolId") == "runSubagent"


def _done(part: dict[str, Any]) -> bool:
    """Did the call record a result (an MCP call always does: its input and output)?"""
    return part.get("resultDetails") is not None or part.get("resultError") is not None


def _questions(response: list[Any]) -> bool:
    """Does the response hold a question to the person not answered (a confirmation, a
    question carousel, an elicitation)?"""
    for part in response:
        if not isinstance(part, dict):
            continue
        kind = part.get("kind")
        if kind in ("confirmation", "questionCarousel") and part.get("isUsed") is not True:
            return True
        if kind == "elicitationSerialized" and part.get("state") not in ("accepted", "rejected"):
            return True
    return False
