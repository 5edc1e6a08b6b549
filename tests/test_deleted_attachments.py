"""An attachment the person deleted from the vault (review29 F12): it stays deleted, as a
deleted note does, when its note is written again (the session grew, ``--force``); the
note says in its place that it was deleted. ``--restore`` copies it back. The state
records the files ccexport wrote; without that record, the folder's files are recorded."""

from __future__ import annotations

import json

from test_renamed_attachments import HASHED, PNG, session_note, write_session
from vault_builder import export

from exporter.vaultattach import AttachmentNames, Deleted, embed_renamed

WORDS = f"*`{HASHED.rpartition('/')[2]}` was deleted from the vault, and is not copied again.*"


def recorded(vault) -> list[str]:
    return json.loads((vault / ".ccexport" / "state.json").read_text())["attachments"]


def test_a_deleted_image_is_not_copied_again_and_the_note_says_so(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, [])
    export(vault, home)
    assert recorded(vault) == [HASHED]
    (vault / HASHED).unlink()  # a screenshot the person does not want
    note = session_note(vault)
    note.write_text(note.read_text() + "\nmy words\n")
    write_session(home, ["and now?"])  # the session grows: its note is written again
    report = export(vault, home)
    assert report.total("updated") == 1 and report.total("conflicts") == 0, report.problems
    text = note.read_text()
    assert not (vault / HASHED).exists() and f"[[{HASHED}" not in text
    assert WORDS in text and "reply to and now?" in text and text.endswith("my words\n")
    forced = export(vault, home, force=True)  # --force does not bring it back either
    assert not forced.failed and not (vault / HASHED).exists()
    assert note.read_text() == text and recorded(vault) == [HASHED]
    restored = export(vault, home, force=True, restore=True)  # --restore does
    assert not restored.failed and (vault / HASHED).exists()
    assert f"![[{HASHED}]]" in note.read_text() and WORDS not in note.read_text()


def test_a_state_written_before_the_record_records_the_folders_files(tmp_path):
    """An older version's state has no record: the first run records the files there,
    even one that writes nothing, so that one deleted after it stays deleted."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, [])
    export(vault, home)
    state = vault / ".ccexport" / "state.json"
    data = json.loads(state.read_text())
    del data["attachments"]
    state.write_text(json.dumps(data))
    report = export(vault, home)  # nothing new: the record is written all the same
    assert report.total("skipped") == 1 and recorded(vault) == [HASHED]
    (vault / HASHED).unlink()
    export(vault, home, force=True)
    assert not (vault / HASHED).exists() and WORDS in session_note(vault).read_text()


def test_a_file_not_recorded_is_copied_and_one_whose_copy_failed_is_not_recorded(tmp_path):
    names = AttachmentNames(str(tmp_path), "attachments/ccexport")
    names.remember([])
    assert names.renamed(HASHED) is None  # a new file: copied
    assert names.recorded() == []  # (its copy is not there: it failed, or a dry run)
    assert names.renamed(HASHED) is None
    (tmp_path / HASHED).parent.mkdir(parents=True)
    (tmp_path / HASHED).write_bytes(b"x")
    assert names.recorded() == [HASHED]


def test_a_file_renamed_is_followed_not_taken_for_deleted(tmp_path):
    names = AttachmentNames(str(tmp_path), "attachments/ccexport")
    names.remember([HASHED])
    folder = tmp_path / "attachments" / "ccexport"
    folder.mkdir(parents=True)
    assert isinstance(names.renamed(HASHED), Deleted)
    names = AttachmentNames(str(tmp_path), "attachments/ccexport")
    names.remember([HASHED])

    (folder / "red square.png").write_bytes(PNG)
    assert names.renamed(HASHED) == "attachments/ccexport/red square.png"


def test_every_embed_and_link_of_a_deleted_file_says_so_and_nothing_else_changes():
    body = (
        f"Attached `a.png`:\n![[{HASHED}]]\n> ![[{HASHED}|200]]\n[[{HASHED}]]\n"
        f"*The whole output is `{HASHED}`.*\n![[attachments/ccexport/0123456789abcdef.png]]\n"
    )
    said = embed_renamed(body, HASHED, Deleted(HASHED))
    assert said == (
        f"Attached `a.png`:\n{WORDS}\n> {WORDS}\n{WORDS}\n"
        f"*The whole output is `{HASHED}`.*\n![[attachments/ccexport/0123456789abcdef.png]]\n"
    )
