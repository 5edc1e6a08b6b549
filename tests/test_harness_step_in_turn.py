"""A harness step (a notice the harness sent: a background task ended, a message between
agents) that came while an assistant's tool call ran, between the call and its output,
started a second "Assistant" heading after it, though the assistant's turn went on: the
call, the notice and the reply that followed read as two turns. Now the notice is shown
where it came, as a notice is shown anywhere, and the turn reads as one; a notice after the
call's output (the turn ended, the harness spoke, the assistant answered it) still starts
a new one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_builder import ClaudeSession, tool_use
from codex_builder import CodexRollout
from test_unanswered import notes

SID = "0a7e5c11-0000-4000-8000-000000000001"


def claude_home(
    home: Path,
    notice_first: bool,
    step: str = "<task-notification>Background build finished</task-notification>",
    sid: str = SID,
) -> Path:
    """A Claude Code session whose call's output comes after a user line holding only
    ``step`` (``notice_first``), or before it."""
    s = ClaudeSession(sid)
    s.user("List the files please")
    s.assistant(
        [{"type": "text", "text": "Let me look."}, tool_use("Bash", {"command": "ls"}, "t1")]
    )
    if notice_first:
        s.user(step)  # (only what the harness injected, between the call and its output)
    s.tool_result("t1", "a.py\nb.py")
    if not notice_first:
        s.user(step)
    s.assistant("There are two files.")
    s.write(home / ".claude/projects/-home-dev-work-project" / f"{SID}.jsonl")
    return home


def _codex_home(home: Path, notice_first: bool) -> Path:
    r = CodexRollout("0a7e5c11-0000-4000-8000-0000000000c0")
    r.user("List the files please")
    r.assistant("Let me look.")
    args = json.dumps({"command": ["ls"], "workdir": r.cwd})
    r.item({"type": "function_call", "name": "shell", "arguments": args, "call_id": "c1"})
    step = {"type": "agent_message", "author": "/root/worker", "recipient": "/root",
            "content": [{"type": "input_text", "text": "Background build finished"}]}  # fmt: skip
    if notice_first:
        r.item(step)
    r.item({"type": "function_call_output", "call_id": "c1", "output": "a.py\nb.py"})
    if not notice_first:
        r.item(step)
    r.assistant("There are two files.")
    r.write(home / ".codex")
    return home


def _body(note: str) -> str:
    return note.split("%% ccexport:begin", 1)[1]


@pytest.mark.parametrize("source, make", [("claude-code", claude_home), ("codex", _codex_home)])
def test_a_notice_between_a_call_and_its_output_does_not_split_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, make
) -> None:
    (note,) = notes(make(tmp_path / "home", True), source, monkeypatch).values()
    body = _body(note)
    assert body.count("### Assistant") == 1, body
    # the call with its output, the notice where it came, then the reply: in that order
    order = [body.index(s) for s in ("Let me look.", "b.py", "Background build finished",
                                     "There are two files.")]  # fmt: skip
    assert order == sorted(order), body
    assert "> [!info] Notification" in body or "> [!info] Message" in body, body


@pytest.mark.parametrize("source, make", [("claude-code", claude_home), ("codex", _codex_home)])
def test_a_notice_after_the_output_still_starts_the_turn_that_answers_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, make
) -> None:
    (note,) = notes(make(tmp_path / "home", False), source, monkeypatch).values()
    assert _body(note).count("### Assistant") == 2, note
