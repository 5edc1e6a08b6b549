"""OpenCode and Kilo from stores built here (opencode_builder: the OpenCode 1.18.5 schema;
Kilo has no public sample, so its database follows the same 1.18.5 schema)."""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import load_sessions, note_files, texts
from opencode_builder import (
    OpenCodeStore,
    compaction,
    file,
    patch,
    reasoning,
    step_finish,
    step_start,
    text,
    tool,
)

from exporter.adapters import SourceContext, _sqlite
from exporter.adapters.opencode import KiloAdapter, OpenCodeAdapter
from exporter.config import resolve
from exporter.export import ExportOptions, run_export

DATA = Path(".local") / "share" / "opencode"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 24).decode()


def full_session(store: OpenCodeStore, directory: str = "/home/me/src/shop"):
    """One session holding every part kind OpenCode writes."""
    s = store.session("Fix the cart total", directory)
    store.user(s, text("Why is the cart total wrong?"), file("image/png", f"data:image/png;base64,{PNG}", "cart.png"),
               text("<file>cart.ts contents</file>", synthetic=True), text("hidden", ignored=True))  # fmt: skip
    store.assistant(
        s, step_start(), reasoning("The rounding happens per item."),
        tool("read", {"filePath": "src/cart.ts"}, "export function total() {}", title="src/cart.ts"),
        tool("bash", {"command": "npm test"}, status="error", error="1 test failed", title="Run tests",
             metadata={"exit": 1}, call_id="call_bash"),
        tool("edit", {"filePath": "src/cart.ts"}, status="running", call_id="call_edit"),
        step_finish(0.012, 1000, 50, reasoning=20, read=300, write=40), step_start(),
        text("Rounding per item drops cents; I now round the sum."), patch("src/cart.ts"),
        {"type": "hologram", "beam": 1}, {"type": "hologram"}, {"type": "sparkle"},
        step_finish(0.003, 200, 30, read=1300), model=("openai", "gpt-5"),
    )  # fmt: skip
    store.user(s, compaction(auto=True))
    store.assistant(s, text("Summary: cart totals now round once."), summary=True)
    store.user(s, text("Thanks!"))
    store.assistant(s, error={"name": "APIError", "data": {"message": "overloaded"}})
    return s


def test_every_part_kind_from_the_database(tmp_path):
    store = OpenCodeStore()
    full_session(store)
    store.write_db(tmp_path / DATA / "opencode.db")
    (session,), problems = load_sessions(OpenCodeAdapter(), tmp_path)
    assert (session.source, session.title, session.cwd, session.project) == (
        "opencode", "Fix the cart total", "/home/me/src/shop", "shop"
    )  # fmt: skip
    assert session.started_at == datetime.fromtimestamp(1_780_000_001, UTC)
    assert session.models == ("openai/gpt-5", "anthropic/claude-sonnet-5")
    assert texts(session, "user") == ["Why is the cart total wrong?", "Thanks!"]
    # injected, not typed: folded output apart from the prompt, not text that reads as typed
    assert texts(session, "system") == []
    injected = [p for m in session.messages for p in m.parts if p.kind == "command_output"]
    assert [(p.output, p.is_error) for p in injected] == [("<file>cart.ts contents</file>", False)]
    kinds = [[p.kind for p in m.parts] for m in session.messages]
    assert kinds[0] == ["text", "attachment"] and kinds[1] == ["command_output"]
    assert kinds[2] == ["thinking", "tool_call", "tool_result", "tool_call", "tool_result",
                        "tool_call", "text", "notice"]  # fmt: skip
    assistant = session.messages[2]
    assert assistant.model == "openai/gpt-5"
    attachment = session.messages[0].parts[1]
    assert (attachment.media_type, attachment.name, attachment.data) == (
        "image/png", "cart.png", base64.b64decode(PNG)
    )  # fmt: skip
    read_call, read_result, bash_call, bash_result, edit_call = assistant.parts[1:6]
    # titled by its path, an argument (machine text, the call's summary), not a description
    assert (read_call.name, read_call.input, read_call.description) == (
        "read", {"filePath": "src/cart.ts"}, None
    )  # fmt: skip
    assert (read_result.output, read_result.is_error, read_result.duration) == (
        "export function total() {}", False, 1.5
    )  # fmt: skip
    assert (bash_result.call_id, bash_result.output, bash_result.is_error, bash_result.exit_code) == (
        "call_bash", "1 test failed", True, 1
    )  # fmt: skip
    assert edit_call.call_id == "call_edit"  # still running: a call without a result
    assert assistant.parts[-1].text == "Files changed: src/cart.ts"
    summary = session.messages[3]
    assert summary.role == "system" and [(p.kind, p.text, p.trigger) for p in summary.parts] == [
        ("summary", "Summary: cart totals now round once.", "auto")
    ]
    error = session.messages[-1].parts[0]
    assert (error.kind, error.notice, error.text) == ("notice", "error", "APIError: overloaded")
    # two steps summed; the message's own totals are not added again
    assert (session.usage.input_tokens, session.usage.output_tokens) == (1200, 100)
    assert (session.usage.cache_read_tokens, session.usage.cache_write_tokens) == (1600, 40)
    assert session.cost == pytest.approx(0.015)
    (warning,) = problems
    assert warning.severity == "warning" and warning.path.endswith("opencode.db")
    assert "unknown type: hologram ×2, sparkle ×1" in warning.message


