"""A part note or a subagent's note renamed in Obsidian, then deleted, before the notes
are rendered anew (by an upgrade of ccexport; here by a changed time zone). Obsidian had
rewritten the links to it in its neighbours' generated parts: "continued in [[…|part 2]]",
a parent's "Full transcript: [[…]]". Those links name neither the note's title nor any
note left, so the neighbours were taken for the person's edits and copied to
.ccexport/conflicts. A link with no title to go by is known by the note's place: another
part of the same session, the note's subagent or its parent, or the note another link of
the same text, with an alias, leads to. Found by the upgrade audit."""

from __future__ import annotations

import os
import re
from datetime import UTC, timedelta, timezone
from pathlib import Path

from claude_builder import ClaudeSession, image_block, tiny_png, tool_use

from exporter.export import ExportOptions, run_export

SID = "c0c0c0c0-3333-4333-8333-000000000001"
AGENT = "feed123"


def long_session(home: Path) -> None:
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-01T10:00:00Z")
    for n in range(60):
        s.user(f"Step {n}: run it. " + "context " * 40)
        s.assistant("Ran it. " + "explanation " * 200)
    s.write(home / ".claude/projects/-home-dev-work-app" / f"{SID}.jsonl")


def with_subagent(home: Path) -> None:
    folder = home / ".claude/projects/-home-dev-work-app"
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-01T10:00:00Z")
    # (an embed too: a link to no note, which no subagent's place may stand for)
    s.user([image_block(tiny_png()), {"type": "text", "text": "Look at the tests."}])
    call = {"description": "Survey tests", "prompt": "List the tests.", "subagent_type": "Explore"}
    s.assistant([tool_use("Task", call, "toolu_t1")])
    s.tool_result("toolu_t1", [{"type": "text", "text": "Found 3 tests."},
                               {"type": "text", "text": f"agentId: {AGENT} (for resuming)"}],
                  rich={"status": "completed", "agentId": AGENT, "totalTokens": 90})  # fmt: skip
    s.assistant("There are 3 tests.")
    s.write(folder / f"{SID}.jsonl")
    agent = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-01T10:00:10Z",
                          sidechain=True, agent_id=AGENT)  # fmt: skip
    agent.user("List the tests.", parent=None)
    agent.assistant("Found 3 tests.")
    agent.write(folder / SID / "subagents" / f"agent-{AGENT}.jsonl")


def export(vault: Path, home: Path, tz=UTC, templates: Path | None = None):
    report = run_export(
        ExportOptions(
            vault=vault,
            home=home,
            timezone=tz,
            workers=1,
            note_max_bytes=64 * 1024,
            templates=templates,
        )  # fmt: skip
    )
    assert not report.failed, report.problems
    return report


def conflicts(report, vault: Path) -> list:
    found = [c for c in [*report.changes, *report.indexes] if c.action.value == "conflict"]
    return found + list((vault / ".ccexport").glob("conflicts/*"))


def rename_in_obsidian(vault: Path, note: Path, new: str) -> Path:
    """The note renamed, and every link to it rewritten, as Obsidian does."""
    renamed = note.with_name(f"{new}.md")
    os.rename(note, renamed)
    link = re.compile(r"\[\[" + re.escape(note.stem) + r"(?=[|\]#])")
    for other in vault.rglob("*.md"):
        text = other.read_text(encoding="utf-8")
        if link.search(text):
            other.write_text(link.sub("[[" + new, text), encoding="utf-8")
    return renamed


def test_a_part_renamed_then_deleted_leaves_its_neighbours_no_edit(tmp_path: Path) -> None:
    home, vault = tmp_path / "home", tmp_path / "vault"
    long_session(home)
    export(vault, home)
    parts = sorted(vault.rglob("*(part *).md"))
    assert len(parts) >= 2, "the session fills at least three part notes"
    (second,) = [p for p in parts if p.stem.endswith("(part 2)")]
    neighbours = [p for p in vault.rglob("*.md") if second.stem in p.read_text(encoding="utf-8")]
    rename_in_obsidian(vault, second, "Part two, my name").unlink()
    assert all("Part two, my name|part 2" in p.read_text(encoding="utf-8") for p in neighbours)
    report = export(vault, home, timezone(timedelta(hours=9)))  # every note rendered anew
    assert not conflicts(report, vault)
    assert not (vault / "AI Sessions/claude-code/app" / second.name).exists()  # left deleted


def _exported_with_subagent(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """(home, vault, the subagent's note, its parent's) after one export."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    with_subagent(home)
    export(vault, home)
    (agent,) = vault.rglob(f"* · agent {AGENT}.md")
    (parent,) = [p for p in vault.rglob("*.md") if p != agent and agent.stem in p.read_text()]
    return home, vault, agent, parent


def test_a_subagent_renamed_then_deleted_leaves_its_parent_no_edit(tmp_path: Path) -> None:
    home, vault, agent, parent = _exported_with_subagent(tmp_path)
    rename_in_obsidian(vault, agent, "Test survey, mine").unlink()
    assert "Full transcript: [[Test survey, mine]]" in parent.read_text(encoding="utf-8")
    report = export(vault, home, timezone(timedelta(hours=9)))
    assert not conflicts(report, vault)
    assert "Full transcript: [[Test survey, mine]]" not in parent.read_text(encoding="utf-8")


def test_a_link_the_person_pointed_at_their_own_note_stays_their_edit(tmp_path: Path) -> None:
    home, vault, agent, parent = _exported_with_subagent(tmp_path)
    (vault / "My survey.md").write_text("mine\n", encoding="utf-8")
    text = parent.read_text(encoding="utf-8")
    parent.write_text(text.replace(f"Full transcript: [[{agent.stem}]]",
                                   "Full transcript: [[My survey]]"), encoding="utf-8")  # fmt: skip
    agent.unlink()
    report = export(vault, home, timezone(timedelta(hours=9)))
    assert [c.relpath for c in report.changes if c.action.value == "conflict"] == [
        str(parent.relative_to(vault))
    ]


def test_a_templates_own_link_to_a_file_is_left_as_it_is(tmp_path: Path) -> None:
    """A link of the person's template to a file, not a note (leads to no note, has no
    title): none of the parent's gone subagents stands for it."""
    home, vault, templates = tmp_path / "home", tmp_path / "vault", tmp_path / "templates"
    templates.mkdir()
    shipped = Path(__file__).parent.parent / "templates" / "session.md.j2"
    text = shipped.read_text(encoding="utf-8")
    (templates / "session.md.j2").write_text(text + "\nSee [[files/readme.txt]]\n", "utf-8")
    with_subagent(home)
    export(vault, home, templates=templates)
    (agent,) = vault.rglob(f"* · agent {AGENT}.md")
    (parent,) = [p for p in vault.rglob("*.md") if p != agent and agent.stem in p.read_text()]
    assert "See [[files/readme.txt]]" in parent.read_text(encoding="utf-8")
    rename_in_obsidian(vault, agent, "Test survey, mine").unlink()
    report = export(vault, home, timezone(timedelta(hours=9)), templates)
    assert not conflicts(report, vault)
