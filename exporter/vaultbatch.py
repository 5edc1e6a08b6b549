"""Notes written as a batch: temp files now, made durable together, renamed in order.

The batch half of the vault's safe writer (``vaultio``, whose rules it keeps: folders
opened without following links, temp files with unpredictable names, nothing left behind
on failure). Its helpers are called through that module.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import vaultio
from .interrupts import ctrl_c_held


@dataclass(slots=True)
class _Pending:
    fd: int
    folder: int | Path  # a descriptor of its own (duplicated), or a checked path
    tmp: str
    name: str
    before: list[int] | None  # the file's stat when its new text was made ([]: none)


class ChangedMeanwhile(OSError):
    """The file was saved by someone else after its new text was made from it (``gone``:
    it was deleted)."""

    gone = False


def stat_key(st: os.stat_result | None) -> list[int]:
    """What tells that a file is still the one last written or read ([]: none there)."""
    return [st.st_mtime_ns, st.st_size, st.st_ino] if st is not None else []


def same_file(recorded: list[int], st: os.stat_result) -> bool:
    """Is the file with ``st`` the one whose ``stat_key`` was ``recorded``: its time to the
    nanosecond and its size? Its inode may be another: a vault copied or restored with its
    files' times (``cp -a``, rsync, a backup, a sync tool to a new machine), or on a file
    system that numbers inodes anew at each mount. An edit changes the time."""
    return len(recorded) == 3 and recorded[0] == st.st_mtime_ns and recorded[1] == st.st_size


FSYNC_LANES = 8  # fsyncs running side by side in a commit


class WriteBatch:
    """Notes written to temp files now, made durable together and renamed at ``commit``.

    One fsync waits for the file system's journal, a few milliseconds; a run of 20,000
    notes would wait minutes for them one by one. A batch writes each note's temp file at
    once (a full disk is still that note's failure), then runs the fsyncs of up to
    ``limit`` notes, ``FSYNC_LANES`` at a time, which the file system commits together, and
    renames them in the order written. Until then a path still shows the old file: the owner calls
    ``settle`` before reading a path and ``commit`` before walking the vault or recording
    the run. A failed fsync or rename at commit goes to ``failed`` (the temp file removed):
    the owner must not record that run, so the next one redoes it, as after a crash.
    Ctrl-C waits for a commit to end (one batch's fsyncs side by side, then its renames):
    cut halfway, notes counted as written would stay temp files until the next run, and a
    descriptor could be closed while its fsync still ran. On a mount whose fsync hangs,
    Ctrl-C therefore waits with it; SIGTERM still ends the run."""

    def __init__(self, root: Path, limit: int = 64) -> None:
        self.root, self.limit = root, limit
        self._pending: dict[str, _Pending] = {}
        self.failed: list[tuple[str, OSError]] = []

    def __len__(self) -> int:
        return len(self._pending)

    def write(self, relpath: str, data: bytes, before: list[int] | None = None) -> os.stat_result:
        """Write ``data`` for ``relpath`` beside it; returns the stat the file will have.
        ``before``: the ``stat_key`` of the file ``data`` was made from ([] for none); if
        the file is no longer that when its turn to land comes (Obsidian saved the person's
        typing meanwhile), it is left as it is and the write fails as ``ChangedMeanwhile``."""
        self.settle(relpath)  # the same file twice: the first lands before the second
        *dirs, name = vaultio._parts(relpath)
        with vaultio._folder(self.root, dirs, create=True) as folder:
            fd, tmp, written = vaultio._write_temp(self.root, relpath, folder, name, data)
            own: int | Path | None = None
            try:
                own = os.dup(folder) if isinstance(folder, int) else folder
                self._pending[relpath] = _Pending(fd, own, tmp, name, before)
            except BaseException:  # not pending: nothing else will close or remove these
                os.close(fd)
                if isinstance(own, int):
                    os.close(own)
                vaultio._discard(folder, tmp)
                raise
        if len(self._pending) >= self.limit:
            self.commit()
        return written

    def settle(self, relpath: str) -> None:
        if relpath in self._pending:
            self.commit()

    def commit(self) -> None:
        if not self._pending:
            return
        with ctrl_c_held():  # see the class: a commit is never cut halfway
            pending, self._pending = list(self._pending.items()), {}
            errors: list[OSError | None] = [None] * len(pending)
            try:
                # Eight lanes of fsyncs, each thread taking its lane's notes one after the
                # other: one task per thread, not per note, as each task handed over wakes
                # a thread that takes the interpreter lock from the main one (2,000 short
                # sessions: the main process's CPU -3%, 12 alternating rounds).
                fds = [p.fd for _relpath, p in pending]
                lanes = min(FSYNC_LANES, len(fds))
                with ThreadPoolExecutor(lanes) as pool:
                    done = list(pool.map(_fsync_each, [fds[i::lanes] for i in range(lanes)]))
                for i, lane in enumerate(done):
                    errors[i::lanes] = lane
            finally:
                for (relpath, p), error in zip(pending, errors, strict=True):
                    self._land(relpath, p, error)

    def _land(self, relpath: str, p: _Pending, error: OSError | None) -> None:
        try:
            os.close(p.fd)
            if error is not None:
                raise error
            now = stat_key(vaultio._lstat(p.folder, p.name)) if p.before is not None else None
            if now is not None and now != p.before:
                changed = ChangedMeanwhile("saved by someone else while this run updated it")
                changed.gone = not now
                raise changed
            vaultio._rename(p.folder, p.tmp, p.name)
        except OSError as exc:
            vaultio._discard(p.folder, p.tmp)
            self.failed.append((relpath, vaultio.said_of_target(exc, self.root, relpath)))
        finally:
            if isinstance(p.folder, int):
                os.close(p.folder)


def _fsync_each(fds: list[int]) -> list[OSError | None]:
    return [_fsync(fd) for fd in fds]


def _fsync(fd: int) -> OSError | None:
    try:
        os.fsync(fd)
    except OSError as exc:
        return exc
    return None


def sync_folders(root: Path, reldirs: Iterable[str]) -> None:
    """Make the renames done in these vault folders durable (one fsync per folder)."""
    for reldir in sorted(set(reldirs)):
        try:
            with vaultio._folder(root, [p for p in reldir.split("/") if p], create=False) as folder:
                vaultio._sync_folder(folder)
        except (FileNotFoundError, NotADirectoryError, vaultio.UnsafePathError):
            continue  # gone or replaced since: nothing of ours left to make durable
