"""Units read ahead in the worker pool, so that the main process mostly places and writes.

With a pool running, the main process used to read, clean and redact every session itself
and hand only the rendering over: on two cores it was the busiest process, and the run
waited for it. Now, a few units ahead of the one being written, a worker reads a unit the
way the main process would (the same adapter code, filters and redaction) and renders
each session that stands alone: no parent, subagent or fork to link and short enough for
one note, so its note depends on nothing the main process decides but the note's path,
which the note's text never shows. A family whose links stay inside its unit (a session
and its subagents) is rendered too, at the paths new notes get, each note linking to the
others there; the main process uses those notes only if it chooses exactly those paths
(``LinkPlan.places_as``), and checks every link again when it writes them. The main
process places the notes and writes them in order; a session with a link leaving its
unit comes back whole and is planned as before. Whenever anything is in doubt (the worker
failed, a family's note goes elsewhere, or a session has a subagent known from a note
written earlier), the main process reads the unit itself. The notes are the same bytes
either way: ``tests/test_readahead.py`` and ``tests/test_workers.py`` compare vaults
written each way.

Only adapters whose ``load`` depends on nothing but the files read ahead and the run's
``SourceContext``, which a worker's adapter is given with its ``use_context`` if it has one
(``reads_alone``); a unit that holds ``READ_AHEAD_BELOW`` bytes or more once read is read
by the main process, as before: its session may be split into parts, and a worker holding
it whole while it is sent would double the memory it takes. A session so long that it is
streamed is never held: its first reading (its totals, where it ends) is done ahead. An
adapter that ``keeps_streamed`` hands its messages to a ``packed.PartPacker`` as it reads
them, and the session comes back cut into parts, packed, for the main process to place and
hand on; else (or if the packer let go) the main process reads its messages, part by part.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from .adapters.base import Adapter, SessionRef, SourceContext
from .errors import Problem
from .model import Session, session_key
from .notes import Note, default_relpath, has_conversation, linked_keys, titled_stub
from .options import ExportOptions
from .packed import PackedSession, PartPacker
from .redact import Redactor
from .redact_rules import Rule
from .split import iter_parts
from .vaultpaths import safe_relpath
from .workers import Outcome, Renderer, RenderJob, Ticket, render_job, worker_settings

# Units read ahead of the one being written, per worker: enough that a worker never waits
# for the main process to hand it the next (the pool's queue is short, and the main
# process's threads share one interpreter lock). With 8, a worker waited whenever the
# main process, writing notes in order, fell behind by more than a few short sessions:
# 32 took 5-7% off the wall time of 300 and of 2,000 short sessions (64, no more).
READ_AHEAD_PER_WORKER = 32
READ_AHEAD_BELOW = 8 * 1024 * 1024  # bytes: a larger unit is read by the main process
READ_AHEAD_BYTES = 24 * 1024 * 1024  # source bytes read ahead at once, at most
# Units handed over in one job, up to this many or this much source. Each job wakes the
# main process's threads (the pool's, which then take the interpreter lock from the one
# writing notes) as it is sent and as its result comes back: short units go in twelves.
# Against fours, alternating as commands, each first as often: 2,000 short sessions
# 2.35 -> 2.25 s (12 rounds); 300 sessions 0.91 -> 0.87 s in a slow hour (24 rounds),
# 0.532 -> 0.528 s in a fast one (18). Eights and sixteens did no better.
BATCH_UNITS = 12
BATCH_BYTES = 512 * 1024
# A unit of this much source keeps the main process busy in its turn (it reads a streamed
# session's messages itself, or the whole unit): while it comes, the units after it are
# read ahead this many windows deep (within READ_AHEAD_BYTES still), so that the workers
# have work while the main process reads. Else they had only its parts to render.
LONG_UNIT = 8 * 1024 * 1024
WINDOWS_PAST_LONG = 8


@dataclass(frozen=True, slots=True)
class ReadSettings:
    """What a worker needs to read a unit as the main process would: where the sources
    are, the filters, the redaction rules and where a long session is cut into parts."""

    context: SourceContext
    project: str | None
    since: datetime | None
    redact: bool
    redact_extra: tuple[Rule, ...]
    redact_allow: tuple[str, ...]
    note_max_bytes: int

    @classmethod
    def of(cls, options: ExportOptions) -> ReadSettings:
        """As the run with these options reads."""
        return cls(
            SourceContext.for_home(options.home, options.paths), options.project,
            options.since, options.redact, tuple(options.redact_extra),
            tuple(options.redact_allow), options.note_max_bytes,
        )  # fmt: skip

    def redactor(self) -> Redactor | None:
        from .redact import redactor  # the same cached rules the main process uses

        return redactor(self.redact_extra, self.redact_allow) if self.redact else None


@dataclass(slots=True)
class ReadSession:
    """A session of a unit read ahead: whole, or without its messages and with its title,
    beside its note rendered at no path yet (``note``) or its parts (``packed``)."""

    session: Session
    note: Outcome | None = None
    # A session of a family whose links stay inside its unit: its note was rendered at the
    # path the main process gives a new note, linking to the others there (key -> stem);
    # the main process checks that before using it. None: a lone session's note.
    links: dict[str, str | None] | None = None
    # A streamed session read once: its parts, cut and packed as it was read.
    packed: PackedSession | None = None


@dataclass(slots=True)
class ReadUnit:
    """A unit as the main process would have it after reading and redacting it."""

    problems: list[Problem]
    sessions: list[ReadSession]  # the sessions the filters keep, in order
    conversations: int  # sessions with a conversation, kept or not
    redactions: Counter[str]


def held_size(adapter: Adapter, ref: SessionRef) -> int:
    """The bytes reading a unit holds at once: its files' size, more for a compressed file
    (it expands), nothing for a file so long that its session is streamed, never held (an
    adapter that reads either kind says so with ``held_size``)."""
    size = getattr(adapter, "held_size", None)
    return size(ref) if size else ref.size


class ReadAhead:
    """The units handed to the pool to be read before their turn comes (main process)."""

    def __init__(self, renderer: Renderer) -> None:
        self.renderer = renderer
        # unit -> the job reading it (with others), its place in that job, its size
        self._tickets: dict[str, tuple[Ticket, int, int]] = {}
        self._bytes = 0  # the size of those units
        self._next = 0  # where in the units the next to read ahead is looked for
        self._stopped = False
        self._longs: tuple[list[tuple[Adapter, SessionRef]], list[int], list[int]] | None = None
        self._packing: str | None = None  # the unit read ahead whose parts come back packed

    def ask(
        self,
        units: list[tuple[Adapter, SessionRef]],
        after: int,
        skipped: Callable[[str, SessionRef], bool],
    ) -> None:
        """Hand the units coming after the first ``after`` to the pool to be read (those
        not ``skipped``), if it runs: a few per worker, in jobs of a few units, and never
        more source at once than ``READ_AHEAD_BYTES`` (a unit may come back whole); and the
        next unit whose parts come back packed, wherever it is (``_pack_next``)."""
        if self.renderer.pool is None or self._stopped:
            return
        start = max(self._next, after)
        window = READ_AHEAD_PER_WORKER * self.renderer.workers
        end = min(after + window, len(units))
        longs, packs = self._long_units(units)
        if self._packing is None:
            self._pack_next(units, packs, start, skipped)
        k = bisect_left(longs, after)
        if k < len(longs) and longs[k] < end:  # a long unit comes in the window
            end = min(longs[k] + 1 + window * WINDOWS_PAST_LONG, len(units))
        if end - start < BATCH_UNITS and end < len(units):
            return  # the window is refilled a batch at a time
        batch: list[tuple[str, type, SessionRef, int]] = []  # (unit, adapter, ref, size)
        for position in range(start, end):
            adapter, ref = units[position]
            size = held_size(adapter, ref)
            if getattr(adapter, "reads_alone", False) and size < READ_AHEAD_BELOW:
                if self._bytes + size > READ_AHEAD_BYTES:
                    break  # looked at again once units read ahead are taken
                unit = str(ref.main.path)
                if unit not in self._tickets and not skipped(unit, ref):
                    batch.append((unit, type(adapter), ref, size))
                    self._bytes += size
            self._next = position + 1
            if len(batch) == BATCH_UNITS or sum(b[3] for b in batch) >= BATCH_BYTES:
                self._send(batch)
                batch = []
        self._send(batch)

    def _long_units(self, units: list[tuple[Adapter, SessionRef]]) -> tuple[list[int], list[int]]:
        """Where in ``units`` the units of ``LONG_UNIT`` bytes of source or more are, and
        those of them whose parts come back packed."""
        if self._longs is None or self._longs[0] is not units:
            at = [k for k, (_adapter, ref) in enumerate(units) if ref.size >= LONG_UNIT]
            packs = [k for k in at if _packs(*units[k])]
            self._longs = (units, at, packs)
        return self._longs[1], self._longs[2]

    def _pack_next(
        self,
        units: list[tuple[Adapter, SessionRef]],
        packs: list[int],
        start: int,
        skipped: Callable[[str, SessionRef], bool],
    ) -> None:
        """Hand over the next unit whose streamed session comes back cut into packed parts,
        alone, however far ahead: its reading takes a worker about 3 s per 100 MB, so that
        it is done by its turn. One at a time: what comes back is held until then (up to
        ``packed.PACKED_MAX``)."""
        for position in packs[bisect_left(packs, start) :]:
            adapter, ref = units[position]
            unit = str(ref.main.path)
            if unit in self._tickets or skipped(unit, ref):
                continue
            ticket = self.renderer.read_ahead(read_units, [(unit, type(adapter), ref)])
            if ticket is not None:
                self._tickets[unit] = (ticket, 0, 0)
                self._packing = unit
            return

    def _send(self, batch: list[tuple[str, type, SessionRef, int]]) -> None:
        jobs = [(unit, adapter_type, ref) for unit, adapter_type, ref, _size in batch]
        ticket = self.renderer.read_ahead(read_units, jobs) if batch else None
        for index, (unit, _type, _ref, size) in enumerate(batch):
            if ticket is None:
                self._bytes -= size
            else:
                self._tickets[unit] = (ticket, index, size)

    def take(self, unit: str, wanted: bool = True) -> ReadUnit | None:
        """The unit as a worker read it, or None (not read ahead, or that failed); not
        ``wanted`` (skipped, or failed before its turn): what was read is let go."""
        found = self._tickets.pop(unit, None)
        if unit == self._packing:
            self._packing = None
        if found is None:
            return None
        ticket, index, size = found
        self._bytes -= size
        if not wanted:
            if not any(t[0] is ticket[0] for t, _i, _s in self._tickets.values()):
                ticket[0].cancel()  # no other unit of its job is waited for
            return None
        read = self.renderer.read_result(ticket)
        return read[index] if read is not None else None

    def stop(self) -> None:
        """The first pass is over: units exported again are read by the main process."""
        self._stopped = True
        for ticket, _index, _size in self._tickets.values():
            ticket[0].cancel()
        self._tickets.clear()


def _packs(adapter: Adapter, ref: SessionRef) -> bool:
    """Does reading the unit ahead cut its streamed session into packed parts?"""
    streams = getattr(adapter, "streams", None)
    return bool(getattr(adapter, "keeps_streamed", False) and streams and streams(ref))


def wanted(session: Session, project: str | None, since: datetime | None) -> bool:
    """Does the run export this session (a conversation, and the filters keep it)?"""
    if not has_conversation(session):
        return False
    if project and project.lower() not in (session.project or "").lower():
        return False
    if since and session.ended_at and session.ended_at < since:
        return False
    return True


# One adapter of each kind per worker process: adapters cache per run, and a worker lives
# for one run.
_adapters: dict[type, Any] = {}


def read_units(batch: list[tuple[str, type, SessionRef]]) -> list[ReadUnit | None]:
    """In a worker: each unit of a job read (None: that one failed, whatever the reason;
    the main process reads it itself)."""
    read: list[ReadUnit | None] = []
    for unit, adapter_type, ref in batch:
        try:
            read.append(read_unit(unit, adapter_type, ref))
        except Exception:  # noqa: BLE001  (the main process reads it and reports what failed)
            read.append(None)
    return read


def read_unit(unit: str, adapter_type: type, ref: SessionRef) -> ReadUnit:
    """In a worker: the unit read, filtered and redacted, its lone sessions rendered."""
    settings, reading = worker_settings()
    adapter = _adapters.get(adapter_type)
    if adapter is None:
        adapter = _adapters[adapter_type] = adapter_type()
        use_context = getattr(adapter, "use_context", None)
        if use_context:  # as discovery told the main process's adapter
            use_context(reading.context)
    rules = reading.redactor()
    packer = None
    if getattr(adapter, "keeps_streamed", False):  # a streamed session is read once (packed)
        packer = PartPacker(reading.note_max_bytes, rules)
        loaded = adapter.load(ref, keep=packer)
    else:
        loaded = adapter.load(ref)
    counts: Counter[str] = Counter()
    sessions = [
        # A streamed session the packer let go is redacted by the main process, which reads
        # its messages: it comes back as loaded, and only it does.
        rules.session(s, counts) if rules and not s.is_streamed else s
        for s in loaded.sessions
        if wanted(s, reading.project, reading.since)
    ]
    conversations = sum(1 for s in loaded.sessions if has_conversation(s))
    family = _family_paths(sessions, settings, reading.note_max_bytes)
    if family is not None:
        read = [_rendered_at(unit, s, settings, family) for s in sessions]
    else:
        read = [_rendered(unit, s, settings, reading.note_max_bytes) for s in sessions]
    if packer is not None and any(r.session.is_streamed for r in read):
        read = [_packed(r, packer, counts) if r.session.is_streamed else r for r in read]
    return ReadUnit(loaded.problems, read, conversations, counts)


def _packed(read: ReadSession, packer: PartPacker, counts: Counter[str]) -> ReadSession:
    """A streamed session with its parts packed as it was read, redacted; else as loaded."""
    found = packer.packed(read.session)
    if found is None:
        return read
    counts.update(packer.counts)
    return ReadSession(found[0], packed=found[1])


def _rendered(unit: str, session: Session, settings: Any, max_bytes: int) -> ReadSession:
    """The session's note, when nothing but its path is left to decide."""
    if session.is_streamed or linked_keys(session):
        return ReadSession(session)
    stub = _one_note(session, max_bytes)
    if stub is None:
        return ReadSession(session)
    return ReadSession(stub, render_job(RenderJob(unit, session, "", {}), settings))


