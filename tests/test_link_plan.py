"""A unit is read and rendered again within a run only when its note would change.

An old-layout subagent (``agent-<id>.jsonl`` beside the sessions, Claude Code before 2.1)
is a discovery unit of its own, found after its parent. The parent's Task result already
names it, so the parent's note lists it and links it where it will land: reading and
rendering the parent again (its transcript may be megabytes) would give the same bytes.
"""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession, tool_use

from exporter.export import ExportOptions, run_export
from exporter.plan import LinkPlan
from exporter.vault import RENAMED_NEW

SID = "11111111-2222-4333-8444-555555555555"
AGENT = "0ld1d"


def old_layout_home(home: Path) -> Path:
    folder = home / ".claude" / "projects" / "-w-proj"
    s = ClaudeSession(SID, "/w/proj")
    s.user("survey the tests")
    task = {"description": "Survey", "prompt": "List tests.", "subagent_type": "Explore"}
    s.assistant([tool_use("Task", task, "toolu_1")])
    s.tool_result("toolu_1", "Found 3.", rich={"status": "completed", "agentId": AGENT})
    s.assistant("Three tests found.")
    s.write(folder / f"{SID}.jsonl")
    write_agent_file(folder, SID, "/w/proj")
    return home


def write_agent_file(folder: Path, sid: str, cwd: str) -> None:
    """An old-layout subagent file (``agent-<id>.jsonl``) beside its parent's transcript."""
    agent = ClaudeSession(sid, cwd, sidechain=True, agent_id=AGENT)
    agent.user("List tests.", parent=None)
    agent.assistant("Found 3.")
    agent.write(folder / f"agent-{AGENT}.jsonl")


def export(vault: Path, home: Path, renamed: int = 0):
    """``renamed``: notes expected under another name (theirs held by another file)."""
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    said = [p for p in report.problems if p.message == RENAMED_NEW]
    assert len(said) == renamed and len(report.problems) == renamed, report.problems
    return report


def notes(vault: Path) -> dict[str, str]:
    return {str(p.relative_to(vault)): p.read_text() for p in vault.rglob("*.md")}


def parent_and_agent(found: dict[str, str]) -> tuple[str, str]:
    """The session's note and its agent's (``… 11111111.md``, ``… 11111111 · agent 0ld1d.md``)."""
    ours = [p for p in found if SID[:8] in p]
    parent = next(p for p in ours if "· agent" not in p)
    agent = next(p for p in ours if "· agent" in p)
    return parent, agent


def test_a_parent_that_already_lists_its_old_layout_subagent_is_read_once(
    tmp_path, load_calls, monkeypatch
):
    home = old_layout_home(tmp_path / "home")
    export(tmp_path / "v", home)
    assert load_calls == [f"{SID}.jsonl", f"agent-{AGENT}.jsonl"]  # the parent once
    found = notes(tmp_path / "v")
    parent, agent = parent_and_agent(found)
    assert f"[[{Path(agent).stem}]]" in found[parent]  # listed, and linked where it landed

    # Rendered again, as before this shortcut: the same notes, at the cost of a second read.
    load_calls.clear()
    monkeypatch.setattr(LinkPlan, "_listed_by", lambda *args: False)
    export(tmp_path / "again", home)
    assert load_calls.count(f"{SID}.jsonl") == 2
    assert notes(tmp_path / "again") == found


def test_a_subagent_that_landed_where_its_parent_did_not_expect_gets_its_parent_redone(
    tmp_path, load_calls
):
    home = old_layout_home(tmp_path / "home")
    export(tmp_path / "first", home)
    parent, agent = parent_and_agent(notes(tmp_path / "first"))
    vault = tmp_path / "v"
    taken = vault / agent  # a note of the person's at the path the parent predicts
    taken.parent.mkdir(parents=True)
    taken.write_text("my own note\n")
    load_calls.clear()
    export(vault, home, renamed=1)  # the subagent's note, said
    assert load_calls.count(f"{SID}.jsonl") == 2  # read again, to link where the agent went
    found = notes(vault)
    assert found[agent] == "my own note\n"
    [landed] = [p for p in found if "· agent" in p and p != agent]
    assert f"[[{Path(landed).stem}]]" in found[parent]
    assert f"[[{Path(agent).stem}]]" not in found[parent]


