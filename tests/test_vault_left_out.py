"""What a walk of the vault leaves out (review48 H1, H2).

A folder that is a vault of its own (``.ccexport/``, ``.obsidian/``) is outside the vault, as
the dot folders are: before, ``--vault`` on a folder holding another vault adopted its notes
as a "renamed AI Sessions folder", rewrote its ``Projects.md`` with links that break inside
it, and later told the person to delete them as "second copies". A ccexport note whose name
is not valid UTF-8 made every run fail in the state's save, naming no file: it is left as
it is, and named in one warning."""

from __future__ import annotations

import os
import sys

import pytest
from conftest import note_files
from test_folder_renamed import _export, _session, _sid

from exporter.state import State


def _home(tmp_path, n: int = 3):
    home = tmp_path / "home"
    for k in range(n):
        _session(home, _sid(k + 1), "app", f"question {k}")
    return home


def _asked_again_with(tmp_path, mark: str):
    """A vault exported once, then ``mark`` (``.obsidian``, ``.ccexport``) made in its
    notes' folder, and one session grown: the vault and the second run's report."""
    home = _home(tmp_path)
    vault = tmp_path / "v"
    _export(vault, home)
    (vault / "AI Sessions" / mark).mkdir()
    _session(home, _sid(1), "app", "question 0, asked again")
    return vault, _export(vault, home)


def _tree(folder) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".ccexport" not in p.parts
    }


@pytest.mark.parametrize("marks", [[".ccexport"], [".obsidian"], [".ccexport", ".obsidian"]])
def test_a_vault_in_a_folder_of_the_vault_is_not_adopted(tmp_path, marks):
    home = _home(tmp_path)
    outer = tmp_path / "Obsidian"
    inner = outer / "Personal"
    outer.mkdir()
    _export(inner, home)
    for mark in marks:
        (inner / mark).mkdir(exist_ok=True)
    before = _tree(inner)
    report = _export(outer, home)
    assert report.total("created") == 3 and not report.failed
    assert _tree(inner) == before  # (its Projects.md not rewritten with links of the outer)
    own = [p for p in note_files(outer) if not p.startswith("Personal/")]
    assert len(own) == 3 and all(p.startswith("AI Sessions/claude-code/") for p in own)
    said = [p for p in report.problems if p.path == "Personal"]
    assert len(said) == 1 and "a vault of its own" in said[0].message
    assert str(inner) in said[0].message and "renamed" not in str(report.problems)
    # A new turn: no "second copy" of the inner vault's notes, nothing written there
    _session(home, _sid(1), "app", "question 0, asked again")
    again = _export(outer, home)
    assert "second copy" not in str(again.problems) and _tree(inner) == before
    assert [p.path for p in again.problems] == ["Personal"]


def test_an_obsidian_folder_among_the_notes_leaves_them_this_vaults(tmp_path):
    """The person opens the notes' folder as a vault of its own too (on a phone): Obsidian
    shows a nested vault as a plain folder of the outer one, and the notes this vault
    recorded there stay its own (no run stops for "the notes are all gone")."""
    vault, report = _asked_again_with(tmp_path, ".obsidian")
    assert report.total("updated") == 1 and report.total("created") == 0
    assert not report.problems


@pytest.mark.skipif(sys.platform != "linux", reason="names that are not UTF-8: Linux's own")
def test_a_note_whose_name_is_not_utf8_is_left_alone_and_named(tmp_path):
    home = _home(tmp_path)
    vault = tmp_path / "v"
    _export(vault, home)
    folder = vault / "AI Sessions" / "claude-code" / "app"
    bad = os.path.join(os.fsencode(folder.parent), b"ap\xffp")
    os.rename(os.fsencode(folder), bad)
    _session(home, _sid(9), "other", "a new session elsewhere")
    report = _export(vault, home)
    assert report.total("created") == 1 and report.total("deleted") == 0 and not report.failed
    (said,) = report.problems
    assert said.path == "AI Sessions/claude-code/ap\\xffp"
    assert "not valid UTF-8" in said.message and "convmv" in said.message
    assert not (vault / ".ccexport" / "running").exists()
    state = State.load(vault)
    assert not any(r.deleted for r in state.notes.values())
    assert len(os.listdir(bad)) == 3  # left as they were
    # Renamed to UTF-8: the notes are found again, nothing to say
    os.rename(bad, os.fsencode(folder))
    again = _export(vault, home)
    assert again.total("created") == again.total("updated") == 0 and not again.problems
    assert not any(r.deleted for r in State.load(vault).notes.values())


def test_a_locale_that_is_not_utf8_is_named(monkeypatch, tmp_path):
    """``LC_ALL=C PYTHONUTF8=0``: a UTF-8 name is read as surrogates; the warning says why."""
    from exporter.vaultpaths import LeftOut

    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "ascii")
    left = LeftOut(tmp_path, State())
    assert left.undecodable("AI Sessions/caf\udcc3\udca9.md", "claude-code:x")
    (said,) = left.said
    assert "file-system encoding is ascii, not UTF-8" in said.message
    assert "LANG=C.UTF-8" in said.message and said.path == "AI Sessions/café.md"
    assert said.message.startswith("the name cannot be read in this locale")
    assert "this ccexport note cannot be recorded" in said.message


