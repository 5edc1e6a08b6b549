"""Copilot CLI: a session's end (``updated``) is its last message's time, as the product
means it (the last activity), not its last event's: ``session.shutdown`` is written when
the process exits, maybe hours after the last message, and a resume before any."""

from __future__ import annotations

from datetime import UTC, datetime

from conftest import load_sessions
from copilot_cli_builder import CopilotCliSession, request

from exporter.adapters.copilot_cli import CopilotCliAdapter

SID = "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d"


def _at(s: CopilotCliSession, stamp: str) -> None:
    s.events[-1]["timestamp"] = stamp


def test_the_end_is_the_last_message_not_the_shutdown_hours_later(tmp_path):
    s = CopilotCliSession(SID, start="2026-06-01T09:00:00Z")
    s.user("Add a /health endpoint")
    s.assistant("", [request("c1", "view", {"path": "server.py"})])
    s.tool("c1", "view", {"path": "server.py"}, "app = Flask()")
    s.assistant("Added `GET /health`.")
    last = s.events[-1]["timestamp"]
    s.event("assistant.turn_end", {"turnId": "0"})
    s.event("session.idle", {})
    s.shutdown({"claude-sonnet-4.5": {"inputTokens": 900, "outputTokens": 40}})
    _at(s, "2026-06-01T17:30:00.000Z")  # the terminal closed at the end of the day
    # resumed the next morning, looked, and left without a word
    s.event("session.resume", {"resumeTime": "2026-06-02T08:00:00.000Z", "eventCount": 9})
    _at(s, "2026-06-02T08:00:00.000Z")
    s.event("session.info", {"infoType": "mcp", "message": "2 MCP servers connected"})
    _at(s, "2026-06-02T08:00:01.000Z")
    s.shutdown({})
    _at(s, "2026-06-02T08:05:00.000Z")
    s.write(tmp_path / ".copilot")
    (session,), problems = load_sessions(CopilotCliAdapter(), tmp_path)
    assert problems == []
    assert session.usage.output_tokens == 40  # (the shutdown's totals are still read)
    assert session.started_at == datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
    assert session.ended_at == datetime.fromisoformat(last)


def test_a_resumed_session_ends_at_its_last_message_after_the_resume(tmp_path):
    s = CopilotCliSession(SID, start="2026-06-01T09:00:00Z")
    s.user("First question")
    s.assistant("First answer")
    s.shutdown({})
    s.event("session.resume", {"resumeTime": "2026-06-02T08:00:00.000Z", "eventCount": 4})
    _at(s, "2026-06-02T08:00:00.000Z")
    s.user("Second question")
    s.assistant("Second answer")
    last = s.events[-1]["timestamp"]
    s.shutdown({})
    _at(s, "2026-06-02T11:00:00.000Z")
    s.write(tmp_path / ".copilot")
    (session,), problems = load_sessions(CopilotCliAdapter(), tmp_path)
    assert problems == []
    assert session.ended_at == datetime.fromisoformat(last)


def test_a_sub_agent_ends_at_its_last_message(tmp_path):
    s = CopilotCliSession(SID, start="2026-06-01T09:00:00Z")
    s.user("Find the tests")
    s.assistant("", [request("t1", "task", {"prompt": "List the tests"})])
    s.event("subagent.started", {"toolCallId": "t1", "agentName": "explore"}, agentId="a1")
    s.event("assistant.message", {"content": "tests/test_api.py", "toolRequests": []}, agentId="a1")
    last = s.events[-1]["timestamp"]
    s.event("subagent.completed", {"toolCallId": "t1", "agentName": "explore"}, agentId="a1")
    _at(s, "2026-06-01T09:30:00.000Z")
    s.write(tmp_path / ".copilot")
    (_main, agent), problems = load_sessions(CopilotCliAdapter(), tmp_path)
    assert problems == []
    assert agent.ended_at == datetime.fromisoformat(last)
