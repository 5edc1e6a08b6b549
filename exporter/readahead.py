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
A large unit whose adapter cuts it (``parts``: a Cursor user folder's or an OpenCode
database, a run of its conversations per part) is read ahead part by part, as room frees
up (``cut``, ``more``); a part too large is read by the main process in its turn.

What a worker does with a unit is ``readunit``; ``tests/test_readahead_sources.py`` and
``tests/test_database_parts.py`` check every source and a cut unit the same way.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import Any

from .adapters.base import Adapter, SessionRef
from .readvalues import ReadUnit
from .workers import Renderer, Ticket

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
        # A large unit an adapter cuts into parts (``parts``), read ahead part by part:
        # unit -> its parts (None: not cut); the unit whose parts are being sent, its type
        # and the next part to send.
        self._parts: dict[str, list[SessionRef] | None] = {}
        self._sending: tuple[str, type, int] | None = None
        self._asked: tuple[list[tuple[Adapter, SessionRef]], int, Any] | None = None

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
        self._asked = (units, after, skipped)
        batch: list[tuple[str, type, SessionRef, int]] = []  # (unit, adapter, ref, size)
        if self._sending is not None and not self._send_parts(batch):
            self._send(batch)
            return  # the rest of its parts once parts read ahead are taken
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
            self._send(batch)
            return  # the window is refilled a batch at a time
        for position in range(start, end):
            adapter, ref = units[position]
            size = held_size(adapter, ref)
            alone = getattr(adapter, "reads_alone", False)
            if alone and size < READ_AHEAD_BELOW:
                if self._bytes + size > READ_AHEAD_BYTES:
                    break  # looked at again once units read ahead are taken
                unit = str(ref.main.path)
                if unit not in self._tickets and not skipped(unit, ref):
                    batch.append((unit, type(adapter), ref, size))
                    self._bytes += size
            elif (
                alone and str(ref.main.path) not in self._parts and self.cut(adapter, ref, skipped)
            ):
                if not self._send_parts(batch):
                    self._next = position + 1  # its other parts go first, when there is room
                    break
            self._next = position + 1
            self._send_if_full(batch)
        self._send(batch)

    def more(self) -> None:
        """Read ahead further, as last asked (a unit's parts were taken meanwhile)."""
        if self._asked is not None:
            self.ask(*self._asked)

    def cut(
        self,
        adapter: Adapter,
        ref: SessionRef,
        skipped: Callable[[str, SessionRef], bool] | None = None,
    ) -> list[SessionRef] | None:
        """The parts of a large unit whose adapter cuts it (``parts``), cut once; the first
        time, they become the parts sent next (``_send_parts``). None: read it whole."""
        unit = str(ref.main.path)
        if unit not in self._parts:
            parts = getattr(adapter, "parts", None)
            if self.renderer.pool is None or self._stopped or not parts:
                return None
            if held_size(adapter, ref) < READ_AHEAD_BELOW or (skipped and skipped(unit, ref)):
                return None
            try:
                self._parts[unit] = parts(ref)
            except Exception:  # noqa: BLE001  (whatever went wrong, the unit is read whole)
                self._parts[unit] = None
            if self._parts[unit] and self._sending is None:
                self._sending = (unit, type(adapter), 0)
        return self._parts[unit]

    def passed(self, unit: str, number: int) -> None:
        """The main process has come to part ``number`` of ``unit``: it takes that one
        and those before it (read ahead or not), so they are sent no more."""
        if self._sending is not None and self._sending[0] == unit and self._sending[2] <= number:
            self._sending = (unit, self._sending[1], number + 1)

    def _send_parts(self, batch: list[tuple[str, type, SessionRef, int]]) -> bool:
        """Add the parts not sent yet of the unit being cut to ``batch``, as far as
        ``READ_AHEAD_BYTES`` allows: all sent? A part too large to read ahead is read in
        the main process in its turn."""
        assert self._sending is not None
        unit, adapter_type, next_part = self._sending
        parts = self._parts[unit] or []
        while next_part < len(parts):
            part = parts[next_part]
            size = part.main.size  # a part's estimated bytes
            if size < READ_AHEAD_BELOW:
                if self._bytes + size > READ_AHEAD_BYTES:
                    self._sending = (unit, adapter_type, next_part)
                    return False
                batch.append((str(part.main.path), adapter_type, part, size))
                self._bytes += size
            next_part += 1
            self._send_if_full(batch)
        self._sending = None
        return True

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
            ticket = self._read_ahead([(unit, type(adapter), ref)])
            if ticket is not None:
                self._tickets[unit] = (ticket, 0, 0)
                self._packing = unit
            return

    def _send_if_full(self, batch: list[tuple[str, type, SessionRef, int]]) -> None:
        """Send a job once it holds ``BATCH_UNITS`` units or ``BATCH_BYTES``; start anew."""
        if len(batch) >= BATCH_UNITS or sum(b[3] for b in batch) >= BATCH_BYTES:
            self._send(batch)
            batch.clear()

    def _read_ahead(self, jobs: list[tuple[str, type, SessionRef]]) -> Ticket | None:
        """A job of units sent to a worker (``readunit``: the reading, with the note builder,
        imported with the first job, so a run that reads nothing never imports them)."""
        from .readunit import read_units

        return self.renderer.read_ahead(read_units, jobs)

    def _send(self, batch: list[tuple[str, type, SessionRef, int]]) -> None:
        jobs = [(unit, adapter_type, ref) for unit, adapter_type, ref, _size in batch]
        ticket = self._read_ahead(jobs) if batch else None
        for index, (unit, _type, _ref, size) in enumerate(batch):
            if ticket is None:
                self._bytes -= size
            else:
                self._tickets[unit] = (ticket, index, size)

    def take(self, unit: str, wanted: bool = True) -> ReadUnit | None:
        """The unit as a worker read it, or None (not read ahead, or that failed); not
        ``wanted`` (skipped, or failed before its turn): what was read is let go."""
        if not wanted and self._parts.get(unit):  # skipped or failed: its parts go too
            if self._sending is not None and self._sending[0] == unit:
                self._sending = None
            for part in self._parts[unit] or ():
                self.take(str(part.main.path), wanted=False)
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
