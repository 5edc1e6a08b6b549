"""The normalized session model every adapter produces and the note builder reads.

Parts are plain, frozen values: nothing here knows about Markdown, files in the vault or
any source format. Each part kind carries a ``kind`` string so templates can dispatch with
``{% if part.kind == "tool_call" %}``. Fields a source does not provide stay ``None``;
adapters never guess them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Literal


@dataclass(frozen=True, slots=True)
class TextPart:
    """Prose written by the person or the model (Markdown as they typed it)."""

    text: str
    kind: ClassVar[str] = "text"


@dataclass(frozen=True, slots=True)
class ThinkingPart:
    """The model's visible reasoning; ``redacted`` when only an opaque blob was stored."""

    text: str
    redacted: bool = False
    kind: ClassVar[str] = "thinking"


@dataclass(frozen=True, slots=True)
class ToolCallPart:
    """A tool the model called. ``subagent_id`` names the child session it spawned."""

    name: str
    input: Any
    call_id: str | None = None
    description: str | None = None
    subagent_id: str | None = None
    kind: ClassVar[str] = "tool_call"


NotRun = Literal["rejected", "denied", "cancelled"]


@dataclass(frozen=True, slots=True)
class ToolResultPart:
    """What a tool returned, paired with its call by ``call_id``. ``not_run`` says why a
    call did not run, or did not run to its end, when the source says so: ``rejected``
    (the person said no to it), ``denied`` (not permitted: the source does not say by
    whom), ``cancelled`` (stopped before it ran or finished). Such a call did not fail:
    adapters leave ``is_error`` false (the note builder reads it so whatever it says), and
    ``output`` holds whatever text the harness returned."""

    output: str
    call_id: str | None = None
    is_error: bool = False
    exit_code: int | None = None
    duration: float | None = None  # seconds
    not_run: NotRun | None = None
    kind: ClassVar[str] = "tool_result"


@dataclass(frozen=True, slots=True)
class AttachmentPart:
    """An image or file. ``data`` holds the decoded bytes: a note shows a text file's text,
    and copies every file into the vault (never base64 in the note)."""

    media_type: str
    data: bytes | None = None
    name: str | None = None
    withheld: str | None = None  # why its bytes are not copied into the vault (a secret)
    # Who attached it, when not the person: the editor sent its open file ("editor-file")
    # or selection ("editor-selection") with the prompt on its own.
    origin: str | None = None
    # The session holds only a copy its assistant shortened to fit a prompt (parts of the
    # file left out), not the file as it was (Copilot's ``isSummarized``).
    shortened: bool = False
    kind: ClassVar[str] = "attachment"

    @property
    def kind_of_media(self) -> str:
        """Its media type without parameters, in lower case (``text/x-typescript``)."""
        return self.media_type.split(";", 1)[0].strip().lower()

    @property
    def is_media(self) -> bool:
        """An image, audio, video or font: compressed samples, never text."""
        return self.kind_of_media.startswith(_MEDIA_FAMILIES)

    @property
    def is_text(self) -> bool:
        """A text file (source code, a log, JSON): session text, not an image's bytes. So is
        a file of another type whose bytes are text: sources that record no type call a
        ``.env`` file ``application/octet-stream``."""
        kind = self.kind_of_media
        if kind.startswith("text/") or kind in _TEXT_MEDIA or kind.endswith(("+json", "+xml")):
            return True
        return (
            not self.is_media
            and kind != "application/pdf"
            and (self.data is not None and reads_as_text(self.data))
        )


_TEXT_MEDIA = frozenset({
    "application/json", "application/xml", "application/javascript", "application/x-sh",
    "application/yaml", "application/x-yaml", "application/toml", "application/sql",
})  # fmt: skip
_MEDIA_FAMILIES = ("image/", "audio/", "video/", "font/")
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def decode_text(data: bytes) -> tuple[str, str, bytes]:
    """A text file's characters, the codec they were read with and the byte order mark
    before them: UTF-16 after its mark, else UTF-8, else Latin-1 (a Java ``.properties``
    file, a legacy log: every byte is a character there, so nothing is lost either way)."""
    bom = data[:2] if data.startswith(UTF16_BOMS) else b""
    codec = ("utf-16-le" if bom == UTF16_BOMS[0] else "utf-16-be") if bom else "utf-8"
    try:
        return data[len(bom) :].decode(codec, "surrogatepass"), codec, bom
    except UnicodeDecodeError:  # (after a mark: an odd number of bytes, not UTF-16 after all)
        return data.decode("latin-1"), "latin-1", b""


