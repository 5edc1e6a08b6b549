"""The record of a note no run reads (its transcript is gone) follows the note when the
person moves it, and only then: not to a sync tool's copy, not once the person deleted it.
And a run that finds a move counts itself, so the next run does not reuse its number."""

from __future__ import annotations

import shutil
from pathlib import Path

from test_renamed_notes import THIRD, obsidian_rename, two_sessions
from vault_builder import SID, export, write_session

from exporter.state import State

KEY = f"claude-code:{SID}"


def _transcript_gone(home: Path) -> None:
    (home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID}.jsonl").unlink()


def test_a_record_does_not_follow_its_deleted_note_to_copies_of_it(tmp_path):
    """Two files name the session, each a copy of its note (``X 2.md``, a sync tool's
    ``X.sync-conflict-….md``), the note itself gone: no copy is taken for the note."""
    home, vault, note, _index = two_sessions(tmp_path)
    recorded = note.relative_to(vault).as_posix()
    shutil.copy(note, note.with_name(f"{note.stem} 2.md"))
    shutil.copy(note, note.with_name(f"{note.stem}.sync-conflict-20260101-ABC.md"))
    note.unlink()
    _transcript_gone(home)
    write_session(home, ["elsewhere"], sid=THIRD, cwd="/home/dev/work/other")  # relisted
    export(vault, home)
    assert State.load(vault).notes[KEY].path == recorded


def test_a_record_of_a_note_the_person_deleted_does_not_follow_a_file_found_later(tmp_path):
    home, vault, note, _index = two_sessions(tmp_path)
    recorded = note.relative_to(vault).as_posix()
    kept = note.read_text()
    note.unlink()
    export(vault, home)  # the deletion is found: the note stays deleted
    assert State.load(vault).notes[KEY].deleted
    _transcript_gone(home)
    (vault / "Elsewhere").mkdir()
    (vault / "Elsewhere" / "An old copy.md").write_text(kept)
    write_session(home, ["elsewhere"], sid=THIRD, cwd="/home/dev/work/other")  # relisted
    export(vault, home)
    record = State.load(vault).notes[KEY]
    assert record.path == recorded and record.deleted


def test_a_run_that_only_finds_a_move_counts_itself(tmp_path):
    """Its stamp on the move is the state's run: the next run has a number of its own."""
    home, vault, note, _index = two_sessions(tmp_path)
    obsidian_rename(vault, note, note.with_name("Moved.md"))
    export(vault, home, index=False)  # writes nothing: only the move is recorded
    state = State.load(vault)
    (record,) = [r for r in state.notes.values() if r.was]
    assert record.was[-1][1] == state.run == 2
