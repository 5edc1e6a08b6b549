"""The hash a note's end marker carries, and the state's record of the same region."""

from __future__ import annotations

import hashlib

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