def reads_as_text(data: bytes) -> bool:
    """UTF-16 with its byte order mark, or UTF-8 without a NUL (binary formats hold both)."""
    if data.startswith(UTF16_BOMS):
        return True
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class CommandPart:
    """A command the person typed: a slash command (``/model opus``) or a shell line."""

    command: str
    shell: bool = False
    # It puts a question or request to the model (Aider's ``/ask why?``): the person's
    # words, worth a note even when no reply came.
    asks: bool = False
    kind: ClassVar[str] = "command"


@dataclass(frozen=True, slots=True)
class CommandOutputPart:
    """What a command printed (its stdout, or stderr when ``is_error``); or, ``sent``, the
    prompt it sent to the model (a custom slash command's file, filled in)."""

    output: str
    is_error: bool = False
    sent: bool = False
    kind: ClassVar[str] = "command_output"


@dataclass(frozen=True, slots=True)
class SummaryPart:
    """A compaction summary that stands in for the earlier conversation: how it was started
    (``trigger``: ``auto``, ``manual``) and how many tokens the context held before it
    (``tokens``), where the source says."""

    text: str
    trigger: str | None = None
    kind: ClassVar[str] = "summary"
    tokens: int | None = None


@dataclass(frozen=True, slots=True)
class NoticePart:
    """A marker the harness recorded: an interruption, a rewind, an error (``error``: the
    API's, or with ``app`` another the assistant's app showed, a Gemini CLI notice, a failed
    subagent), a warning; or that a tool call has no result in the session
    (``unanswered``), or none because it was still waiting for the person's approval, so
    its tool had not run (``awaiting_approval``). A ``decision`` is not the harness's: it
    says, in words, what the person decided of the assistant's work (a plan approved or
    rejected, an edit kept, undone, accepted, rejected or changed before it was accepted,
    a reply voted on); a template written before it shows it as a notification. A
    ``remark`` is ccexport's own, of what the source keeps not (Cursor's transcript keeps no
    tool output, a reply cut short in the log): shown as a notification, it is no message
    of the session's and ``messages`` does not count it."""

    notice: Literal[
        "interrupted",
        "rewound",
        "error",
        "warning",
        "queued",
        "notification",
        "decision",
        "unanswered",
        "awaiting_approval",
        "remark",
    ]
    text: str = ""
    # An error the app showed, not known to be the API's: titled "Error", not "API error"
    # (a kind of its own would show as a notification in a template written before).
    app: bool = False
    kind: ClassVar[str] = "notice"


Part = (
    TextPart
    | ThinkingPart
    | ToolCallPart
    | ToolResultPart
    | AttachmentPart
    | CommandPart
    | CommandOutputPart
    | SummaryPart
    | NoticePart
)

Role = Literal["user", "assistant", "system", "tool"]


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts. Adapters count each API response once."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )


_NO_TOKENS = Usage()
# Tokens per model, where the source says which model used them: (model, its tokens), in
# the order the models were first used.
ModelUsage = tuple[tuple[str, Usage], ...]


def add_usage(counts: dict[str | None, Usage], model: str | None, usage: Usage) -> None:
    """Count ``usage`` to ``model`` in ``counts`` (model -> tokens, as ``usage_per_model``
    takes them)."""
    counts[model] = counts.get(model, _NO_TOKENS) + usage


def usage_per_model(
    counts: Mapping[str | None, Usage], *, each_with_input: bool = False
) -> ModelUsage:
    """``counts`` (model -> tokens) as a Session holds them: tokens of no named model, and
    models with none, left out. ``each_with_input``: none at all when a model's tokens are
    output alone (a source whose counts may sit on a message apart from its model's: that
    share could not be priced, and the session is then priced whole at its main model)."""
    per_model = tuple((m, u) for m, u in counts.items() if m and u != _NO_TOKENS)
    if each_with_input and any(u.output_tokens and not u.input_tokens for _, u in per_model):
        return ()
    return per_model


@dataclass(frozen=True, slots=True)
class Message:
    """One turn of one speaker. ``source_id`` is the source's own id for traceability."""

    role: Role
    parts: tuple[Part, ...]
    source_id: str | None = None
    timestamp: datetime | None = None  # timezone-aware UTC
    model: str | None = None


MessageMap = Callable[[Message, Any], Message]  # (message, tally) -> message


class MessageStream:
    """The messages of a session too large to hold at once: read again from the source
    every time they are iterated, and let go message by message. ``mapped`` adds a step
    applied to every message as it is read; ``counted`` passes each step a tally to add to
    (so what a step counts is counted on the one pass that asks for it)."""

    __slots__ = ("_read", "_maps")

    def __init__(self, read: Callable[[], Iterator[Message]], maps: tuple[MessageMap, ...] = ()):
        self._read = read
        self._maps = maps

    def __iter__(self) -> Iterator[Message]:
        return self.counted(None)

    def counted(self, tally: Any) -> Iterator[Message]:
        for message in self._read():
            for step in self._maps:
                message = step(message, tally)
            yield message

    def mapped(self, step: MessageMap) -> MessageStream:
        return MessageStream(self._read, (*self._maps, step))


