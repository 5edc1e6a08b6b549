"""An attachment the person renamed in Obsidian: Obsidian rewrites its embeds, those in
generated parts too. The next update of the note makes no conflict copy, embeds the file
under the person's name and writes no second copy under the hash name."""

from __future__ import annotations

import hashlib
import posixpath
from pathlib import Path

import pytest
from claude_builder import ClaudeSession, image_block, tiny_png
from hypothesis import given
from hypothesis import strategies as st
from test_renamed_notes import conflict_copies, obsidian_rename
from vault_builder import SID, export

from exporter.vaultattach import AttachmentNames, embed_renamed

PNG = tiny_png()
HASHED = f"attachments/ccexport/{hashlib.sha256(PNG).hexdigest()[:16]}.png"


def write_session(home: Path, prompts: list[str], png: bytes = PNG) -> None:
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-04T10:00:00Z")
    s.user([{"type": "text", "text": "what is this?"}, image_block(png)])
    s.assistant("a red square")
    for prompt in prompts:
        s.user(prompt)
        s.assistant(f"reply to {prompt}")
    s.write(home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID}.jsonl")


def session_note(vault: Path) -> Path:
    (note,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    return note


def rename_file(vault: Path, old: str, new: str, form: str) -> None:
    """What Obsidian does when a file is renamed: it moves, and every embed of it is
    rewritten in the form of the "New link format" setting."""
    (vault / old).rename(vault / new)
    for note in vault.rglob("*.md"):
        if ".ccexport" in note.parts:
            continue
        folder = note.parent.relative_to(vault).as_posix()
        target = {"name": new.rpartition("/")[2], "vault path": new,
                  "relative": posixpath.relpath(new, folder)}[form]  # fmt: skip
        text = note.read_text()
        if f"[[{old}" in text:
            note.write_text(text.replace(f"[[{old}", f"[[{target}"))


def attachment_files(vault: Path) -> list[str]:
    return sorted(p.name for p in (vault / "attachments" / "ccexport").iterdir())


@pytest.mark.parametrize("form", ["name", "vault path", "relative"])
def test_a_renamed_image_is_followed_not_copied_again(tmp_path, form):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, [])
    export(vault, home)
    assert f"![[{HASHED}]]" in session_note(vault).read_text()
    rename_file(vault, HASHED, "attachments/ccexport/red square.png", form)
    note = session_note(vault)
    note.write_text(note.read_text() + "\nmy words\n")
    write_session(home, ["and now?"])  # the session grows: its note is written again
    report = export(vault, home)
    assert report.total("updated") == 1 and report.total("conflicts") == 0
    assert conflict_copies(vault) == []
    text = note.read_text()
    assert "![[attachments/ccexport/red square.png]]" in text and HASHED not in text
    assert "reply to and now?" in text and text.endswith("my words\n")
    assert attachment_files(vault) == ["red square.png"]
    # Quiet afterwards: a re-run writes nothing, and a later growth keeps the name.
    again = export(vault, home)
    assert again.total("updated") == again.total("created") == 0
    write_session(home, ["and now?", "again"])
    assert export(vault, home).total("updated") == 1
    assert "red square.png]]" in note.read_text() and attachment_files(vault) == ["red square.png"]


def test_a_note_renamed_after_its_attachment_was_is_still_followed(tmp_path):
    """The embed ccexport now writes is the person's name for the file: a later rename of
    the note itself (Obsidian rewrites the index's link) is undone with that embed as is."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, [])
    export(vault, home)
    rename_file(vault, HASHED, "attachments/ccexport/shot.png", "name")
    write_session(home, ["more"])
    export(vault, home)
    note = session_note(vault)
    obsidian_rename(vault, note, note.with_name("Renamed by me.md"))
    write_session(home, ["more", "still more"])
    report = export(vault, home)
    assert report.total("conflicts") == 0 and conflict_copies(vault) == []
    assert "![[attachments/ccexport/shot.png]]" in session_note(vault).read_text()


def test_an_embed_pointed_at_another_file_is_the_persons_edit(tmp_path):
    """Only a file holding what was attached stands for it: a link the person pointed at a
    file of other content is their edit, saved as a conflict copy, as before."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, [])
    export(vault, home)
    other = vault / "attachments" / "ccexport" / "mine.png"
    other.write_bytes(tiny_png((0, 0, 255)))
    note = session_note(vault)
    note.write_text(note.read_text().replace(f"[[{HASHED}]]", "[[mine.png]]"))
    write_session(home, ["more"])
    report = export(vault, home)
    assert report.total("conflicts") == 1 and len(conflict_copies(vault)) == 1
    assert f"![[{HASHED}]]" in note.read_text()
    assert HASHED.rpartition("/")[2] in attachment_files(vault)


def test_a_renamed_file_of_other_content_does_not_stand_for_an_attachment(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    (vault / "attachments" / "ccexport").mkdir(parents=True)
    (vault / "attachments" / "ccexport" / "logo.png").write_bytes(tiny_png((0, 255, 0)))
    write_session(home, [])
    export(vault, home)
    assert f"![[{HASHED}]]" in session_note(vault).read_text()
    assert sorted(attachment_files(vault)) == sorted([HASHED.rpartition("/")[2], "logo.png"])


def test_the_scan_reads_only_the_attachments_folder_and_names_not_hashes(tmp_path):
    folder = tmp_path / "attachments" / "ccexport"
    folder.mkdir(parents=True)
    (folder / "a.png").write_bytes(PNG)
    (folder / "0123456789abcdef.png").write_bytes(b"other")
    (tmp_path / "elsewhere.png").write_bytes(b"other")
    names = AttachmentNames(str(tmp_path), "attachments/ccexport")
    assert names.renamed(HASHED) == "attachments/ccexport/a.png"
    other = hashlib.sha256(b"other").hexdigest()[:16]
    assert names.renamed(f"attachments/ccexport/{other}.png") is None
    assert names.renamed("elsewhere/0123456789abcdef.png") is None  # not its folder
    assert names.written_name("a.png", "AI Sessions/x") == HASHED
    assert names.written_name("../../attachments/ccexport/a.png", "AI Sessions/x") == HASHED
    assert names.written_name("../../../outside.png", "AI Sessions/x") is None
    assert names.written_name("nothing.png", "AI Sessions/x") is None


_TEXT = st.text(st.sampled_from("[]|!ab /.\n"), max_size=30)


@given(before=_TEXT, between=_TEXT, after=_TEXT, alias=st.booleans())
def test_only_links_to_the_file_change(before, between, after, alias):
    """Every link to the file leads to the new name, and nothing else in the body moves;
    a body naming the path outside a link is left alone (the file is copied again)."""
    old, new = "att/0123456789abcdef.png", "att/my shot.png"
    link = f"![[{old}|300]]" if alias else f"![[{old}]]"
    body = before + link + between + link + after
    result = embed_renamed(body, old, new)
    if old in before + between + after:
        assert result is None
        return
    assert result == body.replace(old, new)
