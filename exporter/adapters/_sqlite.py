"""Read-only SQLite access shared by every database source (FORMATS.md §0.3).

A database is opened through a ``file:…?mode=ro`` URI with a busy timeout, so rows a
running tool has only written to the write-ahead log (``-wal``) are seen and nothing is
ever written: never ``immutable=1`` (it ignores the log), never a checkpoint. Every SQLite
error becomes a ``SourceError`` naming the file, worded for people (locked, not a
database, unreadable).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from ..errors import SourceError
from ._jsonl import lenient_loads
from .base import FileStamp

BUSY_TIMEOUT_MS = 3000


class Database:
    """One SQLite file opened read-only; use as a context manager."""

    def __init__(self, path: Path, busy_timeout_ms: int | None = None) -> None:
        self.path = path
        if busy_timeout_ms is None:
            busy_timeout_ms = BUSY_TIMEOUT_MS  # read now, so tests can shorten it
        try:
            uri = "file:" + quote(str(path.resolve()).replace("\\", "/"), safe="/:") + "?mode=ro"
            self.conn = sqlite3.connect(uri, uri=True, timeout=busy_timeout_ms / 1000)
            self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self.tables = {
                r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        except sqlite3.Error as exc:
            raise SourceError(path, describe(exc)) from None

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.close()

    def query(self, sql: str, args: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        """Run one statement; an SQLite error becomes a SourceError naming the file."""
        try:
            return self.conn.execute(sql, args)
        except sqlite3.Error as exc:
            raise SourceError(self.path, describe(exc)) from None

    def rows(self, sql: str, args: tuple[Any, ...] = ()) -> Iterator[dict[str, Any]]:
        """The rows of a query as dicts by column name (columns differ between versions)."""
        cursor = self.query(sql, args)
        names = [d[0] for d in cursor.description or ()]
        while True:
            try:
                batch = cursor.fetchmany(200)
            except sqlite3.Error as exc:
                raise SourceError(self.path, describe(exc)) from None
            if not batch:
                return
            for row in batch:
                yield dict(zip(names, row, strict=True))

    def columns(self, table: str) -> set[str]:
        """The column names of ``table`` (empty when it does not exist)."""
        if table not in self.tables:
            return set()
        return {r[1] for r in self.query(f'PRAGMA table_info("{table}")')}


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


def describe(exc: sqlite3.Error) -> str:
    """An SQLite error in words, with what happens next."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return f"the database is locked by another program ({text}); skipped, try again later"
    if "not a database" in text or "malformed" in text or "encrypted" in text:
        return f"not a readable SQLite database ({text}); skipped"
    return f"could not be read ({text})"
