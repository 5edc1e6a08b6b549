"""A tool call whose result the session never recorded (it ended, or was read while the
tool ran: corpus d6a37ffc and d3ad4cdc end so) looked exactly like a call whose output
was empty. The note says so under it; a call answered, even with nothing, says nothing."""

from __future__ import annotations

from claude_builder import ClaudeSession, both_readings, tool_use
from test_claude_adapter import SID, load_all, only, projects

from exporter.export import ExportOptions, run_export
from exporter.model import NoticePart, ToolCallPart

SAID = "*No result of this call was recorded (the session ended, or was read, before the tool returned).*"


def ending_on(tmp_path, *, answered: bool, parallel: bool = False) -> str:
    s = ClaudeSession(SID)
    s.user("commit it")
    s.assistant([tool_use("Bash", {"command": "rm hello.js"}, "toolu_rm")])
    s.tool_result("toolu_rm", "")  # answered, with nothing
    calls = [tool_use("Bash", {"command": "git add -A && git status --short"}, "toolu_git")]
    if parallel:
        calls.append(tool_use("Read", {"file_path": "README.md"}, "toolu_read"))
    s.assistant(calls, msg_id="msg_last")
    if parallel:
        s.tool_result("toolu_read", "# App")
    if answered:
        s.tool_result("toolu_git", "")
    path = s.write(projects(tmp_path) / f"{SID}.jsonl")
    streamed, held = both_readings(path)
    assert streamed == held  # (read line by line as a long session is: the same)
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path))
    (note,) = [p.read_text() for p in (tmp_path / "v").rglob("*.md") if SID[:8] in p.name]
    return note


def test_the_last_call_with_no_result_says_so(tmp_path):
    note = ending_on(tmp_path, answered=False)
    assert note.count(SAID) == 1
    assert note.index("git add -A") < note.index(SAID)
    assert note.index("rm hello.js") < note.index("git add -A")  # (the empty one: nothing)


def test_a_call_answered_with_nothing_says_nothing(tmp_path):
    assert SAID not in ending_on(tmp_path, answered=True)


def test_of_calls_made_together_only_the_one_unanswered_says_so(tmp_path):
    note = ending_on(tmp_path, answered=False, parallel=True)
    parts = [p for m in only(load_all(tmp_path)[0]).messages for p in m.parts]
    marked = [
        parts[i - 1].call_id for i, p in enumerate(parts)
        if isinstance(p, NoticePart) and p.notice == "unanswered"
    ]  # fmt: skip
    assert marked == ["toolu_git"] and note.count(SAID) == 1
    assert any(isinstance(p, ToolCallPart) and p.call_id == "toolu_read" for p in parts)


def test_a_prompt_after_the_call_says_nothing(tmp_path):
    """A prompt after the reply: the session went on, and a reader streaming the file has
    let that reply go by then (the notes of both readings are the same)."""
    s = ClaudeSession(SID)
    s.user("commit it")
    s.assistant([tool_use("Bash", {"command": "git status"}, "toolu_git")])
    s.user("never mind")
    path = s.write(projects(tmp_path) / f"{SID}.jsonl")
    streamed, held = both_readings(path)
    assert streamed == held
    assert not any(isinstance(p, NoticePart) for m in held for p in m.parts)