def _one_note(session: Session, max_bytes: int) -> Session | None:
    """What placing the session's note needs (the session without its messages, with its
    title), if it makes one note; None if it is planned by the main process: in parts, or
    without a title at all ("" from a bare fence)."""
    number, _whole, last = next(iter_parts(session, max_bytes))
    if not (number == 1 and last):
        return None
    return titled_stub(session)


def _family_paths(
    sessions: list[Session], settings: Any, max_bytes: int
) -> dict[str, tuple[str, Session]] | None:
    """For a unit whose sessions link only to each other (a session and its subagents):
    each one's path as a new note (key -> (path, stub)), every parent placed before its
    subagents, as the main process places them. None when a link leaves the unit, or a
    session is streamed, in parts or untitled (then each linked session goes back whole)."""
    if any(s.is_streamed for s in sessions):
        return None  # (its messages are read where its parts are made, not here)
    keys = {s.key for s in sessions}
    if not any(linked_keys(s) for s in sessions):
        return None  # lone sessions: rendered at no path (``_rendered``)
    family: dict[str, tuple[str, Session]] = {}
    for session in sessions:
        parent = session_key(session.source, session.parent_id) if session.parent_id else None
        if not linked_keys(session) <= keys:
            return None
        if parent is not None and parent not in family:
            return None  # a subagent read before its parent
        stub = _one_note(session, max_bytes)
        if stub is None:
            return None
        parent_path = family[parent][0] if parent else None
        family[session.key] = (safe_relpath(default_relpath(stub, settings, parent_path)), stub)
    if len({path for path, _stub in family.values()}) < len(family):
        return None  # two notes would want one path: the main process decides
    return family


def _rendered_at(
    unit: str, session: Session, settings: Any, family: dict[str, tuple[str, Session]]
) -> ReadSession:
    """A family's session rendered at its path as a new note, linked to the others."""
    path, stub = family[session.key]
    links: dict[str, str | None] = {k: Path(family[k][0]).stem for k in linked_keys(session)}
    note = render_job(RenderJob(unit, session, path, links), settings)
    return ReadSession(stub, note, links)


def placed(note: Outcome, relpath: str) -> Outcome:
    """A note rendered ahead, at the path the main process chose for it."""
    return replace(note, relpath=relpath) if isinstance(note, Note) else note
