"""Claude Code: a session file deleted (Claude Code's cleanup of old transcripts, or the
person) while its ``<session>/subagents/`` folder stays. The agents' notes keep what the
session gave them (PRODUCT.md, sync guarantee 4): the title and type its Task call gave
(repeated in the agent's ``.meta.json``), the link to the session, its project. Synthetic
transcripts only."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import load_sessions, note_files

from exporter.adapters import SourceContext
from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.export import ExportOptions, run_export

SID = "0aa0a0a0-1111-4222-8333-444444444444"
AGENT = "a7e57c0"
CHILD = f"{SID}/agent-{AGENT}"
SIDECAR = {"toolUseId": "toolu_t1", "agentType": "Explore", "description": "Survey lexer tests"}


def _folder(home: Path, name: str = "-w-proj") -> Path:
    return home / ".claude" / "projects" / name


def _parent(folder: Path, cwd: str = "/w/proj") -> Path:
    s = ClaudeSession(SID, cwd)
    s.user("How are the lexer tests laid out?")
    task = {"description": "Survey lexer tests", "prompt": "List every lexer test.",
            "subagent_type": "Explore"}  # fmt: skip
    s.assistant([tool_use("Task", task, "toolu_t1")])
    s.tool_result("toolu_t1", "Found 14.", rich={"status": "completed", "agentId": AGENT})
    s.assistant("There are 14.")
    return s.write(folder / f"{SID}.jsonl")


def _agent(folder: Path, cwd: str = "/w/proj", sidecar: dict | None = None) -> ClaudeSession:
    agent = ClaudeSession(SID, cwd, sidechain=True, agent_id=AGENT, start="2026-11-20T09:02:00Z")
    agent.user("List every lexer test.", parent=None)
    agent.assistant("Found 14 lexer tests.")
    sub = folder / SID / "subagents"
    agent.write(sub / f"agent-{AGENT}.jsonl")
    meta = SIDECAR if sidecar is None else sidecar
    (sub / f"agent-{AGENT}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return agent


def _child(home: Path):
    sessions, _ = load_sessions(ClaudeCodeAdapter(), home)
    return next(s for s in sessions if s.session_id == CHILD)


def _options(home: Path) -> ExportOptions:
    return ExportOptions(vault=home / "vault", home=home, sources=["claude-code"], timezone=UTC)


def _agent_note(vault: Path) -> Path:
    (name,) = [k for k in note_files(vault) if "· agent" in k]
    return vault / name


def test_an_agent_whose_session_file_is_gone_keeps_title_type_and_parent(tmp_path):
    folder = _folder(tmp_path)
    parent = _parent(folder)
    _agent(folder)
    before = _child(tmp_path)
    assert (before.title, before.agent_label, before.parent_id) == ("Survey lexer tests",
                                                                     "Explore", SID)  # fmt: skip
    parent.unlink()
    after = _child(tmp_path)
    assert after.title == before.title == "Survey lexer tests"  # not the first prompt
    assert after.agent_label == "Explore"  # from its .meta.json, still there
    assert (after.parent_id, after.project) == (SID, "proj")


def test_its_unit_holds_its_sidecar(tmp_path):
    """The sidecar is read and fingerprinted with the agent's file: a changed sidecar is a
    change; the sidecar of another agent is not part of it."""
    folder = _folder(tmp_path)
    _agent(folder)
    other = folder / SID / "subagents" / "agent-b0b0b0b.meta.json"
    other.write_text(json.dumps({"agentType": "Plan"}), encoding="utf-8")
    (ref,) = ClaudeCodeAdapter().discover(SourceContext(tmp_path, {}, False))
    assert ref.session_id == f"{SID}/agent-{AGENT}"
    assert [f.path.name for f in ref.related] == [f"agent-{AGENT}.meta.json"]


def test_its_note_is_left_as_it_is_when_the_session_file_is_deleted(tmp_path):
    folder = _folder(tmp_path)
    parent = _parent(folder)
    _agent(folder)
    options = _options(tmp_path)
    run_export(options)
    note = _agent_note(options.vault)
    text = note.read_text(encoding="utf-8")
    assert "Subagent (Explore) of" in text and "# Survey lexer tests" in text
    parent.unlink()
    report = run_export(options)
    assert report.total("updated") == 0 and report.total("created") == 0
    assert note.read_text(encoding="utf-8") == text


def test_an_agent_that_grows_after_its_session_file_is_gone_keeps_its_title_and_type(tmp_path):
    folder = _folder(tmp_path)
    parent = _parent(folder)
    agent = _agent(folder)
    options = _options(tmp_path)
    run_export(options)
    note = _agent_note(options.vault)
    parent_note = next(Path(k).stem for k in note_files(options.vault) if "· agent" not in k)
    parent.unlink()
    agent.assistant("And 2 of them are slow.")
    agent.write(folder / SID / "subagents" / f"agent-{AGENT}.jsonl")
    assert run_export(options).total("updated") == 1
    text = note.read_text(encoding="utf-8")
    assert "And 2 of them are slow." in text
    assert "title: Survey lexer tests" in text and "# Survey lexer tests" in text
    assert "- List every lexer test." not in text  # the first prompt is no alias
    assert f"Subagent (Explore) of [[{parent_note}]]" in text


def test_an_agent_in_a_subfolder_keeps_the_sessions_project(tmp_path):
    """While the session is there its agents take its project; the project folder is named
    after the session's start folder, so without it the agent's ``cwd`` (a subfolder here)
    still tells the same project."""
    folder = _folder(tmp_path, "-w-my-app")
    parent = _parent(folder, cwd="/w/my.app")
    _agent(folder, cwd="/w/my.app/crates/lexer")
    assert _child(tmp_path).project == "my.app"
    parent.unlink()
    assert _child(tmp_path).project == "my.app"


def test_the_sessions_project_by_the_folder_name():
    from exporter.adapters.claude_load import _session_project

    def where(cwd: str | None, folder: str) -> str | None:
        return _session_project(cwd, Path(f"/p/{folder}/{SID}/subagents/agent-x.jsonl"), SID)

    assert where("/w/proj/src/deep", "-w-proj") == "proj"
    assert where("C:\\Users\\me\\p\\sub", "C--Users-me-p") == "p"
    assert where("/elsewhere/x", "-w-proj") is None  # the agent's own cwd names it then
    assert where(None, "-w-proj") is None
    nested = Path(f"/p/-w-proj/{SID}/subagents/workflows/run1/agent-x.jsonl")
    assert _session_project("/w/proj", nested, SID) == "proj"


def test_a_sidecar_without_a_description_still_gives_the_type(tmp_path):
    """Claude Code versions that wrote only ``toolUseId`` and ``agentType``: the type stays;
    the title then comes from the agent's first prompt (see the report of this change)."""
    folder = _folder(tmp_path)
    parent = _parent(folder)
    _agent(folder, sidecar={"toolUseId": "toolu_t1", "agentType": "Explore"})
    parent.unlink()
    child = _child(tmp_path)
    assert (child.agent_label, child.parent_id) == ("Explore", SID)


