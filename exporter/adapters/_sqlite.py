"""Read-only SQLite access shared by every database source (FORMATS.md §0.3).

A database is opened through a ``file:…?mode=ro`` URI with a busy timeout, so rows a
running tool has only written to the write-ahead log (``-wal``) are seen and nothing is
ever written: never a checkpoint, and ``immutable=1`` (which ignores the log) only where
there is no log to ignore. That case is a database in WAL mode whose tool is closed: the
last connection to close removed ``-wal`` and ``-shm``, and opening it read-only would
create both again beside the database and leave them behind, in the editor's storage.
Opened as immutable it creates nothing; were the tool to start and checkpoint during the
read, the pages read could mix two states, which SQLite reports as a malformed database
(that source is then reported and read again next run; the ``-wal`` the tool creates
changes the stamps either way). Every SQLite error becomes a ``SourceError`` naming the
file, worded for people (locked, not a database, unreadable).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from ..errors import SourceError
from ._jsonl import lenient_loads
from .base import FileStamp

BUSY_TIMEOUT_MS = 3000
CUT_SHORT_RECHECK_S = 0.25
MAGIC = b"SQLite format 3\0"  # a database file's first 16 bytes


class Database:
    """One SQLite file opened read-only; use as a context manager."""

    def __init__(self, path: Path, busy_timeout_ms: int | None = None) -> None:
        self.path = path
        if busy_timeout_ms is None:
            busy_timeout_ms = BUSY_TIMEOUT_MS  # read now, so tests can shorten it
        header = _header(path)
        if _cut_short(path, header):
            # Looked at again a moment later: a program committing to it may have written
            # its first page, with the new size, before the pages that make it that long.
            time.sleep(CUT_SHORT_RECHECK_S)
            header = _header(path)
            if cut := _cut_short(path, header):
                raise SourceError(path, cut)
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError):  # (a link loop: 3.11 raises RuntimeError, 3.13 OSError)
            raise SourceError(path, "a link that leads back to itself (a loop)") from None
        try:
            uri = "file:" + quote(str(resolved).replace("\\", "/"), safe="/:") + "?mode=ro"
            if _wal_without_log(path, header):
                uri += "&immutable=1"
            self.conn = sqlite3.connect(uri, uri=True, timeout=busy_timeout_ms / 1000)
            # A TEXT value that is not UTF-8 (a damaged row) would fail the whole query, and
            # with it every session of the database: its bad bytes are read as U+FFFD.
            self.conn.text_factory = _lenient_text
            self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            # A page whose cell pointers are damaged is read as it is, without it: rows
            # missed or made of other bytes, and no error (review44 M1: a Cursor chat gone,
            # a Copilot title flipped to the first prompt, exit 0). Checked, it is the
            # "malformed" error every reader reports. (A bounds check per cell read.)
            self.conn.execute("PRAGMA cell_size_check = ON")
            self.tables = {
                r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        except sqlite3.Error as exc:
            raise SourceError(path, describe(exc)) from None

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.close()

    def query(self, sql: str, args: tuple[Any, ...] = ()) -> Rows:
        """Run one statement; an SQLite error, then or while its rows are read, becomes a
        SourceError naming the file."""
        try:
            return Rows(self.conn.execute(sql, args), self.path)
        except sqlite3.Error as exc:
            raise SourceError(self.path, describe(exc)) from None

    def rows(self, sql: str, args: tuple[Any, ...] = ()) -> Iterator[dict[str, Any]]:
        """The rows of a query as dicts by column name (columns differ between versions)."""
        cursor = self.query(sql, args)
        names = [d[0] for d in cursor.description or ()]
        for row in cursor:
            yield dict(zip(names, row, strict=True))

    def columns(self, table: str) -> set[str]:
        """The column names of ``table`` (empty when it does not exist)."""
        if table not in self.tables:
            return set()
        return {r[1] for r in self.query(f'PRAGMA table_info("{table}")')}


class Rows:
    """The rows of one query. A page that cannot be read partway through (a damaged or
    cut file: "database disk image is malformed") raises a SourceError naming the file,
    as an error at the start does: the rows read before it are kept by the reader."""

    __slots__ = ("cursor", "path")

    def __init__(self, cursor: sqlite3.Cursor, path: Path) -> None:
        self.cursor, self.path = cursor, path

    @property
    def description(self) -> Any:
        return self.cursor.description

    def __iter__(self) -> Iterator[Any]:
        while batch := self._fetched(self.cursor.fetchmany, 200):
            yield from batch

    def fetchone(self) -> Any:
        return self._fetched(self.cursor.fetchone)

    def fetchall(self) -> list[Any]:
        return self._fetched(self.cursor.fetchall)

    def _fetched(self, fetch: Any, *args: Any) -> Any:
        try:
            return fetch(*args)
        except sqlite3.Error as exc:
            raise SourceError(self.path, describe(exc)) from None


def _lenient_text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _header(path: Path) -> bytes:
    """The database header (its first 100 bytes; fewer, or none, for a file that short or
    that cannot be read: connecting names the error)."""
    try:
        with open(path, "rb") as f:
            return f.read(100)
    except OSError:
        return b""


def wal_without_log(path: Path) -> bool:
    """Whether ``path`` is a database in WAL mode with no ``-wal`` file beside it: all its
    rows are in the main file, and a read-only open would create ``-wal`` and ``-shm``."""
    return _wal_without_log(path, _header(path))


def _wal_without_log(path: Path, header: bytes) -> bool:
    # Bytes 18 and 19 of the header are the write and read format versions: 2 means WAL.
    wal_mode = header[:16] == MAGIC and header[18:20] == b"\x02\x02"
    return wal_mode and not os.path.lexists(path.with_name(path.name + "-wal"))


def _cut_short(path: Path, header: bytes) -> str | None:
    """Why the file is shorter than its header says (None: it is not, or that is not
    known). SQLite opens a database cut inside its last pages, and a lookup by key through
    a lost index page finds nothing without an error: every chat in it would go unsaid. The
    header's page count is valid when its change counter (bytes 24-27) matches its
    version-valid-for number (92-95). A file with a write-ahead log or a rollback journal
    beside it (not empty) is not judged: a checkpoint or a commit writes page 1, with the
    new size, before the pages past the old end."""
    if len(header) < 100 or header[:16] != MAGIC or header[24:28] != header[92:96]:
        return None
    pages = int.from_bytes(header[28:32], "big")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    try:
        size = os.stat(path).st_size
        for beside in ("-wal", "-journal"):
            log = path.with_name(path.name + beside)
            if os.path.lexists(log) and os.stat(log).st_size:
                return None
    except OSError:
        return None
    if not pages or size >= pages * page_size:
        return None
    return (
        f"the database file is shorter than its header says ({size:,} of "
        f"{pages * page_size:,} bytes): cut short, or caught while being written; skipped, "
        "read again next run"
    )


def stamps(db: Path) -> list[FileStamp]:
    """A database and its write-ahead log, as seen by stat (the log holds new rows)."""
    found = [FileStamp.of(db)]
    wal = db.with_name(db.name + "-wal")
    if wal.exists():
        found.append(FileStamp.of(wal))
    return found


def decode_json(value: Any) -> Any:
    """A stored value (TEXT or BLOB) as JSON; None when it is not JSON (a number stored
    where JSON text belongs too: a damaged row, never a document)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    elif not isinstance(value, str):
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return lenient_loads(value)  # a number past 64 bits, a lone surrogate


LOCKED = "the database is locked by another program"  # (a passing state: try again)
UNREADABLE = "not a readable SQLite database"  # (not a database, damaged: it stays so)


def describe(exc: sqlite3.Error) -> str:
    """An SQLite error in words, with what happens next."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return f"{LOCKED} ({text}); skipped, try again later"
    if "not a database" in text or "malformed" in text or "encrypted" in text:
        return f"{UNREADABLE} ({text}); skipped"
    return f"could not be read ({text})"
