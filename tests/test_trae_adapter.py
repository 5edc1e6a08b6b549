"""Trae: agent sessions in workspace state.vscdb databases we build here."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load_sessions, texts
from vscode_builder import workspace

from exporter.adapters.trae import TraeAdapter


def load(adapter, home: Path):
    return load_sessions(adapter, home)


def trae_store(*sessions) -> dict:
    return {
        "list": list(sessions),
        "currentSessionId": sessions[0]["sessionId"] if sessions else None,
    }


def trae_session() -> dict:
    agent = {"proposal": "Create a login page with a form.", "proposalReasoningContent": "The app has no auth yet.",
             "guideline": {"thought": "fallback", "planItems": [
                 {"thought": "I will create the file", "toolName": "write_to_file",
                  "params": {"file_path": "/p/login.tsx", "content": "export {}"}, "result": "file written"},
                 {"toolName": "finish", "thought": "Done: the login page is at /login.", "params": {"summary": "s"}}]}}  # fmt: skip
    return {"sessionId": "s-1", "createdAt": 1730000000000, "updatedAt": 1730000500000, "messages": [
        {"role": "assistant", "content": "", "turnId": "t1", "turnIndex": 0, "agentMessageId": "m1",
         "modelInfo": {"display_model_name": "Claude-3.7-Sonnet"}, "agentTaskContent": agent},
        {"role": "user", "content": "add a login page", "turnId": "t1", "turnIndex": 0, "timestamp": 1730000000100},
        {"role": "system", "content": "system prompt", "turnIndex": 0},
        {"role": "user", "content": "\x00\x01\x02\x03\x04garbage\x05\x06\x07\x08", "turnIndex": 1},
        {"role": "user", "content": "now add a logout button", "turnId": "t2", "turnIndex": 1},
        {"role": "assistant", "content": "Added a logout button to the header.", "turnIndex": 1},
        {"role": "assistant", "content": "", "turnIndex": 1},
    ]}  # fmt: skip


@pytest.mark.parametrize("product", ["Trae", "Trae CN"])
def test_trae_sessions_from_blob_values(tmp_path, product):
    user = tmp_path / ".config" / product / "User"
    workspace(
        user,
        "ws",
        "file:///home/dev/work/shop",
        {"memento/icube-ai-agent-storage": trae_store(trae_session())},
        blob=True,
    )
    (session,), problems = load(TraeAdapter(), tmp_path)
    assert session.project == "shop" and session.models == ("Claude-3.7-Sonnet",)
    assert texts(session, "user") == ["add a login page", "now add a logout button"]
    shape = [(m.role, [p.kind for p in m.parts]) for m in session.messages]
    assert shape == [
        ("user", ["text"]),
        ("assistant", ["thinking", "text", "text", "tool_call", "text"]),
        ("tool", ["tool_result"]),
        ("user", ["text"]),
        ("assistant", ["text"]),
    ]
    assert texts(session, "assistant")[-2] == "Done: the login page is at /login."
    assert [p.message for p in problems] == [
        "1 strings that were mostly control characters (unreadable data) were left out"
    ]


def test_trae_encrypted_agent_database_is_reported_once(tmp_path):
    user = tmp_path / ".config" / "Trae" / "User"
    workspace(
        user, "ws1", "file:///w/a", {"memento/icube-ai-agent-storage": trae_store(trae_session())}
    )
    workspace(user, "ws2", "file:///w/b", {})
    encrypted = tmp_path / ".config" / "Trae" / "ModularData" / "ai-agent" / "database.db"
    encrypted.parent.mkdir(parents=True)
    encrypted.write_bytes(bytes(range(256)) * 8)
    before = encrypted.read_bytes()
    sessions, problems = load(TraeAdapter(), tmp_path)
    assert len(sessions) == 1
    assert [p.message for p in problems if "encrypted" in p.message] == [
        "this Trae agent database is encrypted (SQLCipher) and cannot be read; chats stored only there are not exported"
    ]
    assert encrypted.read_bytes() == before


def test_the_older_chat_stores_are_read_too(tmp_path):
    """memento/icube-ai-chat-storage-<n> (a list of sessions named by id) and
    memento/icube-ai-ng-chat-storage-<n> (sessions keyed by id) hold chats the agent store
    does not: each is a session; one also in the agent store is exported once; a store of a
    shape not known here is reported, not passed over in silence."""
    user = tmp_path / ".config" / "Trae" / "User"
    chat = {"id": "old-1", "createdAt": 1720000000000, "messages": [
        {"role": "user", "content": "what does this regex match?", "turnIndex": 0},
        {"role": "assistant", "content": "Dates like 2024-07-03.", "turnIndex": 0}]}  # fmt: skip
    ng = {"ng-1": {"createdAt": 1721000000000, "messages": [
        {"role": "user", "content": "rename the module", "turnIndex": 0},
        {"role": "assistant", "content": "Renamed it.", "turnIndex": 0}]}}  # fmt: skip
    workspace(user, "ws", "file:///home/dev/work/shop", {
        "memento/icube-ai-agent-storage": trae_store(trae_session()),
        "memento/icube-ai-chat-storage-7467774676505887760": {"list": [chat, {**trae_session(), "id": "x"}]},
        "memento/icube-ai-ng-chat-storage-7467774676505887760": {"sessions": ng},
        "memento/icube-ai-chat-storage-1": {"threads": {"t": ["?"]}},
    })  # fmt: skip
    sessions, problems = load(TraeAdapter(), tmp_path)
    by_id = {s.session_id: s for s in sessions}
    assert sorted(by_id) == ["ng-1", "old-1", "s-1"]
    assert texts(by_id["old-1"], "user") == ["what does this regex match?"]
    assert texts(by_id["ng-1"], "assistant") == ["Renamed it."]
    assert by_id["ng-1"].project == "shop"
    assert [p.message for p in problems if "shape" in p.message] == [
        "memento/icube-ai-chat-storage-1: a chat store of a shape not known here; not exported"
    ]


def test_a_workspace_with_only_its_input_history_keeps_the_prompts(tmp_path):
    """Newer builds keep the chats in the encrypted database: the input history (what the
    person typed, no answers, no times) is the last resort, one session per workspace; a
    workspace whose chats are in a store does not get it."""
    user = tmp_path / ".config" / "Trae" / "User"
    history = [{"inputText": "add a login page"}, {"inputText": "  "}, {"inputText": "now tests"}]
    workspace(user, "ws1", "file:///home/dev/work/shop",
              {"icube-ai-agent-storage-input-history": history})  # fmt: skip
    workspace(user, "ws2", "file:///home/dev/work/blog", {
        "memento/icube-ai-agent-storage": trae_store(trae_session()),
        "memento/icube-ai-agent-storage-input-history": [{"inputText": "add a login page"}],
    })  # fmt: skip
    sessions, _ = load(TraeAdapter(), tmp_path)
    by_project = {s.project: s for s in sessions}
    assert sorted(by_project) == ["blog", "shop"]
    shop = by_project["shop"]
    assert shop.session_id == "ws1-input-history" and shop.started_at is None
    assert shop.title == "Input history (prompts only)"
    assert texts(shop, "user") == ["add a login page", "now tests"]
    assert [m.role for m in shop.messages] == ["user", "user"]
    assert by_project["blog"].session_id == "s-1"


def test_a_damaged_older_store_is_reported_and_an_id_of_another_type_falls_back(tmp_path):
    """From the review: an older chat store whose value is no JSON (cut short) was passed
    over in silence; a session keyed by id whose own sessionId was a number lost the key's
    id and was reported "without an id"."""
    user = tmp_path / ".config" / "Trae" / "User"
    ng = {"ng-1": {"sessionId": 7, "createdAt": 1721000000000, "messages": [
        {"role": "user", "content": "rename the module", "turnIndex": 0}]}}  # fmt: skip
    workspace(user, "ws", "file:///home/dev/work/shop", {
        "memento/icube-ai-ng-chat-storage-1": {"sessions": ng},
        "memento/icube-ai-chat-storage-2": '{"list": [{"id": "cut',
    })  # fmt: skip
    sessions, problems = load(TraeAdapter(), tmp_path)
    assert [s.session_id for s in sessions] == ["ng-1"]
    assert [p.message for p in problems] == [
        "memento/icube-ai-chat-storage-2: a chat store that is not JSON (damaged or cut short);"
        " not exported"
    ]


def test_a_chat_with_no_updated_time_ends_at_its_last_message(tmp_path):
    """The older chat stores keep ``createdAt`` only: the session ended when it was created
    (09:00 -> 09:00) though its messages went on until 09:10."""
    from datetime import UTC, datetime

    user = tmp_path / ".config" / "Trae" / "User"
    chat = {"id": "old-1", "createdAt": 1720000800000, "messages": [
        {"role": "user", "content": "what does this regex match?", "turnIndex": 0,
         "timestamp": 1720000800000},
        {"role": "assistant", "content": "Dates.", "turnIndex": 0, "timestamp": 1720001400000}]}  # fmt: skip
    workspace(user, "ws", "file:///home/dev/work/shop",
              {"memento/icube-ai-chat-storage-1": {"list": [chat]}})  # fmt: skip
    (session,), _ = load(TraeAdapter(), tmp_path)
    assert session.started_at == datetime(2024, 7, 3, 10, 0, tzinfo=UTC)
    assert session.ended_at == datetime(2024, 7, 3, 10, 10, tzinfo=UTC)


def test_a_reply_that_failed_or_was_cancelled_says_so(tmp_path):
    """An assistant message's ``status`` (FORMATS.md §4.3): "success" is a reply; "failed"
    ends it with an error notice and "canceled" with an interruption, after what it said
    and what its tools returned (a failed reply that said nothing is the notice alone). A
    status not known here is reported, once per database, with its count and the first
    message holding it; the message is read as a plain reply."""
    agent = {"proposal": "Renaming it.", "guideline": {"planItems": [
        {"toolName": "rename_file", "params": {"from": "a.py", "to": "b.py"}, "result": "renamed"}]}}  # fmt: skip
    messages = [
        {"role": "user", "content": "rename a.py", "turnIndex": 0},
        {"role": "assistant", "content": "", "turnIndex": 0, "status": "canceled",
         "agentMessageId": "m1", "agentTaskContent": agent},
        {"role": "user", "content": "again", "turnIndex": 1},
        {"role": "assistant", "content": "", "turnIndex": 1, "status": "failed"},
        {"role": "user", "content": "and once more", "turnIndex": 2},
        {"role": "assistant", "content": "Half of it", "turnIndex": 2, "status": "failed"},
        {"role": "user", "content": "go on", "turnIndex": 3},
        {"role": "assistant", "content": "Still at it", "turnIndex": 3, "status": "thinking"},
        {"role": "user", "content": "and?", "turnIndex": 4},
        {"role": "assistant", "content": "Done.", "turnIndex": 4, "status": "success"},
        {"role": "user", "content": "thanks", "turnIndex": 5},
        {"role": "assistant", "content": "You're welcome", "turnIndex": 5, "status": "thinking"},
    ]  # fmt: skip
    chat = {"sessionId": "s-2", "createdAt": 1730000000000, "messages": messages}
    user = tmp_path / ".config" / "Trae" / "User"
    db = workspace(user, "ws", "file:///home/dev/work/shop",
                   {"memento/icube-ai-agent-storage": trae_store(chat)})  # fmt: skip
    (session,), problems = load(TraeAdapter(), tmp_path)
    shape = [(m.role, [p.kind if p.kind != "notice" else p.notice for p in m.parts])
             for m in session.messages if m.role != "user"]  # fmt: skip
    assert shape == [
        ("assistant", ["text", "tool_call"]),
        ("tool", ["tool_result", "interrupted"]),
        ("assistant", ["error"]),
        ("assistant", ["text", "error"]),
        ("assistant", ["text"]),
        ("assistant", ["text"]),
        ("assistant", ["text"]),
    ]
    errors = [p.text for m in session.messages for p in m.parts if p.kind == "notice"]
    assert errors == ["", "The reply failed.", "The reply failed."]
    assert [(p.path, p.message) for p in problems] == [
        (str(db), 'assistant messages with a status not known here, read as plain replies: '
         '"thinking" ×2 (first: session s-2, message 8)'),
    ]  # fmt: skip
