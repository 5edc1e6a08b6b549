"""A Claude Code session whose transcript shrank (an older backup, another machine's
shorter copy) keeps its note, and its subagents' notes too (review37 M5): a subagent's
title comes from its parent's Task call, which the shorter copy no longer holds. Kept in
one process and with units read ahead by the pool alike; ``--force`` writes them all;
a subagent with no note yet is written; the whole transcript back, nothing changes.
Synthetic transcripts only."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC
from pathlib import Path

import frontmatter
import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import note_files, stamps

from exporter import workers
from exporter.export import ExportOptions, run_export
from exporter.keptfamily import KEPT_WITH_PARENT, kept_also
from exporter.notes import Note
from exporter.vault import SHRUNK

SID = "5a5a5a5a-1111-4222-8333-444444444444"
AGENT, NEW_AGENT = "a3f9c1e", "b4e0d2f"
QUESTION = "How are the lexer tests laid out?"
TITLE, PROMPT = "Survey lexer tests", "List every lexer test."
FOLDER = ("-w-lexer",)


def _folder(home: Path) -> Path:
    return home.joinpath(".claude", "projects", *FOLDER)


def _parent(home: Path, whole: bool = True) -> None:
    """The session; not ``whole``: its shorter copy, from before the Task call."""
    s = ClaudeSession(SID, "/w/lexer")
    s.user(QUESTION)
    if whole:
        task = {"description": TITLE, "prompt": PROMPT, "subagent_type": "Explore"}
        s.assistant([tool_use("Task", task, "toolu_t1")])
        s.tool_result("toolu_t1", "Found 14.", rich={"status": "completed", "agentId": AGENT})
        s.assistant("There are 14, one file per token kind.")
        s.user("And the parser's?")
        s.assistant("Those are next to them.")
    else:
        s.assistant("Let me look.")
    s.write(_folder(home) / f"{SID}.jsonl")


def _agent(home: Path, agent_id: str = AGENT) -> None:
    """A subagent whose ``.meta.json`` names no description: its title is the Task call's."""
    agent = ClaudeSession(SID, "/w/lexer", sidechain=True, agent_id=agent_id,
                          start="2026-11-20T09:02:00Z")  # fmt: skip
    agent.user(PROMPT if agent_id == AGENT else "Count the parser tests.", parent=None)
    agent.assistant("Found 14 lexer tests.")
    sub = _folder(home) / SID / "subagents"
    agent.write(sub / f"agent-{agent_id}.jsonl")
    meta = {"toolUseId": "toolu_t1", "agentType": "Explore"}
    (sub / f"agent-{agent_id}.meta.json").write_text(json.dumps(meta), encoding="utf-8")


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    _parent(home)
    _agent(home)
    return home


@pytest.fixture(params=["one process", "read ahead"])
def jobs(request, monkeypatch) -> tuple[int, Counter[str]]:
    """The run's workers, and notes handed over rendered by a unit read ahead. Read ahead:
    the pool starts for the one unit read (not only from the 24th), and its family comes
    back rendered from a worker (``LinkPlan.places_as``)."""
    seen: Counter[str] = Counter()
    if request.param == "one process":
        return 1, seen
    monkeypatch.setattr(workers, "PARALLEL_FROM", 1)
    done = workers.Renderer.done

    def counting_done(self, job, outcome):
        seen["rendered ahead"] += isinstance(outcome, Note)
        return done(self, job, outcome)

    monkeypatch.setattr(workers.Renderer, "done", counting_done)
    return 2, seen


def _export(vault: Path, home: Path, jobs: int, **kw):
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=jobs,
                            sources=["claude-code"], **kw)  # fmt: skip
    return run_export(options)


def _agent_note(vault: Path, agent_id: str = AGENT) -> str:
    (text,) = [b.decode() for n, b in note_files(vault).items() if f"agent {agent_id}" in n]
    return text


def _shrunk(tmp_path: Path, workers_: int, seen: Counter[str]):
    """A vault exported from the whole transcript, then from its shorter copy: the vault,
    the home, its notes and their times before the shorter copy, and that run's report."""
    home, vault = _home(tmp_path), tmp_path / "vault"
    _export(vault, home, workers_)
    assert f"title: {TITLE}" in _agent_note(vault)
    before, times = note_files(vault, index=True), stamps(vault)
    seen.clear()
    _parent(home, whole=False)
    return vault, home, before, times, _export(vault, home, workers_)


def test_a_shrunk_parent_keeps_its_subagents_note_as_it_is(tmp_path, jobs):
    workers_, seen = jobs
    vault, _home_, before, times, report = _shrunk(tmp_path, workers_, seen)
    if workers_ > 1:
        assert seen["rendered ahead"] == 2, seen  # (the family came from a worker)
    assert (report.total("updated"), report.total("unchanged")) == (0, 2)
    actions = {c.key.rpartition("/")[2]: (c.action.value, c.message) for c in report.changes}
    assert actions[f"agent-{AGENT}"] == ("kept", KEPT_WITH_PARENT)
    assert actions[f"claude-code:{SID}"][0] == "kept"
    assert note_files(vault, index=True) == before and stamps(vault) == times
    (warning,) = [p for p in report.problems if p.message.startswith(SHRUNK)]
    assert warning.message.endswith(kept_also(1)) and "agent" not in warning.path


def test_the_same_shorter_copy_again_reads_and_writes_nothing(tmp_path, jobs):
    workers_, seen = jobs
    vault, home, before, times, _report = _shrunk(tmp_path, workers_, seen)
    again = _export(vault, home, workers_)
    assert again.total("skipped") == 2 and not again.changes and not again.problems
    assert note_files(vault, index=True) == before and stamps(vault) == times


