"""An attachment the person renamed in Obsidian and then deleted (review43 L7): the note,
when next written, says in its place that the file was deleted by the name the person gave
it and last saw, not by the content name ccexport first wrote it under."""

from __future__ import annotations

import json

from test_deleted_attachments import recorded
from test_renamed_attachments import HASHED, rename_file, session_note, write_session
from vault_builder import export

RENAMED = "attachments/ccexport/red square.png"
HASH_NAME = HASHED.rpartition("/")[2]


def deleted_words(name: str) -> str:
    return f"*`{name}` was deleted from the vault, and is not copied again.*"


def state_of(vault) -> dict:
    return json.loads((vault / ".ccexport" / "state.json").read_text())


def test_a_renamed_then_deleted_image_is_named_as_the_person_last_saw_it(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, [])
    export(vault, home)
    rename_file(vault, HASHED, RENAMED, "vault path")
    write_session(home, ["and now?"])  # the note is written again, embedding their name
    export(vault, home)
    assert f"![[{RENAMED}]]" in session_note(vault).read_text()
    (vault / RENAMED).unlink()  # then they delete it
    write_session(home, ["and now?", "again"])
    report = export(vault, home)
    assert report.total("updated") == 1 and report.total("conflicts") == 0, report.problems
    text = session_note(vault).read_text()
    assert deleted_words("red square.png") in text
    assert HASH_NAME not in text and "reply to again" in text
    assert not (vault / HASHED).exists() and recorded(vault) == [HASHED]
    forced = export(vault, home, force=True)  # and so on every later writing
    assert not forced.failed and deleted_words("red square.png") in session_note(vault).read_text()


def test_a_rename_seen_by_a_run_that_writes_no_note_is_remembered(tmp_path):
    """The likelier order: renamed, a (nightly) run with nothing new to write, then deleted.
    That run finds the file under its new name and keeps it in the state; the note, when
    next written, names it so, and the embed Obsidian rewrote to a file now gone is no
    edit of the person's (no conflict copy)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, [])
    export(vault, home)
    rename_file(vault, HASHED, RENAMED, "name")
    quiet = export(vault, home)  # nothing to write: the session did not change
    assert quiet.total("updated") == quiet.total("created") == 0
    assert state_of(vault)["attachment_names"] == {HASHED: RENAMED}
    (vault / RENAMED).unlink()
    write_session(home, ["and now?"])
    report = export(vault, home)
    assert report.total("updated") == 1 and report.total("conflicts") == 0, report.problems
    text = session_note(vault).read_text()
    assert deleted_words("red square.png") in text and HASH_NAME not in text


def test_a_file_deleted_under_its_own_name_is_named_so_and_restore_forgets_the_name(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, [])
    export(vault, home)
    rename_file(vault, HASHED, RENAMED, "vault path")
    export(vault, home)
    (vault / RENAMED).unlink()
    restored = export(vault, home, force=True, restore=True)  # copied back, by its hash name
    assert not restored.failed and (vault / HASHED).exists()
    assert "attachment_names" not in state_of(vault)
    (vault / HASHED).unlink()  # deleted under the name it now has
    export(vault, home, force=True)
    assert deleted_words(HASH_NAME) in session_note(vault).read_text()
    assert state_of(vault)["attachment_names"] == {HASHED: HASHED}


def test_the_names_are_kept_apart_from_the_record_an_older_version_reads(tmp_path):
    """``attachments`` stays a list of paths (what an older version reads; it ignores the
    new key); a state without ``attachment_names``, or with one of a wrong shape, loads
    with no names; names of files not recorded are dropped."""
    from exporter.state import State

    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, [])
    export(vault, home)
    rename_file(vault, HASHED, RENAMED, "vault path")
    export(vault, home)
    data = state_of(vault)
    assert data["attachments"] == [HASHED] and data["attachment_names"] == {HASHED: RENAMED}
    assert State.load(vault).attachments.names == {HASHED: RENAMED}
    path = vault / ".ccexport" / "state.json"
    for names in (None, [RENAMED], {HASHED: 3}, {"attachments/ccexport/other.png": RENAMED}):
        data["attachment_names"] = names
        path.write_text(json.dumps(data))
        loaded = State.load(vault)
        assert loaded.unreadable is None and loaded.attachments == [HASHED]
        assert loaded.attachments.names == {}
