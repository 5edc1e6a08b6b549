"""The hashes of a note's generated region: the end marker's, and the state's record of it.

Split from ``notefile`` (which re-exports them): a region is hashed as written, line ends
normalized and the blanks ending its lines left out, and the same region hashed twice in a
row (for the end marker, then for the state) is hashed once.
"""

from __future__ import annotations

import hashlib

from . import lineends

__all__ = ["forget", "hash_matches", "owned_hash", "text_sha256", "trimmed_sha256"]


def owned_hash(owned: str) -> str:
    """What the end marker records: 64 bits of SHA-256 of the region, line ends normalized
    (a sync tool that turns LF into CRLF is not an edit) and the blanks ending its lines
    left out (nor is an editor that trims them on save: ``lineends.trimmed``)."""
    return trimmed_sha256(owned)[:16]


def trimmed_sha256(owned: str) -> str:
    """SHA-256, hex, of a region as its hash reads it (``lineends.trimmed``). A region is
    hashed for its end marker, then for the state's record: remembered for the last two
    regions (alive anyway, until ``forget``)."""
    for last, digest in _last_trimmed:
        if last is owned:
            return digest
    spans = lineends.trimmed_spans(owned)
    if spans == [(0, len(owned))]:  # (nothing to trim, nearly always: ``text_sha256``'s)
        digest = text_sha256(owned)
    else:  # (read in place: no trimmed copy of a part of megabytes)
        hasher = hashlib.sha256()
        for start, end in spans:
            for at in range(start, end, _CHUNK):
                hasher.update(owned[at : min(at + _CHUNK, end)].encode("utf-8", "replace"))
        digest = hasher.hexdigest()
    _last_trimmed[:] = [_last_trimmed[1], (owned, digest)]
    return digest


_last_trimmed: list[tuple[str | None, str]] = [(None, ""), (None, "")]


def hash_matches(owned: str, written: str) -> bool:
    """Is ``written`` (an end marker's hash, or a state's) that of ``owned``: as this version
    hashes it, or as versions before did, the blanks ending its lines counted? (For text
    with no such blanks, nearly all, the two are one.)"""
    if owned_hash(owned) == written:
        return True
    kept = lineends.without_cr(owned).strip("\n")
    return kept != lineends.trimmed(owned) and text_sha256(kept)[:16] == written


# The last two texts hashed (kept alive, so their identity cannot be reused), their digests.
_last_digest: list[tuple[str | None, str]] = [(None, ""), (None, "")]


def text_sha256(text: str) -> str:
    """SHA-256 of the text's UTF-8 bytes, hex. A note's region is hashed for its end marker
    and again for the state's record: the same string object, hashed once. (Two are kept:
    an update hashes the region read, to find its end, and the one written.)"""
    for last, digest in _last_digest:
        if last is text:
            return digest
    digest = _sha256(text)
    _last_digest[:] = [_last_digest[1], (text, digest)]
    return digest


def forget() -> None:
    """Let go of the regions remembered: called once a note is written, so a part of
    megabytes is not held (twice: the region read and the one written) while the next
    note is rendered and received."""
    _last_digest[:] = _last_trimmed[:] = [(None, ""), (None, "")]


_CHUNK = 1 << 20  # characters encoded at a time


def _sha256(text: str) -> str:
    """SHA-256, hex, of the text's UTF-8 bytes (a lone surrogate as ``?``). A long text is
    encoded a megabyte of characters at a time: encoding one that holds a character past
    Latin-1 allocates up to three bytes a character at once (12 MB for a 4 MB part), and
    the bytes are the same either way (the encoder never joins two code points)."""
    if len(text) <= _CHUNK:
        return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()
    hasher = hashlib.sha256()
    for start in range(0, len(text), _CHUNK):
        hasher.update(text[start : start + _CHUNK].encode("utf-8", "replace"))
    return hasher.hexdigest()