def test_the_notes_an_earlier_version_adopted_in_another_vault_are_let_go(tmp_path):
    """The state of a vault whose run took another vault's notes for its moved folder (an
    earlier version did, review48 H1) records notes there, and the folder followed: they are
    forgotten, and its sessions written where this vault's notes go; that vault is not
    written in."""
    home = _home(tmp_path)
    outer = tmp_path / "Obsidian"
    _export(outer, home)
    (outer / "Personal").mkdir()
    os.rename(outer / "AI Sessions", outer / "Personal" / "AI Sessions")
    followed = _export(outer, home)  # (then no vault of its own: the folder is followed)
    assert "renamed or moved" in followed.problems[0].message
    (outer / "Personal" / ".ccexport").mkdir()  # a vault of its own now
    before = _tree(outer / "Personal")
    _session(home, _sid(1), "app", "question 0, asked again")
    report = _export(outer, home)
    assert _tree(outer / "Personal") == before
    assert report.total("created") == 3 and not report.failed
    own = [p for p in note_files(outer) if not p.startswith("Personal/")]
    assert len(own) == 3 and all(p.startswith("AI Sessions/claude-code/") for p in own)
    state = State.load(outer)
    assert not state.folders and all(
        r.path.startswith("AI Sessions/") for r in state.notes.values()
    )
    assert [p.path for p in report.problems] == ["Personal"]


def test_a_backup_of_the_notes_folder_in_the_vault_is_said_once(tmp_path):
    """A copy of ``AI Sessions`` kept in the vault (``Backup/AI Sessions``): one warning for
    the folder, not one "second copy" per note (review48 L4). A sync tool's copy of one
    note is still named alone."""
    import shutil

    home = _home(tmp_path)
    vault = tmp_path / "v"
    _export(vault, home)
    shutil.copytree(vault / "AI Sessions", vault / "Backup" / "AI Sessions")
    app = vault / "AI Sessions" / "claude-code" / "app"
    one = sorted(app.glob("*.md"))[0]
    (app / f"{one.stem}.sync-conflict-20260304-1.md").write_bytes(one.read_bytes())
    _session(home, _sid(1), "app", "question 0, asked again")
    report = _export(vault, home)
    copies = [p for p in report.problems if "second cop" in p.message]
    assert [p.path for p in copies][0] == "Backup/AI Sessions", copies
    assert "second copies of 5 notes in AI Sessions"  # (and the 2 index notes) in copies[0].message
    assert len(copies) == 2 and copies[1].path.endswith(".sync-conflict-20260304-1.md")


def test_the_notes_folder_opened_as_a_vault_stays_this_vaults_on_a_new_machine(tmp_path):
    """``AI Sessions/.obsidian`` (the notes' folder opened as a vault on a phone) and no
    ``.ccexport/`` (a new machine, or it was lost): the notes there are still this vault's;
    no warning says it writes nothing there while it writes there."""
    import shutil

    home = _home(tmp_path)
    vault = tmp_path / "v"
    _export(vault, home)
    (vault / "AI Sessions" / ".obsidian").mkdir()
    shutil.rmtree(vault / ".ccexport")
    before = sorted(note_files(vault, index=True))
    report = _export(vault, home)
    assert report.total("created") == 0 and not report.failed
    assert "a vault of its own" not in str(report.problems)
    assert sorted(note_files(vault, index=True)) == before


def test_a_vault_made_in_the_notes_folder_by_mistake_leaves_them_this_vaults(tmp_path):
    """``ccexport --vault "V/AI Sessions"`` run once by mistake makes ``.ccexport/`` there:
    the notes' folder of V is never taken for another vault, its notes are not let go."""
    vault, report = _asked_again_with(tmp_path, ".ccexport")
    assert report.total("updated") == 1 and report.total("created") == 0
    assert "a vault of its own" not in str(report.problems)
    assert len(State.load(vault).notes) >= 3


def test_a_killed_runs_temp_files_are_swept_here_not_in_a_nested_ccexport_vault(tmp_path):
    """The sweep of temp files a killed run left (``vaultrun.sweep_temp_files``) stays out
    of a folder that is a ccexport vault of its own, whose own run may be writing them."""
    from exporter.vaultrun import sweep_temp_files

    outer = tmp_path / "Obsidian"
    inner = outer / "Personal"
    (outer / ".ccexport").mkdir(parents=True)
    (inner / ".ccexport").mkdir(parents=True)
    (outer / "AI Sessions").mkdir()
    ours = outer / "AI Sessions" / ".ccexport-x1.tmp"
    theirs = [inner / ".ccexport-y2.tmp", inner / ".ccexport" / ".ccexport-z3.tmp"]
    for path in (ours, outer / ".ccexport" / ".ccexport-s4.tmp", *theirs):
        path.write_text("half a note")
    assert sweep_temp_files(outer) == 2
    assert not ours.exists() and all(path.exists() for path in theirs)


def test_the_sweep_of_temp_files_does_not_walk_trees_of_code(tmp_path):
    """A killed run's temp files are swept beside notes, not in ``node_modules``,
    ``__pycache__`` or a virtual environment (``pyvenv.cfg``), which the note survey also
    leaves out: no run writes there, and such a tree is long to walk."""
    from exporter.vaultrun import sweep_temp_files

    vault = tmp_path / "Obsidian"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / "AI Sessions").mkdir()
    ours = vault / "AI Sessions" / ".ccexport-x1.tmp"
    venv = vault / "tools" / "venv"
    venv.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    theirs = [
        vault / "site" / "node_modules" / "pkg" / ".ccexport-a1.tmp",
        vault / "lib" / "__pycache__" / ".ccexport-b2.tmp",
        venv / "lib" / ".ccexport-c3.tmp",
    ]
    for path in (ours, *theirs):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half a note")
    assert sweep_temp_files(vault) == 1
    assert not ours.exists() and all(path.exists() for path in theirs)
