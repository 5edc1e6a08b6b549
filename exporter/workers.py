"""Rendering notes on every core. The pipeline plans each note in the main process (its
path and every link it needs are decided there, in order), hands the rendering to a pool of
worker processes, and writes the results in the order it planned them. Small runs, and
machines with one core, render in the main process: the notes are the same either way.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass

from .model import Session
from .notes import Note, NoteSettings, build_note
from .render import TemplateError

PARALLEL_FROM = 24  # sessions to render before a pool is worth its start-up


@dataclass(slots=True)
class RenderJob:
    unit: str
    session: Session
    relpath: str
    links: dict[str, str | None]  # session key -> note stem, decided by the planner


Outcome = tuple[Note | None, tuple[str, str] | None]  # (note, (where, what) of an error)


def render_job(job: RenderJob, settings: NoteSettings) -> Outcome:
    try:
        return build_note(job.session, job.relpath, settings, job.links.get), None
    except TemplateError as exc:  # sent back as plain values: they cross a process boundary
        return None, (exc.where, exc.what)


def _close_inherited(lock: tuple[int, int, int] | None) -> None:
    """A forked worker must not keep the vault lock alive if the main process dies. The fd
    is closed only if it is still the lock file: a spawned worker did not inherit it."""
    if lock is None:
        return
    fd, dev, ino = lock
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) == (dev, ino):
            os.close(fd)
    except OSError:
        pass


class Renderer:
    """Renders jobs in submission order, in the pool once there are enough of them."""

    def __init__(
        self, settings: NoteSettings, workers: int | None, lock: tuple[int, int, int] | None
    ) -> None:
        self.settings = settings
        self.workers = workers if workers is not None else (os.cpu_count() or 1)
        self.lock = lock
        self.pool: ProcessPoolExecutor | None = None
        self.queue: deque[tuple[RenderJob, Future[Outcome] | Outcome]] = deque()
        self.submitted = 0

    def submit(self, job: RenderJob) -> None:
        self.submitted += 1
        if self.pool is None and self.workers > 1 and self.submitted >= PARALLEL_FROM:
            self.pool = ProcessPoolExecutor(
                self.workers, initializer=_close_inherited, initargs=(self.lock,)
            )
        if self.pool is None:
            self.queue.append((job, render_job(job, self.settings)))
        else:
            self.queue.append((job, self.pool.submit(render_job, job, self.settings)))

    def finished(self, wait: bool = False) -> Iterator[tuple[RenderJob, Outcome]]:
        """Jobs done, oldest first; with ``wait``, all of them; else while the oldest is done
        (and always enough to keep the queue short)."""
        limit = 4 * self.workers
        while self.queue:
            job, outcome = self.queue[0]
            if isinstance(outcome, Future):
                if not (wait or outcome.done() or len(self.queue) > limit):
                    return
                outcome = outcome.result()
            self.queue.popleft()
            yield job, outcome

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None