def test_a_sidecar_speaks_for_a_task_call_the_session_no_longer_holds(tmp_path):
    """The session is there, but the Task call is not in it (a damaged or cut transcript):
    the sidecar's description and type are the agent's."""
    folder = _folder(tmp_path)
    s = ClaudeSession(SID, "/w/proj")
    s.user("How are the lexer tests laid out?")
    s.assistant("Let me look.")
    s.write(folder / f"{SID}.jsonl")
    _agent(folder)
    child = _child(tmp_path)
    assert (child.title, child.agent_label) == ("Survey lexer tests", "Explore")


def test_a_damaged_sidecar_gives_nothing(tmp_path):
    folder = _folder(tmp_path)
    _agent(folder, sidecar={"agentType": 7, "description": ["x"], "toolUseId": None})
    assert (_child(tmp_path).agent_label, _child(tmp_path).title) == (None, None)
    sidecar = folder / SID / "subagents" / f"agent-{AGENT}.meta.json"
    for text in ("[1, 2", "[1]", '{"agentType": " ", "description": ""}'):
        sidecar.write_text(text, encoding="utf-8")
        assert (_child(tmp_path).agent_label, _child(tmp_path).title) == (None, None)


def test_an_agent_whose_session_never_had_a_note_still_says_it_is_a_subagent(tmp_path):
    """The session file was deleted before the first export (Claude Code's cleanup): the
    agent's note has no parent to link, and says whose agent it is by the session's id, in
    both ways of rendering a note (the fast body and the shipped template)."""
    folder = _folder(tmp_path)
    _parent(folder).unlink()
    _agent(folder)
    for reference in ("", "1"):
        options = replace(_options(tmp_path), vault=tmp_path / f"vault{reference}")
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("CCEXPORT_REFERENCE_RENDER", reference)
            run_export(options)
        (name,) = [k for k in note_files(options.vault) if "Survey lexer tests" in k]
        text = (options.vault / name).read_text(encoding="utf-8")
        assert f"> Subagent (Explore) of session `{SID}`, which has no note\n" in text
        assert "parent:" not in text  # no link to a note that is not there
        index = (options.vault / "AI Sessions" / "Projects" / "proj.md").read_text("utf-8")
        assert f"[[{name[:-3].rsplit('/', 1)[-1]}|Survey lexer tests]]" in index  # found there
