"""How the export hands a planned session's note over to be rendered (a mixin of the run,
``export._Run``, kept apart to be read on its own; its state is the run's): a note already
rendered ahead is checked and written in its turn, any other is submitted, a long session
part by part, each as soon as its messages are read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .notespec import part_key
from .readvalues import ReadSession, placed
from .workers import RenderJob

if TYPE_CHECKING:
    from .model import Session
    from .options import ExportOptions
    from .packed import PackedSession
    from .plan import LinkPlan
    from .unitprogress import UnitProgress
    from .workers import Renderer


class Submitting:
    """The run's handing over of notes to the renderer."""

    options: ExportOptions
    plan: LinkPlan
    renderer: Renderer
    _unit: str
    _again_pass: bool
    _redactions: Any

    def _session_failed(
        self, session: Session, exc: Exception, state: UnitProgress, key: str | None = None
    ) -> None:
        raise NotImplementedError

    def _write_finished(self, wait: bool = False) -> None:
        raise NotImplementedError

    def _done_ahead(
        self, read: ReadSession, session: Session, relpath: str,
        resolve: Callable[[str], str | None], state: UnitProgress,
    ) -> None:  # fmt: skip
        """A note rendered ahead, written in its turn. One of a family was rendered at the
        path and with the links its unit's check (``_families``) promised: checked again,
        and where the check missed one, rendered again here, at this run's path and with
        its links, as if it had not been rendered ahead. (It misses a relative whose own
        note failed ahead, so gave no path to check: renamed in the vault, it is linked
        by its new name here.)"""
        from .notes import Note

        links: dict[str, str | None] = {}  # (a note found as written is rendered with them)
        if read.links is not None:
            links = {key: resolve(key) for key in read.links}
            at = read.note.relpath if isinstance(read.note, Note) else relpath
            if at != relpath or links != read.links:
                self._submit(session, relpath, resolve, state, read.packed)
                return
        state.outstanding += 1
        self.renderer.done(
            RenderJob(self._unit, session, relpath, links), placed(read.note, relpath)
        )

    def _submit(
        self, session: Session, relpath: str, resolve: Callable[[str], str | None],
        state: UnitProgress, packed: PackedSession | None = None,
    ) -> None:  # fmt: skip
        """Hand a session's note over for rendering; a long session, part by part, each as
        soon as its messages are read: the whole session is never one text in memory, and a
        streamed session is never held whole (``packed``: its parts, cut where it was read)."""
        from .notes import linked_keys
        from .split import Part, iter_parts

        # (a unit redone counts once)
        tally = None if self._again_pass else self._redactions.of(session.key)
        max_bytes = self.options.note_max_bytes
        paths = [relpath]
        parts = packed.cut(session) if packed else iter_parts(session, max_bytes, tally)
        number = 0
        while True:
            try:
                number, part, last = next(parts)
            except StopIteration:
                return
            except Exception as exc:
                if number == 0:
                    raise  # nothing handed over yet: the session fails as a whole
                # A streamed session's source failed while its next part was read: the
                # parts handed over are written, that one fails (the next run redoes all).
                self._session_failed(session, exc, state, part_key(session.key, number + 1))
                return
            links = {key: resolve(key) for key in linked_keys(part)}
            state.outstanding += 1
            known = self.renderer.known.get(part_key(session.key, number))
            if number == 1 and last:
                weight, state.weighed = (0 if state.weighed else state.ref.size), True
                job = RenderJob(self._unit, part, relpath, links, known=known)
                self.renderer.submit(job, weight)
                return
            if not last:  # a part follows: its path is this part's next link
                paths.append(self.plan.choose_part(session, number + 1, relpath))
            previous = Path(paths[number - 2]).stem if number > 1 else None
            following = Path(paths[number]).stem if not last else None
            where = Part(number, previous, following)
            held = packed.messages(number) if packed else None
            job = RenderJob(self._unit, part, paths[number - 1], links, where, held, known)
            self.renderer.submit(job)
            self._write_finished()
