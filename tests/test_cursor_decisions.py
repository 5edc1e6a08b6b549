"""The person's decision on each edit a Cursor composer suggested (accepted, rejected) is in
its note, at the reply or the call it belongs to; a block only proposed is left unsaid
(review28 L0). Synthetic databases in the shapes of the corpus's 2024 workspace composers
and of the global database's agent composers."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import load_sessions, the_exported_note
from test_cursor_adapter import CURSOR, bubble
from vscode_builder import make_db, workspace

from exporter.adapters.cursor import CursorAdapter
from exporter.model import NoticePart, ToolResultPart
from exporter.stats import edited_files

FOLDER = "/home/dev/shop"
AGENT = "d0d0d0d0-1111-4222-8333-444444444444"


def uri(path: str) -> dict:
    full = f"{FOLDER}/{path}"
    return {"$mid": 1, "fsPath": full, "external": f"file://{full}", "path": full, "scheme": "file"}


def block(path: str, version: int, index: int) -> dict:
    return {"uri": uri(path), "version": version, "codeBlockIdx": index}


def data(path: str, version: int, status: str) -> dict:
    return {
        "uri": uri(path),
        "version": version,
        "content": "x",
        "languageId": "ts",
        "status": status,
    }


def notices(session) -> list[tuple[str | None, str]]:
    return [(m.source_id, p.text) for m in session.messages for p in m.parts
            if isinstance(p, NoticePart) and p.notice == "decision"]  # fmt: skip


def inline_composer(home: Path) -> None:
    """Three replies: one whose edits were rejected (one by its status; one whose status
    says only "completed" but whose file the person answered with a rejection), one
    accepted, one only proposed (no decision: nothing said)."""
    composer = {
        "composerId": "inline-1", "name": "Settings page", "createdAt": 1731818231743,
        "conversation": [
            bubble(1, "u1", text="create a settings page"),
            bubble(2, "a1", text="Here:\n```ts:src/routes.ts\nx\n```\n```ts:src/app.ts\nx\n```",
                   codeBlocks=[block("src/routes.ts", 0, 0), block("src/app.ts", 0, 1)]),
            bubble(1, "u2", text="and the theme"),
            bubble(2, "a2", text="```scss:src/theme.scss\nx\n```", codeBlocks=[block("src/theme.scss", 0, 0)]),
            bubble(1, "u3", text="and the routes again"),
            bubble(2, "a3", text="```ts:src/routes.ts\ny\n```", codeBlocks=[block("src/routes.ts", 1, 0)]),
        ],
        "codeBlockData": {
            f"file://{FOLDER}/src/routes.ts": [data("src/routes.ts", 0, "rejected"),
                                               data("src/routes.ts", 1, "completed")],
            f"file://{FOLDER}/src/app.ts": [data("src/app.ts", 0, "completed")],
            f"file://{FOLDER}/src/theme.scss": [data("src/theme.scss", 0, "accepted")],
        },
        "userResponsesToSuggestedCodeBlocks": [{"userResponseType": 2, "filePath": "src/app.ts"}],
    }  # fmt: skip
    make_db(home / CURSOR / "globalStorage" / "state.vscdb", {}, {})
    workspace(home / CURSOR, "ws", f"file://{FOLDER}",
              {"composer.composerData": {"allComposers": [composer]}})  # fmt: skip


def test_a_replys_suggested_edits_say_what_the_person_decided(tmp_path):
    inline_composer(tmp_path)
    (session,), problems = load_sessions(CursorAdapter(), tmp_path)
    assert problems == []
    assert notices(session) == [
        ("a1", "The user rejected the suggested edits of src/routes.ts, src/app.ts."),
        ("a2", "The user accepted the suggested edit of src/theme.scss."),
    ]  # (a3's block is "completed", the file's answer came for app.ts only: unsaid)
    assert session.messages[1].role == "assistant"  # (said in the reply's own turn)
    note = the_exported_note(tmp_path, "cursor")
    assert note.count("The user rejected the suggested edits of src/routes.ts, src/app.ts.") == 1


def agent_composer(decision: str, *, result: bool = True) -> dict:
    cid = AGENT
    headers = [{"bubbleId": "p1", "type": 1}, {"bubbleId": "e1", "type": 2}]
    tool = {
        "tool": 38, "toolCallId": "call_9", "name": "apply_patch", "status": "completed",
        "rawArgs": json.dumps({"file_path": f"{FOLDER}/src/cart.rs", "patch": "*** Begin Patch"}),
        "additionalData": {"codeblockId": "cb-1"}, "userDecision": decision,
    }  # fmt: skip
    if result:
        tool["result"] = '{"diff": {"chunks": []}}'
    return {
        f"composerData:{cid}": {
            "_v": 10, "composerId": cid, "name": "Cart fix", "createdAt": 1759861723898,
            "fullConversationHeadersOnly": headers,
            "workspaceIdentifier": {"id": "w", "uri": {"fsPath": FOLDER}},
            "codeBlockData": {f"file://{FOLDER}/src/cart.rs": {"cb-1": {
                "bubbleId": "e1", "codeBlockIdx": 0, "codeblockId": "cb-1", "uri": uri("src/cart.rs"),
                "status": decision}}},
        },
        f"bubbleId:{cid}:p1": bubble(1, "p1", text="fix the cart total"),
        f"bubbleId:{cid}:e1": bubble(2, "e1", toolFormerData=tool, codeBlocks=[
            {"uri": uri("src/cart.rs"), "codeblockId": "cb-1", "codeBlockIdx": 0}]),
    }  # fmt: skip


def test_an_edit_call_the_person_rejected_did_not_run_and_changed_no_file(tmp_path):
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, agent_composer("rejected"))
    (session,), _ = load_sessions(CursorAdapter(), tmp_path)
    result = next(p for m in session.messages for p in m.parts if isinstance(p, ToolResultPart))
    assert (result.not_run, result.is_error, result.call_id) == ("rejected", False, "call_9")
    assert notices(session) == []  # (the call's own title says so)
    assert edited_files(session) == []
    assert "(rejected by the user)" in the_exported_note(tmp_path, "cursor")


def test_an_edit_call_rejected_before_its_result_was_stored_still_did_not_run(tmp_path):
    disk = agent_composer("rejected", result=False)
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    (session,), _ = load_sessions(CursorAdapter(), tmp_path)
    assert [(m.role, [p.kind for p in m.parts]) for m in session.messages][1:] == [
        ("assistant", ["tool_call"]), ("tool", ["tool_result"])]  # fmt: skip
    assert session.messages[2].parts[0].not_run == "rejected"


def test_an_edit_call_the_person_accepted_says_so(tmp_path):
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, agent_composer("accepted"))
    (session,), _ = load_sessions(CursorAdapter(), tmp_path)
    assert notices(session) == [("e1", "The user accepted the edit of src/cart.rs.")]
    assert edited_files(session) == ["src/cart.rs"]
    result = next(p for m in session.messages for p in m.parts if isinstance(p, ToolResultPart))
    assert not result.not_run