def test_a_parent_that_did_not_name_its_subagent_is_redone_to_list_it(tmp_path, load_calls):
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "-w-proj"
    s = ClaudeSession(SID, "/w/proj")
    s.user("survey the tests")
    s.assistant("I will look.")
    s.write(folder / f"{SID}.jsonl")  # no Task result naming the agent
    agent = ClaudeSession(SID, "/w/proj", sidechain=True, agent_id=AGENT)
    agent.user("List tests.", parent=None)
    agent.assistant("Found 3.")
    agent.write(folder / f"agent-{AGENT}.jsonl")
    export(tmp_path / "v", home)
    assert load_calls.count(f"{SID}.jsonl") == 2
    found = notes(tmp_path / "v")
    parent, agent_note = parent_and_agent(found)
    assert f"[[{Path(agent_note).stem}]]" in found[parent]


def test_a_parent_linking_a_subagent_it_does_not_list_is_redone(tmp_path):
    """The plan itself: a link alone is not a listing (the parent's ``subagents`` would
    gain the child), so that parent is redone; one that lists it and links it is not. Only a
    listed child's path is predicted: a Task result may name an agent that never gets a
    note (its file cleaned up, or never written), and a link to it would lead nowhere."""
    from exporter.model import Message, Session, ToolCallPart
    from exporter.notes import NoteSettings, linked_keys
    from exporter.vault import Vault

    child_id = f"{SID}/agent-{AGENT}"
    call = ToolCallPart("Task", {}, "toolu_1", subagent_id=child_id)
    child = Session("claude-code", child_id, (), Path("agent.jsonl"), parent_id=SID)
    for listed, redone in (((child_id,), False), ((), True)):
        parent = Session("claude-code", SID, (Message("assistant", (call,)),), Path("p.jsonl"),
                         subagent_ids=listed)  # fmt: skip
        plan = LinkPlan(Vault(tmp_path / f"v{redone}"), NoteSettings())
        paths = plan.place([parent], "parent-unit", lambda *a: None)
        resolve = plan.resolver("parent-unit", paths)
        plan.rendering(parent)
        resolved = [resolve(key) for key in linked_keys(parent)]
        assert all(resolved) is not redone  # a listed child's path predicted; else it waits
        plan.place([child], "agent-unit", lambda *a: None)
        plan.linked(child, "agent-unit")
        assert ("parent-unit" in plan.again) is redone


def test_a_unit_to_redo_is_read_again_by_the_next_run_after_a_ctrl_c(tmp_path, monkeypatch):
    """The parent's transcript does not name its old-layout agent: the agent's note, written
    after the parent's, makes the run redo the parent at its end. A Ctrl-C before that left
    the parent's unit recorded as done, so its note never listed the agent (until its file
    changed); now the unit stays to be read until it is redone."""
    from exporter import export as export_module
    from exporter.outcome import Interrupted

    home, vault = tmp_path / "home", tmp_path / "vault"
    folder = home / ".claude" / "projects" / "-w-old"
    sid = "00000007-0000-4000-8000-000000000000"
    parent = ClaudeSession(sid, "/w/old")
    parent.user("old parent prompt")
    parent.assistant("old parent reply")
    parent.write(folder / f"{sid}.jsonl")
    write_agent_file(folder, sid, "/w/old")
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=1)
    export_unit = export_module._Run._export_unit

    def ctrl_c_when_redoing(self, adapter, ref):
        if self._again_pass:
            raise KeyboardInterrupt
        return export_unit(self, adapter, ref)

    monkeypatch.setattr(export_module._Run, "_export_unit", ctrl_c_when_redoing)
    try:
        run_export(options)
    except Interrupted:
        pass
    else:
        raise AssertionError("the run was to be redoing the parent when Ctrl-C came")
    monkeypatch.setattr(export_module._Run, "_export_unit", export_unit)
    run_export(options)
    note = next(p for p in vault.rglob("*old parent prompt*.md") if "agent" not in p.name)
    assert f"agent {AGENT}" in note.read_text()
    last = run_export(options)
    assert last.total("skipped") == last.total("found") == 2  # and then it is done
