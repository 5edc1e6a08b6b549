"""A streamed session cut into parts where it is first read, so that it is read once.

A session too long to hold (a ``MessageStream``) was read twice: ahead, by a worker, for its
totals (where it ends, its usage, its subagents); then by the main process, message by
message, to be redacted, cut into parts and sent, part by part, to be rendered. For a
100 MB transcript the second reading, the redaction and the sending kept the main process
busy for seconds, while the first reading had made every message and let it go.

Now an adapter that can (``keeps_streamed``) hands each message it closes to a
``PartPacker`` during that first reading, in the worker (``readahead``): it is redacted and
weighed as the main process would, the parts are cut where ``split`` cuts them, and each
part is pickled and compressed as soon as it is closed. The main process places the parts
and hands each one on as it came; it never opens them. Links to subagents are known only
at the end of the reading: each part's properties take them from ``PartFacts`` in the main
process, and its messages where it is rendered (``PackedMessages``). The notes are those of
the two readings: ``tests/test_packed.py`` compares vaults written both ways.

The session is read again by the main process, as before, when the packer lets go: its
parts would hold more than ``PACKED_MAX`` bytes (the main process holds them until each is
handed on), the session makes a single note (its note is planned as a whole session's), or
the adapter did not end the reading with it (Claude Code's oldest layout reads the file a
second time anyway).
"""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .model import Message, MessageStream, Session, linked_message
from .notenames import titled_stub
from .split import PartCutter, PartFacts, part_properties

if TYPE_CHECKING:
    from .redact import Redactor

# Compressed bytes a session's parts may take, held (by the worker, then the main process,
# until each is handed on): about 100 MB of a transcript's JSON, more where it repeats.
PACKED_MAX = 32 * 1024 * 1024
_LEVEL = 1  # zstd's fastest: a part compresses in a few ms, to a tenth or less


@dataclass(frozen=True, slots=True)
class PackedMessages:
    """One part's messages, redacted, pickled and compressed; opened where it is rendered."""

    blob: bytes
    links: Mapping[str, str]  # tool call id -> subagent session id, known at the end

    def messages(self) -> tuple[Message, ...]:
        import zstandard

        held = pickle.loads(zstandard.ZstdDecompressor().decompress(self.blob))
        if not self.links:
            return held
        return tuple(linked_message(m, self.links) for m in held)


@dataclass(frozen=True, slots=True)
class PackedSession:
    """A streamed session's parts, as the worker that read it cut them."""

    parts: tuple[tuple[PartFacts, bytes], ...]
    links: Mapping[str, str]

    def cut(self, session: Session) -> Iterator[tuple[int, Session, bool]]:
        """``(number, part, last)`` as ``split.iter_parts`` gives them for ``session`` (the
        worker's stub, with its title, and the subagents the main process knows): each
        part without its messages (``messages`` gives them)."""
        named = {i for facts, _blob in self.parts for i in facts.subagents(self.links)}
        title = session.title or ""
        for number, (facts, _blob) in enumerate(self.parts, start=1):
            last = number == len(self.parts)
            yield number, part_properties(
                session, facts, number, last, title, named, self.links
            ), last  # fmt: skip

    def messages(self, number: int) -> PackedMessages:
        return PackedMessages(self.parts[number - 1][1], self.links)

    def every_message(self) -> Iterator[Message]:
        """The messages, part by part, opened as they are reached (a title is found early)."""
        for number in range(1, len(self.parts) + 1):
            yield from self.messages(number).messages()


class PartPacker:
    """Given to an adapter's ``load`` as its ``keep`` (``adapters.base.MessageSink``): the
    messages of the session it streams, redacted, cut and packed as they come."""

    def __init__(self, max_bytes: int, rules: Redactor | None, source: str) -> None:
        self._cutter = PartCutter(max_bytes)
        self._rules = rules
        self._source = source  # (whose harness's wrappers a prompt is cleaned of)
        self.counts: Counter[str] = Counter()  # what redaction replaced, if the parts are used
        self._parts: list[tuple[PartFacts, bytes]] | None = []
        self._held = 0
        self._links: Mapping[str, str] | None = None  # set by ``end``
        self._compressor: Any = None

    def add(self, messages: Iterable[Message]) -> None:
        if self._parts is None:
            return  # let go: the session is read again
        rules, counts, source = self._rules, self.counts, self._source
        for message in messages:
            closed = self._cutter.add(rules.message(message, counts, source) if rules else message)
            if closed is not None:
                self._pack(closed)

    def end(self, links: Mapping[str, str]) -> None:
        """The reading is over; ``links``: tool call id -> subagent session id."""
        if self._parts is not None:
            self._pack(self._cutter.end())
            self._links = dict(links)

    def _pack(self, messages: tuple[Message, ...]) -> None:
        if self._compressor is None:
            import zstandard

            self._compressor = zstandard.ZstdCompressor(level=_LEVEL)
        blob = self._compressor.compress(pickle.dumps(messages, pickle.HIGHEST_PROTOCOL))
        # A copy: python-zstandard's result keeps its allocation of the compress bound (about
        # the input's size) whatever its length, so each part held took what it saved.
        blob = bytes(memoryview(blob))
        self._held += len(blob)
        if self._held > PACKED_MAX:
            self._parts = None  # too much to hold: read again, as before
            self._cutter.current.clear()
            return
        self._parts.append((PartFacts.of(messages), blob))  # type: ignore[union-attr]

    def packed(self, session: Session) -> tuple[Session, PackedSession] | None:
        """The streamed ``session`` the adapter loaded (unredacted), redacted without its
        messages and titled, beside its parts; None when it is to be read again."""
        if self._parts is None or self._links is None or len(self._parts) < 2:
            return None
        parts = PackedSession(tuple(self._parts), self._links)
        counts: Counter[str] = Counter()
        redacted = self._rules.session(session, counts) if self._rules else session
        stub = titled_stub(replace(redacted, messages=MessageStream(parts.every_message)))
        if stub is None:
            return None  # planned from its text, which the main process reads
        self.counts.update(counts)
        return stub, parts
