"""Copilot CLI: a tool request that gives no arguments (``null``, or no ``arguments`` key:
the SDK's schema makes them optional) shows the ones its ``tool.execution_start`` gives, the
ones the call ran with; a call given none anywhere shows no input at all. Both are valid
shapes: nothing is said about them."""

from __future__ import annotations

from datetime import UTC

import pytest
from conftest import load_sessions, note_files
from copilot_cli_builder import CopilotCliSession, request

from exporter.adapters import copilot_cli
from exporter.adapters.copilot_cli import CopilotCliAdapter
from exporter.export import ExportOptions, run_export

SID = "4f3e2d1c-0b9a-4877-8665-544332211000"


@pytest.fixture(params=[False, True], ids=["held", "streamed"])
def streamed(request, monkeypatch):
    """Each case read whole, and as a log too large to hold (its messages read again)."""
    if request.param:
        monkeypatch.setattr(copilot_cli, "STREAM_FROM", 0)
    return request.param


def _start(s: CopilotCliSession, call_id: str, name: str, **data) -> None:
    s.event("tool.execution_start", {"toolCallId": call_id, "toolName": name, **data})


def _done(s: CopilotCliSession, call_id: str, output: str) -> None:
    data = {"toolCallId": call_id, "success": True, "result": {"content": output}}
    s.event("tool.execution_complete", data)


def _calls(session) -> list[tuple[str, object]]:
    return [(p.name, p.input) for m in session.messages for p in m.parts if p.kind == "tool_call"]


def test_a_request_without_arguments_shows_those_its_start_ran_with(tmp_path, streamed):
    s = CopilotCliSession(SID)
    s.user("What changed?")
    no_key = {"toolCallId": "c2", "name": "view", "type": "function"}  # (no arguments key)
    s.assistant("Looking.", [request("c1", "bash", None), no_key])
    _start(s, "c1", "bash", arguments={"command": "git status --short"})
    _start(s, "c2", "view", arguments={"path": "notes.md"})
    _done(s, "c1", " M app.py")
    _done(s, "c2", "# Notes")
    s.assistant("`app.py` changed.")
    s.write(tmp_path / ".copilot")
    (session,), problems = load_sessions(CopilotCliAdapter(), tmp_path)
    assert problems == []
    assert _calls(session) == [
        ("bash", {"command": "git status --short"}),
        ("view", {"path": "notes.md"}),
    ]
    # (the reply held for its calls' arguments keeps its place among the messages)
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "tool", "assistant"]


def test_a_sub_agent_whose_request_gave_no_arguments_keeps_its_prompt(tmp_path, streamed):
    s = CopilotCliSession(SID)
    s.user("Find the tests")
    s.assistant("", [request("task-1", "task", None, intentionSummary="Find the tests")])
    prompt = {"prompt": "List the test files of the api", "agent_type": "explore"}
    _start(s, "task-1", "task", arguments=prompt)
    s.event("subagent.started", {"toolCallId": "task-1", "agentName": "explore"}, agentId="a1")
    s.event("assistant.message", {"content": "tests/test_api.py", "toolRequests": []}, agentId="a1")
    _done(s, "task-1", "tests/test_api.py")
    s.write(tmp_path / ".copilot")
    (main, agent), problems = load_sessions(CopilotCliAdapter(), tmp_path)
    assert problems == []
    assert _calls(main) == [("task", prompt)]
    first = agent.messages[0]
    assert (first.role, first.parts[0].text) == ("user", "List the test files of the api")


def test_a_call_given_no_arguments_anywhere_shows_no_input(tmp_path, streamed):
    """No input block where none was given, as for a call of any source with no input (an
    empty object shows none either); a reply's wait ends with the next reply, or with a
    result that came with no start."""
    s = CopilotCliSession(SID)
    s.user("What time is it?")
    s.assistant("", [request("t1", "get_time", None)])
    _start(s, "t1", "get_time", arguments=None)
    _done(s, "t1", "10:00")
    s.assistant("", [request("t2", "get_date", None)])
    _start(s, "t2", "get_date")  # (no arguments key)
    _done(s, "t2", "2026-06-01")
    s.assistant("", [request("t3", "get_zone", None)])
    _done(s, "t3", "UTC")  # (no start at all)
    s.assistant("", [request("t4", "get_week", None)])  # (neither start nor result)
    s.assistant("", [request("t5", "get_year", {})])
    _start(s, "t5", "get_year", arguments={})
    _done(s, "t5", "2026")
    s.assistant("It is 10:00 UTC on 2026-06-01.")
    s.write(tmp_path / ".copilot")
    (session,), problems = load_sessions(CopilotCliAdapter(), tmp_path)
    assert problems == []
    assert _calls(session) == [
        ("get_time", None), ("get_date", None), ("get_zone", None), ("get_week", None),
        ("get_year", {}),
    ]  # fmt: skip
    assert [m.role for m in session.messages][-1] == "assistant"
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path, sources=["copilot-cli"], timezone=UTC))
    (note,) = note_files(vault).values()
    body = note.decode().split("ccexport:begin", 1)[1]
    assert "`get_time`\n> ```text\n> 10:00\n> ```" in body  # the output, no input before it
    assert "`get_year`\n> ```text\n> 2026\n> ```" in body
    assert "yaml" not in body and "{}" not in body and "null" not in body


def test_blank_arguments_are_none_given(tmp_path, streamed):
    """A request whose arguments are blank text (or the JSON text of an empty string)
    gave none: the start's are shown, or no input at all (an empty block before)."""
    s = CopilotCliSession(SID)
    s.user("Status, then the time")
    s.assistant("", [request("b1", "bash", ""), request("b2", "get_time", '""')])
    _start(s, "b1", "bash", arguments={"command": "git status"})
    _start(s, "b2", "get_time", arguments=" ")
    _done(s, "b1", "clean")
    _done(s, "b2", "10:00")
    s.assistant("Clean, at 10:00.")
    s.write(tmp_path / ".copilot")
    (session,), problems = load_sessions(CopilotCliAdapter(), tmp_path)
    assert problems == []
    assert _calls(session) == [("bash", {"command": "git status"}), ("get_time", None)]
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path, sources=["copilot-cli"], timezone=UTC))
    (note,) = note_files(vault).values()
    assert "`get_time`\n> ```text\n> 10:00\n> ```" in note.decode()