def test_a_message_without_steps_counts_its_own_tokens(tmp_path):
    store = OpenCodeStore()
    s = store.session("Old version", "/w/old")
    store.user(s, text("hi"))
    store.assistant(s, text("hello"), cost=0.5, tokens={"input": 7, "output": 3, "reasoning": 0,
                                                          "cache": {"read": 0, "write": 0}})  # fmt: skip
    store.write_db(tmp_path / DATA / "opencode.db")
    (session,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    assert (session.usage.input_tokens, session.usage.output_tokens, session.cost) == (7, 3, 0.5)


def test_a_command_that_exits_non_zero_failed(tmp_path):
    """OpenCode marks a command that ran ``completed`` whatever its exit code (in
    ``metadata.exit``): one that exited non-zero failed, as in Codex; 0 or no exit code
    (a tool that is no command) is no failure."""
    store = OpenCodeStore()
    s = store.session("Exit codes", "/w/app")
    store.user(s, text("list it"))
    store.assistant(
        s, tool("bash", {"command": "ls /nope"}, "ls: /nope: No such file or directory\n",
                metadata={"exit": 2}, call_id="c1"),
        tool("bash", {"command": "ls"}, "a.txt\n", metadata={"exit": 0}, call_id="c2"),
        tool("read", {"filePath": "a.txt"}, "text", call_id="c3"),
        tool("bash", {"command": "true"}, "", metadata={"exit": True}, call_id="c4"),
    )  # fmt: skip
    store.write_db(tmp_path / DATA / "opencode.db")
    (session,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    results = [p for m in session.messages for p in m.parts if p.kind == "tool_result"]
    assert [(r.call_id, r.output, r.is_error, r.exit_code) for r in results] == [
        ("c1", "ls: /nope: No such file or directory\n", True, 2),
        ("c2", "a.txt\n", False, 0),
        ("c3", "text", False, None),
        ("c4", "", False, None),  # (a flag is no exit code)
    ]
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    (note,) = note_files(tmp_path / "v").values()
    assert "errors: 1\n" in note.decode() and " · exit 2" in note.decode()


def test_the_note_shows_cost_tokens_and_parts(tmp_path):
    store = OpenCodeStore()
    full_session(store)
    store.write_db(tmp_path / DATA / "opencode.db")
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    (note,) = note_files(tmp_path / "v").values()
    body = note.decode()
    assert "cost: 0.015\n" in body and "tokens_in: 1200\n" in body
    assert "source: opencode" in body and "Conversation compacted (auto)" in body
    assert "Summary: cart totals now round once." in body and "1 test failed" in body
    assert [w["message"] for w in report.as_dict()["warnings"]] and not report.failed


def test_a_title_that_is_an_argument_is_code_and_words_are_a_description(tmp_path):
    """OpenCode titles a read or an edit by its path (made relative), a grep by its pattern:
    machine text, shown as code as in every other source (it was escaped prose, so a path
    such as src/__init__.py lost its underscores to search). A shell command's or a task's
    title is words: its description."""
    store = OpenCodeStore()
    s = store.session("Fix the cart total", "/home/me/src/shop")
    store.user(s, text("Fix it"))
    store.assistant(
        s,
        tool(
            "edit", {"filePath": "/home/me/src/shop/src/__init__.py"}, "ok", title="src/__init__.py"
        ),
        tool("grep", {"pattern": "total", "path": "src"}, "src/cart.ts:3", title="total"),
        tool("bash", {"command": "npm test", "description": "Run tests"}, "ok", title="Run tests"),
        tool("webfetch", {"url": "https://example.com/a_b"}, "ok", title="Read the docs"),
    )
    store.write_db(tmp_path / DATA / "opencode.db")
    (session,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    calls = [p for m in session.messages for p in m.parts if p.kind == "tool_call"]
    assert [c.description for c in calls] == [None, None, "Run tests", "Read the docs"]
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path, sources=["opencode"], timezone=UTC))
    (note,) = [b.decode() for b in note_files(vault).values() if b"session_id" in b]
    assert "`edit` — `/home/me/src/shop/src/__init__.py`" in note
    assert "`grep` — `total`" in note and "`bash` — Run tests" in note


def test_a_default_title_gives_way_to_the_first_prompt(tmp_path):
    store = OpenCodeStore()
    s = store.session("New session - 2026-05-28T10:00:00.000Z", "/w/t")
    store.user(s, text("Rename the config loader"))
    store.assistant(s, text("Done."))
    kept = store.session("New session - my own words", "/w/t")
    store.user(kept, text("q"))
    store.assistant(kept, text("a"))
    store.write_db(tmp_path / DATA / "opencode.db")
    sessions, _ = load_sessions(OpenCodeAdapter(), tmp_path)
    assert [x.title for x in sessions] == [None, "New session - my own words"]
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    assert b"title: Rename the config loader" in b"".join(note_files(tmp_path / "v").values())


def test_subagents_are_linked_notes(tmp_path):
    store = OpenCodeStore()
    parent = store.session("Plan the refactor", "/w/app")
    child = store.session("Explore the code (@explore subagent)", "/w/app", parent=parent)
    store.user(parent, text("Refactor the app"))
    store.assistant(parent, tool("task", {"description": "Explore the code", "prompt": "Find the modules",
                                          "subagent_type": "explore"}, "Found 3 modules",
                                 metadata={"sessionId": child.id}))  # fmt: skip
    store.user(child, text("Find the modules"), agent="explore")
    store.assistant(child, text("Found 3 modules"))
    store.write_db(tmp_path / DATA / "opencode.db")
    sessions, _ = load_sessions(OpenCodeAdapter(), tmp_path)
    by_id = {s.session_id: s for s in sessions}
    assert by_id[parent.id].subagent_ids == (child.id,)
    assert (by_id[child.id].parent_id, by_id[child.id].agent_label) == (parent.id, "explore")
    assert by_id[parent.id].messages[1].parts[0].subagent_id == child.id
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    notes = note_files(tmp_path / "v")
    parent_note = next(b for p, b in notes.items() if "agent" not in p).decode()
    child_path, child_note = next((p, b.decode()) for p, b in notes.items() if "agent" in p)
    assert Path(child_path).stem in parent_note  # linked from the parent
    assert "parent: " in child_note


def test_both_stores_overlap_and_the_database_wins(tmp_path):
    store = OpenCodeStore()
    migrated = store.session("Migrated", "/w/a")
    store.user(migrated, text("asked before the migration"))
    store.assistant(migrated, text("answer as the database has it"))
    only_tree = store.session("Only in the tree", "/w/b")
    store.user(only_tree, text("an old question"))
    store.assistant(only_tree, text("an old answer"))
    store.write_tree(tmp_path / DATA / "storage")
    store.write_db(tmp_path / DATA / "opencode.db", [migrated])
    # the tree's copy of the migrated session differs: the database's must be the one shown
    tree_part = next(
        (tmp_path / DATA / "storage" / "part" / migrated.messages[1].id).glob("*.json")
    )
    tree_part.write_text(json.dumps({**json.loads(tree_part.read_text()), "text": "stale copy"}))
    sessions, problems = load_sessions(OpenCodeAdapter(), tmp_path)
    assert sorted(s.title for s in sessions) == ["Migrated", "Only in the tree"]
    db_copy = next(s for s in sessions if s.title == "Migrated")
    assert texts(db_copy, "assistant") == ["answer as the database has it"]
    assert db_copy.source_path.name == "opencode.db" and not problems
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    assert len(note_files(tmp_path / "v")) == 2 and not report.problems
    assert b"stale copy" not in b"".join(note_files(tmp_path / "v").values())
    assert not report.empty_units  # the migrated session is not reported as an empty file


def test_a_fully_migrated_tree_is_one_unit_read_into_the_databases_notes(tmp_path):
    """Its sessions are the database's notes: not a unit "without a conversation" (review21
    F4: "1 more without a conversation (no note)")."""
    store = OpenCodeStore()
    for n in range(3):
        s = store.session(f"Session {n}", "/w/m")
        store.user(s, text(f"question {n}"))
        store.assistant(s, text(f"answer {n}"))
    store.write_tree(tmp_path / DATA / "storage")
    store.write_db(tmp_path / DATA / "opencode.db")
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    assert report.total("created") == 3 and not report.problems
    assert report.empty_units == [] and report.total("found") == 3


def test_early_trees_parts_inside_messages_or_flat(tmp_path):
    storage = tmp_path / DATA / "storage"
    (storage / "session" / "p").mkdir(parents=True)
    (storage / "session" / "p" / "ses_1.json").write_text(json.dumps(
        {"id": "ses_1", "directory": "C:\\Users\\me\\proj", "title": "Early", "time": {"created": 1, "updated": 2}}))  # fmt: skip
    (storage / "message" / "ses_1").mkdir(parents=True)
    (storage / "message" / "ses_1" / "msg_1.json").write_text(json.dumps(
        {"id": "msg_1", "role": "user", "time": {"created": 1}, "parts": [{"id": "prt_0", "type": "text", "text": "inline part"}]}))  # fmt: skip
    (storage / "message" / "ses_1" / "msg_2.json").write_text(json.dumps(
        {"id": "msg_2", "role": "assistant", "time": {"created": 2}, "providerID": "p", "modelID": "m"}))  # fmt: skip
    (storage / "part").mkdir()
    (storage / "part" / "prt_9.json").write_text(json.dumps(
        {"id": "prt_9", "messageID": "msg_2", "type": "text", "text": "a flat part"}))  # fmt: skip
    (session,), problems = load_sessions(OpenCodeAdapter(), tmp_path)
    assert texts(session) == ["inline part", "a flat part"] and not problems
    # Windows paths are recognised by their form, on any host
    assert (session.cwd, session.project, session.models) == (
        "C:\\Users\\me\\proj",
        "proj",
        ("p/m",),
    )


def test_windows_layout_and_channel_databases(tmp_path):
    store = OpenCodeStore()
    s = store.session("On Windows", "C:\\Users\\me\\src\\webapp")
    store.user(s, text("hello from windows"))
    store.assistant(s, text("hi"))
    store.write_db(tmp_path / "AppData" / "Local" / "opencode" / "opencode-nightly.db")
    (session,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    assert (session.project, session.source_path.name) == ("webapp", "opencode-nightly.db")


def test_environment_overrides_on_the_real_home(tmp_path):
    store = OpenCodeStore()
    s = store.session("Elsewhere", "/w/x")
    store.user(s, text("q"))
    store.assistant(s, text("a"))
    store.write_db(tmp_path / "xdg" / "opencode" / "opencode.db")
    store.write_db(tmp_path / "custom" / "my.db")
    store.write_db(tmp_path / "xdg" / "kilo" / "named.db")
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg"), "OPENCODE_DB": str(tmp_path / "custom" / "my.db"),
           "KILO_DB": "named.db"}  # fmt: skip
    found = [
        r.main.path for r in OpenCodeAdapter().discover(SourceContext(tmp_path / "h", env, True))
    ]
    assert found == [tmp_path / "xdg" / "opencode" / "opencode.db", tmp_path / "custom" / "my.db"]
    kilo = [r.main.path for r in KiloAdapter().discover(SourceContext(tmp_path / "h", env, True))]
    assert kilo == [tmp_path / "xdg" / "kilo" / "named.db"]  # relative to the data folder
    # XDG_DATA_HOME naming the usual folder finds each session once
    same = {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    (tmp_path / ".local").mkdir()
    (tmp_path / ".local" / "share").symlink_to(tmp_path / "xdg", target_is_directory=True)
    store.write_tree(tmp_path / "xdg" / "opencode" / "storage")
    refs = list(OpenCodeAdapter().discover(SourceContext(tmp_path, same, True)))
    assert [r.fact("kind") for r in refs] == ["db", "tree"]
    # under --home the host's variables do not apply
    assert not list(OpenCodeAdapter().discover(SourceContext(tmp_path / "h", env, False)))


def test_kilo_is_its_own_source(tmp_path):
    store = OpenCodeStore()
    s = store.session("Kilo session", "/w/k")
    store.user(s, text("kilo question"))
    store.assistant(s, text("kilo answer"), step_finish(0.25, 10, 5))
    store.write_db(tmp_path / ".local" / "share" / "kilo" / "kilo.db")
    assert not load_sessions(OpenCodeAdapter(), tmp_path)[0]
    (session,), _ = load_sessions(KiloAdapter(), tmp_path)
    assert (session.source, session.key, session.cost) == ("kilo", f"kilo:{s.id}", 0.25)
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    (path,) = note_files(tmp_path / "v")
    assert "/kilo/" in path


def test_paths_setting_accepts_the_new_sources(tmp_path):
    store = OpenCodeStore()
    s = store.session("Configured", "/w/c")
    store.user(s, text("from a configured folder"))
    store.assistant(s, text("ok"))
    store.write_db(tmp_path / "backup" / "oc" / "opencode.db")
    store.write_db(tmp_path / "backup" / "kilo" / "kilo.db")
    config = tmp_path / "v" / ".ccexport" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[paths]\nopencode = ["{tmp_path / "backup" / "oc"}"]\n'
                      f'kilo = "{tmp_path / "backup" / "kilo"}"\n')  # fmt: skip
    settings = resolve({"vault": str(tmp_path / "v")}, env={})
    assert set(settings.paths) == {"opencode", "kilo"}
    options = ExportOptions(vault=tmp_path / "v", home=tmp_path / "empty", paths=settings.paths,
                            timezone=UTC)  # fmt: skip
    report = run_export(options)
    assert report.total("created") == 2


def test_malformed_rows_and_files_are_reported_and_skipped(tmp_path):
    store = OpenCodeStore()
    good = store.session("Good", "/w/g")
    store.user(good, text("a fine question"))
    store.assistant(good, text("a fine answer"), text("kept"))
    tree_only = store.session("Tree", "/w/t")
    store.user(tree_only, text("tree question"))
    store.assistant(tree_only, text("tree answer"))
    broken = store.session("Broken file", "/w/b")
    store.user(broken, text("never seen"))
    db = store.write_db(tmp_path / DATA / "opencode.db", [good])
    storage = store.write_tree(tmp_path / DATA / "storage", [tree_only, broken])
    conn = sqlite3.connect(db)
    conn.execute("UPDATE part SET data = 'not json' WHERE id = ?", (good.messages[1].parts[1][0],))
    conn.execute("INSERT INTO message VALUES ('msg_zz', ?, 9e12, 9e12, '[1, 2]')", (good.id,))
    conn.commit()
    conn.close()
    (storage / "session" / "global" / f"{broken.id}.json").write_text('{"id": "ses_half", "tit')
    bad_message = storage / "message" / tree_only.id / "msg_bad.json"
    bad_message.write_text("{")
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    messages = {(p.severity, Path(p.path).name, p.message.split(";")[0]) for p in report.problems}
    assert (
        "warning",
        "opencode.db",
        f"part {good.messages[1].parts[1][0]}: data is not a JSON object",
    ) in messages
    assert ("warning", "opencode.db", "message msg_zz: data is not a JSON object") in messages
    assert any(s == "warning" and n == "msg_bad.json" for s, n, _ in messages)
    assert any(
        s == "error" and n == f"{broken.id}.json" and "not valid JSON" in m for s, n, m in messages
    )
    notes = b"".join(note_files(tmp_path / "v").values())
    assert b"a fine answer" in notes and b"tree answer" in notes  # the rest was exported


def test_a_database_without_sessions_is_an_error_naming_it(tmp_path):
    other = tmp_path / DATA / "opencode-tools.db"
    other.parent.mkdir(parents=True)
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE cache (key text, value text)")
    conn.close()
    (problem,) = load_sessions(OpenCodeAdapter(), tmp_path)[1]
    assert (problem.severity, problem.path) == ("error", str(other))
    assert "not an OpenCode database" in problem.message


def test_locked_and_corrupt_databases_are_errors_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(_sqlite, "BUSY_TIMEOUT_MS", 100)
    store = OpenCodeStore()
    s = store.session("Tree session", "/w/t")
    store.user(s, text("still exported"))
    store.assistant(s, text("yes"))
    store.write_tree(tmp_path / DATA / "storage")
    (tmp_path / DATA / "opencode.db").write_bytes(b"this is not a database at all" * 100)
    locked = store.write_db(tmp_path / ".local" / "share" / "kilo" / "kilo.db")
    holder = sqlite3.connect(locked)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    finally:
        holder.rollback()
        holder.close()
    errors = {Path(p.path).name: p.message for p in report.problems if p.severity == "error"}
    assert "not a readable SQLite database" in errors["opencode.db"]
    # The tree beside the broken database says why it was read alone, in the database's
    # one report: one database is one failure, said once.
    about_db = [p.severity for p in report.problems if Path(p.path).name == "opencode.db"]
    assert about_db == ["error"]
    assert "the legacy tree beside it is exported as it stands" in errors["opencode.db"]
    assert report.per_source["opencode"].failed == 1
    assert "locked by another program" in errors["kilo.db"]
    assert b"still exported" in b"".join(note_files(tmp_path / "v").values())


def test_databases_are_read_only_and_wal_rows_are_seen(tmp_path, monkeypatch):
    store = OpenCodeStore()
    s = store.session("In the log", "/w/wal")
    store.user(s, text("first"))
    store.assistant(s, text("reply"))
    db = store.write_db(tmp_path / DATA / "opencode.db")
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("UPDATE session SET title = 'Written to the WAL only'")
    writer.commit()
    opened: list[str] = []
    real_connect = sqlite3.connect

    def spy(target, *args, **kwargs):
        opened.append(str(target))
        return real_connect(target, *args, **kwargs)

    monkeypatch.setattr(_sqlite.sqlite3, "connect", spy)
    try:
        files = [db, db.with_name("opencode.db-wal")]
        before = [(hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_mtime_ns) for f in files]
        run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
        after = [(hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_mtime_ns) for f in files]
    finally:
        writer.close()
    assert before == after
    assert opened and all(t.startswith("file:") and t.endswith("?mode=ro") for t in opened)
    assert b"title: Written to the WAL only" in b"".join(note_files(tmp_path / "v").values())


def test_a_rerun_with_nothing_changed_loads_nothing(tmp_path, monkeypatch):
    store = OpenCodeStore()
    for n in range(3):
        s = store.session(f"Session {n}", "/w/r")
        store.user(s, text(f"question {n}"))
        store.assistant(s, text(f"answer {n}"))
    db = store.write_db(tmp_path / DATA / "opencode.db", store.sessions[:2])
    store.write_tree(tmp_path / DATA / "storage", store.sessions[1:])  # one overlaps
    options = ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC)
    first = run_export(options)
    assert (first.total("created"), first.total("found")) == (3, 3)
    loaded: list[str] = []
    real = OpenCodeAdapter.load_families
    monkeypatch.setattr(OpenCodeAdapter, "load_families",
                        lambda self, ref: (loaded.append(ref.session_id), real(self, ref))[1])  # fmt: skip
    second = run_export(options)
    assert loaded == [] and second.total("skipped") == 3 and second.total("created") == 0
    conn = sqlite3.connect(db)  # one more message in the database: only it is read again
    conn.execute("UPDATE session SET title = 'Renamed' WHERE id = ?", (store.sessions[0].id,))
    conn.commit()
    conn.close()
    third = run_export(options)
    assert loaded == [str(db)] and third.total("updated") == 1
    # a migrated tree beside the database is one unit, read again when one of its files changes
    tree_only = store.sessions[2]
    part = next((tmp_path / DATA / "storage" / "part" / tree_only.messages[1].id).glob("*.json"))
    part.write_text(json.dumps({**json.loads(part.read_text()), "text": "answer 2, revised"}))
    loaded.clear()
    fourth = run_export(options)
    assert loaded == [str(tmp_path / DATA / "storage")] and fourth.total("updated") == 1
    assert b"answer 2, revised" in b"".join(note_files(tmp_path / "v").values())


