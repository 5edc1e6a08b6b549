"""Types every adapter shares: where to look, what was found, what was loaded."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from functools import lru_cache
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import BinaryIO, ClassVar, Protocol

from ..errors import Problem, os_reason
from ..model import Message, Session

# A session file this large is streamed: its messages are read again, one by one, when its
# notes are written, never held whole. Each streaming adapter imports it (a test lowers it
# for one source by setting that module's name).
STREAM_FROM = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class SourceContext:
    """Where to look: a home directory and the environment to honour."""

    home: Path
    env: Mapping[str, str] = field(default_factory=dict)
    # True when home is the real ~ (then variables like CLAUDE_CONFIG_DIR apply as well).
    real_home: bool = True
    # Folders configured per source (config `[paths]`): used instead of the usual places.
    paths: Mapping[str, tuple[Path, ...]] = field(default_factory=dict)
    # The run's --since: a session that ended before it is not exported, so a session that
    # continues it keeps the copy of its conversation (it is in no other note).
    since: datetime | None = None
    # The zone of times a source writes without one (Aider's local time): the vault's
    # (``zones``); None: this process's local time.
    zone: tzinfo | None = None

    @classmethod
    def for_home(
        cls,
        home: Path | None,
        paths: Mapping[str, list[Path]] | None = None,
        since: datetime | None = None,
        zone: tzinfo | None = None,
    ) -> SourceContext:
        configured = {k: tuple(v) for k, v in (paths or {}).items()}
        if home is None:
            return cls(Path.home(), dict(os.environ), True, configured, since, zone)
        path = home.expanduser().resolve()
        return cls(path, dict(os.environ), False, configured, since, zone)

    def left_out(self, path: Path, ended: datetime | None) -> bool:
        """Does the run leave out the session of the file ``path``, which ended at ``ended``
        (None: not known), as older than --since? As discovery (the file's time) and the
        export's filter (the session's end) decide it."""
        if self.since is None:
            return False
        try:
            if path.stat().st_mtime_ns < self.since.timestamp() * 1e9:
                return True
        except OSError:
            return True
        return ended is not None and ended < self.since

    def configured(self, source: str, inside: str = "") -> list[Path] | None:
        """The folders configured for ``source``; ``inside`` is the usual subfolder."""
        folders = self.paths.get(source)
        if not folders:
            return None
        return [f / inside if inside and (f / inside).is_dir() else f for f in folders]


_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """A source file opened for reading, refused unless it is a regular file: opening a
    FIFO where a session or index file belongs would wait for a writer forever."""
    fd = os.open(path, os.O_RDONLY | _NONBLOCK | _BINARY)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, not_a_file(mode), str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def same_bytes(one: str | os.PathLike[str], other: str | os.PathLike[str]) -> bool:
    """Do two files hold the same bytes (read a block at a time; False if either cannot
    be read)?"""
    try:
        with open_regular(one) as a, open_regular(other) as b:
            while True:
                block = a.read(1 << 20)
                if block != b.read(1 << 20):
                    return False
                if not block:
                    return True
    except OSError:
        return False


def not_a_file(mode: int) -> str:
    """What a path is instead of a regular file, as a problem says it ("a folder, not a
    file"), from its ``st_mode``."""
    for test, what in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    ):
        if test(mode):
            return f"{what}, not a file"
    return "not a regular file"


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular source file (see ``open_regular``)."""
    with open_regular(path) as f:
        return f.read()


def listed(folder: str | os.PathLike[str]) -> list[os.DirEntry[str]]:
    """A folder's entries by name, without links that cannot be followed to anything (a
    link to itself: asking what it is raises, which would end the whole discovery; the
    walk of ``sources.unreadable_below`` reports each)."""
    return sorted((e for e in os.scandir(folder) if unreachable(e) is None), key=lambda e: e.name)


def unreachable(entry: os.DirEntry[str]) -> OSError | None:
    """Why a link cannot be followed (a loop, a path through a file, no permission); None
    for anything else, a link to nothing too (neither a file nor a folder: skipped as such)."""
    if not entry.is_symlink():
        return None
    try:
        entry.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc
    return None


@lru_cache(maxsize=256)  # the sessions of a project share their cwd
def project_name(cwd: str | None) -> str | None:
    """A session's project: the last folder of its working directory, POSIX or Windows
    shaped (a session recorded on Windows is read the same on Linux)."""
    if not cwd:
        return None
    windows = re.match(r"^[A-Za-z]:[\\/]", cwd) or ("\\" in cwd and "/" not in cwd)
    return (PureWindowsPath(cwd) if windows else PurePosixPath(cwd)).name or None


@dataclass(frozen=True, slots=True)
class FileStamp:
    """A file as seen by ``stat``: enough to tell whether it changed."""

    path: Path
    size: int
    mtime_ns: int
    inode: int = 0  # a file replaced by another (same size and time) is still noticed

    @classmethod
    def of(cls, entry: os.DirEntry[str] | Path) -> FileStamp:
        st = entry.stat()
        return cls(Path(entry), st.st_size, st.st_mtime_ns, st.st_ino)

    @classmethod
    def listed(cls, entry: os.DirEntry[str] | Path) -> FileStamp | None:
        """``of`` for a file a discovery listed, None where it cannot be stat'ed: gone since
        the listing (Codex moves a rollout to ``archived_sessions/``), or a link that leads
        nowhere or back to itself (said by ``sources.unreadable_below``'s walk). Not a reason
        to miss the files after it (review44 H1: one such link hid every later rollout)."""
        try:
            return cls.of(entry)
        except (OSError, RuntimeError):  # (RuntimeError: a link loop, as 3.11's resolve says)
            return None


@dataclass(frozen=True, slots=True)
class SessionRef:
    """A discovered session: its main file plus files that belong to it (subagents)."""

    source: str
    session_id: str
    main: FileStamp
    related: tuple[FileStamp, ...] = ()
    # Facts read at discovery that change the note without touching the file (a title
    # from an index): part of the fingerprint, so a change re-exports the session.
    extra: tuple[str, ...] = ()
    # Why the index that gives some of these facts could not be read this run (a warning
    # naming it, from ``index_unreadable``). The run then gives the ref the facts it recorded
    # last time (``with_facts``): a locked index does not flip the note's title and back.
    unread_index: Problem | None = None
    # Facts the index no longer gives though it gave them once (it names only the latest
    # of something): the run gives the ref those it recorded last time, without a warning.
    recalls_facts: bool = False

    def fact(self, name: str) -> str | None:
        """The value of a ``name=value`` entry of ``extra``."""
        return next((x[len(name) + 1 :] for x in self.extra if x.startswith(name + "=")), None)

    def with_facts(self, recorded: Iterable[str]) -> SessionRef:
        """This ref with the ``recorded`` facts whose names it lacks, after its own (an
        index's facts come after the unit's own, so the last run's ``extra`` comes back as
        it was)."""
        names = {x.partition("=")[0] for x in self.extra}
        kept = tuple(x for x in recorded if x.partition("=")[0] not in names)
        return replace(self, extra=(*self.extra, *kept)) if kept else self

    @property
    def files(self) -> tuple[FileStamp, ...]:
        return (self.main, *self.related)

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def mtime_ns(self) -> int:
        return max(f.mtime_ns for f in self.files)

    def fingerprint(self) -> list[list[object]]:
        """What must be unchanged for a run to skip this session without reading it."""
        stamps: list[list[object]] = [
            [str(f.path), f.size, f.mtime_ns, f.inode] for f in self.files
        ]
        return stamps + [list(self.extra)] if self.extra else stamps

    @staticmethod
    def facts_in(fingerprint: list[list[object]]) -> tuple[str, ...]:
        """The ``extra`` of the ref whose ``fingerprint()`` ends ``fingerprint`` (its last
        entry when that is all text: a file's entry holds numbers)."""
        last = fingerprint[-1] if fingerprint else None
        if isinstance(last, list) and last and all(isinstance(x, str) for x in last):
            return tuple(last)
        return ()


def index_unreadable(source: str, path: Path, why: str, gives: str) -> Problem:
    """The warning for an index beside the sessions (titles, folders) that is there but
    could not be read. An index that is not there at all (the tool's version writes none)
    is no problem: nothing is missing."""
    then = f"until it can be read, the {gives} it gives are kept from the last run"
    return Problem(str(path), f"{why}; {then}", source=source)


def cannot_read(exc: OSError) -> str:
    """Why a file could not be read, in words (``why`` of ``index_unreadable``)."""
    return f"could not be read ({os_reason(exc)})"


@dataclass(slots=True)
class LoadResult:
    sessions: list[Session] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # The file is a copy of a session another file holds, which is exported instead: it
    # holds a conversation all the same (not a file "without a conversation").
    copy: bool = False
    # It holds a conversation that could not be read, which a warning says (a chat log that
    # lost its start): not a file "without a conversation" either.
    unreadable: bool = False
    # Read again by the next run though nothing failed: what it depends on could not be read
    # (an OpenCode tree waits while the database beside it is locked).
    wait: bool = False

    @classmethod
    def merged(cls, results: Iterable[LoadResult]) -> LoadResult:
        """Families loaded one at a time, as one result."""
        merged = cls()
        for result in results:
            merged.sessions += result.sessions
            merged.problems += result.problems
            merged.copy |= result.copy
            merged.unreadable |= result.unreadable
            merged.wait |= result.wait
        return merged


class Adapter(Protocol):
    name: ClassVar[str]  # "claude-code": the --source value and the `source` property
    label: ClassVar[str]  # "Claude Code": shown to people
    # Variables read on the real home (never under --home): documented, and cleared in tests.
    env_vars: ClassVar[tuple[str, ...]]

    def roots(self, ctx: SourceContext) -> list[Path]: ...

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]: ...

    def load(self, ref: SessionRef) -> LoadResult: ...


class MessageSink(Protocol):
    """Where an adapter that ``keeps_streamed`` hands the messages of the session it streams
    (``load(ref, keep=sink)``) as its first reading closes them, so that they need not be
    read again: ``add`` in order; ``end`` once the reading is over, with the subagent each
    tool call started (call id -> session id, known only then). Without ``end`` (the adapter
    must read the file again for its messages) the sink's messages are not to be used."""

    def add(self, messages: Iterable[Message]) -> None: ...

    def end(self, links: Mapping[str, str]) -> None: ...
