"""A vault whose every recorded note is gone (its session folder vanished: a sync tool's bad
day, a vault restored without it) is not taken for the person deleting each note: the run
stops and says so, also under --quiet, and records nothing; --restore writes them again.
Each note was left deleted for good, silently at night (from the sync audit)."""

from __future__ import annotations

import shutil

import pytest
from conftest import note_files
from vault_builder import export, run_cli, write_session

from exporter.doctor import vault_checks
from exporter.errors import ExporterError
from exporter.state import State

SIDS = [f"90e00000-0000-4000-8000-00000000000{n}" for n in range(4)]


def exported(tmp_path, prompts=("first",)):
    home, vault = tmp_path / "home", tmp_path / "vault"
    for n, sid in enumerate(SIDS):
        write_session(home, [f"{p} {n}" for p in prompts], sid=sid)
    export(vault, home)
    return home, vault


def grow(home):
    for n, sid in enumerate(SIDS):
        write_session(home, [f"first {n}", f"second {n}"], sid=sid)


def test_a_vanished_session_folder_stops_the_run_and_restore_brings_the_notes_back(tmp_path):
    home, vault = exported(tmp_path)
    shutil.rmtree(vault / "AI Sessions")
    grow(home)
    before = (vault / ".ccexport" / "state.json").read_bytes()
    with pytest.raises(ExporterError, match="the 4 session notes .* are all gone"):
        export(vault, home)
    with pytest.raises(ExporterError, match="--restore"):
        export(vault, home, dry_run=True)
    assert (vault / ".ccexport" / "state.json").read_bytes() == before
    assert not any(r.deleted for r in State.load(vault).notes.values())
    quiet = run_cli("--vault", str(vault), "--home", str(home), "--quiet")
    assert quiet.returncode == 1 and "all gone" in quiet.stderr
    said = [c for c in vault_checks(vault) if c.status == "attention"]  # ``ccexport doctor``
    assert len(said) == 1 and "all gone" in said[0].message
    export(vault, home, restore=True)
    notes = note_files(vault)
    assert sum("second" in text.decode() for text in notes.values()) == len(SIDS)


def test_accept_deleted_takes_a_folder_deleted_on_purpose_and_new_sessions_go_on(tmp_path):
    """The person deleted the folder on purpose: --accept-deleted once records the notes as
    deleted by them, and later runs export new sessions again (the review: every run
    stopped, and --restore brought back what they deleted)."""
    home, vault = exported(tmp_path)
    shutil.rmtree(vault / "AI Sessions")
    quiet = run_cli("--vault", str(vault), "--home", str(home), "--quiet", "--accept-deleted")
    assert quiet.returncode == 0, quiet.stderr
    assert all(r.deleted for k, r in State.load(vault).notes.items() if not k.startswith("index"))
    write_session(home, ["brand new"], sid="90e00000-0000-4000-8000-0000000000ff")
    export(vault, home)
    texts = [t.decode() for t in note_files(vault).values()]
    assert any("brand new" in t for t in texts) and not any("first 0" in t for t in texts)


def test_a_renamed_session_folder_is_followed_not_stopped_at(tmp_path):
    home, vault = exported(tmp_path)
    (vault / "AI Sessions").rename(vault / "Sessions AI")
    grow(home)
    report = export(vault, home)
    assert not [p for p in report.problems if p.severity == "error"]
    texts = [t.decode() for p, t in note_files(vault).items() if p.startswith("Sessions AI/")]
    assert sum("second" in t for t in texts) == len(SIDS)


def test_a_person_deleting_some_notes_is_their_decision(tmp_path):
    home, vault = exported(tmp_path)
    folder = vault / "AI Sessions" / "claude-code" / "app"
    for note in sorted(folder.glob("*.md"))[:3]:
        note.unlink()
    grow(home)
    export(vault, home)
    assert sum(r.deleted for r in State.load(vault).notes.values()) == 3


def test_a_deleted_project_index_is_listed_unlinked_and_restore_writes_it_again(tmp_path):
    """The list of projects linked to a project index the person deleted (a dangling link),
    and --restore never wrote it again (from the sync audit)."""
    home, vault = exported(tmp_path)
    index = vault / "AI Sessions" / "Projects" / "app.md"
    index.unlink()
    grow(home)
    export(vault, home)
    projects = (vault / "AI Sessions" / "Projects.md").read_text()
    assert not index.exists() and "[[AI Sessions/Projects/app" not in projects
    assert "- app · 4 sessions" in projects
    export(vault, home, restore=True)  # nothing else changed: the index is written all the same
    assert index.exists()
    assert "[[AI Sessions/Projects/app|app]]" in (vault / "AI Sessions/Projects.md").read_text()
