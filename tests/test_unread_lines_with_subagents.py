"""A line that could not be read in a file holding a session and its own subagents is named
in the session's note (Copilot CLI's ``events.jsonl``), not in none."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from conftest import note_files
from copilot_cli_builder import CopilotCliSession, request

from exporter.export import ExportOptions, run_export

SID = "5d2e3f4a-6b7c-4d8e-9f0a-1b2c3d4e5f60"


def session_with_a_subagent() -> CopilotCliSession:
    s = CopilotCliSession(SID)
    s.user("Find where the config is loaded")
    task = request("task-1", "task", {"prompt": "Find the loader", "agent_type": "explore"})
    s.assistant("Delegating.", [task])
    s.event("subagent.started", {"toolCallId": "task-1", "agentName": "explore"}, agentId="a1")
    s.event("assistant.message", {"content": "In config.py.", "parentToolCallId": "task-1"})
    s.event("subagent.completed", {"toolCallId": "task-1", "agentName": "explore"})
    s.event(
        "tool.execution_complete",
        {"toolCallId": "task-1", "success": True, "result": {"content": "config.py"}},
    )
    s.assistant("It is loaded in `config.py`.")
    return s


def test_a_damaged_line_is_named_in_the_note_of_the_session_its_subagents_share(tmp_path):
    path = session_with_a_subagent().write(tmp_path / ".copilot")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(2, '{"type": "assistant.message", "data": {"content": "cut\n')
    path.write_text("".join(lines), encoding="utf-8")
    vault = tmp_path / "vault"
    options = ExportOptions(vault=vault, home=tmp_path, sources=["copilot-cli"], timezone=UTC)
    report = run_export(options)
    assert [p.line for p in report.problems if p.left_out] == [3]
    notes = {Path(rel).stem: data.decode() for rel, data in note_files(vault).items()}
    assert len(notes) == 2
    (parent,) = [text for text in notes.values() if "\nparent:" not in text]
    (child,) = [text for text in notes.values() if "\nparent:" in text]
    assert "Line 3 of this session's file could not be read" in parent
    assert "could not be read" not in child
