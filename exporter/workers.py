"""Rendering notes on every core. The pipeline plans each note in the main process (its
path and every link it needs are decided there, in order), hands the rendering to a pool of
worker processes, and writes the results in the order it planned them. Small runs, and
machines with one core, render in the main process: the notes are the same either way.

Whatever goes wrong while rendering one session (a template error, a value no one expected,
a worker process that dies) becomes that session's Problem; the other sessions are written.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import BrokenExecutor, Future
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .errors import Problem, clipped
from .interrupts import ctrl_c_held
from .model import Session, session_key
from .notespec import NoteSettings, part_key
from .render import TemplateError
from .renderkey import Same, render_key

if TYPE_CHECKING:  # the process pool's module is imported with the first pool: 30-40 ms of
    # a start-up that most nightly runs (nothing to render) and --jobs 1 never need
    from concurrent.futures import ProcessPoolExecutor

    # The note builder, imported with the first note (``render_job``, ``Renderer._new_pool``)
    from .notes import Note
    from .packed import PackedMessages
    from .split import Part

    Outcome = Note | Problem | Same  # the note, why there is none, or that it is as written

# Sessions to render (or units to read, known at the start of a run: ``Renderer.plan``)
# before a pool is worth its start-up.
MAX_JOBS = 64  # the most --jobs takes (cli_options), and the default on a bigger machine
PARALLEL_FROM = 24
# ... or this much source read for them: a few long sessions (a real history's) render for
# longer than the pool takes to start, so it starts before the 24th.
PARALLEL_FROM_BYTES = 4 * 1024 * 1024


@dataclass(slots=True)
class RenderJob:
    unit: str
    session: Session
    relpath: str
    links: dict[str, str | None]  # session key -> note stem, decided by the planner
    part: Part | None = None  # one part of a long session (``session`` holds that part)
    packed: PackedMessages | None = None  # that part's messages, packed where they were read
    # The render key its note was last written with ("": none yet), for a note of a unit
    # of several (``renderkey``); None: it gets none
    known: str | None = None

    @property
    def key(self) -> str:
        """The note's identity: the session's key, or its part's."""
        return part_key(self.session.key, self.part.number) if self.part else self.session.key


Ticket = tuple[Future[Any], "ProcessPoolExecutor"]  # a job read ahead, and where it went


def render_job(job: RenderJob, settings: NoteSettings | None = None) -> Outcome:
    """Never raises: the outcome crosses a process boundary as a plain value. In a worker
    the settings are the run's, given once when the worker started."""
    from .notes import build_note
    from .split import link_parts

    settings = settings or _worker_settings[0][0]
    session = job.session
    try:
        key = render_key(job) if job.known is not None else None
        if key is not None and key == job.known:
            return Same(key)
        if job.packed is not None:
            session = replace(session, messages=job.packed.messages())
        number = job.part.number if job.part else None
        note = build_note(session, job.relpath, settings, job.links.get, number)
        if job.part:
            link_parts(note, job.part)
        note.render_key = key
        return note
    except TemplateError as exc:  # named by the template's file and line
        return exc.problem(severity="error", source=session.source)
    except Exception as exc:  # a value no one expected: this session alone fails
        return failed(job, f"could not be rendered ({type(exc).__name__}: {exc})")


def failed(job: RenderJob, why: str) -> Problem:
    """An error for this job's note, named with the file its session came from (cut short:
    an exception may quote a huge value)."""
    why = clipped(why, 300)  # never inside a word: a token cut short is not redacted
    where = str(job.session.source_path) if job.session.source_path.parts else job.unit
    return Problem(where, f"{job.key} {why}", severity="error", source=job.session.source)


PARENT_CHECK_SECONDS = 0.5
# The run's settings in a worker process: sent once, not with every job (a job is a
# session; the settings, with the price table, would add a tenth to each). With them, what
# reading a unit ahead needs (``readahead.ReadSettings``), or None.
_worker_settings: list[tuple[NoteSettings, Any]] = []
_worker_known: list[Mapping[str, str]] = [{}]


def worker_settings() -> tuple[NoteSettings, Any]:
    """In a worker: the run's note settings and its settings for reading units ahead."""
    return _worker_settings[0]


def worker_known(key: str) -> str | None:
    """In a worker: the render key the note of ``key`` was last written with, where this
    run may leave a note of the same key as it is (``Renderer.known``)."""
    return _worker_known[0].get(key)


