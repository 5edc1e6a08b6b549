"""The hash a note's end marker carries, and the state's record of the same region."""

from __future__ import annotations

import hashlib

import pytest

from exporter import notefile, notehash


def test_a_text_hashed_twice_is_hashed_once_and_a_new_text_afresh(monkeypatch):
    """The end marker and the state's record hash the same region: one SHA-256."""
    calls = []
    real = hashlib.sha256
    monkeypatch.setattr(notehash.hashlib, "sha256", lambda b: calls.append(b) or real(b))
    region = "### User\n\nhello " + "x" * 100
    first = notehash.text_sha256(region)
    assert notehash.text_sha256(region) == first == real(region.encode()).hexdigest()
    assert notefile.owned_hash(region) == first[:16] and len(calls) == 1
    other = region[:-1] + "y"  # equal length, other text: hashed
    assert notehash.text_sha256(other) == real(other.encode()).hexdigest() and len(calls) == 2


@pytest.mark.parametrize(
    "code",
    [
        "```sh\nif [[ -f a.txt ]]; then echo yes; fi\n```",
        '> [!example]- Tool output\n> ```toml\n> [[bin]]\n> name = "a"\n> ```',
        'Use `df[["a"]]` here.',
    ],
)
def test_an_edit_in_code_that_holds_double_brackets_changes_the_hash(code):
    """An edit of a shell test or a TOML table in the generated part is one (a hash that
    left out what followed a "[[", to spare renamed notes' links, let it go unseen and the
    next update overwrite it; it was taken back)."""
    region = f"### Reply\n\n{code}\n\nSee [[2026-03-04 q 0a1b2c3d|q]]."
    edited = region.replace("a.txt", "b.txt").replace('"a"', '"b"').replace("[[bin]]", "[[lib]]")
    assert edited != region
    assert notefile.owned_hash(edited) != notefile.owned_hash(region)
