"""A unit's sessions for the main process to plan: as a worker read them ahead of their
turn (``readahead``, ``readunit``), or read here, filtered and redacted the same way;
a large unit cut into parts, part by part (``ReadAhead.cut``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

from .adapters import Adapter, LoadResult, SessionRef
from .model import Session
from .options import ExportOptions
from .plan import LinkPlan
from .readahead import ReadAhead
from .readvalues import ReadSession, ReadUnit, selected, wanted_redacted
from .redact import Redactor


class UnitReader:
    """Reads units for one run (``export._Run``)."""

    def __init__(
        self,
        options: ExportOptions,
        ahead: ReadAhead,
        plan: LinkPlan,
        redactor: Redactor | None,
        children_written: Callable[[list[Session]], None],
    ) -> None:
        self.options = options
        self.ahead = ahead
        self.plan = plan
        self.redactor = redactor
        # Called with each family's sessions before they are planned: a subagent whose own
        # unit came first is written by then, as in one process.
        self.children_written = children_written

    def families(self, adapter: Adapter, ref: SessionRef) -> Iterator[ReadUnit]:
        """The unit's families read, filtered and redacted: by a worker ahead of time when
        it could (``readahead``), else here. Database sources hand over one conversation at
        a time; files, one family; a large unit its adapter cuts, one part at a time."""
        parts = self.ahead.cut(adapter, ref)
        if parts:
            yield from self._parts_read(adapter, ref, parts)
            return
        read = self._read_ahead(str(ref.main.path))
        if read is not None:
            yield read
            return
        for loaded in _loaded_families(adapter, ref):
            yield self._read_here(loaded)

    def _parts_read(
        self, adapter: Adapter, ref: SessionRef, parts: list[SessionRef]
    ) -> Iterator[ReadUnit]:
        """A unit cut into parts, part by part: as a worker read it, or read here. A part
        that fails here is read as one process reads the unit: whole, from the families
        before it (passed over, as handed over already) to the one that fails."""
        unit, done = str(ref.main.path), set()
        try:
            for number, part in enumerate(parts):
                self.ahead.passed(unit, number)
                read = self._read_ahead(str(part.main.path))
                self.ahead.more()  # its next parts, now that there is room
                if read is None:
                    try:
                        read = self._read_here(adapter.load(part))
                    except Exception:  # noqa: BLE001  (read again whole: it fails there too)
                        break
                done.update(r.session.key for r in read.sessions)
                yield read
            else:
                return
        finally:
            self.ahead.take(unit, wanted=False)  # the parts not taken go (if any are left)
        for loaded in _loaded_families(adapter, ref):
            if loaded.sessions and all(s.key in done for s in loaded.sessions):
                continue
            yield self._read_here(loaded)

    def _read_ahead(self, unit: str) -> ReadUnit | None:
        """A unit (or part) as a worker read it, if it did and its notes can be used here.
        (A session rendered ahead may have a subagent it did not know, known from a note
        written earlier, or a family's note may go elsewhere than a new note would: it
        exists under another name, or its name is taken. Then it is read again here.)"""
        from .notes import Note  # (the note builder: with the first unit read)

        read = self.ahead.take(unit)
        if read is None:
            return None
        for r in read.sessions:
            if r.session.is_streamed and self.redactor:  # a worker leaves it unredacted
                r.session = self.redactor.session(r.session, read.redactions)
        self.children_written([r.session for r in read.sessions])
        predicted = {r.session.key: r.note.relpath for r in read.sessions
                     if r.links is not None and isinstance(r.note, Note)}  # fmt: skip
        plan = self.plan
        # (a note rendered ahead knew none of the children learned since: its subagents,
        # the sessions that went on from it; one that has such is rendered here, with them)
        if (
            not any(
                _children(plan.with_known_children(r.session)) != _children(r.session)
                for r in read.sessions
                if r.note
            )
            and all(plan.links_hold(r.links) for r in read.sessions if r.note and r.links)
            and plan.places_as([r.session for r in read.sessions], predicted)
            # (read without a secret of a relative in another unit: read here, with it)
            and not any(plan.lacks_inherited(r.session) for r in read.sessions)
        ):
            return read
        return None

    def _read_here(self, loaded: LoadResult) -> ReadUnit:
        """Sessions loaded here, filtered and redacted as a worker does it."""
        from .notes import has_conversation  # (the note builder: with the first unit read)

        o, rules = self.options, self.redactor
        redactions: Counter[str] = Counter()  # counted as a worker counts them
        sessions = wanted_redacted(
            loaded.sessions, loaded.problems, rules, o.project, o.since, redactions,
            inherited=self.plan.inherited,
        )  # fmt: skip
        conversations = sum(1 for s in loaded.sessions if has_conversation(s))
        kept = sum(1 for s in loaded.sessions if selected(s, o.project, o.since))
        self.children_written(sessions)
        return ReadUnit(loaded.problems, [ReadSession(s) for s in sessions], conversations,
                        redactions, len(loaded.sessions), kept,
                        loaded.copy or loaded.unreadable, loaded.wait)  # fmt: skip


def _loaded_families(adapter: Adapter, ref: SessionRef) -> Iterator[LoadResult]:
    """A unit read here: a family at a time where its adapter can (``load_families``)."""
    load_families = getattr(adapter, "load_families", None)
    return load_families(ref) if load_families else iter([adapter.load(ref)])


def _children(session: Session) -> tuple[object, ...]:
    return session.subagent_ids, session.forks
