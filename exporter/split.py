"""Part notes: a session too long for one note continues in linked notes.

Obsidian struggles with notes of tens of megabytes, so a session whose note would pass
``max_bytes`` is cut into parts: ``<note>.md``, ``<note> (part 2).md``, … Each part links to
the one before and after it. The cuts are chosen from the start of the session, message by
message, with a size estimated from each message alone, so a cut depends only on what came
before it: when the session grows, the parts already closed keep their exact text, and only
the last part (and, once, the part before a new one, to gain its ``next`` link) changes.

A cut falls before a person's prompt (a new turn), never before Claude Code's
``[Request interrupted by user]``, which ends the turn before it; a turn that would take a
part past a quarter over the limit is also cut before one of the model's messages. A tool call stays
with its result: while a call of the part waits for it, nothing cuts, not a prompt the
person typed meanwhile (queued, delivered with the result: it stays in the part after the
call, as the whole note shows it), nor another call of the same reply. A part's properties
describe its own messages, but for the session's totals (tokens, cost), which the source
records for the whole session only: they go to the first part, the note the index notes
link and a query keeps (``!part OR part = 1``), and to no later part, so that a sum over
every note counts them once. As the session grows, the first part's totals change with it
(its text does not).

Parts are made as the messages are read (a cut needs nothing after it), so a session whose
messages are streamed from its source is never held whole: each part is handed over as
soon as it is full.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from .clean import INTERRUPT_MARKERS
from .markdown import wikilink
from .model import Message, NoticePart, Session, TextPart, ToolCallPart, ToolResultPart, Usage
from .notenames import fitted_name, session_title
from .notes import Note
from .notespec import NOTE_MAX_BYTES as NOTE_MAX_BYTES  # (re-exported)
from .notespec import is_later_part as is_later_part
from .notespec import part_key as part_key
from .turns import MAX_TOOL_OUTPUT

_MESSAGE_OVERHEAD = 120  # a turn heading and blank lines, estimated
_PART_OVERHEAD = 80  # a callout or fence around one part of a message, estimated
_TURN_SLACK = 1.25  # how far past the limit a part may grow to end at a turn


def part_relpath(first: str, number: int) -> str:
    """Part ``number`` sits beside the first part's note and takes its name."""
    path = PurePosixPath(first)
    return str(path.with_name(fitted_name(path.stem, f" (part {number})")))


@dataclass(frozen=True, slots=True)
class Part:
    """Which part of its session a note is, and the file stems of its neighbours."""

    number: int
    previous: str | None = None
    following: str | None = None


def part_sessions(session: Session, max_bytes: int = NOTE_MAX_BYTES) -> list[Session]:
    """The session itself if it fits one note, else one session per part."""
    return [part for _, part, _ in iter_parts(session, max_bytes)]


def iter_parts(
    session: Session, max_bytes: int = NOTE_MAX_BYTES, tally: Any = None
) -> Iterator[tuple[int, Session, bool]]:
    """``(number, session, last)`` for each part as its messages are read: the session
    itself as ``(1, session, True)`` if it fits one note, else one session per part, holding
    that part's messages (each is rendered on its own: a long session is never one big
    text, and a streamed one is never held whole). ``tally`` goes to a streamed session's
    steps (redaction counts there what it replaces)."""
    named: set[str] = set()  # the subagents tool calls name, for the last part
    title = ""
    messages = session.messages.counted(tally) if session.is_streamed else session.messages
    chunks = _chunks(_naming(messages, named), max_bytes)
    for number, (chunk, last) in enumerate(chunks, start=1):
        if number == 1 and last:
            whole = session if not session.is_streamed else replace(session, messages=chunk)
            yield 1, whole, True
            return
        title = title or session_title(session)
        yield number, _part_session(session, chunk, number, last, title, named), last


def part_ranges(messages: tuple[Message, ...], max_bytes: int) -> list[tuple[int, int]]:
    """``(start, end)`` message slices, one per part; a cut depends only on what precedes it."""
    ranges: list[tuple[int, int]] = []
    start = 0
    for chunk, _ in _chunks(messages, max_bytes):
        ranges.append((start, start + len(chunk)))
        start += len(chunk)
    return ranges


