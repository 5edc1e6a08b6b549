"""A machine without ccexport's record of the vault (a new one, or .ccexport/ lost: sync
tools do not carry it) cannot know which notes were deleted on purpose, and writes them
again; the run says so, where before it was silent (review29 F2)."""

from __future__ import annotations

import shutil

from conftest import note_files
from vault_builder import export, write_session

SIDS = [f"7a000000-0000-4000-8000-00000000000{n}" for n in range(3)]


def test_a_run_without_a_record_of_the_vaults_notes_says_deleted_ones_come_back(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    for n, sid in enumerate(SIDS):
        write_session(home, [f"question {n}"], sid=sid)
    assert not export(vault, home).problems  # a first export: no notes to have a record of
    deleted = sorted(note_files(vault))[0]
    (vault / deleted).unlink()
    shutil.rmtree(vault / ".ccexport")
    dry = export(vault, home, dry_run=True)
    (said,) = [p.message for p in dry.problems if p.path == ".ccexport/state.json"]
    assert "no record of the 2 session notes" in said and "would list as created" in said
    report = export(vault, home)
    (said,) = [p.message for p in report.problems if p.path == ".ccexport/state.json"]
    assert "a note deleted from the vault before" in said and "run lists as created" in said
    assert "Delete again any you deleted before" in said
    assert report.total("created") == 1 and deleted in note_files(vault)
    assert not export(vault, home).problems  # the record is kept from then on: said once
