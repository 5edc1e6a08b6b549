"""OpenCode: a session both in the database and in the legacy JSON tree beside it is one note,
from the database, with what only the tree's copy holds (FORMATS.md §6.3: "de-duplicate by
session id (messages and parts by their ids) and let SQLite win")."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import pytest
from conftest import load_sessions, note_files, texts
from opencode_builder import OpenCodeStore, text

from exporter.adapters import SourceContext
from exporter.adapters import opencode as opencode_package
from exporter.adapters.opencode import OpenCodeAdapter
from exporter.export import ExportOptions, run_export

DATA = Path(".local") / "share" / "opencode"


def _migrated_with_more_in_the_tree(home: Path) -> OpenCodeStore:
    """One session in both stores: the tree's copy holds a prompt (and its reply) the
    database lacks, a part of a message both hold, and an older text of a part both hold."""
    store = OpenCodeStore()
    s = store.session("Migrated", "/w/a")
    store.user(s, text("first question"))
    first = store.assistant(s, text("first answer as the database has it"))
    store.user(s, text("a question only the tree kept"))
    store.assistant(s, text("an answer only the tree kept"))
    store.user(s, text("last question"))
    store.assistant(s, text("last answer"))
    first.parts.append(("prt_zzzzzzzzzzzzTreeOnly", text("a part only the tree kept")))
    store.write_tree(home / DATA / "storage")
    stale = home / DATA / "storage" / "part" / first.id / f"{first.parts[0][0]}.json"
    stale.write_text(json.dumps({**json.loads(stale.read_text()), "text": "a stale copy"}))
    first.parts.pop()
    s.messages = [m for m in s.messages if "only the tree" not in json.dumps(m.parts)]
    store.write_db(home / DATA / "opencode.db", [s])
    return store


def test_a_message_only_the_tree_holds_is_kept_in_time_order(tmp_path):
    _migrated_with_more_in_the_tree(tmp_path)
    sessions, problems = load_sessions(OpenCodeAdapter(), tmp_path)
    assert len(sessions) == 1 and not problems
    (session,) = sessions
    assert session.source_path.name == "opencode.db"
    assert texts(session) == [
        "first question",
        "first answer as the database has it",  # the database wins a part both hold
        "a part only the tree kept",  # a part only the tree holds, after the others (by id)
        "a question only the tree kept",  # the tree's own messages, in their place in time
        "an answer only the tree kept",
        "last question",
        "last answer",
    ]


def test_a_tree_read_into_the_databases_note_is_no_unit_without_a_conversation(tmp_path):
    _migrated_with_more_in_the_tree(tmp_path)
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    assert report.total("created") == 1 and not report.problems
    (note,) = note_files(tmp_path / "v").values()
    assert b"a question only the tree kept" in note and b"a stale copy" not in note
    assert report.empty_units == []  # it was "1 more without a conversation (no note)"


def test_a_change_to_the_tree_reads_the_database_again(tmp_path):
    _migrated_with_more_in_the_tree(tmp_path)
    options = ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC)
    run_export(options)
    assert run_export(options).total("updated") == 0
    parts = (tmp_path / DATA / "storage" / "part").glob("*/*.json")
    (part,) = [p for p in parts if "a question only the tree kept" in p.read_text()]
    part.write_text(json.dumps({**json.loads(part.read_text()), "text": "a question, revised"}))
    again = run_export(options)
    assert again.total("updated") == 1
    assert b"a question, revised" in b"".join(note_files(tmp_path / "v").values())


def test_a_database_read_in_parts_merges_the_tree_too(tmp_path, monkeypatch):
    store = _migrated_with_more_in_the_tree(tmp_path)
    for n in range(3):  # more families, so that the database is cut into parts
        s = store.session(f"Other {n}", "/w/o")
        store.user(s, text(f"question {n}"))
        store.assistant(s, text(f"answer {n}"))
    (tmp_path / DATA / "opencode.db").unlink()
    store.write_db(tmp_path / DATA / "opencode.db")
    monkeypatch.setattr(opencode_package, "PART_BYTES", 1)
    adapter = OpenCodeAdapter()
    (db_ref,) = [r for r in adapter.discover(SourceContext(tmp_path, {})) if r.fact("kind") == "db"]
    parts = adapter.parts(db_ref)
    assert parts is not None and len(parts) == 4
    sessions = [s for p in parts for s in adapter.load(p).sessions]
    migrated = next(s for s in sessions if s.title == "Migrated")
    assert "a question only the tree kept" in texts(migrated, "user")


@pytest.mark.parametrize("damage", ["not json", "[1]"])
def test_a_damaged_tree_copy_is_a_warning_and_the_database_copy_stands(tmp_path, damage):
    store = _migrated_with_more_in_the_tree(tmp_path)
    s = store.sessions[0]
    (tmp_path / DATA / "storage" / "session" / s.project_id / f"{s.id}.json").write_text(damage)
    sessions, problems = load_sessions(OpenCodeAdapter(), tmp_path)
    (session,) = sessions
    assert "a question only the tree kept" not in texts(session)
    assert "last answer" in texts(session)
    assert problems and all(p.severity == "warning" for p in problems)
    assert "the database's copy of the session is exported without it" in problems[0].message


def test_a_tree_copy_holding_nothing_new_is_listed_not_read(tmp_path, monkeypatch):
    """The database is read again whenever OpenCode writes to it: the copies of a migrated
    tree whose files all name messages and parts it holds are not read again each time."""
    from exporter.adapters.opencode import store as store_module

    store = OpenCodeStore()
    for n in range(3):
        s = store.session(f"Session {n}", "/w/m")
        store.user(s, text(f"question {n}"))
        store.assistant(s, text(f"answer {n}"))
    store.write_tree(tmp_path / DATA / "storage")
    store.write_db(tmp_path / DATA / "opencode.db")
    read: list[str] = []
    real = store_module.tree_session
    monkeypatch.setattr(store_module, "tree_session",
                        lambda path, source: (read.append(path.stem), real(path, source))[1])  # fmt: skip
    sessions, problems = load_sessions(OpenCodeAdapter(), tmp_path)
    assert len(sessions) == 3 and not problems and read == []
    extra = store.sessions[1]  # a part only the tree holds: that copy, and it alone, is read
    part = {"id": "prt_zzzzzzzzzzzzTreeOnly", "messageID": extra.messages[1].id, **text("more")}
    folder = tmp_path / DATA / "storage" / "part" / extra.messages[1].id
    (folder / "prt_zzzzzzzzzzzzTreeOnly.json").write_text(json.dumps(part))
    sessions, _ = load_sessions(OpenCodeAdapter(), tmp_path)
    assert read == [extra.id]
    assert texts(next(s for s in sessions if s.session_id == extra.id), "assistant") == [
        "answer 1",
        "more",
    ]


def test_while_the_database_is_locked_the_tree_waits_and_loses_no_turn(tmp_path):
    """review22 F1: OpenCode holding its database while ``--force`` ran: the tree beside
    it was exported as it stands, its older copy replacing the database's fuller note (5
    messages to 2), and a session counted twice after. Now the tree waits, an error read
    again next run; the note keeps every turn, and the next run reads both."""
    import sqlite3

    _migrated_with_more_in_the_tree(tmp_path)
    store = tmp_path / DATA / "storage"
    info = next((store / "session").rglob("*.json"))
    ses = json.loads(info.read_text())
    (store / "message" / ses["id"]).mkdir(exist_ok=True)  # (a tree that would read short)
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
    errors = {Path(p.path).name: p.message for p in forced.problems if p.severity == "error"}
    assert errors["session"].startswith("not read while the database beside it, opencode.db, is")
    assert (tmp_path / "v" / note).read_bytes() == full
    after = run_export(options)
    assert after.total("found") == 1 and not after.failed
    assert (tmp_path / "v" / note).read_bytes() == full
