"""Never touch a source: every command leaves the home exactly as it found it.

The demo home holds every source, its SQLite databases among them. They are turned into
what a closed editor leaves behind in WAL mode (the header says WAL, no ``-wal`` or
``-shm`` beside it): opened read-only, SQLite would create both files in the editor's
storage and leave them there.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME, note_files
from typer.testing import CliRunner

from exporter.adapters._sqlite import Database, wal_without_log
from exporter.cli import app

runner = CliRunner()


def databases(home: Path) -> list[Path]:
    found = []
    for path in sorted(home.rglob("*")):
        if path.is_file():
            with open(path, "rb") as f:
                if f.read(16) == b"SQLite format 3\0":
                    found.append(path)
    return found


def to_wal_mode(db: Path) -> None:
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
    conn.close()  # the last connection checkpoints and removes -wal and -shm


def tree(home: Path) -> dict[str, tuple]:
    """Every entry under ``home``: kind, mode, size, modification time and content."""
    found = {}
    for path in sorted(home.rglob("*")):
        st = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
        found[str(path.relative_to(home))] = (st.st_mode, st.st_size, st.st_mtime_ns, digest)
    return found


@pytest.fixture
def wal_home(tmp_path: Path) -> Path:
    home = tmp_path / "demo-home"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    dbs = databases(home)
    assert len(dbs) >= 8  # Cursor, Trae, VS Code, OpenCode, Kilo, Cline, Cursor Agent
    for db in dbs:
        to_wal_mode(db)
        assert wal_without_log(db)
    return home


def test_no_command_writes_into_the_home_of_databases_in_wal_mode(tmp_path, wal_home):
    before = tree(wal_home)
    vault = tmp_path / "v"
    for args in (
        ["--vault", str(vault), "--home", str(wal_home), "--dry-run"],
        ["--vault", str(vault), "--home", str(wal_home)],
        ["--vault", str(vault), "--home", str(wal_home), "--jobs", "1"],
        ["sources", "--home", str(wal_home)],
        ["doctor", "--vault", str(vault), "--home", str(wal_home)],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
        assert tree(wal_home) == before, args
    assert len(note_files(vault)) == 41  # every database's sessions were read


def test_rows_a_running_tool_has_only_in_its_log_are_still_read(tmp_path, wal_home):
    (db,) = [p for p in databases(wal_home) if p.name == "opencode.db"]
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("UPDATE session SET title = 'Renamed while the tool runs'")
    writer.commit()  # kept open, as by the running tool: the rows live in -wal alone
    try:
        assert not wal_without_log(db)
        with Database(db) as conn:
            titles = {row["title"] for row in conn.rows("SELECT title FROM session")}
        assert titles == {"Renamed while the tool runs"}
    finally:
        writer.close()


def test_a_database_in_rollback_mode_or_unreadable_is_opened_as_before(tmp_path):
    tmp_path = tmp_path / "dbs"
    tmp_path.mkdir()
    plain = tmp_path / "plain.db"
    sqlite3.connect(plain).execute("CREATE TABLE t (x)").connection.close()
    assert not wal_without_log(plain)
    assert not wal_without_log(tmp_path / "absent.db")
    text = tmp_path / "text.db"
    text.write_text("SQLite format 3 but not really")
    assert not wal_without_log(text)
    assert sorted(os.listdir(tmp_path)) == ["plain.db", "text.db"]