def _chunks(
    messages: Iterable[Message], max_bytes: int
) -> Iterator[tuple[tuple[Message, ...], bool]]:
    """Each part's messages as soon as the part is closed, and whether it is the last."""
    cutter = PartCutter(max_bytes)
    for message in messages:
        closed = cutter.add(message)
        if closed is not None:
            yield closed, False
    yield cutter.end(), True


class PartCutter:
    """Cuts messages given one at a time into parts: ``add`` returns a part's messages when
    the message starts the next part; ``end``, the last part's."""

    __slots__ = ("max_bytes", "current", "size", "waiting", "answered")

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.current: list[Message] = []
        self.size = 0
        self.waiting: set[str] = set()  # ids of the reply's calls whose result is to come
        self.answered = False  # a result came since: the model's next message is a new reply

    def add(self, message: Message) -> tuple[Message, ...] | None:
        weight = estimated_bytes(message)
        closed = None
        room = self._room(message)
        if self.current and self.size + weight > self.max_bytes * room:
            closed, self.current, self.size = tuple(self.current), [], 0
        self.current.append(message)
        self.size += weight
        return closed

    def _room(self, message: Message) -> float:
        """``_room``, but none while a call of the part waits for its result (cut there, the
        call would end its part as one that printed nothing, and its output stand alone in
        the next). A call still unanswered when the model's next reply or the person's next
        prompt comes is given up, as ``_unanswered`` reads a reply: its result is not coming."""
        room = _room(message)
        answers = any(
            isinstance(p, ToolResultPart) and p.call_id in self.waiting for p in message.parts
        )
        moves_on = message.role == "assistant" and self.answered  # the model's next reply
        if moves_on or _is_prompt(message) and not _queued(message):  # (or a new turn)
            self.answered = False
            if not answers:
                self.waiting.clear()
        blocked = bool(self.waiting)
        for part in message.parts:  # (a call and its result may share a message)
            if isinstance(part, ToolCallPart) and part.call_id:
                self.waiting.add(part.call_id)
            elif isinstance(part, ToolResultPart):
                self.waiting.discard(part.call_id or "")
                self.answered = True
        return float("inf") if blocked else room

    def end(self) -> tuple[Message, ...]:
        return tuple(self.current)


def _naming(messages: Iterable[Message], named: set[str]) -> Iterator[Message]:
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart) and part.subagent_id:
                named.add(part.subagent_id)
        yield message


def _room(message: Message) -> float:
    """How full a part may be before this message starts the next one (as a share of the
    limit): a person's prompt starts a turn; one of the model's messages only if the turn
    has run long; anything else (a tool's result) never."""
    if _is_prompt(message):
        return 1.0
    return _TURN_SLACK if message.role == "assistant" else float("inf")


def _is_prompt(message: Message) -> bool:
    """A person's message (a prompt, a command, an attachment): it starts a turn. Claude
    Code's ``[Request interrupted by user]``, written in the person's name, ends the turn
    before it (a notice of it, once cleaned): no cut falls before it."""
    return (
        message.role == "user"
        and any(p.kind in ("text", "command", "attachment") for p in message.parts)
        and not _interruption(message)
    )


def _interruption(message: Message) -> bool:
    """Is ``message`` only Claude Code's notice that the person stopped the turn (its text
    as the log holds it, before ``clean`` makes a notice of it)?"""
    return all(
        isinstance(p, TextPart) and p.text.strip() in INTERRUPT_MARKERS for p in message.parts
    )


def _queued(message: Message) -> bool:
    """A prompt the person typed while the model worked, delivered with a tool's result."""
    return any(isinstance(p, NoticePart) and p.notice == "queued" for p in message.parts)


def estimated_bytes(message: Message) -> int:
    """About how much of a note this message makes, from its own content only."""
    size = _MESSAGE_OVERHEAD
    for part in message.parts:
        size += _PART_OVERHEAD
        if part.kind == "tool_call":
            size += _value_bytes(part.input) + len(part.name) + len(part.description or "")
        elif part.kind == "tool_result":
            size += min(_text_bytes(part.output), 4 * MAX_TOOL_OUTPUT)
        elif part.kind == "command_output":
            size += _text_bytes(part.output)
        elif part.kind == "command":
            size += _text_bytes(part.command)
        elif part.kind in ("text", "thinking", "summary", "notice"):
            size += _text_bytes(part.text)
    return size


