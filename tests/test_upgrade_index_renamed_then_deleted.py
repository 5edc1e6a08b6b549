"""A project's index note moved in Obsidian (with the whole "AI Sessions" folder, or by
itself), then deleted before a run. Obsidian rewrote the list of projects' link to it, and
that link now leads to a name no note has: the list of projects was taken for the person's
edit, and a conflict copy was made. The link's alias, the project's name, says whose it
was, as a session note's title does for links to a session (README "Your notes are
yours"). Found by the upgrade audit, on a vault an older ccexport wrote (its state has no
``run`` or ``was`` columns) and on a vault of this version alike."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from claude_builder import ClaudeSession
from test_index_after_obsidian_rename import conflicts, export


def session(home: Path, project: str, n: int, turns: int = 1) -> None:
    sid = f"{n + 0xB0:08x}-2222-4222-8222-{n:012x}"
    s = ClaudeSession(sid, f"/home/dev/work/{project}", start=f"2026-03-0{n + 1}T10:00:00Z")
    for turn in range(turns):
        s.user(f"question {turn} about {project}")
        s.assistant(f"answer {turn}")
    s.write(home / f".claude/projects/-home-dev-work-{project}" / f"{sid}.jsonl")


def as_an_older_version_wrote_it(vault: Path) -> None:
    """The state as ccexport wrote it before 4 December: no runs counted, no earlier paths
    or reads of notes (format 2 all the same)."""
    path = vault / ".ccexport/state.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    for column in ("run", "was", "read"):
        data["notes"].pop(column, None)
    data.pop("run", None)
    data.pop("titles", None)
    path.write_text(json.dumps(data), encoding="utf-8")


def rewrite_links(vault: Path, old: str, new: str) -> None:
    """Obsidian's rewrite of every link by path (``[[AI Sessions/Projects/web|web]]``)."""
    for note in vault.rglob("*.md"):
        text = note.read_text(encoding="utf-8")
        if f"[[{old}" in text:
            note.write_text(text.replace(f"[[{old}", f"[[{new}"), encoding="utf-8")


@pytest.mark.parametrize("state", ["this version's", "an older version's"])
@pytest.mark.parametrize("moved", ["the whole folder renamed", "the index alone moved"])
def test_an_index_moved_then_deleted_leaves_the_list_of_projects_no_edit(
    tmp_path: Path, state: str, moved: str
) -> None:
    home, vault = tmp_path / "home", tmp_path / "vault"
    session(home, "web", 0)
    session(home, "api", 1)
    export(vault, home)
    if state == "an older version's":
        as_an_older_version_wrote_it(vault)
    if moved == "the whole folder renamed":
        os.rename(vault / "AI Sessions", vault / "AI Chats")
        rewrite_links(vault, "AI Sessions/", "AI Chats/")
        projects, index = vault / "AI Chats/Projects.md", vault / "AI Chats/Projects/web.md"
    else:
        (vault / "Archive").mkdir()
        index = vault / "Archive/web.md"
        os.rename(vault / "AI Sessions/Projects/web.md", index)
        rewrite_links(vault, "AI Sessions/Projects/web", "Archive/web")
        projects = vault / "AI Sessions/Projects.md"
    assert "[[AI Sessions/Projects/web" not in projects.read_text(encoding="utf-8")
    index.unlink()  # then deleted in Obsidian, before a run
    session(home, "web", 0, turns=2)  # the session grew: the indexes are written again
    report = export(vault, home)
    assert not conflicts(report, vault)
    text = projects.read_text(encoding="utf-8")
    assert "- web · 1 session" in text  # listed without a link: its index was deleted
    assert "[[AI Sessions/Projects/api|api]]" in text or "[[AI Chats/Projects/api|api]]" in text
    again = export(vault, home)  # and the next run settles
    assert {c.action.value for c in [*again.changes, *again.indexes]} <= {"unchanged", "deleted"}


def test_a_link_to_a_deleted_index_the_person_pointed_elsewhere_stays_their_edit(
    tmp_path: Path,
) -> None:
    home, vault = tmp_path / "home", tmp_path / "vault"
    session(home, "web", 0)
    session(home, "api", 1)
    export(vault, home)
    (vault / "AI Sessions/Projects/web.md").unlink()
    (vault / "My web notes.md").write_text("mine\n", encoding="utf-8")
    rewrite_links(vault, "AI Sessions/Projects/web|", "My web notes|")
    session(home, "web", 0, turns=2)
    report = export(vault, home)
    assert [c.relpath for c in conflicts(report, vault) if hasattr(c, "relpath")] == [
        "AI Sessions/Projects.md"
    ]