def test_a_tree_without_a_database_is_read_session_by_session(tmp_path, monkeypatch):
    store = OpenCodeStore()
    for n in range(2):
        s = store.session(f"Session {n}", "/w/r")
        store.user(s, text(f"question {n}"))
        store.assistant(s, text(f"answer {n}"))
    store.write_tree(tmp_path / DATA / "storage")
    options = ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC)
    assert run_export(options).total("created") == 2
    loaded: list[str] = []
    real = OpenCodeAdapter.load_families
    monkeypatch.setattr(OpenCodeAdapter, "load_families",
                        lambda self, ref: (loaded.append(ref.session_id), real(self, ref))[1])  # fmt: skip
    second = store.sessions[1]
    part = next((tmp_path / DATA / "storage" / "part" / second.messages[1].id).glob("*.json"))
    part.write_text(json.dumps({**json.loads(part.read_text()), "text": "answer 1, revised"}))
    report = run_export(options)
    assert loaded == [second.id] and report.total("updated") == 1


def test_discovery_reads_no_file(tmp_path, monkeypatch):
    store = OpenCodeStore()
    s = store.session("S", "/w/s")
    store.user(s, text("q"))
    store.write_db(tmp_path / DATA / "opencode.db")
    store.write_tree(tmp_path / DATA / "storage")

    def refuse(*args, **kwargs):
        raise AssertionError("discovery opened a file")

    monkeypatch.setattr("builtins.open", refuse)
    monkeypatch.setattr(_sqlite.sqlite3, "connect", refuse)
    refs = list(OpenCodeAdapter().discover(SourceContext(tmp_path)))
    assert [r.fact("kind") for r in refs] == ["db", "tree"]
    assert len(refs[1].files) == 1 + 1 + 1 + 1  # session folder, its file, a message, a part


