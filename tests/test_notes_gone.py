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


MANY = [f"90e00000-0000-4000-8000-0000000001{n:02d}" for n in range(12)]


def exported_many(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    for n, sid in enumerate(MANY):
        write_session(home, [f"first {n}"], sid=sid)
    export(vault, home)
    return home, vault, sorted((vault / "AI Sessions" / "claude-code" / "app").glob("*.md"))


def test_most_notes_gone_at_once_stops_the_run_as_all_gone_does(tmp_path):
    """11 of 12 notes gone at once (a sync tool that has brought one back so far, a restore
    from an older backup) is no decision taken note by note: the run stops as when all are
    gone, and doctor says so. Before, 11 were recorded as deleted by the person (review29
    F3: 40 of 41)."""
    home, vault, notes = exported_many(tmp_path)
    for note in notes[1:]:
        note.unlink()
    before = (vault / ".ccexport" / "state.json").read_bytes()
    with pytest.raises(ExporterError, match="11 of the 12 session notes .* gone at once"):
        export(vault, home)
    assert (vault / ".ccexport" / "state.json").read_bytes() == before
    said = [c for c in vault_checks(vault) if c.status == "attention"]
    assert len(said) == 1 and "11 of the 12" in said[0].message
    report = export(vault, home, accept_deleted=True)
    assert report.total("deleted") == 11


def test_half_the_notes_deleted_or_moved_elsewhere_is_no_lost_folder(tmp_path):
    """Half of them deleted is still the person's decision; notes moved elsewhere in the
    vault are found by identity, not counted as gone."""
    home, vault, notes = exported_many(tmp_path)
    (vault / "Archive").mkdir()
    for note in notes[:5]:
        note.rename(vault / "Archive" / note.name)
    for note in notes[5:11]:
        note.unlink()
    report = export(vault, home)
    assert report.total("deleted") == 6 and not report.failed
    assert sum(r.deleted for r in State.load(vault).notes.values()) == 6


@pytest.mark.parametrize(
    ("removed", "said"),
    [
        ("AI Sessions", "(AI Sessions not there)"),
        # the notes' own folder went, the one above it (the index notes) is there
        ("AI Sessions/claude-code", "(AI Sessions/claude-code not there)"),
        # every note deleted, their folders all there
        (None, "(they were in AI Sessions)"),
    ],
)
def test_the_stop_says_which_folder_is_not_there_and_only_that(tmp_path, removed, said):
    """review50 L2: with only ``claude-code/`` deleted, the stop said "(AI Sessions not
    there)", though that folder was there with its index notes."""
    home, vault = exported(tmp_path)
    if removed:
        shutil.rmtree(vault / removed)
    else:
        for path in (vault / "AI Sessions" / "claude-code").rglob("*.md"):
            path.unlink()
    assert (vault / "AI Sessions").is_dir() == (removed != "AI Sessions")
    with pytest.raises(ExporterError, match="are all gone") as stopped:
        export(vault, home)
    assert said in str(stopped.value)
    assert str(stopped.value).count("not there") == (1 if removed else 0)
