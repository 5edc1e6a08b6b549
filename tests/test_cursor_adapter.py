"""Cursor generations 1-3: every state.vscdb storage generation, read safely from databases
we build here (generation 4, the Agent transcripts: test_cursor_agent_adapter.py)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME, load_sessions, note_files, texts, the_exported_note
from vscode_builder import lexical, make_db, workspace

from exporter.adapters import vscode
from exporter.adapters.cursor import CursorAdapter
from exporter.export import ExportOptions, run_export

CURSOR = Path(".config") / "Cursor" / "User"
COMPOSER = "c0c0c0c0-1111-4222-8333-444444444444"


def load(adapter, home: Path):
    return load_sessions(adapter, home)


def bubble(kind: int, bid: str, **fields):
    return {"_v": 3, "type": kind, "bubbleId": bid, **fields}


def global_composer(cid: str = COMPOSER, **fields) -> dict:
    headers = [{"bubbleId": "b1", "type": 1}, {"bubbleId": "b2", "type": 2}, {"bubbleId": "b0", "type": 2,
               "grouping": {"isRenderable": False}}, {"bubbleId": "b3", "type": 2}, {"bubbleId": "b4", "type": 2}]  # fmt: skip
    data = {
        "_v": 10, "composerId": cid, "name": "Retry logic", "createdAt": 1759861723898,
        "lastUpdatedAt": 1759863763312, "fullConversationHeadersOnly": headers,
        "modelConfig": {"modelName": "gpt-5"}, "createdOnBranch": "feat/retry",
    }  # fmt: skip
    data.update(fields)
    bubbles = {
        # keys sort differently from the conversation order on purpose
        f"bubbleId:{cid}:b4": bubble(2, "b4", text="Added exponential backoff in `client.py`."),
        f"bubbleId:{cid}:b1": bubble(1, "b1", text="", richText=lexical("Add retries to the HTTP client\nmax 3 attempts"),
                                      createdAt="2025-10-07T18:28:55.045Z"),
        f"bubbleId:{cid}:b2": bubble(2, "b2", thinking={"text": "Look at the client first."},
                                      createdAt="2025-10-07T18:28:58.000Z"),
        f"bubbleId:{cid}:b0": bubble(2, "b0", text="never shown"),
        f"bubbleId:{cid}:b3": bubble(2, "b3", toolFormerData={
            "tool": 9, "toolCallId": "call_1\nfc_1", "name": "grep", "status": "completed",
            "rawArgs": '{"pattern": "requests.get", "path": "src"}',
            "result": '{"output": "src/client.py:12: r = requests.get(url)"}'}),
    }  # fmt: skip
    return {f"composerData:{cid}": data, **bubbles}


def test_cursor_current_storage(tmp_path):
    user = tmp_path / CURSOR
    disk = global_composer()
    disk["composerData:empty-1"] = {
        "_v": 10,
        "composerId": "empty-1",
        "fullConversationHeadersOnly": [],
        "text": "",
    }
    make_db(user / "globalStorage" / "state.vscdb", {}, disk)
    workspace(
        user,
        "ws1",
        "file:///home/dev/work/http-client",
        {"composer.composerData": {"allComposers": [{"composerId": COMPOSER}]}},
    )
    (session,), problems = load(CursorAdapter(), tmp_path)
    assert problems == []
    assert session.session_id == COMPOSER and session.title == "Retry logic"
    assert (session.project, session.cwd, session.git_branch) == (
        "http-client",
        "/home/dev/work/http-client",
        "feat/retry",
    )
    assert session.models == ("gpt-5",)
    assert [(m.role, [p.kind for p in m.parts]) for m in session.messages] == [
        ("user", ["text"]), ("assistant", ["thinking"]), ("assistant", ["tool_call"]), ("tool", ["tool_result"]),
        ("assistant", ["text"]),
    ]  # fmt: skip
    assert texts(session, "user") == ["Add retries to the HTTP client\nmax 3 attempts"]
    call = session.messages[2].parts[0]
    assert (call.name, call.input, call.call_id) == (
        "grep",
        {"pattern": "requests.get", "path": "src"},
        "call_1",
    )
    assert session.messages[3].parts[0].output == "src/client.py:12: r = requests.get(url)"
    assert session.started_at.year == 2025 and session.ended_at > session.started_at


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("identifier", "from-identifier"),
        ("pane", "from-pane"),
        ("nowhere", None),
    ],
)
def test_cursor_project_attribution(tmp_path, how, expected):
    user = tmp_path / CURSOR
    extra = (
        {"workspaceIdentifier": {"id": "x", "uri": {"fsPath": "/w/from-identifier"}}}
        if how == "identifier"
        else {}
    )
    make_db(user / "globalStorage" / "state.vscdb", {}, global_composer(**extra))
    pane = {f"workbench.panel.aichat.view.{COMPOSER}": {"collapsed": False}}
    items = {"workbench.panel.composerChatViewPane.abc": pane} if how == "pane" else {}
    workspace(user, "ws", "file:///w/from-pane", items)
    (session,), _ = load(CursorAdapter(), tmp_path)
    assert session.project == expected


def test_cursor_workspace_generations_and_no_duplicates(tmp_path):
    user = tmp_path / CURSOR
    make_db(user / "globalStorage" / "state.vscdb", {}, global_composer())
    tabs = {"tabs": [{"tabId": "tab-1", "chatTitle": "Legacy chat", "lastSendTime": 1731818231743, "bubbles": [
        {"type": "user", "id": "u1", "text": "", "initText": lexical("How do I center a <div>?")},
        {"type": "ai", "id": "a1", "text": "Use `display: flex`.", "modelType": "claude-3.5-sonnet"},
        {"type": "user", "id": "u2", "text": ""}]}]}  # fmt: skip
    inline = {"allComposers": [
        {"composerId": "inline-1", "name": "Inline composer", "createdAt": 1731784818255, "conversation": [
            {"type": 1, "bubbleId": "x1", "text": "rename the module"},
            {"type": 2, "bubbleId": "x2", "text": "", "codeBlocks": [{"content": "mv a.py b.py", "languageId": "sh"}]}]},
        {"composerId": COMPOSER, "conversation": [{"type": 1, "bubbleId": "old", "text": "an older copy"}]},
    ]}  # fmt: skip
    workspace(user, "ws", "file:///c%3A/Users/dev/mobile-app", {
        "workbench.panel.aichat.view.aichat.chatdata": tabs, "composer.composerData": inline})  # fmt: skip
    sessions, _ = load(CursorAdapter(), tmp_path)
    by_id = {s.session_id: s for s in sessions}
    assert sorted(by_id) == sorted([COMPOSER, "inline-1", "tab-1"])
    assert "an older copy" not in texts(by_id[COMPOSER])  # the global copy wins
    assert texts(by_id["tab-1"], "user") == ["How do I center a <div>?"]
    assert (
        by_id["tab-1"].models == ("claude-3.5-sonnet",) and by_id["tab-1"].project == "mobile-app"
    )
    assert texts(by_id["inline-1"], "assistant") == ["```sh\nmv a.py b.py\n```"]


def test_cursor_rows_only_in_the_wal_are_read_and_sources_untouched(tmp_path):
    user = tmp_path / CURSOR
    db_path = user / "globalStorage" / "state.vscdb"
    make_db(db_path, {}, {})
    writer = sqlite3.connect(db_path)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    for key, value in global_composer(name="Written to the WAL only").items():
        import json

        writer.execute(
            "INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)", (key, json.dumps(value))
        )
    writer.commit()  # the editor keeps the connection open: nothing is checkpointed
    try:
        wal = db_path.with_name("state.vscdb-wal")
        assert wal.stat().st_size > 0 and b"Written to the WAL only" not in db_path.read_bytes()
        before = {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in db_path.parent.iterdir()
            if not p.name.endswith("-shm")
        }
        report = run_export(
            ExportOptions(vault=tmp_path / "v", home=tmp_path, sources=["cursor"], timezone=UTC)
        )
        after = {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in db_path.parent.iterdir()
            if not p.name.endswith("-shm")
        }
        assert before == after and not report.failed
        (note,) = note_files(tmp_path / "v").values()
        assert b"title: Written to the WAL only" in note
    finally:
        writer.close()


def test_locked_and_corrupt_databases_are_reported_and_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(vscode, "BUSY_TIMEOUT_MS", 100)
    user = tmp_path / CURSOR
    make_db(user / "globalStorage" / "state.vscdb", {}, global_composer())
    broken = user / "workspaceStorage" / "broken"
    broken.mkdir(parents=True)
    (broken / "state.vscdb").write_bytes(b"this is not a database at all" * 100)
    locked = workspace(user, "locked", "file:///w/locked", {})
    holder = sqlite3.connect(locked)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        report = run_export(
            ExportOptions(vault=tmp_path / "v", home=tmp_path, sources=["cursor"], timezone=UTC)
        )
    finally:
        holder.rollback()
        holder.close()
    messages = {Path(p.path).parent.name: p.message for p in report.problems}
    assert "not a readable SQLite database" in messages["broken"]
    assert "locked by another program" in messages["locked"]
    assert len(note_files(tmp_path / "v")) == 1  # the rest was exported


@pytest.mark.parametrize(
    ("db", "update"),
    [
        (".config/Code/User/globalStorage/state.vscdb", "UPDATE ItemTable SET value = 0"),
        (
            ".config/Cursor/User/globalStorage/state.vscdb",
            "UPDATE cursorDiskKV SET value = 3.5 WHERE key LIKE 'bubbleId:%b2'",
        ),
    ],
)
def test_a_number_stored_where_json_belongs_costs_only_that_value(tmp_path, db, update):
    # SQLite keeps whatever type a row is given: a number where JSON text belongs ended the
    # whole run (VS Code's index, read at discovery) or lost every chat of the database.
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    clean = run_export(ExportOptions(vault=tmp_path / "clean", home=home, timezone=UTC))
    with closing(sqlite3.connect(home / db)) as conn:
        conn.execute(update)
        conn.commit()
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home, timezone=UTC))
    # (VS Code's damaged index gave a title: that chat is named from its prompt instead)
    assert not report.failed and len(note_files(tmp_path / "v")) == len(
        note_files(tmp_path / "clean")
    )
    assert report.total("found") == clean.total("found")


def test_a_workspaces_damaged_chat_panel_costs_only_its_own_chat(tmp_path):
    # The panel's value replaced by a JSON string: its chat is gone, and only it (the
    # database's other chats were lost, under the global database's name).
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    clean = run_export(ExportOptions(vault=tmp_path / "clean", home=home, timezone=UTC))
    db = home / ".config/Cursor/User/workspaceStorage/ws-web/state.vscdb"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(
            "UPDATE ItemTable SET value = '\"x\"' WHERE key = ?",
            ("workbench.panel.aichat.view.aichat.chatdata",),
        )
        conn.commit()
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home, timezone=UTC))
    lost = set(note_files(tmp_path / "clean")) - set(note_files(tmp_path / "v"))
    assert not report.failed and report.total("found") == clean.total("found") - 1
    assert len(lost) == 1 and "cursor" in next(iter(lost))


def test_a_composer_stored_as_json_that_is_not_an_object_is_reported(tmp_path):
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    db = home / ".config/Cursor/User/globalStorage/state.vscdb"
    with closing(sqlite3.connect(db)) as conn:
        (key,) = conn.execute(
            "SELECT key FROM cursorDiskKV WHERE key LIKE 'composerData:%' LIMIT 1"
        ).fetchone()
        conn.execute("UPDATE cursorDiskKV SET value = '[1]' WHERE key = ?", (key,))
        conn.commit()
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home, timezone=UTC))
    cid = key.removeprefix("composerData:")
    assert [(p.path, p.message) for p in report.problems if cid in p.message] == [
        (str(db), f"composer {cid}: not a JSON object (list); skipped")
    ]


def _attachments(session, role="user"):
    return [
        (p.name, p.data)
        for m in session.messages
        if m.role == role
        for p in m.parts
        if p.kind == "attachment"
    ]


def test_what_a_person_attached_to_a_prompt_is_kept_with_it(tmp_path):
    """A selection (its text), a file, a folder, a screenshot, terminal text and a doc the
    person attached to a prompt are attachments of that prompt; a draft bubble with context
    but no text stays out; the composer's own (input box) context is not a prompt's."""
    user = tmp_path / CURSOR
    selection = {
        "text": "```rust\n    created_at,\n```", "rawText": "    created_at,",
        "range": {"selectionStartLineNumber": 412, "selectionStartColumn": 1,
                  "positionLineNumber": 415, "positionColumn": 46},
        "uri": {"$mid": 1, "fsPath": "/w/app/src/lib.rs", "path": "/w/app/src/lib.rs"},
    }  # fmt: skip
    context = {
        "selections": [selection],
        "fileSelections": [{"uri": {"fsPath": "/w/app/src/lib.rs"}, "addedWithoutMention": True}],
        "folderSelections": [{"relativePath": "src/bin"}],
        "selectedImages": [{"uuid": "i1", "path": "C:\\Users\\dev\\shot.jpg"}],
        "terminalSelections": [{"text": "error[E0382]: use of moved value"}],
        "selectedDocs": [{"name": "Rust Book", "url": "https://doc.rust-lang.org/book/"}],
        "cursorRules": [{"name": "always-on"}],
        "mentions": {"selections": {"x": []}},
    }
    disk = global_composer(context={"fileSelections": [{"uri": {"fsPath": "/w/app/draft.rs"}}]})
    disk[f"bubbleId:{COMPOSER}:b1"]["context"] = context
    make_db(user / "globalStorage" / "state.vscdb", {}, disk)
    (session,), problems = load(CursorAdapter(), tmp_path)
    assert problems == []
    assert _attachments(session) == [
        ("/w/app/src/lib.rs:412-415", b"    created_at,"),
        ("terminal selection", b"error[E0382]: use of moved value"),
        ("/w/app/src/lib.rs", None),
        ("src/bin", None),
        ("C:\\Users\\dev\\shot.jpg", None),
        ("Rust Book", None),
    ]
    (prompt,) = [m for m in session.messages if m.role == "user"]
    assert prompt.parts[0].kind == "text"  # what they typed first, then what they attached
    kinds = {p.name: p.media_type for p in prompt.parts if p.kind == "attachment"}
    assert kinds["C:\\Users\\dev\\shot.jpg"] == "image/jpeg"


def test_the_legacy_chat_panel_keeps_selections_and_screenshots(tmp_path):
    user = tmp_path / CURSOR
    tabs = {"tabs": [{"tabId": "tab-1", "chatTitle": "Legacy", "lastSendTime": 1731818231743, "bubbles": [
        {"type": "user", "id": "u1", "text": "why does this fail?",
         "selections": [{"text": "```ts\nload()\n```", "rawText": "load()",
                         "uri": {"fsPath": "c:\\app\\routes.ts"},
                         "range": {"selectionStartLineNumber": 21, "positionLineNumber": 21}}],
         "selectedImages": [{"uuid": "s", "path": "C:\\shots\\phone.png"}],
         "image": {"path": "/tmp/paste.png"}},
        {"type": "ai", "id": "a1", "text": "The import path is wrong.", "modelType": "gpt-4"},
        {"type": "user", "id": "u2", "text": "", "fileSelections": [{"uri": {"fsPath": "c:\\app\\x.ts"}}]},
    ]}]}  # fmt: skip
    workspace(user, "ws", "file:///c%3A/app", {"workbench.panel.aichat.view.aichat.chatdata": tabs})
    (session,), _ = load(CursorAdapter(), tmp_path)
    assert _attachments(session) == [
        ("c:\\app\\routes.ts:21-21", b"load()"),
        ("C:\\shots\\phone.png", None),
        ("/tmp/paste.png", None),
    ]
    assert [m.role for m in session.messages] == ["user", "assistant"]


def test_a_legacy_tab_begins_no_later_than_an_image_pasted_into_it(tmp_path):
    """A tab holds one time, when its last prompt was sent; an image pasted into an earlier
    prompt was loaded before that (corpus tab 2aa483d1: the evening before, so the note was
    dated the wrong day). That is its start, and the last send its end; with no such image,
    the last send is the start alone, as before."""
    user = tmp_path / CURSOR
    tabs = {"tabs": [
        {"tabId": "tab-1", "chatTitle": "Ionic sidebar", "lastSendTime": 1731818231743, "bubbles": [
            {"type": "user", "id": "u1", "text": "make it look like this",
             "selectedImages": [{"path": "C:\\shots\\a.jpg", "loadedAt": 1731784617890},
                                {"path": "C:\\shots\\b.jpg", "loadedAt": 1731797684894}]},
            {"type": "ai", "id": "a1", "text": "Done.", "modelType": "gpt-4"}]},
        {"tabId": "tab-2", "chatTitle": "Plain", "lastSendTime": 1731816792178, "bubbles": [
            {"type": "user", "id": "u1", "text": "hi"}, {"type": "ai", "id": "a1", "text": "hello"}]},
    ]}  # fmt: skip
    workspace(user, "ws", "file:///c%3A/app", {"workbench.panel.aichat.view.aichat.chatdata": tabs})
    sessions, _ = load(CursorAdapter(), tmp_path)
    by_title = {s.title: s for s in sessions}
    pasted, plain = by_title["Ionic sidebar"], by_title["Plain"]
    assert pasted.started_at == datetime(2024, 11, 16, 19, 16, 57, 890000, tzinfo=UTC)
    assert pasted.ended_at == datetime(2024, 11, 17, 4, 37, 11, 743000, tzinfo=UTC)
    assert plain.ended_at is None and plain.started_at.day == 17


def _layout(root: str) -> str:
    return json.dumps({"rootPath": root.rsplit("/", 1)[-1], "content": {},
                       "listDirV2Result": {"directoryTreeRoot": {"absPath": root, "childrenDirs": []}}})  # fmt: skip


@pytest.mark.parametrize(
    "layouts, expected",
    [
        (["/Users/dev/projects/git-ai"], ("git-ai", "/Users/dev/projects/git-ai")),
        (["/w/one", "/w/two"], (None, None)),  # a multi-root workspace: no single folder
    ],
)
def test_a_composer_no_workspace_claims_gets_its_folder_and_branch_from_its_requests(
    tmp_path, layouts, expected
):
    """messageRequestContext rows (what Cursor sent with a request) hold the workspace's
    layout and `git status`: the folder of a one-folder workspace and the branch, for a
    composer no workspace lists and without createdOnBranch."""
    user = tmp_path / CURSOR
    disk = global_composer(createdOnBranch=None)
    status = "On branch feat/track-time\nYour branch is up to date.\n"
    disk[f"messageRequestContext:{COMPOSER}:b1"] = {
        "gitStatusRaw": status, "projectLayouts": [_layout(r) for r in layouts],
        "terminalFiles": [], "cursorRules": [],
    }  # fmt: skip
    make_db(user / "globalStorage" / "state.vscdb", {}, disk)
    (session,), problems = load(CursorAdapter(), tmp_path)
    assert problems == []
    assert (session.project, session.cwd) == expected
    assert session.git_branch == "feat/track-time"


def test_an_edit_tools_copy_of_the_whole_file_is_not_the_assistants_reply(tmp_path):
    """An apply_patch bubble holds the edited file whole in codeBlocks (for Cursor's diff
    view): the note shows the call with its patch, not 2000 lines of the file as if the
    assistant had written them. A 2024 reply without text is still its code."""
    user = tmp_path / CURSOR
    disk = global_composer()
    disk[f"bubbleId:{COMPOSER}:b3"] = bubble(2, "b3", text="", codeBlocks=[
        {"uri": {"path": "/w/a.rs"}, "content": "fn whole_file() {}\n", "codeBlockIdx": 0}],
        toolFormerData={"tool": 7, "name": "apply_patch", "status": "completed",
                        "userDecision": "accepted", "rawArgs": '{"patch": "-a\\n+b"}',
                        "result": '{"diff": {}}'})  # fmt: skip
    make_db(user / "globalStorage" / "state.vscdb", {}, disk)
    (session,), _ = load(CursorAdapter(), tmp_path)
    assert "whole_file" not in " ".join(texts(session))
    calls = [p for m in session.messages for p in m.parts if p.kind == "tool_call"]
    assert [c.name for c in calls] == ["apply_patch"]


def test_a_context_uri_that_is_no_url_costs_only_itself(tmp_path):
    """Found by review: urlparse raises on "http://[x" (an unclosed IPv6 bracket), and one
    such selection lost every composer read with it."""
    user = tmp_path / CURSOR
    disk = global_composer()
    disk[f"bubbleId:{COMPOSER}:b1"]["context"] = {
        "selections": [{"uri": "http://[x", "rawText": "a"}],
        "fileSelections": [{"uri": "file://[y"}],
    }
    make_db(user / "globalStorage" / "state.vscdb", {}, disk)
    (session,), problems = load(CursorAdapter(), tmp_path)
    assert problems == [] and session.messages


def test_a_cancelled_tool_call_did_not_run_and_is_no_error(tmp_path):
    """``toolFormerData.status`` ``cancelled``: the call was stopped before it ran or
    finished. It was a failed call, counted in ``errors``, and a cancelled edit put its
    file into ``files``. ``error`` stays a failure."""
    user = tmp_path / CURSOR
    disk = global_composer()
    disk[f"bubbleId:{COMPOSER}:b3"] = bubble(2, "b3", toolFormerData={
        "tool": 7, "toolCallId": "call_7", "name": "edit_file", "status": "cancelled",
        "rawArgs": '{"target_file": "/w/client.py", "code_edit": "retry()"}'})  # fmt: skip
    disk[f"bubbleId:{COMPOSER}:b4"] = bubble(2, "b4", toolFormerData={
        "tool": 1, "toolCallId": "call_8", "name": "run_terminal_cmd", "status": "error",
        "rawArgs": '{"command": "make"}', "error": "make: *** Error 2"})  # fmt: skip
    make_db(user / "globalStorage" / "state.vscdb", {}, disk)
    (session,), _ = load(CursorAdapter(), tmp_path)
    results = [p for m in session.messages for p in m.parts if p.kind == "tool_result"]
    assert [(r.call_id, r.is_error, r.not_run) for r in results] == [
        ("call_7", False, "cancelled"),
        ("call_8", True, None),
    ]
    text = the_exported_note(tmp_path, "cursor")
    assert "> [!note]- `edit_file` — `/w/client.py` (cancelled)\n" in text
    assert "> [!failure]- `run_terminal_cmd` — `make` (error)\n" in text
    assert "\nerrors: 1\n" in text and "\nfiles:" not in text


def test_a_tools_result_reads_as_its_text_not_as_nested_json(tmp_path):
    """Cursor keeps a tool's result as JSON: a grep's matches were about fifty lines of
    nested objects per search, an apply_patch's result its diff object beside what the
    model was told (corpus cursor_test.vscdb)."""
    from exporter.adapters.cursor.tool_results import result_text

    disk = global_composer()
    found = {"success": {"workspaceResults": {"/w": {"content": {"matches": [
        {"file": "a.py", "matches": [{"lineNumber": 3, "content": "import sqlite3"}]}]}}}}}  # fmt: skip
    disk[f"bubbleId:{COMPOSER}:b3"] = bubble(2, "b3", toolFormerData={
        "tool": 41, "toolCallId": "call_9", "name": "grep", "status": "completed",
        "rawArgs": '{"pattern": "sqlite"}', "result": json.dumps(found)})  # fmt: skip
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    (session,), _ = load(CursorAdapter(), tmp_path)
    (shown,) = [p.output for m in session.messages for p in m.parts if p.kind == "tool_result"]
    assert shown == "a.py:3:import sqlite3"

    grep = {"success": {"pattern": "sqlite", "workspaceResults": {"/w/git-ai": {"content": {
        "matches": [{"file": "src/ext.ts", "matches": [
            {"lineNumber": 287, "content": "  if (saved) {", "isContextLine": True},
            {"lineNumber": 288, "content": "    await db.run(sql);"}]}],
        "totalLines": 2, "totalMatchedLines": 1}}}}}  # fmt: skip
    assert (
        result_text(grep) == "src/ext.ts-287-  if (saved) {\nsrc/ext.ts:288:    await db.run(sql);"
    )
    patch = {
        "diff": {"chunks": [{"diffString": "-a\n+b"}]},
        "resultForModel": "Success. Updated a.rs",
    }
    assert result_text(patch) == "Success. Updated a.rs"
    # a command's own output is the evidence, not the model's summary of it
    assert result_text({"output": "3 passed", "resultForModel": "Exit code 0"}) == "3 passed"
    lints = {"path": "/w/a.rs", "linterErrorsByFile": [{"relativeWorkspacePath": "src/a.rs", "errors": [
        {"message": "unused variable `x`", "range": {"startPosition": {"line": 12, "column": 9}},
         "severity": "DIAGNOSTIC_SEVERITY_WARNING"}]}]}  # fmt: skip
    assert result_text(lints) == "src/a.rs:12:9: warning: unused variable `x`"
    # an empty or unknown shape stays JSON: nothing is made up
    assert result_text({"linterErrorsByFile": []}).startswith("{")
    assert result_text({"success": {"workspaceResults": {"/w": {"files": ["a"]}}}}).startswith("{")


def test_a_codebase_search_shows_each_chunk_once_under_its_path_and_lines(tmp_path):
    """codebase_search's result holds each chunk three times (``contents``,
    ``originalContents``, ``detailedLines``): shown as ``path:first-last`` and the code
    once, the range's 0-based positions as the lines it covers (corpus cursor_test.vscdb:
    ``{"line": 300}``…``{"line": 383, "column": 31}`` is what its lines number 301-384;
    a 0 is left out; an end at column 0 ends the line before) (review20 F3)."""
    from exporter.adapters.cursor.tool_results import result_text

    def chunk(path, span, code):
        lines = [{"text": t, "lineNumber": i} for i, t in enumerate(code.splitlines(), 1)]
        return {"codeBlock": {"relativeWorkspacePath": path, "range": span, "contents": code,
                              "originalContents": code, "detailedLines": lines}, "score": 0.35}  # fmt: skip

    found = {"codeResults": [
        chunk("src/db.rs", {"startPosition": {"line": 300}, "endPosition": {"line": 383, "column": 31}},
              "\n\n    fn open(path: &Path) {\n        connect(path)\n    }"),
        chunk("package.json", {"startPosition": {}, "endPosition": {"line": 85}}, '{\n  "name": "x"\n}\n'),
    ]}  # fmt: skip
    disk = global_composer()
    disk[f"bubbleId:{COMPOSER}:b3"] = bubble(2, "b3", toolFormerData={
        "tool": 42, "toolCallId": "call_7", "name": "codebase_search", "status": "completed",
        "rawArgs": '{"query": "Where is the database opened?"}', "result": json.dumps(found)})  # fmt: skip
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    (session,), _ = load(CursorAdapter(), tmp_path)
    (shown,) = [p.output for m in session.messages for p in m.parts if p.kind == "tool_result"]
    assert shown == (
        "src/db.rs:301-384\n    fn open(path: &Path) {\n        connect(path)\n    }\n\n"
        'package.json:1-85\n{\n  "name": "x"\n}'
    )
    # no range: the path alone; a result of another shape stays JSON
    assert result_text({"codeResults": [{"codeBlock": {"relativeWorkspacePath": "a.py",
                                                       "contents": "x = 1"}}]}) == "a.py\nx = 1"  # fmt: skip
    assert result_text({"codeResults": [{"codeBlock": {"contents": "x"}}]}).startswith("{")
    assert result_text({"codeResults": []}).startswith("{")


def test_thinking_kept_only_in_all_thinking_blocks_is_read_and_never_doubled(tmp_path):
    """FORMATS.md §3.4: a bubble's thinking is ``thinking{text}``, "also
    ``allThinkingBlocks[]``": a bubble whose thinking is only there lost it; the same text
    in both is said once (review20 F8)."""
    disk = global_composer()
    disk[f"bubbleId:{COMPOSER}:b2"] = bubble(2, "b2", thinking={"text": "", "signature": "s"},
        allThinkingBlocks=[{"text": "Only in the blocks.", "signature": "s"}, "A bare one."])  # fmt: skip
    disk[f"bubbleId:{COMPOSER}:b4"]["thinking"] = {"text": "Both places."}
    disk[f"bubbleId:{COMPOSER}:b4"]["allThinkingBlocks"] = [{"text": "Both places.\n"}]
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    (session,), problems = load(CursorAdapter(), tmp_path)
    thought = [p.text for m in session.messages for p in m.parts if p.kind == "thinking"]
    assert thought == ["Only in the blocks.", "A bare one.", "Both places."] and problems == []


def test_a_chat_that_changed_models_keeps_each_models_tokens(tmp_path):
    """Each bubble names its model and counts its tokens: a chat that went from GPT-5 to
    Claude was priced whole at GPT-5's rate."""
    from exporter.model import Usage
    from exporter.stats import session_properties

    sonnet = "claude-sonnet-4-5-20250929"
    disk = global_composer()
    cid = COMPOSER
    disk[f"bubbleId:{cid}:b2"]["tokenCount"] = {"inputTokens": 1200, "outputTokens": 80}
    disk[f"bubbleId:{cid}:b4"].update(
        modelInfo={"modelName": sonnet}, tokenCount={"inputTokens": 3000, "outputTokens": 400}
    )
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    (session,), _ = load(CursorAdapter(), tmp_path)
    assert session.usage == Usage(4200, 480)
    assert session.model_usage == (("gpt-5", Usage(1200, 80)), (sonnet, Usage(3000, 400)))
    # GPT-5: 1.25 and 10 USD per million tokens in and out; Sonnet 4.5: 3 and 15
    expected = (1200 * 1.25 + 80 * 10 + 3000 * 3 + 400 * 15) / 1_000_000
    assert session_properties(session)["cost"] == pytest.approx(expected)


