"""A vault far above the person's notes (cli10 4): ``--vault /`` listed every Markdown file
of the disk as the vault's own notes, and walked all of it. ``/``, a folder holding the home
folder, and the home folder itself (unless it is a vault already: ``.obsidian/`` or
``.ccexport/``) are refused before anything is read or made; and the walk of a vault's notes
does not enter trees of code (``node_modules``, ``__pycache__``, a virtual environment),
where a copy of a note was taken for the note moved, and updated there. HOME is each test's
own (conftest)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner
from vault_builder import export, the_note, write_session

from exporter import export as export_module
from exporter.cli import app

runner = CliRunner()


def _run(vault: Path, *more: str):
    return runner.invoke(app, ["--vault", str(vault), "--timezone", "UTC", *more])


@pytest.fixture
def no_run(monkeypatch):
    """(a run that got past the check fails at once, reading and making nothing)"""

    def refused(*_args, **_kw):
        raise AssertionError("the run was started")

    monkeypatch.setattr(export_module, "run_export", refused)


@pytest.mark.parametrize("dry_run", [["--dry-run"], []])
def test_the_top_of_the_file_system_is_refused(no_run, dry_run):
    result = _run(Path("/"), *dry_run)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("Error: the vault / is the top of the file system")
    assert "--vault ~/Notes" in result.stderr


def test_a_folder_holding_the_home_folder_is_refused(no_run):
    home = Path.home()
    result = _run(home.parent, "--dry-run")
    assert result.exit_code == 2, result.output
    assert f"is above your home folder ({home})" in result.stderr


def test_the_home_folder_is_refused_unless_it_is_a_vault_already(tmp_path):
    home = Path.home()
    write_session(home, ["a question"])
    result = _run(home, "--home", str(home))
    assert result.exit_code == 2, result.output
    assert "is your home folder" in result.stderr and "open it in Obsidian first" in (result.stderr)
    assert not (home / ".ccexport").exists() and not (home / "AI Sessions").exists()
    (home / ".obsidian").mkdir()  # (opened as a vault in Obsidian: the person's choice)
    result = _run(home, "--home", str(home))
    assert result.exit_code == 0, result.output
    assert (home / "AI Sessions").is_dir()


def test_too_high_names_each_case_and_lets_a_notes_folder_be(tmp_path):
    from exporter.vaultpaths import too_high

    home = tmp_path / "me"
    (home / "Notes").mkdir(parents=True)
    assert "top of the file system" in too_high(Path("/"), home)
    (tmp_path / "top").symlink_to("/")
    assert "is the top of the file system (/)" in too_high(tmp_path / "top", home)
    assert "above your home folder" in too_high(tmp_path, home)
    assert "your home folder" in too_high(home, home)
    assert too_high(home / "Notes", home) is None
    assert too_high(tmp_path / "elsewhere", home) is None  # (another drive, a share)
    (home / ".ccexport").mkdir()
    assert too_high(home, home) is None


def _exported_with_copies(tmp_path, folders: list[str]):
    home, vault = tmp_path / "h", tmp_path / "vault"
    write_session(home, ["hello there"])
    export(vault, home)
    note = the_note(vault)
    for folder in folders:
        (vault / folder).mkdir(parents=True)
        shutil.copy(note, vault / folder / "copy.md")
    return home, vault, note


@pytest.mark.parametrize("tree", ["code/node_modules/pkg", "code/__pycache__", "env/lib"])
def test_a_copy_of_a_note_in_a_tree_of_code_is_not_taken_for_the_note(tmp_path, tree):
    home, vault, note = _exported_with_copies(tmp_path, [tree])
    (vault / "env" / "pyvenv.cfg").parent.mkdir(exist_ok=True)
    (vault / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    note.unlink()  # (the person deleted the note; the session grows)
    write_session(home, ["hello there", "and again"])
    report = export(vault, home)
    assert [c.relpath for c in report.changes] == [note.relative_to(vault).as_posix()]
    assert report.total("deleted") == 1 and report.total("updated") == 0
    assert "and again" not in (vault / tree / "copy.md").read_text()


def test_a_notes_folder_named_like_a_tree_of_code_is_still_walked(tmp_path):
    """(a project whose folder is named node_modules: its notes' folder is walked)"""
    home, vault = tmp_path / "h", tmp_path / "vault"
    write_session(home, ["hello there"], cwd="/home/dev/node_modules")
    export(vault, home)
    note = the_note(vault)
    assert "/node_modules/" in note.as_posix()
    write_session(home, ["hello there", "and again"], cwd="/home/dev/node_modules")
    report = export(vault, home)
    assert report.total("updated") == 1 and "and again" in note.read_text()
