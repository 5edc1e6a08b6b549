"""OpenCode: a session both in the database and in the legacy JSON tree beside it is one note,
the database's: OpenCode deletes from the database what the person undid (``/undo``, a
revert), which the tree, frozen at the migration, still holds; so a message only the tree
holds is not brought back. The tree's unit is no file "without a conversation", and it
waits while the database is locked (review21 F4, review22 F1, review23 F1)."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC
from pathlib import Path

from conftest import load_sessions, note_files, texts
from opencode_builder import OpenCodeStore, text

from exporter.adapters.opencode import OpenCodeAdapter
from exporter.export import ExportOptions, run_export

DATA = Path(".local") / "share" / "opencode"


def _migrated_then_undone(home: Path) -> OpenCodeStore:
    """One session in both stores: the tree, frozen at the migration, holds a prompt and
    its reply the person later undid (gone from the database), and an older text of a part
    both hold."""
    store = OpenCodeStore()
    s = store.session("Migrated", "/w/a")
    store.user(s, text("first question"))
    first = store.assistant(s, text("first answer as the database has it"))
    store.user(s, text("a prompt the person undid"))
    store.assistant(s, text("an answer the person undid"))
    store.write_tree(home / DATA / "storage")
    stale = home / DATA / "storage" / "part" / first.id / f"{first.parts[0][0]}.json"
    stale.write_text(json.dumps({**json.loads(stale.read_text()), "text": "a stale copy"}))
    s.messages = [m for m in s.messages if "undid" not in json.dumps(m.parts)]
    store.user(s, text("a better question"))
    store.assistant(s, text("a better answer"))
    store.write_db(home / DATA / "opencode.db", [s])
    return store


def test_the_databases_copy_is_the_session_and_what_was_undone_stays_out(tmp_path):
    _migrated_then_undone(tmp_path)
    sessions, problems = load_sessions(OpenCodeAdapter(), tmp_path)
    assert len(sessions) == 1 and not problems
    (session,) = sessions
    assert session.source_path.name == "opencode.db"
    assert texts(session) == [
        "first question",
        "first answer as the database has it",
        "a better question",
        "a better answer",
    ]


def test_a_tree_read_into_the_databases_note_is_no_unit_without_a_conversation(tmp_path):
    _migrated_then_undone(tmp_path)
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    assert report.total("created") == 1 and not report.problems
    (note,) = note_files(tmp_path / "v").values()
    assert b"undid" not in note and b"a stale copy" not in note
    assert report.empty_units == []  # it was "1 more without a conversation (no note)"


def test_while_the_database_is_locked_the_tree_waits_and_loses_no_turn(tmp_path):
    """review22 F1: OpenCode holding its database while ``--force`` ran: the tree beside
    it was exported as it stands, its older copy replacing the database's fuller note (5
    messages to 2), and the session counted twice after. Now the tree waits (a warning; the
    database's error is the one failure) and is read again by the next run."""
    _migrated_then_undone(tmp_path)
    options = ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC)
    assert run_export(options).total("created") == 1
    (note,) = note_files(tmp_path / "v")
    full = (tmp_path / "v" / note).read_bytes()
    holder = sqlite3.connect(tmp_path / DATA / "opencode.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        forced = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC,
                                          force=True))  # fmt: skip
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert forced.total("created") == forced.total("updated") == 0
    assert forced.per_source["opencode"].failed == 1
    said = [p.message for p in forced.problems]  # (in the locked database's one error)
    assert any(m.endswith("the legacy tree beside it waits, read again next run") for m in said)
    assert (tmp_path / "v" / note).read_bytes() == full
    after = run_export(options)
    assert after.total("found") == 1 and not after.failed and not after.empty_units
    assert (tmp_path / "v" / note).read_bytes() == full


def test_a_database_failing_for_a_passing_reason_makes_the_tree_wait_too(tmp_path, monkeypatch):
    """review25 F3: only a locked database made the tree wait; one failing for another
    reason that passes (a disk's I/O error) let the tree's older copies replace its notes
    for a run. Only a file that is no readable database at all leaves the tree exported."""
    from exporter.adapters import opencode
    from exporter.errors import SourceError

    _migrated_then_undone(tmp_path)
    options = ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC)
    run_export(options)
    (note,) = note_files(tmp_path / "v")
    full = (tmp_path / "v" / note).read_bytes()

    def failing(path):
        raise SourceError(path, "could not be read (disk I/O error)")

    monkeypatch.setattr(opencode, "session_ids", failing)
    forced = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC,
                                      force=True))  # fmt: skip
    said = [p.message for p in forced.problems]
    assert any(m.endswith("the legacy tree beside it waits, read again next run") for m in said)
    assert (tmp_path / "v" / note).read_bytes() == full
