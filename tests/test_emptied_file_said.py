"""A session file that had a note and now holds no conversation (emptied to 0 bytes) is
said, with the note kept; a file that never gave a note stays a mere count."""

from __future__ import annotations

from conftest import note_files
from vault_builder import export, write_session

NOW_EMPTY = (
    "holds no conversation now (its file emptied?): the note made from it before is kept, "
    "and it is read again when it changes"
)


def test_an_emptied_file_that_had_a_note_is_said_and_the_note_kept(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    source = write_session(home, ["q1", "q2"])
    export(vault, home)
    before = note_files(vault)
    source.write_bytes(b"")
    report = export(vault, home)
    said = [p for p in report.problems if p.message == NOW_EMPTY]
    assert [p.path for p in said] == [str(source)] and said[0].severity == "warning"
    assert note_files(vault) == before
    assert not [p for p in export(vault, home).problems if p.message == NOW_EMPTY]  # once


def test_an_empty_file_that_never_had_a_note_is_only_counted(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1"]).write_bytes(b"")
    report = export(vault, home)
    assert not [p for p in report.problems if p.message == NOW_EMPTY]
    assert report.empty_units
