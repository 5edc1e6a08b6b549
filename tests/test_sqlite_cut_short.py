"""A database file cut short (a copy that stopped, a disk that filled, a sync caught half
way) is said and skipped, and read again next run: SQLite opens it, and a lookup by key
through a lost page finds nothing without an error, so its chats went missing unsaid. A
healthy database is never taken for one."""

from __future__ import annotations

import shutil
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME, note_files
from test_sources_untouched import databases

from exporter.adapters._sqlite import Database, _cut_short, _header
from exporter.errors import SourceError
from exporter.export import ExportOptions, run_export

CUT = "shorter than its header says"


def page_size(db: Path) -> int:
    size = int.from_bytes(db.read_bytes()[16:18], "big")
    return 65536 if size == 1 else size


@pytest.fixture
def demo_home(tmp_path: Path, monkeypatch) -> Path:
    import exporter.adapters._sqlite as sqlite_module

    monkeypatch.setattr(sqlite_module, "CUT_SHORT_RECHECK_S", 0, raising=False)  # (no pause)
    home = tmp_path / "demo-home"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    return home


def test_every_demo_database_cut_by_a_page_or_less_is_refused_by_name(demo_home):
    dbs = databases(demo_home)
    assert len(dbs) >= 8
    for db in dbs:
        whole = db.read_bytes()
        with Database(db):
            pass  # whole: opened
        for cut in (len(whole) - page_size(db), len(whole) - 1, 100):
            db.write_bytes(whole[:cut])
            with pytest.raises(SourceError, match=CUT) as caught:
                Database(db)
            assert f"{cut:,} of {len(whole):,} bytes" in str(caught.value)
        db.write_bytes(whole)


def test_a_cut_trae_database_is_an_error_the_rest_is_exported_and_it_is_read_again(
    demo_home, tmp_path
):
    (trae,) = [db for db in databases(demo_home) if "Trae" in str(db)]
    whole = trae.read_bytes()
    trae.write_bytes(whole[: len(whole) - page_size(trae) // 2])
    vault = tmp_path / "vault"

    first = run_export(ExportOptions(vault=vault, home=demo_home))
    errors = [p for p in first.problems if p.severity == "error"]
    assert [(p.path, CUT in p.message) for p in errors] == [(str(trae), True)]
    assert not [n for n in note_files(vault) if "/trae/" in n]
    assert len(note_files(vault)) > 30  # every other source's notes

    again = run_export(ExportOptions(vault=vault, home=demo_home))
    assert [p.path for p in again.problems if p.severity == "error"] == [str(trae)]

    trae.write_bytes(whole)  # the whole file back (the sync finished)
    last = run_export(ExportOptions(vault=vault, home=demo_home))
    assert not [p for p in last.problems if p.severity == "error"]
    assert [n for n in note_files(vault) if "/trae/" in n]


def test_a_database_that_reaches_its_size_a_moment_later_is_read(demo_home, monkeypatch):
    """A program committing to it may write the first page, with the new size, before the
    pages that make the file that long: looked at again a moment later, it is whole."""
    db = databases(demo_home)[0]
    whole = db.read_bytes()
    db.write_bytes(whole[: len(whole) - 1])
    monkeypatch.setattr(time, "sleep", lambda _s: db.write_bytes(whole))
    with Database(db):
        pass


def _cut_by_a_page(db: Path) -> bytes:
    whole = db.read_bytes()
    db.write_bytes(whole[: len(whole) - page_size(db)])
    return whole


def test_a_header_whose_page_count_is_not_valid_is_not_judged(demo_home):
    """SQLite before 3.7.0 kept no valid page count: its version-valid-for number (bytes
    92-95) differs from the change counter (24-27)."""
    db = databases(demo_home)[0]
    _cut_by_a_page(db)
    data = bytearray(db.read_bytes())
    data[92:96] = (int.from_bytes(data[24:28], "big") + 1).to_bytes(4, "big")
    db.write_bytes(bytes(data))
    assert _cut_short(db, _header(db)) is None


@pytest.mark.parametrize("beside", ["-wal", "-journal"])
def test_a_file_with_a_log_or_journal_beside_it_is_not_judged(demo_home, beside):
    """A checkpoint (write-ahead log) or a commit (rollback journal) writes page 1, with the
    new size, before the pages past the old end: the file may lag its header then."""
    db = databases(demo_home)[0]
    _cut_by_a_page(db)
    log = db.with_name(db.name + beside)
    log.write_bytes(b"")
    assert CUT in (_cut_short(db, _header(db)) or "")  # (an empty one: judged)
    log.write_bytes(b"\0" * 512)
    assert _cut_short(db, _header(db)) is None


def test_a_whole_database_of_the_largest_page_size_is_read(tmp_path):
    db = tmp_path / "big-pages.db"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA page_size = 65536")
        conn.execute("CREATE TABLE ItemTable (key TEXT, value TEXT)")
        conn.executemany(
            "INSERT INTO ItemTable VALUES (?, ?)", [(str(i), "x" * 900) for i in range(200)]
        )
        conn.commit()
    assert int.from_bytes(db.read_bytes()[16:18], "big") == 1  # (1 stands for 65536)
    with Database(db) as found:
        assert found.query("SELECT count(*) FROM ItemTable").fetchone() == (200,)
    db.write_bytes(db.read_bytes()[:-65536])
    with pytest.raises(SourceError, match=CUT):
        Database(db)
