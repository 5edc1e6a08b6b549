"""A database with a damaged page (a bad sector, a sync that mixed two versions) opens, and
fails only when a query reaches that page: "database disk image is malformed". Raised
while the rows were read (not when the query started), that error escaped the shared
reader as SQLite's own: a reader that did not catch it itself failed its unit with Python's
words for it. It is a SourceError naming the file, whichever way the rows are read."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC
from pathlib import Path

import pytest
from test_database_parts import _user_dir

from exporter.adapters._sqlite import Database
from exporter.adapters.vscode import Database as EditorDatabase
from exporter.errors import SourceError
from exporter.export import ExportOptions, run_export

MALFORMED = "malformed"


def damaged_db(path: Path, rows: int = 3000) -> Path:
    """A key-value table of several hundred pages, one page in its middle overwritten."""
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        conn.executemany(
            "INSERT INTO cursorDiskKV VALUES (?, ?)",
            [(f"composerData:{n:05d}", '{"a": "' + "x" * 200 + '"}') for n in range(rows)],
        )
        conn.commit()
    damage(path)
    return path


def damage(path: Path) -> None:
    size = path.stat().st_size
    page = int.from_bytes(path.read_bytes()[16:18], "big")
    with open(path, "r+b") as f:
        f.seek((size // 2) // page * page)
        f.write(b"\xff" * page)


READS = {
    "query": lambda db: list(db.query("SELECT key, value FROM cursorDiskKV ORDER BY key")),
    "fetchall": lambda db: db.query("SELECT key, value FROM cursorDiskKV").fetchall(),
    "rows": lambda db: list(db.rows("SELECT key, value FROM cursorDiskKV ORDER BY key")),
    "items": lambda db: list(db.items("cursorDiskKV", "composerData:")),
}


@pytest.mark.parametrize("read", list(READS))
def test_a_damaged_page_met_while_reading_is_a_source_error_naming_the_file(tmp_path, read):
    path = damaged_db(tmp_path / "state.vscdb")
    with EditorDatabase(path) as db, pytest.raises(SourceError) as raised:
        READS[read](db)
    assert raised.value.path == str(path) and MALFORMED in raised.value.message


def test_the_rows_read_before_the_damaged_page_are_given(tmp_path):
    path = damaged_db(tmp_path / "state.vscdb")
    got = []
    with Database(path) as db, pytest.raises(SourceError):
        for row in db.query("SELECT key FROM cursorDiskKV ORDER BY rowid"):
            got.append(row[0])
    assert 0 < len(got) < 3000 and got[0] == "composerData:00000"


def test_a_cursor_folder_with_a_damaged_page_is_said_by_its_file(tmp_path):
    """(Cursor's reader caught it itself before: a guard that it still says the file.)"""
    home = tmp_path / "home"
    user = _user_dir(home, composers=120)
    global_db = user / "globalStorage" / "state.vscdb"
    damage(global_db)
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home, timezone=UTC))
    said = [p for p in report.problems if p.path == str(global_db)]
    assert said and all(MALFORMED in p.message for p in said), [str(p) for p in report.problems]
    assert not any("DatabaseError" in p.message for p in report.problems)


def scribbled_db(path: Path) -> Path:
    """A table of three rows on one leaf page whose cell pointers are overwritten (bytes
    8..72 of the page, fixed random bytes): SQLite reads such a page without an error
    unless asked to check each cell's bounds."""
    import random

    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE ItemTable (key TEXT, value BLOB)")
        conn.executemany(
            "INSERT INTO ItemTable VALUES (?, ?)", [(f"chat:{n}", "x" * 30) for n in range(3)]
        )
        conn.commit()
    data = bytearray(path.read_bytes())
    page, scribble = int.from_bytes(data[16:18], "big"), random.Random(0)
    for start in range(page, len(data), page):  # every page but the schema's
        data[start + 8 : start + 72] = bytes(scribble.randrange(256) for _ in range(64))
    path.write_bytes(bytes(data))
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:  # (as it was)
        assert len(conn.execute("SELECT key, value FROM ItemTable").fetchall()) == 3
    return path


def test_a_page_whose_cells_are_scribbled_is_malformed_not_read_as_rows(tmp_path):
    """review44 M1: such a page gave rows of other bytes or none, without a word (a Cursor
    chat gone, a Copilot title flipped to the first prompt, exit 0)."""
    db = scribbled_db(tmp_path / "state.vscdb")
    with pytest.raises(SourceError, match=MALFORMED), Database(db) as opened:
        list(opened.query("SELECT key, value FROM ItemTable"))


def test_a_database_link_that_loops_is_a_source_error(tmp_path):
    """review44 M3: ``doctor`` and ``sources`` died on Python's RuntimeError from
    ``resolve()`` (a Cursor state.vscdb linked to itself); the export said it well."""
    db = tmp_path / "state.vscdb"
    db.symlink_to(db)
    with pytest.raises(SourceError, match="loop"):
        Database(db)
