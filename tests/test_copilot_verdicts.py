"""Copilot Chat: the person's own acts on the replies, which VS Code keeps in the chat's
file (FORMATS.md §5.3) — a thumbs up or down (``vote``, ``voteDownReason``), the Keep or
Undo of each edited file (``editedFileEvents``, on the request sent next), edits neither
kept nor undone when the chat was saved (``hasPendingEdits``) — said in words where they
happened. Synthetic chats (copilot_builder)."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from conftest import load_sessions, note_files
from copilot_builder import markdown, request, session, write

from exporter.adapters.copilot import CopilotAdapter
from exporter.export import ExportOptions, run_export

USER = Path(".config") / "Code" / "User"
SID = "5e55104d-0000-4000-8000-0000000000a1"


def uri(path: str) -> dict:
    return {"$mid": 1, "fsPath": path, "path": path, "scheme": "file"}


def chat(**extra) -> dict:
    decided = [
        {"uri": uri("/w/app/src/cart.ts"), "eventKind": 1},  # Keep
        {"uri": uri("/w/app/src/total.ts"), "eventKind": 1},
        {"uri": uri("/w/app/README.md"), "eventKind": 2},  # Undo
        {"uri": uri("/w/app/src/tax.ts"), "eventKind": 3},  # UserModification
        {"uri": uri("/w/app/src/odd.ts"), "eventKind": 9},  # (a kind not known: left out)
        {"uri": "not a uri", "eventKind": 1},  # (no file: left out)
    ]
    return session(SID, [
        request(0, "Fix the cart total", [markdown("Fixed the rounding.")], vote=1),
        request(1, "Now the tax", [markdown("Done.")], editedFileEvents=decided, vote=0,
                voteDownReason="incorrectCode"),
        request(2, "Once more", [markdown("Again.")], vote=0, voteDownReason="somethingNew",
                editedFileEvents=[{"uri": uri("/w/app/src/tax.ts"), "eventKind": 2}]),
        request(3, "Last", [markdown("Here.")], vote=True),  # (not a vote VS Code writes)
    ], **extra)  # fmt: skip


def said(session_) -> list[tuple[str, str]]:
    return [(m.role, p.text) for m in session_.messages for p in m.parts if p.kind == "notice"]


def test_votes_and_edit_decisions_are_said_where_they_happened(tmp_path):
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", chat())
    (s,), problems = load_sessions(CopilotAdapter(), tmp_path)
    assert problems == []
    # Each is the person's decision, not a notification of VS Code's.
    assert {p.notice for m in s.messages for p in m.parts if p.kind == "notice"} == {"decision"}
    assert said(s) == [
        ("assistant", "The user marked this reply helpful (thumbs up)."),
        ("system", "The user kept the edits to /w/app/src/cart.ts, /w/app/src/total.ts;"
                   " undid the edits to /w/app/README.md; changed /w/app/src/tax.ts after"
                   " the edits."),
        ("assistant", "The user marked this reply unhelpful (thumbs down): incorrect code."),
        ("system", "The user undid the edits to /w/app/src/tax.ts."),
        ("assistant", "The user marked this reply unhelpful (thumbs down): somethingNew."),
    ]  # fmt: skip
    # Each decision sits between the reply before it and the prompt it was sent with.
    roles = [(m.role, m.source_id) for m in s.messages]
    assert roles[1:4] == [("assistant", "response_0"), ("system", "request_1#edits"),
                          ("user", "request_1")]  # fmt: skip


def test_edits_pending_when_the_chat_was_saved_are_said_after_its_last_reply(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    path = home / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json"
    write(path, chat(hasPendingEdits=True))
    (s,), _ = load_sessions(CopilotAdapter(), home)
    last = s.messages[-1]
    assert (last.role, last.parts[0].kind) == ("system", "notice")
    # (what VS Code found, said by ccexport: no decision taken, and no message of the chat)
    assert last.parts[0].notice == "remark"
    assert last.parts[0].text == (
        "When VS Code saved this chat, the assistant's edits were neither kept nor undone."
    )
    assert last.timestamp == max(m.timestamp for m in s.messages[:-1])
    run_export(ExportOptions(vault=vault, home=home, sources=["copilot"], timezone=UTC))
    (note,) = note_files(vault).values()
    text = note.decode()
    assert (
        "> [!note] User's decision\n>\n> The user marked this reply helpful (thumbs up).\n" in text
    )
    assert "> [!info] Notification\n>\n> When VS Code saved this chat, the assistant's" in text
    assert text.rindex("neither kept nor undone") > text.rindex("Here.")
    assert "\nprompts: 4\n" in text  # (the person's acts are no prompts)
    assert "\nmessages: 10\n" in text  # (4 prompts, 4 replies, 2 decisions: no remark)
    write(path, chat(hasPendingEdits=False))
    (s,), _ = load_sessions(CopilotAdapter(), home)
    assert not any("neither kept" in text for _, text in said(s))
