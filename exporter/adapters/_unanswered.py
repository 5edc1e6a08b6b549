"""The calls of a session's last reply that no result answers, marked (Codex, Copilot CLI,
Gemini CLI, OpenCode; Claude Code marks its own drafts: claude_drafts.mark_unanswered).

A call whose result the session never recorded (it ended, was killed, or was read while the
tool ran) looked exactly like a call whose output was empty: a ``NoticePart("unanswered")``
after it says so, and the note says "no result" under it.

Only the last reply's calls, and only when nothing but results followed it: a prompt, a
notice (an interruption, an error, the harness's note that the turn ended) or a reply after
them says the session went on, or what happened. A reply is a run of the model's messages
(some sources write each call of one response as a message of its own) and the results
after them; a message of the model after a result starts the next one. The messages go
through ``last_reply_marked`` one by one, held and streamed readings alike: it holds only
the reply being read, so a long session read as a stream gives the same note as one held.

Where the source says so, such a call was still waiting for the person's approval (they had
not answered its question, so its tool never ran): ``AWAITING_APPROVAL`` says that instead.
A source whose file tells it passes ``asked``, its own test, asked at the end as ``waits``
is; where a file cannot tell a question still open from a call approved and running, the
note says "no result", which is true of both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from ..model import Message, NoticePart, Part, ToolCallPart, ToolResultPart

Waits = Callable[[ToolCallPart], bool]

# The texts are for a template written before these notices, which shows a notice it does
# not know as a "Notification" holding its text (the shipped one says it in its own words).
UNANSWERED = NoticePart(
    "unanswered",
    "No result was recorded: the session ended, or was read, before the tool returned.",
)
AWAITING_APPROVAL = NoticePart(
    "awaiting_approval", "Waiting for the user's approval: the tool had not run."
)


def _has_id(call: ToolCallPart) -> bool:
    return call.call_id is not None


def _never(call: ToolCallPart) -> bool:
    return False


def _no_message(message: Message) -> bool:
    return False


def last_reply_marked(
    messages: Iterable[Message],
    waits: Waits = _has_id,
    asked: Waits = _never,
    aside: Callable[[Message], bool] = _no_message,
) -> Iterator[Message]:
    """``messages`` as they are, the calls of the last reply that no result answers followed
    by a notice saying so. ``waits(call)``: does this call wait for a result at all (a
    source's own test; by default, any call with an id)? ``asked(call)``: was it waiting
    for the person's approval (by default, never said)? Both are asked at the end, once
    every message has been read. ``aside(message)``: a notice of the harness's that says
    nothing of the calls (the context cut while a tool ran), which ends no reply."""
    held: list[Message] = []
    results = False  # a result came after the held reply's calls
    for message in messages:
        if held and message.role == "tool":
            held.append(message)
            results = True
            continue
        if held and aside(message):
            held.append(message)
            continue
        replies = message.role == "assistant" and not _notices(message)
        if replies and held and not results:
            held.append(message)  # (the same reply: its next call, say)
            continue
        yield from held
        held.clear()
        results = False
        if replies:
            held.append(message)
        else:
            yield message
    yield from _marked(held, waits, asked)


def _notices(message: Message) -> bool:
    return any(isinstance(p, NoticePart) for p in message.parts)


def _marked(reply: list[Message], waits: Waits, asked: Waits) -> list[Message]:
    answered = {
        p.call_id for m in reply for p in m.parts if isinstance(p, ToolResultPart) and p.call_id
    }

    def unanswered(call: ToolCallPart) -> bool:
        return call.call_id not in answered and waits(call)

    out = []
    for message in reply:
        if message.role != "assistant" or not any(
            isinstance(p, ToolCallPart) and unanswered(p) for p in message.parts
        ):
            out.append(message)
            continue
        out.append(replace(message, parts=tuple(noticed(message.parts, unanswered, asked))))
    return out


def noticed(parts: Iterable[Part], unanswered: Waits, asked: Waits = _never) -> list[Part]:
    """``parts``, each call that ``unanswered`` says has no result followed by the notice
    saying so: that it was waiting for the person's approval, where ``asked`` says so."""
    out: list[Part] = []
    for part in parts:
        out.append(part)
        if isinstance(part, ToolCallPart) and unanswered(part):
            out.append(AWAITING_APPROVAL if asked(part) else UNANSWERED)
    return out
