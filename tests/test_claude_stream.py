"""The Claude Code loader reads a session file line by line: each parsed line becomes parts
of messages and is let go, so a long session is held as its messages, never as its JSON."""

from __future__ import annotations

import tracemalloc

from claude_builder import ClaudeSession, tool_use, with_inline_warmup
from conftest import load_sessions, texts

from exporter.adapters import SourceContext, claude_mainfile
from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.adapters.claude_transcript import build_transcript

SID = "22222222-3333-4444-8555-666666666666"


def main_file_with_warmup_sidechain(home):
    """A session of Claude Code < 2.0.28 whose only sidechain lines are a Warmup agent."""
    return with_inline_warmup(SID).write(home / ".claude" / "projects" / "-w-proj" / f"{SID}.jsonl")


def test_sidechain_lines_that_make_no_subagent_stay_in_the_conversation(tmp_path):
    """As when the whole file was held: a file of sidechain lines alone (no conversation
    of its own for them to be a subagent of) is read whole, a second time for them."""
    side = ClaudeSession(SID, sidechain=True)
    side.user("Check the cache", parent=None)
    side.assistant("Ready.")
    side.user("And the index?")
    side.assistant("Also ready.")
    path = side.write(tmp_path / ".claude" / "projects" / "-w-proj" / f"{SID}.jsonl")
    (session,), _ = load_sessions(ClaudeCodeAdapter(), tmp_path)
    records = list(claude_mainfile.read_records(path, [], claude_mainfile.FileMeta()))
    assert session.messages == tuple(build_transcript(records, {}).messages)
    assert texts(session, "user") == ["Check the cache", "And the index?"]


def test_a_warmup_agents_lines_are_in_no_conversation(tmp_path):
    """Claude Code 2.0 primed its cache with a "Warmup" agent: harness traffic, neither a
    subagent nor part of the person's conversation (before: it showed in the parent note
    as a prompt the person never typed, when the file had no other subagent)."""
    path = main_file_with_warmup_sidechain(tmp_path)
    (session,), _ = load_sessions(ClaudeCodeAdapter(), tmp_path)
    assert texts(session, "user") == ["first question", "second question"]
    assert "Ready." not in texts(session, "assistant")
    records = claude_mainfile.read_records(path, [], claude_mainfile.FileMeta())
    records = [r for r in records if not r.get("isSidechain")]  # the Warmup agent's lines
    assert session.messages == tuple(build_transcript(records, {}).messages)


def test_the_second_reading_stops_at_the_line_the_first_reached(tmp_path, monkeypatch):
    """A session written to between the two readings: the lines added after the first are
    left for the next run, as they would be for any file."""
    path = main_file_with_warmup_sidechain(tmp_path)
    late = ClaudeSession(SID)
    late._n = 90
    late.user("typed after the first reading")
    readings = []
    real_iter = claude_mainfile.iter_json_objects

    def growing(p, problems, source, stop=None):
        readings.append(p)
        yield from real_iter(p, problems, source, stop)
        if len(readings) == 1:
            with open(p, "a") as f:
                f.write(late.text())

    monkeypatch.setattr(claude_mainfile, "iter_json_objects", growing)
    (session,), _ = load_sessions(ClaudeCodeAdapter(), tmp_path)
    assert readings == [path, path]
    assert "typed after the first reading" in path.read_text()
    assert texts(session, "user") == ["first question", "second question"]


def test_loading_a_long_session_holds_little_more_than_its_messages(tmp_path):
    """Traced memory at its peak while loading, against what the loaded session holds:
    before, every parsed line was kept until the transcript was built (3.7 times); now the
    lines go as they are read (1.9 times)."""
    s = ClaudeSession(SID)
    for t in range(2000):  # 8,000 lines, 10 MB
        s.user(f"Why does test {t} fail?")
        s.assistant([tool_use("Bash", {"command": f"cargo test t{t}"}, f"call{t}")])
        s.tool_result(f"call{t}", f"run {t}\n" + "test result: FAILED. 0 passed; 1 failed\n" * 40)
        s.assistant(f"Test {t} compares `a < b` where it should compare `a <= b`. " * 5)
    s.write(tmp_path / ".claude" / "projects" / "-w-proj" / f"{SID}.jsonl")
    adapter = ClaudeCodeAdapter()
    (ref,) = adapter.discover(SourceContext(tmp_path, {}, False))
    tracemalloc.start()
    try:
        (session,) = adapter.load(ref).sessions
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(session.messages) == 8000
    assert peak < 2.5 * held, (peak, held)


def test_a_damaged_assistant_line_does_not_fail_a_file_with_sidechain_lines(tmp_path):
    """Looking for the Task calls sidechain agents answer, an assistant line whose message
    is not an object is passed over. Before: AttributeError, and the whole file failed."""
    path = main_file_with_warmup_sidechain(tmp_path)
    damaged = ClaudeSession(SID)
    damaged._n = 80
    damaged.raw(damaged._envelope("assistant", message="not an object"))
    with open(path, "a") as f:
        f.write(damaged.text())
    (session,), problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    assert texts(session, "user") == ["first question", "second question"]
    # (the damaged line alone is said: left out)
    assert [p.message for p in problems] == ["the message is text, not an object: left out"]


def test_a_damaged_parent_uuid_of_a_sidechain_line_costs_nothing(tmp_path):
    """Sidechain lines are grouped by walking their parents: one whose parentUuid is not a
    string is a root (before: TypeError, and the whole file failed)."""
    path = main_file_with_warmup_sidechain(tmp_path)
    agent = ClaudeSession(SID, sidechain=True)
    agent._n = 70
    agent.user("Survey the tests", parent=None)
    agent.assistant("Found 3.")
    agent.raw(agent._envelope("assistant", parent=["x"], message={"content": "stray"}))
    with open(path, "a") as f:
        f.write(agent.text())
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    assert len(sessions) >= 2 and not [p for p in problems if p.severity == "error"]
    assert texts(sessions[0], "user") == ["first question", "second question"]
