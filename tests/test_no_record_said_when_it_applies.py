"""The warning of a run without a record of the vault (a new machine, .ccexport/ lost:
"a note deleted from the vault before … is written again", review29 F2) is said only by a
run that created session notes, and names them: one that found every note where it was
created none, and has nothing to ask the person to delete again. Before, every such run
said it."""

from __future__ import annotations

import shutil

from conftest import note_files
from vault_builder import export, write_session

SIDS = [f"7b000000-0000-4000-8000-00000000000{n}" for n in range(3)]
WARNED = ".ccexport/state.json"


def _exported_then_record_lost(tmp_path, sids=SIDS):
    home, vault = tmp_path / "home", tmp_path / "v"
    for n, sid in enumerate(sids):
        write_session(home, [f"question {n}"], sid=sid)
    export(vault, home)
    shutil.rmtree(vault / ".ccexport")
    return home, vault


def test_a_run_without_a_record_that_creates_nothing_says_nothing_of_it(tmp_path):
    home, vault = _exported_then_record_lost(tmp_path)
    for dry_run in (True, False):
        report = export(vault, home, dry_run=dry_run)
        assert report.total("created") == 0
        assert not [p for p in report.problems if p.path == WARNED], report.problems


def test_it_is_said_with_the_notes_the_run_created(tmp_path):
    home, vault = _exported_then_record_lost(tmp_path)
    deleted = sorted(note_files(vault))[0]
    (vault / deleted).unlink()
    write_session(home, ["a new question"], sid="7b000000-0000-4000-8000-00000000000f")
    report = export(vault, home)
    (said,) = [p.message for p in report.problems if p.path == WARNED]
    assert "no record of the 2 session notes" in said
    assert "the 2 session notes this run lists as created (" in said
    assert deleted.rpartition("/")[2] in said and "Delete again any you deleted before" in said