def _text_bytes(text: str) -> int:
    # Callouts and quotes prefix every line with "> ": count that as well.
    size = len(text) if text.isascii() else len(text.encode("utf-8", "replace"))
    return size + 2 * text.count("\n")


def _value_bytes(value: Any) -> int:
    """The size of a JSON-like value, walked without recursion (it may be nested deep)."""
    size, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            size += _text_bytes(item) + 4
        elif isinstance(item, dict):
            size += 2
            for key, inner in item.items():
                stack.append(inner)
                size += len(str(key)) + 4
        elif isinstance(item, list | tuple):
            size += 2
            stack.extend(item)
        else:
            size += 8
    return size


def _part_session(
    session: Session,
    messages: tuple[Message, ...],
    number: int,
    last: bool,
    title: str,
    named: set[str],
) -> Session:
    """The session as one part sees it: its messages, and properties of those alone."""
    part = part_properties(session, PartFacts.of(messages), number, last, title, named, {})
    return replace(part, messages=messages)


@dataclass(frozen=True, slots=True)
class PartFacts:
    """What a part's properties need of its messages (kept for a part held packed)."""

    first_time: datetime | None
    last_time: datetime | None
    models: tuple[str, ...]
    calls: tuple[tuple[str | None, str | None], ...]  # each tool call's id and subagent

    @classmethod
    def of(cls, messages: tuple[Message, ...]) -> PartFacts:
        times = [m.timestamp for m in messages if m.timestamp]
        calls = tuple(
            (p.call_id, p.subagent_id)
            for m in messages
            for p in m.parts
            if isinstance(p, ToolCallPart)
        )
        models = tuple(dict.fromkeys(m.model for m in messages if m.model))
        return cls(times[0] if times else None, times[-1] if times else None, models, calls)

    def subagents(self, links: Mapping[str, str]) -> tuple[str, ...]:
        """The subagents the part's tool calls started, in order (``links``: tool call id
        -> subagent, for calls linked only since their messages were read)."""
        ids = (links[call] if call in links else agent for call, agent in self.calls)
        return tuple(dict.fromkeys(i for i in ids if i))


def part_properties(
    session: Session,
    facts: PartFacts,
    number: int,
    last: bool,
    title: str,
    named: set[str],
    links: Mapping[str, str],
) -> Session:
    """The session as one part sees it, without its messages: properties of those alone
    (``named``: the subagents tool calls name in the whole session)."""
    spawned = facts.subagents(links)
    if last:  # children no call in the session names are listed on the growing end
        spawned += tuple(s for s in session.subagent_ids if s not in named)
    return replace(
        session,
        messages=(),
        title=title if number == 1 else f"{title} (part {number})",
        started_at=session.started_at if number == 1 else facts.first_time,
        ended_at=session.ended_at if last else facts.last_time,
        models=facts.models or session.models,
        usage=session.usage if number == 1 else Usage(),  # (the session's, known ahead)
        model_usage=session.model_usage if number == 1 else (),
        cost=session.cost if number == 1 else None,
        subagent_ids=spawned,
        forks=session.forks if number == 1 else (),  # (named at the top of the first part)
    )


def link_parts(note: Note, part: Part) -> None:
    """The note of one part: its own key, and properties and a line at the top and bottom
    that lead from part to part."""
    number, previous, following = part.number, part.previous, part.following
    note.key = part_key(note.key, number)
    note.frontmatter["part"] = number
    if previous:
        note.frontmatter["previous_part"] = wikilink(previous)
    if following:
        note.frontmatter["next_part"] = wikilink(following)
    top = f"> [!info] Part {number} of this session"
    if previous:
        top += f" · continued from {wikilink(previous, f'part {number - 1}')}"
    body = f"{top}\n\n{note.body.strip(chr(10))}\n"
    if following:
        body += f"\n> [!info] Continued in {wikilink(following, f'part {number + 1}')}\n"
    note.body = body
