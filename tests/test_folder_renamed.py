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


def _bases(vault) -> list[str]:
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.base"))


def test_a_machine_without_the_state_follows_the_renamed_folder_too(tmp_path):
    """A new machine, or .ccexport/ lost (sync tools do not carry it): the move is found
    from the vault alone, every session note being below "Chats" and none below the folder
    set. Before, it wrote "AI Sessions/Sessions.base" and the new notes there, and the sync
    tool spread that folder to the machine that had followed the move (review29 F14)."""
    import shutil

    home, vault = _renamed(tmp_path, "Chats")
    shutil.rmtree(vault / ".ccexport")
    report = _export(vault, home)
    assert report.total("created") == 2 and not report.failed
    assert not (vault / "AI Sessions").exists()
    assert all(f.startswith("Chats/") for f in note_files(vault, index=True))
    assert _bases(vault) == ["Chats/Sessions.base"]
    (said,) = [p.message for p in report.problems if "is not in the vault" in p.message]
    assert 'folder = "Chats"' in said


def test_the_old_folder_holding_only_what_ccexport_wrote_is_not_there_again(tmp_path):
    """The machine that followed the move gets, by sync, the "AI Sessions" folder another
    machine wrote without knowing of it (its Sessions.base, an index note): only what
    ccexport writes beside notes, so the move is still followed, and the warning says the
    old folder may go. Before, new notes went back to "AI Sessions" without a word."""
    home, vault = _renamed(tmp_path, "Chats")
    _export(vault, home)  # follows the move (recorded in the state)
    old = vault / "AI Sessions"
    (old / "Projects").mkdir(parents=True)
    for name in ("Sessions.base", "Projects.md", "Projects/app.md"):
        (old / name).write_bytes((vault / "Chats" / name).read_bytes())
    (old / "claude-code" / "app").mkdir(parents=True)  # (a sync tool's empty folders)
    _session(home, _sid(9), "app", "one more question in app")
    report = _export(vault, home)
    assert report.total("created") == 1
    assert not list((old / "claude-code").rglob("*.md"))
    (said,) = [p.message for p in report.problems if p.path == "Chats"]
    assert '"AI Sessions" holds only files ccexport wrote' in said
    assert 'folder = "Chats"' in said
    assert _bases(vault) == ["AI Sessions/Sessions.base", "Chats/Sessions.base"]
    # A note of the person's in it makes it theirs again: new notes go there
    (old / "mine.md").write_text("my own note\n")
    _session(home, _sid(10), "app", "and another")
    again = _export(vault, home)
    assert again.total("created") == 1 and not [p for p in again.problems if p.path == "Chats"]
    assert any(f.startswith("AI Sessions/claude-code/app/") for f in note_files(vault))


def test_without_the_state_notes_spread_over_folders_are_no_renamed_folder(tmp_path):
    """No one folder holds more than half of the vault's session notes: nothing is
    followed, and new notes go to the folder set."""
    import shutil

    home, vault = tmp_path / "home", tmp_path / "v"
    for n in range(4):
        _session(home, _sid(n + 1), f"p{n}", f"question {n}")
    _export(vault, home)
    for n in range(4):
        os.renames(vault / "AI Sessions" / "claude-code" / f"p{n}",
                   vault / f"mine{n % 2}" / "claude-code" / f"p{n}")  # fmt: skip
    shutil.rmtree(vault / "AI Sessions")
    shutil.rmtree(vault / ".ccexport")
    _session(home, _sid(8), "newproj", "a question in a new project")
    report = _export(vault, home)
    assert not any("is not in the vault" in p.message for p in report.problems)
    assert any(f.startswith("AI Sessions/claude-code/newproj/") for f in note_files(vault))


def test_a_renamed_project_folder_gets_the_projects_new_notes(tmp_path):
    """The person renamed a project's folder in Obsidian: its new sessions go there, as
    the notes' own folder's move is followed. Before, a second folder of the old name was
    made for them (review29 F13). A project folder moved elsewhere (into an archive) is no
    rename: its new sessions go to the project's folder again."""
    home, vault = tmp_path / "home", tmp_path / "v"
    for n in range(2):
        _session(home, _sid(n + 1), "app", f"question {n}")
        _session(home, _sid(n + 5), "web", f"web question {n}")
    _export(vault, home)
    sessions = vault / "AI Sessions" / "claude-code"
    os.rename(sessions / "app", sessions / "My app")
    (vault / "Archive").mkdir()
    os.rename(sessions / "web", vault / "Archive" / "web")
    _session(home, _sid(3), "app", "a new question in app")
    _session(home, _sid(7), "web", "a new question in web")
    report = _export(vault, home)
    assert report.total("created") == 2 and not report.problems
    assert not (sessions / "app").exists()
    assert len(list((sessions / "My app").glob("*.md"))) == 3
    assert len(list((sessions / "web").glob("*.md"))) == 1  # (archived: not followed)
