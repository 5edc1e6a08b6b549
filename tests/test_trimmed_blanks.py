"""Blanks that end lines inside a generated part, trimmed by the person's editor on save
(Obsidian's Linter, VS Code, vim), are no edit, as CRLF is not; a note an earlier version
wrote, whose end marker hashes the part with its blanks, is still judged right (review29
F15)."""

from __future__ import annotations

import hashlib
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from vault_builder import export, the_note, write_session

from exporter import lineends, notefile, notehash
from exporter.state import State

BLANKS = "trailing   "  # a prompt whose line ends in blanks: the note's part has them too


def _trim(text: str) -> str:
    return re.sub(r"[ \t]+$", "", text, flags=re.M)


def test_a_part_whose_trailing_blanks_were_trimmed_is_no_edit(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, [f"{BLANKS}\nsecond line"])
    export(vault, home)
    note = the_note(vault)
    assert re.search(r"[ \t]$", notefile.parse(note.read_text()).owned, re.M)
    note.write_text(_trim(note.read_text()) + "my text\n")
    write_session(home, [f"{BLANKS}\nsecond line", "q2"])
    report = export(vault, home)
    assert not report.conflicts() and report.total("updated") == 1, report.changes
    assert "q2" in note.read_text() and note.read_text().endswith("my text\n")
    assert not (vault / "AI Sessions" / "Conflicts").exists()


def _as_an_earlier_version_wrote_it(vault, note) -> None:
    """The end marker (and the state) hash the part with the blanks ending its lines."""
    text = note.read_text()
    owned = notefile.parse(text).owned
    old = notehash.text_sha256(owned.strip("\n"))
    assert old[:16] != notefile.owned_hash(owned)  # (the two forms differ for this part)
    note.write_text(
        re.sub(r"%% ccexport:end [0-9a-f]{16} %%", f"%% ccexport:end {old[:16]} %%", text)
    )
    state = State.load(vault)
    (key,) = [k for k in state.notes if not k.startswith(notefile.INDEX_PREFIX)]
    state.notes[key].hash = old
    (vault / ".ccexport" / "state.json").write_bytes(state.dumps())


def test_a_note_an_earlier_version_wrote_is_still_judged_by_its_hash(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, [BLANKS])
    export(vault, home)
    note = the_note(vault)
    _as_an_earlier_version_wrote_it(vault, note)
    write_session(home, [BLANKS, "q2"])
    report = export(vault, home)  # unedited: updated, no conflict
    assert not report.conflicts() and report.total("updated") == 1, report.changes
    _as_an_earlier_version_wrote_it(vault, note)
    note.write_text(note.read_text().replace("reply to q2", "reply to q2, MY EDIT"))
    write_session(home, [BLANKS, "q2", "q3"])
    report = export(vault, home)  # edited: still an edit
    assert len(report.conflicts()) == 1 and "q3" in note.read_text()


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \t\r\nab\x0b\u00a0`>")), max_size=80))
def test_trimmed_is_each_line_without_its_ending_blanks(text):
    """``lineends.trimmed`` (one search) is the text's lines, each without the spaces, tabs
    and CRs that end it, and without line breaks around them: what the hash is of."""
    by_line = "\n".join(line.rstrip(" \t\r") for line in text.split("\n")).strip("\n")
    assert lineends.trimmed(text) == by_line
    assert lineends.trimmed(text) == by_line  # (again: the same result)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \t\r\nab→\ud800😀")), max_size=80))
def test_the_hash_reads_the_trimmed_text_in_place_a_piece_at_a_time(text):
    """The hash is that of ``trimmed``'s text, read where it lies in the region and encoded
    a few characters at a time (here: a megabyte in an export), so a part of megabytes is
    never copied trimmed nor encoded whole (review of the Gemini memory bound)."""
    expected = hashlib.sha256(lineends.trimmed(text).encode("utf-8", "replace")).hexdigest()
    notehash.forget()
    chunk, notehash._CHUNK = notehash._CHUNK, 3
    try:
        assert notehash.trimmed_sha256(text) == expected
        assert (
            notehash.text_sha256(text)
            == hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()
        )
    finally:
        notehash._CHUNK = chunk
        notehash.forget()


def test_a_note_written_lets_go_of_the_regions_it_hashed(tmp_path):
    """Once a note is written, the hashes remember no region of it: a part of megabytes is
    not held (twice) while the next note is rendered."""
    vault, home = tmp_path / "vault", tmp_path / "home"
    write_session(home, [BLANKS, "q2"])
    export(vault, home)
    held = [text for text, _ in (*notehash._last_digest, *notehash._last_trimmed) if text]
    assert not held, [len(text) for text in held]