def _start_worker(
    lock: tuple[int, int, int] | None,
    parent: int,
    settings: NoteSettings | None = None,
    reading: Any = None,
    known: Mapping[str, str] | None = None,
) -> None:
    """A worker lives only as long as the run that started it: Ctrl-C is the main process's
    to handle (it stops the pool), and if the main process is killed (SIGTERM, SIGKILL) the
    worker exits within half a second instead of living on and holding the caller's pipes."""
    if settings is not None:
        _worker_settings[:] = [(settings, reading)]
    if reading is not None:  # (a worker a fork server started inherits none of the run's)
        from .template_secrets import use_rules

        use_rules(reading.redactor())
    _worker_known[:] = [known or {}]
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # forked with SIGINT held back: now ignored
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _close_inherited(lock)

    # Forked or spawned, the worker's parent is the main process. Started by a fork server
    # (Python 3.14's default on Linux) it is the server, so the main process is looked at
    # too. Either way the worker ends once its parent changes or the main process is gone.
    started_under = os.getppid()
    server = started_under != parent

    def watch_parent() -> None:
        while os.getppid() == started_under and (not server or _alive(parent)):
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch_parent, name="ccexport-parent-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    """Is process ``pid`` running? (POSIX: only a fork server makes this needed; on Windows
    ``os.kill`` would end the process.)"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # there, but not ours to signal
        return True
    return True


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


@dataclass(slots=True)
class _Pending:
    job: RenderJob
    outcome: Future[Outcome] | Outcome
    pool: ProcessPoolExecutor | None = None  # where it was sent


