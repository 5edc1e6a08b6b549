"""The hashes of a note's generated region: the end marker's, and the state's record of it.

Split from ``notefile``: a region is hashed as written, line ends normalized and the blanks
ending its lines left out, and the same region hashed twice in a row (for the end marker,
then for the state) is hashed once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from . import lineends

__all__ = ["forget", "hash_matches", "owned_hash", "text_sha256", "trimmed_sha256"]


class _LastTwo:
    """The digests of the last two texts hashed, by identity (the texts kept alive, so an
    identity cannot be reused): an update hashes the region read, to find its end, and the
    one written; each for the end marker, then for the state."""

    def __init__(self) -> None:
        self.clear()

    def get(self, text: str) -> str | None:
        return next((digest for last, digest in self._entries if last is text), None)

    def put(self, text: str, digest: str) -> str:
        self._entries = [self._entries[1], (text, digest)]
        return digest

    def clear(self) -> None:
        self._entries: list[tuple[str | None, str]] = [(None, ""), (None, "")]

    def __iter__(self) -> Iterator[tuple[str | None, str]]:
        return iter(self._entries)


_last_trimmed, _last_digest = _LastTwo(), _LastTwo()


def owned_hash(owned: str) -> str:
    """What the end marker records: 64 bits of SHA-256 of the region, line ends normalized
    (a sync tool that turns LF into CRLF is not an edit) and the blanks ending its lines
    left out (nor is an editor that trims them on save: ``lineends.trimmed``)."""
    return trimmed_sha256(owned)[:16]


def trimmed_sha256(owned: str) -> str:
    """SHA-256, hex, of a region as its hash reads it (``lineends.trimmed``), the stretches
    it keeps read in place: no trimmed copy of a part of megabytes."""
    if (digest := _last_trimmed.get(owned)) is not None:
        return digest
    spans = lineends.trimmed_spans(owned)
    if spans == [(0, len(owned))]:  # (nothing to trim, nearly always: ``text_sha256``'s)
        return _last_trimmed.put(owned, text_sha256(owned))
    return _last_trimmed.put(owned, _sha256(owned, spans))


def hash_matches(owned: str, written: str) -> bool:
    """Is ``written`` (an end marker's hash, or a state's) that of ``owned``: as this version
    hashes it, or as versions before did, the blanks ending its lines counted? (For text
    with no such blanks, nearly all, the two are one.)"""
    if owned_hash(owned) == written:
        return True
    kept = lineends.without_cr(owned).strip("\n")
    return kept != lineends.trimmed(owned) and text_sha256(kept)[:16] == written


def text_sha256(text: str) -> str:
    """SHA-256 of the text's UTF-8 bytes, hex; the same string object hashed once."""
    if (digest := _last_digest.get(text)) is not None:
        return digest
    return _last_digest.put(text, _sha256(text, [(0, len(text))]))


def forget() -> None:
    """Let go of the regions remembered: called once a note is written, so a part of
    megabytes is not held (twice: the region read and the one written) while the next
    note is rendered and received."""
    _last_digest.clear()
    _last_trimmed.clear()


_CHUNK = 1 << 20  # characters encoded at a time


def _sha256(text: str, spans: list[tuple[int, int]]) -> str:
    """SHA-256, hex, of the UTF-8 bytes (a lone surrogate as ``?``) of the stretches of
    ``text``, a megabyte of characters at a time: encoding a text that holds a character
    past Latin-1 allocates three bytes a character at once (12 MB for a 4 MB part), and the
    bytes are the same either way (the encoder never joins two code points)."""
    if spans == [(0, len(text))] and len(text) <= _CHUNK:
        return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()
    hasher = hashlib.sha256()
    for start, end in spans:
        for at in range(start, end, _CHUNK):
            hasher.update(text[at : min(at + _CHUNK, end)].encode("utf-8", "replace"))
    return hasher.hexdigest()