def test_a_models_output_counted_apart_from_its_input_leaves_the_chat_priced_whole(tmp_path):
    """Where a model's share would be output alone (its input counted on a bubble naming
    no model), the chat is priced whole at its main model, as before: that share alone
    could not be priced, and the estimate would vanish (the review)."""
    from exporter.model import Usage
    from exporter.stats import session_properties

    disk = global_composer()
    cid = COMPOSER
    disk[f"bubbleId:{cid}:b2"]["tokenCount"] = {"inputTokens": 1200, "outputTokens": 0}
    disk[f"bubbleId:{cid}:b4"].update(
        modelInfo={"modelName": "claude-sonnet-4-5-20250929"},
        tokenCount={"inputTokens": 0, "outputTokens": 400},
    )
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    (session,), _ = load(CursorAdapter(), tmp_path)
    assert session.usage == Usage(1200, 400) and session.model_usage == ()
    assert session_properties(session)["cost"] == pytest.approx((1200 * 1.25 + 400 * 10) / 1e6)


def test_an_older_bubble_dated_by_timestamp_dates_its_message_and_the_chat(tmp_path):
    """Older bubbles may carry ``timestamp`` (epoch milliseconds) instead of ``createdAt``:
    with a composer that has no ``createdAt`` either, the chat was exported undated (and
    its note's name, chosen once, kept saying so)."""
    disk = global_composer(createdAt=None, lastUpdatedAt=None)
    for key, value in disk.items():
        if key.startswith("bubbleId:"):
            created = value.pop("createdAt", None)
            if created:
                value["timestamp"] = int(datetime.fromisoformat(created).timestamp() * 1000)
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    (session,), problems = load(CursorAdapter(), tmp_path)
    assert problems == []
    assert session.started_at == datetime(2025, 10, 7, 18, 28, 55, 45000, tzinfo=UTC)
    assert session.messages[0].timestamp == session.started_at
    assert session.ended_at == datetime(2025, 10, 7, 18, 28, 58, tzinfo=UTC)


def test_a_2024_replys_code_blocks_read_as_the_code_they_are(tmp_path):
    """A reply without text is its code blocks, each fenced as the reply showed it: a fence
    longer than the code's own backticks, and a language only when it reads as one (a
    language with a space or a backtick made no fence, and the code showed as escaped
    prose: ``\\[\\[link\\]\\]``)."""
    user = tmp_path / CURSOR
    disk = global_composer()
    blocks = [{"content": "a\n```\nb", "languageId": "markdown"},
              {"content": "[[link]] #tag", "languageId": "weird lang`x"}]  # fmt: skip
    disk[f"bubbleId:{COMPOSER}:b4"] = bubble(2, "b4", text="", codeBlocks=blocks)
    make_db(user / "globalStorage" / "state.vscdb", {}, disk)
    note = the_exported_note(tmp_path, "cursor")
    assert "\n````markdown\na\n```\nb\n````\n" in note
    assert "\n```\n[[link]] #tag\n```\n" in note