def test_the_whole_transcript_back_is_read_again_and_changes_no_note(tmp_path, jobs):
    workers_, seen = jobs
    vault, home, before, _times, _report = _shrunk(tmp_path, workers_, seen)
    _parent(home)
    back = _export(vault, home, workers_)
    assert back.total("skipped") == 0 and back.total("written") == 0, back.as_dict()
    assert note_files(vault, index=True) == before and f"title: {TITLE}" in _agent_note(vault)


def test_force_writes_the_family_from_the_shorter_copy(tmp_path, jobs):
    workers_, _seen = jobs
    home, vault = _home(tmp_path), tmp_path / "vault"
    _export(vault, home, workers_)
    _parent(home, whole=False)
    _export(vault, home, workers_)
    forced = _export(vault, home, workers_, force=True)
    assert forced.total("updated") == 2 and not forced.problems, forced.as_dict()
    assert f"title: {TITLE}" not in _agent_note(vault)  # what the shorter copy gives
    assert "There are 14" not in "".join(b.decode() for b in note_files(vault).values())


def test_a_subagent_with_no_note_yet_is_written_beside_the_kept_ones(tmp_path, jobs):
    workers_, _seen = jobs
    home, vault = _home(tmp_path), tmp_path / "vault"
    _export(vault, home, workers_)
    kept = _agent_note(vault)
    _parent(home, whole=False)
    _agent(home, NEW_AGENT)
    report = _export(vault, home, workers_)
    assert (report.total("created"), report.total("updated")) == (1, 0), report.as_dict()
    assert _agent_note(vault) == kept
    parent_stem = next(n for n in note_files(vault) if "agent" not in n).rpartition("/")[2]
    assert f"[[{parent_stem.removesuffix('.md')}" in _agent_note(vault, NEW_AGENT)


def test_a_dry_run_says_the_subagents_note_would_be_kept(tmp_path):
    home, vault = _home(tmp_path), tmp_path / "vault"
    _export(vault, home, 1)
    before, times = note_files(vault, index=True), stamps(vault)
    _parent(home, whole=False)
    report = _export(vault, home, 1, dry_run=True)
    assert [c.action.value for c in report.changes] == ["kept", "kept"]
    assert report.total("updated") == 0
    assert note_files(vault, index=True) == before and stamps(vault) == times


def test_the_warning_counts_every_subagents_note_kept_once(tmp_path):
    home, vault = _home(tmp_path), tmp_path / "vault"
    _agent(home, NEW_AGENT)
    _export(vault, home, 1)
    before = note_files(vault)
    _parent(home, whole=False)
    report = _export(vault, home, 1)
    (warning,) = [p for p in report.problems if p.message.startswith(SHRUNK)]
    assert warning.message.endswith(kept_also(2)) and kept_also(1) not in warning.message
    assert "2 subagents" in kept_also(2) and report.total("unchanged") == 3
    assert note_files(vault) == before


def _grown_agent(home: Path) -> None:
    """The subagent's own file, two turns longer than when its note was written."""
    agent = ClaudeSession(SID, "/w/lexer", sidechain=True, agent_id=AGENT,
                          start="2026-11-20T09:02:00Z")  # fmt: skip
    agent.user(PROMPT, parent=None)
    agent.assistant("Found 14 lexer tests.")
    agent.user("And their sizes?")
    agent.assistant("GROWN answer: all small.")
    agent.write(_folder(home) / SID / "subagents" / f"agent-{AGENT}.jsonl")


def test_a_subagent_whose_own_session_grew_is_written_beside_its_kept_parent(tmp_path, jobs):
    """review38 M2: kept with its parent, the subagent's new turns never reached the vault
    while the parent stayed short. Written, under the title its note had (the shorter
    parent no longer holds the Task call that named it), with no alias of the poorer one."""
    workers_, _seen = jobs
    home, vault = _home(tmp_path), tmp_path / "vault"
    _export(vault, home, workers_)
    parent_before = next(b for n, b in note_files(vault).items() if "agent" not in n)
    _parent(home, whole=False)
    _grown_agent(home)
    report = _export(vault, home, workers_)
    actions = {c.key.rpartition("/")[2]: c.action.value for c in report.changes}
    assert actions == {f"claude-code:{SID}": "kept", f"agent-{AGENT}": "updated"}, actions
    note = _agent_note(vault)
    assert "GROWN answer" in note
    properties = frontmatter.loads(note).metadata
    assert (properties["title"], properties["aliases"]) == (TITLE, [TITLE]), note
    assert f"# {TITLE}\n" in note and PROMPT not in note.partition("\n# ")[2].splitlines()[0]
    assert next(b for n, b in note_files(vault).items() if "agent" not in n) == parent_before
    (warning,) = [p for p in report.problems if p.message.startswith(SHRUNK)]
    assert kept_also(1) not in warning.message
    again = _export(vault, home, workers_)
    assert not again.changes and again.total("written") == 0, again.as_dict()
    grown = note_files(vault)
    _parent(home)  # the whole transcript back: the title it gives is the one kept
    back = _export(vault, home, workers_)
    assert back.total("written") == 0 and note_files(vault) == grown, back.as_dict()


def test_a_grown_subagents_title_the_person_typed_stays_theirs(tmp_path, jobs):
    workers_, _seen = jobs
    home, vault = _home(tmp_path), tmp_path / "vault"
    _export(vault, home, workers_)
    (path,) = [p for p in vault.rglob("*.md") if f"agent {AGENT}" in p.name]
    path.write_text(path.read_text().replace(f"title: {TITLE}\n", "title: Lexer survey\n"))
    _parent(home, whole=False)
    _grown_agent(home)
    _export(vault, home, workers_)
    properties = frontmatter.loads(_agent_note(vault)).metadata
    assert (properties["title"], properties["aliases"]) == ("Lexer survey", [TITLE])
