"""doctor says apart a copy in the hidden ``.ccexport/conflicts/`` that is a note's earlier
text, kept there by a version before 7 December when it wrote the note again to redact a
secret: no edit of the person's (review43 L4: it was counted among "your edits")."""

from __future__ import annotations

from vault_builder import export, the_note, write_session

from exporter.doctor import vault_checks


def _saved_aside(vault):
    return [c for c in vault_checks(vault, "AI Sessions") if "kept aside" in c.message
            or "saved aside" in c.message]  # fmt: skip


def _exported_with_hidden_folder(tmp_path):
    """A note exported, and the hidden folder older versions kept copies in."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["one"])
    export(vault, home)
    hidden = vault / ".ccexport" / "conflicts"
    hidden.mkdir()
    return vault, hidden


def test_a_notes_earlier_text_is_no_edit_of_yours(tmp_path):
    vault, hidden = _exported_with_hidden_folder(tmp_path)
    # (as an older version kept it: the whole note, its generated part as ccexport wrote it)
    (hidden / "2026-12-05 101500 Earlier.md").write_text(the_note(vault).read_text())
    (check,) = _saved_aside(vault)
    assert check.status == "attention"
    assert "edit" not in check.message.split("(no edit of yours")[0]
    assert "1 note's earlier text was kept aside in .ccexport/conflicts/" in check.message
    assert "before 7 December" in check.message and "Earlier.md" in check.message
    # an edit an even older version saved there is still the person's edit
    (hidden / "2025-01-02 030405 Old note.md").write_text("an edit saved by an earlier version\n")
    (check,) = _saved_aside(vault)
    assert check.message.startswith("1 edit of yours inside a generated part was saved aside")
    assert "(1 in .ccexport/conflicts/)" in check.message and "Old note.md" in check.message
    assert "1 note's earlier text was kept aside" in check.message
    assert {d["path"] for d in check.files} == {
        ".ccexport/conflicts/2025-01-02 030405 Old note.md",
        ".ccexport/conflicts/2026-12-05 101500 Earlier.md",
    }


def test_an_edited_note_in_the_hidden_folder_is_an_edit(tmp_path):
    vault, hidden = _exported_with_hidden_folder(tmp_path)
    edited = the_note(vault).read_text().replace("reply to one", "reply to one MY EDIT", 1)
    (hidden / "2026-11-05 101500 Edited.md").write_text(edited)
    (check,) = _saved_aside(vault)
    assert check.message.startswith("1 edit of yours") and "earlier text" not in check.message
