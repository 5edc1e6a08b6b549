"""Claude Code before the ``subagents/`` folder: an agent's lines in ``agent-<id>.jsonl``
beside its session, with no ``.meta.json``. Its note takes the title and type the Task call
it answered gave, read from the session's file beside it (it was "Untitled session", or
the prompt's first line, with no type). Synthetic transcripts only."""

from __future__ import annotations

from datetime import UTC

from claude_builder import ClaudeSession, tool_use
from conftest import load_sessions, note_files

from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.export import ExportOptions, run_export
from exporter.model import TextPart
from exporter.stats import prompt_count

SID = "0bb0b0b0-1111-4222-8333-444444444444"
AGENT = "abc123"


def _home(tmp_path, prompt: bool, result: bool = True):
    folder = tmp_path / ".claude" / "projects" / "-w-proj"
    s = ClaudeSession(SID, "/w/proj", version="2.0.10")
    s.user("research brands")
    task = {"description": "Brand research", "prompt": "Find the brand guides.",
            "subagent_type": "researcher"}  # fmt: skip
    s.assistant([tool_use("Task", task, "toolu_1")])
    rich = {"status": "completed", "agentId": AGENT} if result else None
    s.tool_result("toolu_1", "FOUND: three guides", rich=rich)
    s.assistant("Three guides.")
    s.write(folder / f"{SID}.jsonl")
    agent = ClaudeSession(SID, "/w/proj", sidechain=True, agent_id=AGENT, version="2.0.10")
    if prompt:
        agent.user("Find the brand guides.", parent=None)
        agent.assistant("FOUND: three guides")
    else:
        agent.assistant("FOUND: three guides", parent=None)
    agent.write(folder / f"agent-{AGENT}.jsonl")
    sessions, _ = load_sessions(ClaudeCodeAdapter(), tmp_path)
    return next(x for x in sessions if x.session_id.endswith(f"agent-{AGENT}"))


def test_an_older_agent_file_is_titled_and_typed_by_its_task_call(tmp_path):
    child = _home(tmp_path, prompt=False)
    assert (child.title, child.agent_label, child.parent_id) == ("Brand research",
                                                                  "researcher", SID)  # fmt: skip


def test_with_its_prompt_line_too(tmp_path):
    child = _home(tmp_path, prompt=True)
    assert (child.title, child.agent_label) == ("Brand research", "researcher")


def test_a_session_that_names_no_such_agent_gives_nothing(tmp_path):
    child = _home(tmp_path, prompt=True, result=False)
    assert child.agent_label is None and child.title != "Brand research"


def test_an_agent_file_that_begins_with_its_reply_is_given_its_task_prompt(tmp_path):
    """Its prompt line was not written (review26 F6): the Task call's prompt stands first,
    as the parent agent's, when the agent began; not counted as the person's."""
    child = _home(tmp_path, prompt=False)
    first = child.messages[0]
    assert (first.role, first.parts) == ("user", (TextPart("Find the brand guides."),))
    assert first.timestamp == child.started_at and child.messages[1].role == "assistant"
    assert prompt_count(child) == 0


def test_an_agent_file_with_its_prompt_line_is_not_given_it_again(tmp_path):
    child = _home(tmp_path, prompt=True)
    assert [m.role for m in child.messages] == ["user", "assistant"]


def test_a_subagents_folder_agent_without_its_prompt_line_is_given_it_too(tmp_path):
    folder = tmp_path / ".claude" / "projects" / "-w-proj"
    s = ClaudeSession(SID, "/w/proj", version="2.1.0")
    s.user("research brands")
    task = {"description": "Brand research", "prompt": "Find the brand guides.",
            "subagent_type": "researcher"}  # fmt: skip
    s.assistant([tool_use("Task", task, "toolu_1")])
    s.tool_result("toolu_1", "FOUND: three guides", rich={"agentId": AGENT})
    s.assistant("Three guides.")
    s.write(folder / f"{SID}.jsonl")
    agent = ClaudeSession(SID, "/w/proj", sidechain=True, agent_id=AGENT, version="2.1.0")
    agent.assistant("FOUND: three guides", parent=None)
    agent.write(folder / SID / "subagents" / f"agent-{AGENT}.jsonl")
    run_export(ExportOptions(vault=tmp_path / "vault", home=tmp_path, timezone=UTC))
    (note,) = [v.decode() for k, v in note_files(tmp_path / "vault").items() if "agent" in k]
    assert "### Parent agent · 09:01\n\nFind the brand guides.\n\n### Assistant" in note
