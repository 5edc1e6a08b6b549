"""A tool call of a Cursor chat's last reply that never returned looked exactly like a call
whose output was empty. Cursor writes a tool's bubble when the call starts, its
``toolFormerData.status`` ``loading``, and sets ``completed``, ``error`` or ``cancelled``
when it is done: a last call still ``loading`` with no result says so under it. A call
answered (even with nothing), failed or cancelled, one the chat went on from, and any call
of an Agent transcript (which holds no results, and a call only once it ran) say nothing
more."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

from conftest import UNANSWERED_SAID, note_files, said_under
from cursor_agent_builder import AgentChat, tool
from vscode_builder import make_db, workspace

from exporter.export import ExportOptions, run_export

CURSOR = Path(".config") / "Cursor" / "User"
CID = "c0c0c0c0-1111-4222-8333-555555555555"


def the_note(home: Path) -> str:
    vault = home.parent / "vault"
    options = ExportOptions(vault=vault, home=home, sources=["cursor"], timezone=UTC)
    assert run_export(options).problems == []
    (note,) = note_files(vault).values()
    return note.decode()


def call(bid: str, name: str, args: dict, status: str, result: object = None, **more) -> dict:
    tool = {"tool": 1, "toolCallId": f"call_{bid}", "name": name, "status": status,
            "rawArgs": json.dumps(args), **more}  # fmt: skip
    if result is not None:
        tool["result"] = json.dumps(result)
    return {"_v": 3, "type": 2, "bubbleId": bid, "toolFormerData": tool}


def said(bid: str, kind: int, text: str) -> dict:
    return {"_v": 3, "type": kind, "bubbleId": bid, "text": text}


def chat(home: Path, *bubbles: dict) -> None:
    """A global composer: a prompt, the model's text, then ``bubbles`` in order."""
    bubbles = (said("p1", 1, "Run the tests"), said("a1", 2, "Looking first."), *bubbles)
    data = {
        "_v": 10, "composerId": CID, "name": "Tests", "createdAt": 1759861723898,
        "fullConversationHeadersOnly": [{"bubbleId": b["bubbleId"], "type": b["type"]}
                                        for b in bubbles],
    }  # fmt: skip
    disk = {f"composerData:{CID}": data, **{f"bubbleId:{CID}:{b['bubbleId']}": b for b in bubbles}}
    make_db(home / CURSOR / "globalStorage" / "state.vscdb", {}, disk)


EMPTY_READ = call("r1", "read_file", {"target_file": "notes.txt"}, "completed")  # (nothing)
GREP = call("g1", "grep", {"pattern": "def test_"}, "completed", {"output": "t.py:1:def test_a"})


def test_a_chat_ending_with_a_call_still_loading_says_so(tmp_path):
    """The read before it was answered with nothing (``completed``, no result): nothing
    under it."""
    home = tmp_path / "home"
    chat(home, EMPTY_READ, call("t1", "run_terminal_cmd", {"command": "pytest -q"}, "loading"))
    said_under(the_note(home), "pytest -q")


def test_calls_made_together_each_say_so_but_the_one_answered(tmp_path):
    home = tmp_path / "home"
    chat(
        home,
        call("t1", "run_terminal_cmd", {"command": "pytest -q"}, "loading"),
        GREP,
        call("t2", "run_terminal_cmd", {"command": "ruff check"}, "loading"),
    )
    note = the_note(home)
    said_under(note, "pytest -q", "ruff check")
    assert "t.py:1:def test_a" in note


def test_a_workspace_composer_of_2024_says_so_too(tmp_path):
    """Generation 2: the bubbles inline in the workspace's ``composer.composerData``."""
    home = tmp_path / "home"
    bubbles = [said("p1", 1, "Run the tests"),
               call("t1", "run_terminal_cmd", {"command": "pytest -q"}, "loading")]  # fmt: skip
    composer = {"composerId": CID, "name": "Tests", "createdAt": 1730000000000,
                "conversation": bubbles}  # fmt: skip
    items = {"composer.composerData": {"allComposers": [composer]}}
    workspace(home / CURSOR, "ws1", "file:///home/dev/app", items)
    said_under(the_note(home), "pytest -q")


def test_a_last_call_answered_failed_or_cancelled_says_nothing(tmp_path):
    endings = {
        "answered with nothing": call("t1", "run_terminal_cmd", {"command": "true"}, "completed"),
        "answered": call(
            "t1", "run_terminal_cmd", {"command": "true"}, "completed", {"output": ""}
        ),
        "failed": call("t1", "run_terminal_cmd", {"command": "false"}, "error", error="exit 1"),
        "cancelled": call("t1", "run_terminal_cmd", {"command": "sleep 9"}, "cancelled"),
        "loading, yet answered": call(
            "t1", "run_terminal_cmd", {"command": "true"}, "loading", {"output": "ok"}
        ),
    }
    for what, ending in endings.items():
        home = tmp_path / what / "home"
        chat(home, ending)
        assert UNANSWERED_SAID not in the_note(home), what


def test_a_call_loading_that_the_chat_went_on_from_says_nothing(tmp_path):
    """A later prompt, or the model's own text after it (it went on, so what it waited for
    came, or never will): the call is not the last reply's, or not one left waiting."""
    loading = call("t1", "run_terminal_cmd", {"command": "pytest -q"}, "loading")
    endings = {
        "a prompt": [said("p2", 1, "Never mind"), said("a2", 2, "Fine.")],
        "the model's text": [said("a2", 2, "All tests pass.")],
        "a prompt, then an answered call": [said("p2", 1, "Lint instead"), GREP],
    }
    for what, after in endings.items():
        home = tmp_path / what / "home"
        chat(home, loading, *after)
        assert UNANSWERED_SAID not in the_note(home), what


def test_an_agent_transcript_ending_with_a_call_says_nothing(tmp_path):
    """Agent transcripts write a call once its tool ran (most builds write no result at
    all): a last call without a result is the usual answered call."""
    home = tmp_path / "home"
    chat = AgentChat(home, "/home/dev/app", "0f0f0f0f-1111-4222-8333-666666666666")
    chat.user("Run the tests").reply("Running them.", tool("Shell", command="pytest -q")).write()
    note = the_note(home)
    assert "pytest -q" in note and UNANSWERED_SAID not in note
