"""A Claude Code line whose ``isSidechain`` is neither true nor false (FORMATS.md §1.1: only
``true`` marks a sidechain line, written into the session file before 2.0.28). Such a line
was taken for a sidechain's when the value was truthy (``"yes"``, ``1``, an object): a
prompt of a newer session left its note for a made-up subagent's, without a word. Now
the line is what its parent line is in (the conversation, where it has none) and the file
says it once; ``null`` or no value is no sidechain and no damage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import load_sessions, texts

from exporter.adapters import claude_code
from exporter.adapters.claude_code import ClaudeCodeAdapter

SID = "5c5c5c5c-2222-4333-8444-555555555555"
RESUMED = "5c5c5c5c-2222-4333-8444-666666666666"


def folder(home: Path) -> Path:
    return home / ".claude" / "projects" / "-home-dev-app"


def newer_session(home: Path, damaged: dict[int, Any]) -> Path:
    """A session of a newer Claude Code (no inline sidechains): line 1 a prompt, 2 its
    answer, 3 the next prompt, 4 its answer; ``damaged``: line -> its isSidechain."""
    s = ClaudeSession(SID, "/home/dev/app")
    s.user("first question")
    s.assistant("first answer")
    s.user("second question")
    s.assistant("second answer")
    for line, value in damaged.items():
        rec = json.loads(s.lines[line - 1])
        if value is ...:
            del rec["isSidechain"]
        else:
            rec["isSidechain"] = value
        s.lines[line - 1] = json.dumps(rec)
    return s.write(folder(home) / f"{SID}.jsonl")


DAMAGED = [
    ("yes", '"yes"'),
    (1, "a number"),
    ({"a": 1}, "an object"),
    (["x"], "a list"),
    ("false", '"false"'),
    (0, "a number"),
]


@pytest.mark.parametrize(("value", "said"), DAMAGED, ids=[d[1] for d in DAMAGED])
@pytest.mark.parametrize("line", [1, 3])
def test_a_damaged_flag_keeps_the_line_in_the_conversation_and_says_it(tmp_path, value, said, line):
    path = newer_session(tmp_path, {line: value})
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    assert [s.session_id for s in sessions] == [SID]  # no subagent made of a prompt
    assert texts(sessions[0], "user") == ["first question", "second question"]
    assert texts(sessions[0], "assistant") == ["first answer", "second answer"]
    assert [str(p) for p in problems] == [
        f"{path}:{line}: isSidechain is {said}, not true or false: read as a line of the "
        "conversation"
    ]


def test_several_damaged_flags_of_a_file_are_one_warning(tmp_path):
    path = newer_session(tmp_path, {2: "yes", 3: 7, 4: "yes"})
    (session,), problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    assert texts(session, "user") == ["first question", "second question"]
    assert [str(p) for p in problems] == [
        f'{path}:2: isSidechain is "yes", not true or false (3 lines, the first here): each '
        "read as a line of the subagent its parent line is in, else of the conversation"
    ]


@pytest.mark.parametrize("value", [None, ..., False], ids=["null", "absent", "false"])
def test_null_or_no_flag_is_the_conversation_and_no_damage(tmp_path, value):
    newer_session(tmp_path, {1: value, 2: value, 3: value, 4: value})
    (session,), problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    assert texts(session, "user") == ["first question", "second question"]
    assert problems == []


def test_a_streamed_session_is_read_alike_both_times(tmp_path, monkeypatch):
    """A long session is read twice (its messages again as its notes are written): the
    second reading takes the damaged line where the first did."""
    newer_session(tmp_path, {3: "yes"})
    (held,), _ = load_sessions(ClaudeCodeAdapter(), tmp_path)
    monkeypatch.setattr(claude_code, "STREAM_FROM", 0)
    (streamed,), problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    assert list(streamed.messages) == list(held.messages)
    assert len(problems) == 1


def older_session(home: Path, damaged: dict[str, Any]) -> Path:
    """A session of Claude Code < 2.0.28: a Task call, then its agent's lines written into
    the file (``isSidechain: true``; its prompt, its two answers), then the Task's result
    and the answer; ``damaged``: which of the agent's lines ("prompt", "answer", "more")
    have which isSidechain."""
    s = ClaudeSession(SID, "/home/dev/app", version="1.0.98")
    s.user("survey the tests")
    task = {"description": "Survey", "prompt": "List tests.", "subagent_type": "Explore"}
    s.assistant([tool_use("Task", task, "toolu_1")])
    call = s.last
    side = ClaudeSession(SID, "/home/dev/app", sidechain=True, version="1.0.98")
    side._n = 50
    side.user("List tests.", parent=None)
    side.assistant("Found 3.")
    side.assistant("And a fixture.")
    for name, i in (("prompt", 0), ("answer", 1), ("more", 2)):
        if name in damaged:
            rec = json.loads(side.lines[i])
            rec["isSidechain"] = damaged[name]
            side.lines[i] = json.dumps(rec)
    s.lines.extend(side.lines)
    s.last = call
    s.tool_result("toolu_1", "Found 3 and a fixture.")
    s.assistant("Done.")
    return s.write(folder(home) / f"{SID}.jsonl")


def test_an_inline_agents_line_with_a_damaged_flag_stays_the_agents(tmp_path):
    """Below a sidechain line, the damaged line is the agent's: its answer stays in the
    agent's note, out of the conversation's."""
    path = older_session(tmp_path, {"answer": "yes", "more": 1})
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    parent = next(s for s in sessions if s.session_id == SID)
    (agent,) = [s for s in sessions if s.parent_id == SID]
    assert texts(agent, "assistant") == ["Found 3.", "And a fixture."]
    assert agent.title == "Survey"
    assert texts(parent, "assistant") == ["Done."]
    assert [str(p) for p in problems] == [
        f'{path}:4: isSidechain is "yes", not true or false (2 lines, the first here): each '
        "read as a line of the subagent its parent line is in, else of the conversation"
    ]


def test_an_inline_agents_first_line_with_a_damaged_flag_is_the_conversations(tmp_path):
    """The agent's prompt has no parent line to tell whose it is: it is kept in the
    conversation (nothing lost), and its answers are still the agent's."""
    path = older_session(tmp_path, {"prompt": "yes"})
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    parent = next(s for s in sessions if s.session_id == SID)
    assert texts(parent, "user") == ["survey the tests", "List tests."]
    assert any(texts(s, "assistant") == ["Found 3.", "And a fixture."] for s in sessions)
    assert [str(p) for p in problems] == [
        f'{path}:3: isSidechain is "yes", not true or false: read as a line of the conversation'
    ]


def test_a_resumed_session_ending_in_a_damaged_flag_still_leaves_out_its_copy(tmp_path):
    """Which file copies which is told by their last conversational lines: a damaged flag
    on the resumed file's last line hid that line (the one before it, the copy's end,
    was taken for its end), and the copy was kept in both notes."""
    first = ClaudeSession(SID, "/home/dev/app")
    first.user("add a cache")
    first.assistant("Added an LRU cache.")
    first.write(folder(tmp_path) / f"{SID}.jsonl")
    second = first.continued(RESUMED, "2026-11-21T10:00:00Z")
    second.user("now make it thread-safe", isSidechain="yes")
    second.write(folder(tmp_path) / f"{RESUMED}.jsonl")
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    resumed = next(s for s in sessions if s.session_id == RESUMED)
    assert texts(resumed, "user") == ["now make it thread-safe"]
    assert resumed.forked_from == SID
    assert len(problems) == 1