class Renderer:
    """Renders jobs in submission order, in the pool once there are enough of them.

    A worker that dies (killed, out of memory) breaks the whole pool, so every job then in
    flight fails with it. Each such job is rendered once more, alone in a process of its
    own: one that kills that process too is the cause, and becomes its own Problem."""

    def __init__(
        self,
        settings: NoteSettings,
        workers: int | None,
        lock: tuple[int, int, int] | None,
        reading: Any = None,
        known: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        from .template_deadline import forget_late_templates

        forget_late_templates()  # (before a pool's workers are forked)
        self.settings = settings
        self.reading = reading  # given to each worker, for units read ahead
        self._known_from = known
        self._known: Mapping[str, str] | None = None
        # One per core, at most as many as --jobs takes (64): forking hundreds takes long.
        self.workers = workers if workers is not None else min(os.cpu_count() or 1, MAX_JOBS)
        self.lock = lock
        self.pool: ProcessPoolExecutor | None = None
        self.queue: deque[_Pending] = deque()
        self.submitted = 0
        self.submitted_bytes = 0

    @property
    def known(self) -> Mapping[str, str]:
        """Note key -> the render key it was last written with, where a job of the same key
        leaves its note as it is (``renderkey``); made when first asked for (a run that
        renders nothing never is), and given to each worker."""
        if self._known is None:
            self._known = self._known_from() if self._known_from else {}
        return self._known

    def expect(self, source_bytes: int) -> None:
        """A unit of ``source_bytes`` is about to be read. If its notes alone will render for
        longer than a pool takes to start (a long session, maybe split into parts), the pool
        starts now, while nothing of the unit is in memory: forked later, every worker would
        hold a copy of the session, so its parts would all render here, on one core."""
        self._start_if(self.submitted_bytes + source_bytes >= PARALLEL_FROM_BYTES)

    def plan(self, units: int, source_bytes: int) -> None:
        """The run will read ``units`` units of ``source_bytes`` in all: when that is enough
        work for a pool, it starts now, before the first is read, so that every unit can be
        read ahead (``readahead``) instead of the first ones here, one at a time."""
        self._start_if(units >= PARALLEL_FROM or source_bytes >= PARALLEL_FROM_BYTES)

    def _start_if(self, worth_it: bool) -> None:
        """Start the pool, if there is none yet, more than one worker, and work worth it."""
        if self.pool is None and self.workers > 1 and worth_it:
            self.pool = self._new_pool(self.workers)

    def submit(self, job: RenderJob, source_bytes: int = 0) -> None:
        """Render ``job``; ``source_bytes``: how much was read for it (its unit's files, given
        with the unit's first job), which may start the pool before the 24th session."""
        self.submitted += 1
        self.submitted_bytes += source_bytes
        # Workers are forked and keep what the main process held then: one part of a long
        # session never starts the pool (the whole session is in memory; a pool forked now
        # would hold a copy per worker). A long session's unit starts it before it is read
        # (``expect``), so its parts render in the pool.
        self._start_if(
            (self.submitted >= PARALLEL_FROM or self.submitted_bytes >= PARALLEL_FROM_BYTES)
            and job.part is None
        )
        if self.pool is None:
            self.queue.append(_Pending(job, render_job(job, self.settings)))
            return
        try:
            future = self._submit(self.pool, job)
        except BrokenExecutor:  # broken by an earlier job: start afresh
            self._replace_pool()
            future = self._submit(self.pool, job)
        self.queue.append(_Pending(job, future, self.pool))

    def _submit(self, pool: ProcessPoolExecutor, job: RenderJob) -> Future[Outcome]:
        return self._send(pool, render_job, job)

    def _send(
        self, pool: ProcessPoolExecutor, function: Callable[..., Any], *args: Any
    ) -> Future[Any]:
        """Submit, with Ctrl-C held back while the pool may fork a worker: a worker forked
        then starts with SIGINT blocked, so it never dies of a Ctrl-C before its initializer
        ignores it (the main process gets the held-back signal right after)."""
        with ctrl_c_held():
            return pool.submit(function, *args)

    def read_ahead(self, function: Callable[..., Any], *args: Any) -> Ticket | None:
        """``function(*args)`` run in the pool (a unit read ahead), if a pool is running;
        what it gives is for ``read_result``."""
        if self.pool is None:
            return None
        try:
            return self._send(self.pool, function, *args), self.pool
        except BrokenExecutor:
            self._replace_pool()
            return None

    def read_result(self, ticket: Ticket) -> Any:
        """What a job of ``read_ahead`` gave, or None if it failed in any way (the caller
        then does the work itself); a pool that broke under it is replaced."""
        future, pool = ticket
        try:
            return future.result()
        except BrokenExecutor:
            if pool is self.pool:
                self._replace_pool()
        except Exception:  # noqa: BLE001  (whatever it was, the main process reads the unit)
            pass
        return None

    def renders_a_child_of(self, keys: set[str]) -> bool:
        """Is a note of a subagent of one of these sessions still to be written?"""
        return any(
            s.parent_id and session_key(s.source, s.parent_id) in keys
            for s in self.pending_sessions()
        )

    def pending_sessions(self) -> Iterator[Session]:
        """The sessions whose notes are still to be written, oldest first."""
        return (p.job.session for p in self.queue)

    def done(self, job: RenderJob, outcome: Outcome) -> None:
        """A note rendered already (read ahead): written in its turn, like the others."""
        self.submitted += 1
        self.queue.append(_Pending(job, outcome))

    def _new_pool(self, workers: int) -> ProcessPoolExecutor:
        from concurrent.futures import ProcessPoolExecutor

        from . import notes, packed, split  # noqa: F401  (before the fork: workers inherit them)

        return ProcessPoolExecutor(
            workers,
            initializer=_start_worker,
            initargs=(self.lock, os.getpid(), self.settings, self.reading, self.known),
        )

    def _replace_pool(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = self._new_pool(self.workers)

    def finished(self, wait: bool = False) -> Iterator[tuple[RenderJob, Outcome]]:
        """Jobs done, oldest first; with ``wait``, all of them; else while the oldest is done
        (and always enough to keep the queue short)."""
        limit = 4 * self.workers
        if self.queue and self.queue[-1].job.part is not None:
            # Parts of a long session make notes of megabytes each: the few that keep every
            # worker busy wait to be written, not four per worker.
            limit = self.workers + 1
        while self.queue:
            pending = self.queue[0]
            outcome = pending.outcome
            if isinstance(outcome, Future):
                if not (wait or outcome.done() or len(self.queue) > limit):
                    return
                outcome = self._result(pending, outcome)
            self.queue.popleft()
            yield pending.job, outcome

    def _result(self, pending: _Pending, future: Future[Outcome]) -> Outcome:
        try:
            return future.result()
        except BrokenExecutor:
            if pending.pool is self.pool:  # the first job to see this pool broken
                self._replace_pool()
            return self._alone(pending.job)
        except Exception as exc:  # e.g. a session that cannot be sent to a worker
            return failed(pending.job, f"could not be rendered ({type(exc).__name__}: {exc})")

    def _alone(self, job: RenderJob) -> Outcome:
        """A job whose pool broke, rendered again in a process of its own, so that nothing
        else breaks with it if it is the cause."""
        with self._new_pool(1) as alone:
            try:
                return self._submit(alone, job).result()
            except BrokenExecutor:
                return failed(job, "could not be rendered: its worker process died")
            except Exception as exc:
                return failed(job, f"could not be rendered ({type(exc).__name__}: {exc})")

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None
