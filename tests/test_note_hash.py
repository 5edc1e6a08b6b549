"""The hash a note's end marker carries, and the state's record of the same region."""

from __future__ import annotations

import hashlib

import pytest

from exporter import notefile


def test_a_text_hashed_twice_is_hashed_once_and_a_new_text_afresh(monkeypatch):
    """The end marker and the state's record hash the same region: one SHA-256."""
    calls = []
    real = hashlib.sha256
    monkeypatch.setattr(notefile.hashlib, "sha256", lambda b: calls.append(b) or real(b))
    region = "### User\n\nhello " + "x" * 100
    first = notefile.text_sha256(region)
    assert notefile.text_sha256(region) == first == real(region.encode()).hexdigest()
    assert notefile.owned_hash(region) == first[:16] and len(calls) == 1
    other = region[:-1] + "y"  # equal length, other text: hashed
    assert notefile.text_sha256(other) == real(other.encode()).hexdigest() and len(calls) == 2


def test_link_targets_are_left_out_of_the_marker_s_hash_and_older_markers_still_match():
    """A renamed note's links, rewritten by Obsidian, leave the hash as it was; any other
    change does not; a marker written before (over the whole text) is still matched."""
    region = "- 2026-03-04 · [[2026-03-04 q 0a1b2c3d|q]] · 2 messages\n![[a.png]]"
    renamed = region.replace("[[2026-03-04 q 0a1b2c3d|", "[[My name|").replace("a.png", "b.png")
    assert notefile.owned_hash(renamed) == notefile.owned_hash(region)
    assert notefile.owned_hash(region.replace("· 2", "· 3")) != notefile.owned_hash(region)
    assert notefile.owned_hash(region.replace("|q]]", "|my q]]")) != notefile.owned_hash(region)

    def note(owned: str, written: str) -> notefile.NoteText:
        return notefile.NoteText({}, "", owned, "", written_hash=written)

    older = notefile.owned_hash(region, links=False)
    assert older != notefile.owned_hash(region)
    assert note(region, older).edited is False and note(renamed, older).edited is True
    assert note(renamed, notefile.owned_hash(region)).edited is False


@pytest.mark.parametrize(
    "code",
    [
        "```sh\nif [[ -f a.txt ]]; then echo yes; fi\n```",
        '> [!example]- Tool output\n> ```toml\n> [[bin]]\n> name = "a"\n> ```',
        'Use `df[["a"]]` here.',
    ],
)
def test_an_edit_in_code_that_holds_double_brackets_changes_the_hash(code):
    """Code is not a link: leaving out everything after a "[[" in it (up to a | or ]) let an
    edit of a shell test or a TOML table go unseen, and the next update overwrite it."""
    region = f"### Reply\n\n{code}\n\nSee [[2026-03-04 q 0a1b2c3d|q]]."
    edited = region.replace("a.txt", "b.txt").replace('"a"', '"b"').replace("[[bin]]", "[[lib]]")
    assert edited != region
    assert notefile.owned_hash(edited) != notefile.owned_hash(region)
    renamed = region.replace("[[2026-03-04 q 0a1b2c3d|", "[[My name|")
    assert notefile.owned_hash(renamed) == notefile.owned_hash(region)
