"""The warning of a run without a record of the vault ("a note deleted from the vault
before … is written again", review29 F2) holds when that run is stopped before its end
(Ctrl-C, a nightly run killed) after creating notes: the next run has a record, of part of
the notes, and said nothing, so the notes deleted before and written again went unnamed.
The vault now keeps a mark until a run finishes, and the next run says it, with the notes
created since (vault5 item 3)."""

from __future__ import annotations

from datetime import UTC

import pytest
from conftest import note_files
from test_no_record_said_when_it_applies import _exported_then_record_lost
from vault_builder import export, write_session

from exporter.export import ExportOptions, Interrupted, run_export

SIDS = [f"7c000000-0000-4000-8000-00000000000{n}" for n in range(6)]
WARNED = ".ccexport/state.json"
MARK = ".ccexport/unrecorded"


def _record_lost_and_notes_deleted(tmp_path):
    home, vault = _exported_then_record_lost(tmp_path, SIDS)
    deleted = sorted(note_files(vault))[:4]  # (the person deleted them, before)
    for path in deleted:
        (vault / path).unlink()
    return home, vault, [path.rpartition("/")[2] for path in deleted]


def _stopped_run(vault, home, killed: bool) -> None:
    def progress(done: int, total: int) -> None:
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted):
        run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1), progress)
    if killed:  # (killed once its notes landed, before it wrote its state: no record at all)
        (vault / ".ccexport" / "state.json").unlink()


@pytest.mark.parametrize("killed", [False, True], ids=["ctrl-c", "killed"])
def test_the_run_after_a_stopped_one_says_it_with_every_note_created(tmp_path, killed):
    home, vault, deleted = _record_lost_and_notes_deleted(tmp_path)
    _stopped_run(vault, home, killed)
    back = [name for name in deleted if any(p.endswith(name) for p in note_files(vault))]
    assert 0 < len(back) < len(deleted)  # (some written again by the stopped run, not all)
    dry = export(vault, home, dry_run=True)  # (says it too, and leaves the mark)
    (said,) = [p.message for p in dry.problems if p.path == WARNED]
    assert "created since, or that this run would create" in said
    report = export(vault, home)
    (said,) = [p.message for p in report.problems if p.path == WARNED]
    assert "had no record of the 2 session notes in this vault when a run began" in said
    assert "the 4 session notes created since (" in said, said
    assert all(name in said for name in deleted), said
    assert not (vault / MARK).exists()
    # The run finished: the next one has the record, and a new session is only created
    write_session(home, ["a new question"], sid="7c000000-0000-4000-8000-00000000000f")
    after = export(vault, home)
    assert after.total("created") >= 1 and not [p for p in after.problems if p.path == WARNED]


def test_a_finished_run_without_a_record_leaves_no_mark(tmp_path):
    home, vault, deleted = _record_lost_and_notes_deleted(tmp_path)
    report = export(vault, home)
    (said,) = [p.message for p in report.problems if p.path == WARNED]
    assert "has no record of the 2 session notes" in said and "this run lists as created" in said
    assert not (vault / MARK).exists()
