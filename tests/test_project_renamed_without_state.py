"""A project's folder renamed in Obsidian is followed by a machine without `.ccexport/`
too (a second synced machine's first run, or the folder lost): the vault alone says where
the project's notes are, by their ``project`` property. Before, that machine made a
folder of the project's old name for its new sessions, and the sync tool spread it."""

from __future__ import annotations

import os
import shutil

from claude_builder import ClaudeSession

from exporter.export import ExportOptions, run_export


def _session(home, n: int, project: str, prompt: str) -> None:
    sid = f"{n:08x}-0000-4000-8000-000000000000"
    s = ClaudeSession(sid, f"/home/dev/{project}", start="2026-03-04T10:00:00Z")
    s.user(prompt)
    s.assistant(f"reply to {prompt}")
    s.write(home / ".claude" / "projects" / f"-home-dev-{project}" / f"{sid}.jsonl")


def _export(vault, home):
    from datetime import UTC

    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC))


def test_a_machine_without_the_state_follows_a_renamed_project_folder(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    for n in range(2):
        _session(home, n + 1, "app", f"question {n}")
        _session(home, n + 5, "web", f"web question {n}")
    _export(vault, home)
    sessions = vault / "AI Sessions" / "claude-code"
    os.rename(sessions / "app", sessions / "My app")
    (vault / "Archive").mkdir()
    os.rename(sessions / "web", vault / "Archive" / "web")
    shutil.rmtree(vault / ".ccexport")
    _session(home, 0, "app", "a new question in app")  # (read before the project's notes)
    _session(home, 7, "web", "a new question in web")
    report = _export(vault, home)
    assert report.total("created") == 2 and not report.failed
    assert not (sessions / "app").exists()
    assert len(list((sessions / "My app").glob("*.md"))) == 3
    assert len(list((sessions / "web").glob("*.md"))) == 1  # (archived: not followed)


def test_without_the_state_a_folder_holding_two_projects_is_no_rename(tmp_path):
    """The project's notes spread over two folders beside it (the person sorted them):
    no one folder took the project, and its new session goes to its own folder."""
    home, vault = tmp_path / "home", tmp_path / "v"
    for n in range(2):
        _session(home, n + 1, "app", f"question {n}")
    _export(vault, home)
    sessions = vault / "AI Sessions" / "claude-code"
    first, second = sorted((sessions / "app").glob("*.md"))
    (sessions / "Mine A").mkdir()
    (sessions / "Mine B").mkdir()
    os.rename(first, sessions / "Mine A" / first.name)
    os.rename(second, sessions / "Mine B" / second.name)
    (sessions / "app").rmdir()
    shutil.rmtree(vault / ".ccexport")
    _session(home, 3, "app", "a new question in app")
    report = _export(vault, home)
    assert report.total("created") == 1
    assert len(list((sessions / "app").glob("*.md"))) == 1