@dataclass(frozen=True, slots=True)
class Session:
    """One conversation, normalized. ``key`` is its identity in the vault. A very long
    session's ``messages`` may be a MessageStream (see ``is_streamed``)."""

    source: str
    session_id: str
    messages: tuple[Message, ...] | MessageStream
    source_path: Path
    title: str | None = None
    project: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    git_commit: str | None = None
    git_remote: str | None = None
    models: tuple[str, ...] = ()
    started_at: datetime | None = None
    ended_at: datetime | None = None
    usage: Usage = Usage()
    cost: float | None = None  # USD, where the source records it
    parent_id: str | None = None
    forked_from: str | None = None  # the session this one was forked from
    subagent_ids: tuple[str, ...] = ()
    agent_label: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    # A copy the person saved of ``forked_from``'s conversation so far (Gemini's /chat save),
    # not a fork that goes its own way: that session's note holds these messages too.
    saved_copy: bool = False
    # ``usage`` per model, where the source says which model used which tokens (empty when
    # it does not): a session that changed models is priced at each one's rate. Their sum
    # is at most ``usage``; the rest is tokens the source names no model for. (Last, so that
    # a Session built from its fields in the older order is still one.)
    model_usage: ModelUsage = ()
    # Lines of ``source_path`` that could not be read at all (damaged, cut off; each
    # reported as a warning when the file was read): the note says so, on every run after.
    unread_lines: tuple[int, ...] = ()
    # The message (its index in ``messages``) whose words title the session when its first
    # prompt would not (Aider: the first request after commands that only set the chat up,
    # ``/add app.py``). The note builder makes the title of it, as of a first prompt.
    title_from: int | None = None
    # Sessions that went on from this one, learned from them (``LinkPlan``): (session id,
    # how: "forked" or "saved"), in the order they started.
    forks: tuple[tuple[str, str], ...] = ()
    # The command line that started the session, where the source logs it (Aider's banner:
    # ``aider --model sonnet --dry-run``, the program named without its folder).
    command: str | None = None

    @property
    def key(self) -> str:
        return session_key(self.source, self.session_id)

    @property
    def is_streamed(self) -> bool:
        return isinstance(self.messages, MessageStream)

    @property
    def tool_call_count(self) -> int:
        return sum(1 for m in self.messages for p in m.parts if p.kind == "tool_call")


def linked_message(message: Message, links: Mapping[str, str]) -> Message:
    """``message`` with each tool call that started a subagent given that subagent's session
    id (``links``: tool call id -> session id); the message itself if none did."""
    if not any(isinstance(p, ToolCallPart) and p.call_id in links for p in message.parts):
        return message
    parts = tuple(
        ToolCallPart(p.name, p.input, p.call_id, p.description, links[p.call_id])
        if isinstance(p, ToolCallPart) and p.call_id in links
        else p
        for p in message.parts
    )
    return Message(message.role, parts, message.source_id, message.timestamp, message.model)


def session_key(source: str, session_id: str) -> str:
    """The identity of a session across runs: source plus the source's own id."""
    return f"{source}:{session_id}"


def family_roots(parents: Mapping[str, str | None]) -> dict[str, str]:
    """Each session's family among ``parents`` (session id -> its parent's id, or None): the
    id at the top of its chain of parents among them. A loop of parents (a damaged source)
    is one family, named by its least id."""
    roots: dict[str, str] = {}
    for ident in parents:
        chain, at = [ident], ident
        while at not in roots and parents.get(at) in parents and parents[at] not in chain:
            at = parents[at]  # type: ignore[assignment]
            chain.append(at)
        if at in roots:
            top = roots[at]
        elif parents.get(at) in chain:
            top = min(chain[chain.index(parents[at]) :])  # type: ignore[arg-type]
        else:
            top = at
        for member in chain:
            roots[member] = top
    return roots


def _pickled_as_fields(cls: type) -> None:
    """Sessions cross to the worker processes that render them: pickled as their fields in
    order and rebuilt by the constructor, a session travels in about half the time of the
    frozen dataclass's default (a state dict, then one ``setattr`` per field)."""
    names = tuple(f.name for f in fields(cls))
    get = operator.attrgetter(*names)
    if len(names) == 1:
        cls.__reduce__ = lambda self: (cls, (get(self),))  # type: ignore[method-assign]
    else:
        cls.__reduce__ = lambda self: (cls, get(self))  # type: ignore[method-assign]


for _cls in (TextPart, ThinkingPart, ToolCallPart, ToolResultPart, AttachmentPart, CommandPart,
             CommandOutputPart, SummaryPart, NoticePart, Usage, Message, Session):  # fmt: skip
    _pickled_as_fields(_cls)
