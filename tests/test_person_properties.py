"""A property the person adds under a name ccexport uses for other notes (``day``,
``parent``, ``files``) is theirs when ccexport did not write it in that note: an update
keeps it. It was deleted silently, as a key of ours no longer produced (from the sync
audit)."""

from __future__ import annotations

import re

from vault_builder import export, the_note, write_session

from exporter.state import State

MINE = 'day: "[[2026-03-04]]"  # my daily note\nparent: "[[Projects/App]]"\nfiles: my list\n'


def test_the_persons_property_under_one_of_our_names_survives_an_update(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    write_session(home, ["first"])
    export(vault, home)
    note = the_note(vault)
    assert "day" not in next(iter(State.load(vault).notes.values())).keys  # not written here
    note.write_text(note.read_text().replace("\ntitle:", f"\n{MINE}title:", 1))
    write_session(home, ["first", "second"])  # the session grew: the note is updated
    report = export(vault, home)
    text = note.read_text()
    assert "reply to second" in text and not report.problems
    assert MINE in text


def test_a_property_ccexport_wrote_and_no_longer_writes_still_goes(tmp_path):
    """``day`` written while daily notes were on, and off since: ours, so it goes."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    write_session(home, ["first"])
    export(vault, home, daily_notes=True)
    assert re.search(r"^day: ", the_note(vault).read_text(), re.M)
    export(vault, home, daily_notes=False)
    assert not re.search(r"^day: ", the_note(vault).read_text(), re.M)


def test_a_note_whose_source_the_person_edited_is_still_its_sessions_note(tmp_path):
    """Editing ``source`` made the note read as another session's: it was reported deleted
    in the vault and left so, and --restore wrote a duplicate beside it (the sync audit's
    M4). At its place, with its session id, it is the note: updated, ``source`` written
    back, the person's text kept."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    write_session(home, ["first"])
    export(vault, home)
    note = the_note(vault)
    note.write_text(note.read_text().replace("source: claude-code", "source: claude") + "mine\n")
    write_session(home, ["first", "second"])
    report = export(vault, home)
    text = the_note(vault).read_text()  # (one note: no duplicate)
    assert not report.problems and "reply to second" in text and text.endswith("mine\n")
    assert "\nsource: claude-code\n" in text