def test_sources_counts_each_session_once(tmp_path):
    store = OpenCodeStore()
    for n in range(4):
        store.session(f"S{n}", "/w/s")
    store.write_db(tmp_path / DATA / "opencode.db")
    store.write_tree(tmp_path / DATA / "storage", store.sessions[2:])  # both migrated
    store.session("Only in the tree", "/w/s")
    store.write_tree(tmp_path / DATA / "storage", store.sessions[4:])
    adapter = OpenCodeAdapter()
    refs = list(adapter.discover(SourceContext(tmp_path)))
    assert [adapter.count_sessions(r) for r in refs] == [4, 1]


def test_a_configured_path_may_name_the_database_file(tmp_path):
    store = OpenCodeStore()
    s = store.session("From a copied database", "/w/c")
    store.user(s, text("q"))
    store.assistant(s, text("a"))
    db = store.write_db(tmp_path / "backup" / "copy-of-opencode.db")
    ctx = SourceContext(tmp_path / "empty", {}, False, {"opencode": (db,)})
    (ref,) = OpenCodeAdapter().discover(ctx)
    assert ref.main.path == db and OpenCodeAdapter().load(ref).sessions[0].title == s.title


def test_the_demo_data(tmp_path):
    from demo_opencode import write

    write(tmp_path)
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    assert not report.problems
    assert (report.per_source["opencode"].created, report.per_source["kilo"].created) == (3, 1)
    notes = note_files(tmp_path / "v")
    cart = next(b for p, b in notes.items() if "cart total" in p and "agent" not in p).decode()
    assert "Added `test/cart.test.ts`." in cart  # the database's copy, not the tree's
    assert "subagents:" in cart and "cost: 0.028\n" in cart  # three steps, the child apart


