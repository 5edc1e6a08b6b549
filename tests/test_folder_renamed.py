"""The notes' folder renamed or moved in Obsidian (README: "the whole `AI Sessions`
folder"): new notes, index notes and the Sessions.base follow it, with a warning that says
how to make it the setting. Before, the next new session made a second `AI Sessions/`
beside the notes, with its own base and the new projects' index notes (review15 finding 2)."""

from __future__ import annotations

import os
from datetime import UTC

from claude_builder import ClaudeSession
from conftest import note_files

from exporter.export import ExportOptions, run_export


def _session(home, sid: str, project: str, prompt: str) -> None:
    s = ClaudeSession(sid, f"/home/dev/{project}", start="2026-03-04T10:00:00Z")
    s.user(prompt)
    s.assistant(f"reply to {prompt}")
    s.write(home / ".claude" / "projects" / f"-home-dev-{project}" / f"{sid}.jsonl")


def _export(vault, home, **kw):
    return run_export(ExportOptions(vault=vault, home=home, **{"timezone": UTC, **kw}))


def _sid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-000000000000"


def _renamed(tmp_path, to: str):
    home, vault = tmp_path / "home", tmp_path / "v"
    for n in range(3):
        _session(home, _sid(n + 1), "app", f"question {n}")
    _export(vault, home)
    (vault / to).parent.mkdir(parents=True, exist_ok=True)
    os.rename(vault / "AI Sessions", vault / to)
    _session(home, _sid(7), "app", "a new question in app")
    _session(home, _sid(8), "newproj", "a question in a new project")
    return home, vault


def test_new_notes_follow_the_renamed_folder(tmp_path):
    home, vault = _renamed(tmp_path, "Chats")
    report = _export(vault, home)
    assert report.total("created") == 2 and not report.failed
    assert not (vault / "AI Sessions").exists()
    files = note_files(vault, index=True)
    assert all(f.startswith("Chats/") for f in files), files
    assert "Chats/Projects/newproj.md" in files and "Chats/Projects.md" in files
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.base")) == [
        "Chats/Sessions.base"
    ]
    (said,) = [p.message for p in report.problems]
    assert 'folder = "Chats"' in said and '"AI Sessions" is not in the vault' in said
    # Said on every run until it is the setting; then nothing is rendered again
    again = _export(vault, home)
    assert again.total("created") == again.total("updated") == 0 and len(again.problems) == 1
    settled = _export(vault, home, folder="Chats")
    assert settled.total("updated") == 0 and not settled.problems


def test_a_folder_moved_into_another_follows_too(tmp_path):
    home, vault = _renamed(tmp_path, "Archive/AI Sessions")
    report = _export(vault, home)
    assert not (vault / "AI Sessions").exists()
    assert "Archive/AI Sessions/Projects/newproj.md" in note_files(vault, index=True)
    assert 'folder = "Archive/AI Sessions"' in report.problems[0].message


def test_notes_moved_one_by_one_are_no_renamed_folder(tmp_path):
    """Each note moved alone to a folder of its own (the old one then deleted): no single
    folder took them, so new notes go to the configured folder, as before."""
    home, vault = tmp_path / "home", tmp_path / "v"
    for n in range(3):
        _session(home, _sid(n + 1), "app", f"question {n}")
    _export(vault, home)
    for n, path in enumerate(sorted(note_files(vault))):
        (vault / f"mine{n}").mkdir()
        os.rename(vault / path, vault / f"mine{n}" / path.rsplit("/", 1)[-1])
    os.rename(vault / "AI Sessions", vault / "old")
    _session(home, _sid(8), "newproj", "a question in a new project")
    report = _export(vault, home)
    assert report.total("created") == 1 and not any("is not in the vault" in p.message
                                                    for p in report.problems)  # fmt: skip
    assert any(f.startswith("AI Sessions/claude-code/newproj/") for f in note_files(vault))


def test_a_folder_renamed_twice_is_followed_from_where_it_was(tmp_path):
    home, vault = _renamed(tmp_path, "Chats")
    _export(vault, home)
    os.rename(vault / "Chats", vault / "Talks")
    _session(home, _sid(9), "third", "a question in a third project")
    report = _export(vault, home)
    assert report.total("created") == 1 and 'folder = "Talks"' in report.problems[0].message
    assert sorted(p.name for p in vault.iterdir() if not p.name.startswith(".")) == ["Talks"]
    assert "Talks/Projects/third.md" in note_files(vault, index=True)


def test_doctor_knows_the_folder_moved_and_counts_no_note_to_render_again(tmp_path):
    from typer.testing import CliRunner

    from exporter.cli import app

    home, vault = _renamed(tmp_path, "Chats")
    _export(vault, home, timezone=None)  # (doctor's zone: the vault's, as a command's)
    said = CliRunner().invoke(app, ["doctor", "--vault", str(vault), "--home", str(home)]).stdout
    assert 'folder "AI Sessions" is "Chats" now' in said, said
    assert "render" not in said.split("Vault", 1)[1].split("\n\n")[0], said
