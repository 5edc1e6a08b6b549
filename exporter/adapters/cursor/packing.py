"""A large family of composers read once, not held whole (issue 17's memory target).

A family (a composer and the subagents and alternatives it started, ``family.py``) is one
unit of placing: every note's path is chosen before the first is written, so every
member's session, with what its messages tell (times, models, usage), is known first. A
family whose bubble rows take ``PACK_FROM`` bytes or more keeps each member's messages
packed (pickled and compressed) as soon as that member is read, in a temporary file of the
family's (``Spill``; never beside the source): the rows are parsed once, and the messages
are made again from the packed bytes where the note is made, one member at a time (a
``MessageStream``). The notes are those of the family held whole.

The family is read in one read transaction (``snapshot``): its composers, bubbles and
request contexts are of one state of the database, though Cursor writes to it meanwhile.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial

from ...model import Message, MessageStream, Session
from ..base import STREAM_FROM
from ..vscode import Database

PACK_FROM = STREAM_FROM  # bytes of a family's bubble rows from which its members are packed
_LEVEL = 1  # zstd's fastest, as ``exporter/packed.py`` packs a streamed session's parts

_ROW_BYTES = (
    "SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM cursorDiskKV"
    " WHERE key >= ? AND key < ?"
)


@contextmanager
def snapshot(db: Database) -> Iterator[None]:
    """One read transaction: what is read inside it is of one state of the database
    (read-only: it is ended, never committing anything)."""
    if db.conn.in_transaction:  # (already inside one)
        yield
        return
    db.query("BEGIN")
    try:
        yield
    finally:
        db.conn.rollback()  # (nothing was written: it only ends the read)


def packs(db: Database, family: list[str]) -> bool:
    """Are the messages of this family's composers kept packed? (A lone composer is held:
    it is one member.)"""
    return len(family) > 1 and family_bytes(db, family) >= PACK_FROM


def family_bytes(db: Database, cids: list[str]) -> int:
    """The bytes of the bubble rows of a family's composers, counted by SQLite (their
    values never come into Python here)."""
    if "cursorDiskKV" not in db.tables:
        return 0
    total = 0
    for cid in cids:
        prefix = f"bubbleId:{cid}:"
        row = db.query(_ROW_BYTES, (prefix, prefix + "\uffff")).fetchone()
        total += row[0] if row and isinstance(row[0], int) else 0
    return total


class Spill:
    """A temporary file holding a packed family's members' bytes, each read back where its
    note is made: the family holds its members' sessions, not their messages. Removed
    once no member is left (the file has no name, or is deleted when closed)."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="ccexport-cursor-")

    def keep(self, blob: bytes) -> Spilled | None:
        """``blob`` kept in the file (None if the file cannot take it: a full disk)."""
        try:
            at = self._file.seek(0, 2)
            self._file.write(blob)
        except OSError:
            return None
        return Spilled(self, at, len(blob))

    def read(self, at: int, size: int) -> bytes:
        self._file.seek(at)
        return self._file.read(size)

    def __del__(self) -> None:
        self._file.close()


class Spilled:
    """One member's packed bytes in its family's ``Spill``; pickled as the bytes (a
    worker's reading sent to the main process holds them)."""

    __slots__ = ("_spill", "_at", "_size")

    def __init__(self, spill: Spill, at: int, size: int) -> None:
        self._spill, self._at, self._size = spill, at, size

    def read(self) -> bytes:
        return self._spill.read(self._at, self._size)

    def __reduce__(self) -> tuple[type[bytes], tuple[bytes]]:
        return bytes, (self.read(),)


def spill() -> Spill | None:
    """A family's temporary file, or None (its members held packed) if none can be made."""
    try:
        return Spill()
    except OSError:
        return None


def packed(session: Session, kept: Spill | None = None) -> Session:
    """``session`` with its messages packed (in ``kept``, when given): made again each
    time they are read."""
    if session.is_streamed:
        return session
    import zstandard

    made = zstandard.ZstdCompressor(level=_LEVEL).compress(
        pickle.dumps(tuple(session.messages), protocol=pickle.HIGHEST_PROTOCOL)
    )
    # (copied: the bytes ``compress`` returns keep the room of the input's bound, about
    # the input's size, whatever their length)
    blob = kept.keep(made) if kept is not None else None
    if blob is None:
        blob = bytes(memoryview(made))
    return replace(session, messages=MessageStream(partial(_unpacked, blob)))


def _unpacked(blob: bytes | Spilled) -> Iterator[Message]:
    import zstandard

    data = blob.read() if isinstance(blob, Spilled) else blob
    messages: tuple[Message, ...] = pickle.loads(zstandard.ZstdDecompressor().decompress(data))
    del data
    yield from messages
