"""What the exporter remembers between runs, in ``<vault>/.ccexport/``, and the vault lock.

``state.json`` records, per source unit (a session file and its subagent files), the
size and mtime of each file and the notes it produced, so an unchanged source is skipped
without being read; and per note, its path, what index notes list about it, and the stat of
the file as last written, so an unchanged note need not be read again. Nothing here is
needed to keep a user's edit: the note itself carries the hash of its generated part, so a
vault whose state is lost, damaged or not synced (Obsidian Sync skips hidden folders) is
still updated safely. Every file here is written through ``vaultio`` (no link followed).
The file's layout, in columns with shared tables, is in ``statefile``.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from . import statefile, vaultio
from .collector import collector_paused
from .errors import VaultLockedError
from .statefile import NoteRecord  # also imported from here
from .vaultattach import Recorded

STATE_DIR = ".ccexport"
STATE_FILE = "state.json"
LOCK_FILE = "lock"
STATE_VERSION = 2  # 1: one JSON object per note (still read)


@dataclass(slots=True)
class State:
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: dict[str, NoteRecord] = field(default_factory=dict)
    # Links that could not be made yet: a note's key -> units whose notes want to link to it.
    links: dict[str, list[str]] = field(default_factory=dict)
    # Children a parent's own file does not name (learned from the children): key -> keys.
    children: dict[str, list[str]] = field(default_factory=dict)
    # What the notes were rendered with (templates, settings, version): a change re-renders all.
    render: str = ""
    # Runs that wrote a note or found one moved, counted: what ``NoteRecord.run`` and
    # ``NoteRecord.was`` stamp (``vaultlinks``). A run that stamps nothing leaves it.
    run: int = 0
    # The file's bytes when they were read back whole: what it holds on disk, so a run that
    # changes nothing need not serialise the state at start to know that.
    loaded: bytes | None = field(default=None, repr=False, compare=False)
    version: int = field(default=0, repr=False, compare=False)  # of the file read (0: none)
    # Why a state file that is there could not be used (damaged, from a newer version): the
    # run reads every source again and says so, instead of a full re-read without a word.
    unreadable: str | None = field(default=None, repr=False, compare=False)
    # Titles the index notes listed a session note by other than its record's (the person's,
    # typed in its properties), the latest last: a link Obsidian rewrote is known by them.
    titles: dict[str, list[str]] = field(default_factory=dict)
    # Sessions that went on from another one (a fork, a resume that copied it, a saved copy),
    # learned from them: the other's key -> [key, how, start (ISO, UTC; "" unknown)] in
    # order of start.
    forks: dict[str, list[list[str]]] = field(default_factory=dict)
    # The notes' folder as set -> where the person renamed or moved it in the vault
    # (``runstart.moved_folder``): new notes go there while the one set is not there.
    folders: dict[str, str] = field(default_factory=dict)
    # The files ccexport wrote into the attachments folder (paths in the vault): one of
    # them gone, the person deleted, and it is not copied again (``vaultattach``). None:
    # not recorded yet (a state an older version wrote). A ``Recorded`` list: with the name
    # each one gone from its hash name was last found under (saved as ``attachment_names``).
    attachments: list[str] | None = None

    @classmethod
    def load(cls, vault: Path) -> State:
        with collector_paused():
            return cls._load(vault)

    @classmethod
    def _load(cls, vault: Path) -> State:
        try:
            found = vaultio.read_file(vault, f"{STATE_DIR}/{STATE_FILE}")
            data = orjson.loads(found[0]) if found else None
        except orjson.JSONDecodeError as exc:
            # A damaged state (a merge's conflict, a disk error) only costs a full re-read:
            # notes are found by identity.
            return cls(unreadable=f"not valid JSON ({exc})")
        except OSError:
            return cls()  # a linked state: refused, by name, when the run writes it
        if data is None:
            return cls()
        if not isinstance(data, dict):
            return cls(unreadable="not a state file")
        if data.get("version") not in (1, STATE_VERSION):
            return cls(unreadable=other_version(data))
        try:
            if data["version"] == 1:  # an older vault: read, and written anew by its next run
                sources, notes = dict(data.get("sources", {})), _notes_v1(data.get("notes", {}))
            else:
                sources, notes = statefile.decode(data)
            run = _count(data.get("run", 0))
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            # Damaged (or hand-edited): a full re-read, as for a lost state.
            return cls(unreadable=f"damaged ({type(exc).__name__})")
        return cls(
            sources,
            notes,
            dict(data.get("links", {})),
            dict(data.get("children", {})),
            str(data.get("render", "")),
            run,
            found[0],
            data["version"],
            titles=_titles(data.get("titles")),
            forks=_forks(data.get("forks")),
            folders=_folders(data.get("folders")),
            attachments=_attachments(data.get("attachments"), data.get("attachment_names")),
        )

    def dumps(self) -> bytes:
        with collector_paused():
            data = {
                "version": STATE_VERSION,
                "links": self.links,
                "children": self.children,
                "render": self.render,
                "run": self.run,
                **({"titles": self.titles} if self.titles else {}),
                **({"forks": self.forks} if self.forks else {}),  # (an older file has none)
                **({"folders": self.folders} if self.folders else {}),
                **({"attachments": self.attachments} if self.attachments is not None else {}),
                # (a key of its own, not in the list: an older version ignores it)
                **({"attachment_names": names} if (names := _names(self.attachments)) else {}),
                # Units in one order, not the order they finished in (with the pool, a
                # family's unit finishes later than in one process): the same file either way.
                **statefile.encode(dict(sorted(self.sources.items())), self.notes),
            }
            return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)

    def unchanged(self, unit: str, fingerprint: list[list[object]]) -> bool:
        record = self.sources.get(unit)
        return bool(record) and record.get("fingerprint") == fingerprint

    def remember(self, unit: str, fingerprint: list[list[object]], keys: list[str]) -> None:
        self.sources[unit] = {"fingerprint": fingerprint, "notes": keys}

    def outdate(self, unit: str) -> None:
        """The unit's notes are to be redone (a link's other end appeared): until they are,
        a run reads it again whatever its files, even after a Ctrl-C."""
        record = self.sources.get(unit)
        if record is not None:
            record["fingerprint"] = []  # matches no unit's fingerprint


def other_version(data: dict[str, Any]) -> str:
    """Why a state of another format is not used. One of a later format was written by a
    newer ccexport (another machine of a synced vault): named, with the version it records
    where it can be found, and what stops it (review36 4: each run of the older machine set
    the state aside, and said nothing of a version)."""
    found = data.get("version")
    if not isinstance(found, int) or isinstance(found, bool) or found <= STATE_VERSION:
        return f"from another version of ccexport (format {found!r})"
    from .render import notes_made_by

    this = _of(notes_made_by())
    wrote = _written_by(data)
    by = f"ccexport {_of(wrote)}, newer than" if wrote else "a newer ccexport than"
    return (
        f"written by {by} this one ({this}, which reads state formats up to {STATE_VERSION}, "
        f"not {found}): upgrade ccexport on this machine, or each of its runs sets the "
        "state aside"
    )


def _of(made_by: str) -> str:
    """``notes_made_by``'s "0.2.0 2027-01-05.3" as said: "0.2.0 of 2027-01-05.3" (the
    version alone moves at releases only)."""
    return made_by.replace(" ", " of ", 1)


# What a state records of the version that rendered its notes (``render.notes_made_by``,
# in each source's fingerprint): "0.2.0 2027-01-05.3". Looked for anywhere in a newer
# layout, which this version cannot read.
_MADE_BY = re.compile(r"\d+(?:\.\d+)+\S* \d{4}-\d\d-\d\d\.\d+")
_LOOKED_AT = 200_000  # values of a newer state searched for it, at most


def _written_by(data: Any) -> str | None:
    """The newest version a state of another layout names (``_MADE_BY``), if any."""
    found: set[str] = set()
    pending, looked = [data], 0
    while pending and looked < _LOOKED_AT:
        value = pending.pop()
        looked += 1
        if isinstance(value, str):
            if _MADE_BY.fullmatch(value):
                found.add(value)
        elif isinstance(value, dict):
            pending += value.values()
        elif isinstance(value, list):
            pending += value
    return max(found, key=_version_order, default=None)


def _version_order(version: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", version)]


def _folders(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str) and v}


def _attachments(value: Any, names: Any = None) -> Recorded | None:
    """The recorded attachments, as read: anything but a list of texts is no record (the
    folder's files are recorded anew); with the names those gone from their hash names
    were last found under (``attachment_names``: no map of texts, none)."""
    if not isinstance(value, list):
        return None
    paths = [v for v in value if isinstance(v, str)]
    known = set(paths)
    return Recorded(paths, {k: v for k, v in _folders(names).items() if k in known})


def _names(attachments: list[str] | None) -> dict[str, str]:
    return dict(sorted(getattr(attachments, "names", {}).items()))


def set_aside_unreadable(vault: Path) -> str | None:
    """Move a state file the run could not use out of the way before the run writes a new
    one (review35 14: the warning said to put back a backup while the run overwrote the
    file): to ``state.json.unreadable-<date>``, ``-2`` … after an earlier one, never over
    it. Returns its path in the vault, None when it could not be moved (the run writes
    over it, as before). Called under the vault lock."""
    stamp = time.strftime("%Y-%m-%d")
    for n in range(1, 1000):
        name = f"{STATE_FILE}.unreadable-{stamp}" + (f"-{n}" if n > 1 else "")
        if vaultio.kind(vault, f"{STATE_DIR}/{name}") != "missing":
            continue
        try:  # (through vaultio, as every file here: no link followed on the way)
            moved = vaultio.rename_file(vault, f"{STATE_DIR}/{STATE_FILE}", name)
        except OSError:
            return None
        return f"{STATE_DIR}/{name}" if moved else None
    return None


def _titles(value: Any) -> dict[str, list[str]]:
    """The listed titles as read: anything but text under a text key is left out (a damaged
    or hand-edited entry only costs a link's recognition)."""
    if not isinstance(value, dict):
        return {}
    return {
        key: [t for t in titles if isinstance(t, str)]
        for key, titles in value.items()
        if isinstance(key, str) and isinstance(titles, list)
    }


def _forks(value: Any) -> dict[str, list[list[str]]]:
    """The sessions that went on from others, as read: an entry that is not three texts
    is left out (a damaged or hand-edited one only costs a link, made again when its
    session's note is written next)."""
    if not isinstance(value, dict):
        return {}
    return {
        key: [list(e) for e in entries if _is_fork(e)]
        for key, entries in value.items()
        if isinstance(key, str) and isinstance(entries, list)
    }


def _is_fork(entry: Any) -> bool:
    return isinstance(entry, list) and len(entry) == 3 and all(isinstance(v, str) for v in entry)


class VaultLock:
    """One writer per vault. Uses an OS file lock where there is one (released by the
    kernel if the process dies); elsewhere a pid file, taken over when its process is gone.
    """

    def __init__(
        self, vault: Path, wait: float = 5.0, waiting: Callable[[str], None] | None = None
    ) -> None:
        self.vault = vault
        self.path = vault / STATE_DIR / LOCK_FILE
        self.wait = wait
        self.waiting = waiting  # told once, when the lock is held and this run waits for it
        self._fd: int | None = None
        self._times: tuple[int, int] | None = None

    def __enter__(self) -> VaultLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def acquire(self) -> None:
        deadline = time.monotonic() + self.wait
        told = False
        while True:
            if self._try_lock():
                return
            if self.waiting is not None and self.wait and not told:
                told = True  # (a pause of seconds, explained)
                self.waiting(
                    f"another ccexport run{self._holder()} is writing {self.path.parent.parent}; "
                    f"waiting up to {self.wait:g} s for it to finish"
                )
            if time.monotonic() >= deadline:
                holder = self._holder()
                waited = f"waited for {self.wait:g} s, it is" if self.wait else "it is"
                raise VaultLockedError(
                    f"another ccexport run{holder} is writing {self.path.parent.parent}; "
                    f"{waited} still running"
                )
            time.sleep(0.1)

    def _try_lock(self) -> bool:
        fd = vaultio.open_lock_file(self.vault, f"{STATE_DIR}/{LOCK_FILE}")
        try:
            import fcntl
        except ImportError:  # Windows: fall back to the pid in the file
            if self._holder_alive(fd):
                os.close(fd)
                return False
        else:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False
        st = os.fstat(fd)  # left empty, as found, its time put back: see ``release``
        self._times = (st.st_atime_ns, st.st_mtime_ns) if st.st_size == 0 else None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {_host()} {int(time.time())}\n".encode())
        self._fd = fd
        return True

    def _holder_alive(self, fd: int) -> bool:
        text = os.read(fd, 200).decode(errors="replace").split()
        if not text:
            return False
        # Without a liveness probe that is safe on Windows, a lock older than a day is stale.
        started = int(text[2]) if len(text) > 2 and text[2].isdigit() else 0
        return text[0] != str(os.getpid()) and time.time() - started < 86_400

    def _holder(self) -> str:
        try:
            found = vaultio.read_file(self.vault, f"{STATE_DIR}/{LOCK_FILE}", 200)
            pid = found[0].decode(errors="replace").split()[0] if found else ""
        except (OSError, IndexError):
            return ""
        if not pid:
            return ""
        return f" (pid {pid})"

    def identity(self) -> tuple[int, int, int] | None:
        """(fd, device, inode) of the held lock, so a forked worker can let go of it."""
        if self._fd is None:
            return None
        st = os.fstat(self._fd)
        return self._fd, st.st_dev, st.st_ino

    def release(self) -> None:
        fd, self._fd = self._fd, None  # let go of first: never closed twice
        if fd is not None:
            try:
                os.ftruncate(fd, 0)
                if self._times and os.utime in os.supports_fd:
                    # The file is as the run found it: so is its time (a re-run over
                    # unchanged sources changes no file, not even the lock's time). A file
                    # system that refuses (a FUSE or CIFS mount) leaves it: no failure.
                    with contextlib.suppress(OSError):
                        os.utime(fd, ns=self._times)
            finally:
                os.close(fd)  # closing releases the OS lock


def _count(value: object) -> int:
    if type(value) is not int or value < 0:
        raise TypeError("the count of runs is not a number")
    return value


def _notes_v1(notes: dict[str, Any]) -> dict[str, NoteRecord]:
    """The notes of a version 1 state: one object per note, every key spelled out."""
    return {
        key: NoteRecord(
            r["path"],
            r["hash"],
            r["lines"],
            list(r.get("tags", [])),
            list(r.get("keys", [])),
            dict(r.get("meta", {})),
            [int(n) for n in r.get("stat", []) if isinstance(n, int)],
            r.get("deleted") is True,
        )  # fmt: skip
        for key, r in notes.items()
        if isinstance(r, dict) and {"path", "hash", "lines"} <= r.keys()
    }


def _host() -> str:
    """This machine's name, as ``socket.gethostname()`` gives it (the nodename uname reports)
    without importing the socket module on the way to every export (3 ms)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket  # Windows

    return socket.gethostname()