def test_without_a_directory_the_first_assistant_cwd_is_used(tmp_path):
    store = OpenCodeStore()
    s = store.session("No directory", "/home/me/src/tool")
    store.user(s, text("q"))
    store.assistant(s, text("a"))
    storage = store.write_tree(tmp_path / DATA / "storage")
    info = storage / "session" / "global" / f"{s.id}.json"
    info.write_text(
        json.dumps({k: v for k, v in json.loads(info.read_text()).items() if k != "directory"})
    )
    (session,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    assert (session.cwd, session.project) == ("/home/me/src/tool", "tool")


def test_a_pending_undo_is_marked_where_it_goes_back_to(tmp_path):
    """A session's ``revert`` (an /undo not yet settled): OpenCode restored the files and
    hides the messages from ``messageID`` on. The note showed them as if they stood; a
    notice now stands before them, in the database and in the legacy tree alike."""
    store = OpenCodeStore()
    s = store.session("Rename", "/w/r")
    store.user(s, text("Rename total to sum"))
    store.assistant(s, text("Renamed."))
    undone = store.user(s, text("Now delete the tests"))
    store.assistant(s, tool("bash", {"command": "rm -r test"}, "", title="Delete the tests"))
    s.revert = {"messageID": undone.id, "snapshot": "4b825dc6"}
    store.write_db(tmp_path / "db" / DATA / "opencode.db")
    store.write_tree(tmp_path / "tree" / DATA / "storage")
    for home in (tmp_path / "db", tmp_path / "tree"):
        (session,), _ = load_sessions(OpenCodeAdapter(), home)
        roles = [(m.role, [p.kind for p in m.parts]) for m in session.messages]
        assert roles[2] == ("system", ["notice"]), home
        assert texts(session, "user")[-1] == "Now delete the tests"  # still shown, after it
        notice = session.messages[2].parts[0]
        assert notice.notice == "decision" and notice.text.startswith("The user undid what follows")


def test_a_file_part_without_a_filename_is_named_by_its_path(tmp_path):
    """A ``file`` part (an @-mentioned file) names the file by ``filename``; without one it
    said only "An attachment", though its ``source.path`` or ``file://`` URL names it."""
    store = OpenCodeStore()
    s = store.session("Mentions", "/w/m")
    store.user(s, text("Compare @src/a.ts and @b.ts"),
               {"type": "file", "mime": "text/plain", "url": "file:///w/m/src/a.ts",
                "source": {"type": "file", "path": "src/a.ts"}},
               {"type": "file", "mime": "text/plain", "url": "file:///w/m/b%20c.ts"})  # fmt: skip
    store.write_db(tmp_path / DATA / "opencode.db")
    (session,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    names = [p.name for m in session.messages for p in m.parts if p.kind == "attachment"]
    assert names == ["src/a.ts", "/w/m/b c.ts"]


def test_files_a_tool_returned_are_attachments(tmp_path):
    """``state.attachments`` of a tool part: files the tool returned (``read`` of an image),
    file parts with a ``data:`` URL. They were dropped."""
    store = OpenCodeStore()
    s = store.session("Logo", "/w/l")
    store.user(s, text("What is in logo.png?"))
    call = tool("read", {"filePath": "logo.png"}, "Image read successfully", title="logo.png")
    call["state"]["attachments"] = [
        {"type": "file", "mime": "image/png", "filename": "logo.png",
         "url": f"data:image/png;base64,{PNG}"}]  # fmt: skip
    store.assistant(s, call, text("A blue square."))
    store.write_db(tmp_path / DATA / "opencode.db")
    (session,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    kinds = [p.kind for m in session.messages if m.role == "assistant" for p in m.parts]
    assert kinds == ["tool_call", "tool_result", "attachment", "text"]
    (image,) = [p for m in session.messages for p in m.parts if p.kind == "attachment"]
    assert (image.name, image.data) == ("logo.png", base64.b64decode(PNG))


def test_a_file_url_that_is_no_url_costs_only_its_name(tmp_path):
    """Found by review: urlparse raises on "file://[host/…", and the whole prompt around
    the file part was skipped, what the person typed too."""
    store = OpenCodeStore()
    s = store.session("Odd", "/w/o")
    store.user(s, text("Please compare these two files carefully"),
               {"type": "file", "mime": "text/plain", "url": "file://[host/a.ts"})  # fmt: skip
    store.write_db(tmp_path / DATA / "opencode.db")
    (session,), problems = load_sessions(OpenCodeAdapter(), tmp_path)
    assert texts(session, "user") == ["Please compare these two files carefully"]


def test_a_zero_time_is_no_time_not_1970(tmp_path):
    """A session row or message whose time is 0 (no date set) does not date the session
    1 January 1970: the times that are known date it."""
    store = OpenCodeStore()
    s = store.session("Zero time", "/w/zero")
    s.created = 0
    first = store.user(s, text("hi"))
    first.data["time"]["created"] = 0
    store.assistant(s, text("hello"))
    store.write_db(tmp_path / DATA / "opencode.db")
    (session,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    assert session.messages[0].timestamp is None
    assert session.started_at is not None and session.started_at.year > 2000


@pytest.mark.parametrize("unset", [0, -1, -1.5])
def test_an_opencode_time_of_zero_or_less_is_no_time(unset):
    """``time.created`` 0 (or below) is a time not set, not 1970-01-01."""
    from exporter.adapters.opencode.convert import _time

    assert _time(unset) is None
    assert _time(1762500000000) == datetime(2025, 11, 7, 7, 20, tzinfo=UTC)


def test_a_tool_that_ends_before_it_starts_has_no_duration_not_a_negative_one():
    from opencode_builder import tool

    from exporter.adapters.opencode.toolcall import tool_parts

    backwards = tool_parts(tool("bash", {"command": "ls"}, "a\n", seconds=-2))
    assert backwards[1].duration is None
    assert tool_parts(tool("bash", {"command": "ls"}, "a\n", seconds=1.5))[1].duration == 1.5


def test_a_session_with_its_times_unset_is_dated_by_its_messages(tmp_path):
    """time_created and time_updated 0 (not set): the note was undated though every
    message had its time."""
    store = OpenCodeStore()
    s = store.session("Unset times", "/w/app")
    first = store.user(s, text("hi")).data["time"]["created"]
    last = store.assistant(s, text("hello")).data["time"]["created"]
    s.created = s.updated = 0
    store.write_db(tmp_path / DATA / "opencode.db")
    (session,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    assert session.started_at == datetime.fromtimestamp(first / 1000, UTC)
    assert session.ended_at == datetime.fromtimestamp(last / 1000, UTC)


def test_a_legacy_message_whose_time_cannot_be_read_keeps_its_place(tmp_path):
    """In the file tree, messages were ordered by their time: one whose time could not be
    read (0) went first, ahead of the question it answers. Its id (time-ordered) keeps it
    in its place."""
    store = OpenCodeStore()
    s = store.session("Tree", "/w/tree")
    store.user(s, text("first question"))
    answer = store.assistant(s, text("first answer"))
    store.user(s, text("second question"))
    answer.data["time"] = {"created": "yesterday"}
    store.write_tree(tmp_path / DATA / "storage")
    (session,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    said = [p.text for m in session.messages for p in m.parts if p.kind == "text"]
    assert said == ["first question", "first answer", "second question"]


def test_opencodes_own_words_in_a_reply_are_a_notification_not_the_models(tmp_path):
    """A ``synthetic`` text part in an assistant message is OpenCode's (a failed command's
    note), as on the person's side: shown apart, never as what the model said."""
    store = OpenCodeStore()
    s = store.session("Run it", "/home/me/src/shop")
    store.user(s, text("run the tests"))
    store.assistant(
        s, text("Running them."), text("Command failed with exit code 1.", synthetic=True)
    )
    store.write_db(tmp_path / DATA / "opencode.db")
    (session,), _ = load_sessions(OpenCodeAdapter(), tmp_path)
    (reply,) = [m for m in session.messages if m.role == "assistant"]
    assert [(p.kind, getattr(p, "text", None)) for p in reply.parts] == [
        ("text", "Running them."),
        ("notice", "Command failed with exit code 1."),
    ]


def test_a_legacy_trees_files_come_by_family_with_their_subagents(tmp_path):
    """``tree_families``: a session with its subagents and theirs, whatever order the files
    come in; a loop of parents is one family; a file that cannot be read stands alone."""
    from exporter.adapters.opencode.store import tree_families

    def info(name: str, parent: str | None) -> Path:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"id": name, **({"parentID": parent} if parent else {})}))
        return path

    grandchild, child = info("g", "c"), info("c", "p")
    parent, alone = info("p", None), info("x", "gone")
    loop = [info("l1", "l2"), info("l2", "l1"), info("l3", "l2")]
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    got = tree_families([grandchild, child, parent, alone, *loop, broken])
    assert got == [
        [(grandchild, ()), (child, ("g",)), (parent, ("c",))],
        [(alone, ())],
        [(loop[0], ("l2",)), (loop[1], ("l1", "l3")), (loop[2], ())],
        [(broken, ())],
    ]
