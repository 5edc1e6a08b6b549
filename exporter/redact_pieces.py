"""What a piece of a list's item reads as, for ``redact_split``: a word, a name in
camelCase, a short version, or a random chunk of a token's body."""

from __future__ import annotations

import re2

RANDOM_FROM = 8  # characters: a token's next item long enough to be told from a word
# A short item of a word then digits or digits then a word: a version, a unit, a name
# (``v2``, ``x64``, ``Win32``, ``utf8``, ``2FA``, ``64bit``), no chunk of a token.
_VERSION_LIKE = re2.compile(rb"(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)[0-9]+|[0-9]+(?:[a-z]+|[A-Z]+)")


def reads_random(piece: bytes) -> bool:
    """Does ``piece`` (what a token's next item gives it) read as a random body rather than
    a word: long enough, of letters and digits mixed?"""
    return (
        len(piece) >= RANDOM_FROM
        and _kinds(piece) >= 2
        and not (word_like(piece) or _camel_case(piece))
    )


def short_chunk(piece: bytes) -> bool:
    """Is ``piece``, shorter than a body's chunk, still no word: three characters or more
    of letters and digits mixed in no word's way (``Zq3``, ``8vXc``; not ``v2``, ``x64``,
    ``utf8``, ``2FA``, ``README``)?"""
    return (
        3 <= len(piece) < RANDOM_FROM
        and piece.isalnum()
        and _kinds(piece) >= 2
        and not _version_like(piece)
        and not (word_like(piece) or _camel_case(piece))
    )


def _kinds(piece: bytes) -> int:
    """How many of small letters, capitals and digits ``piece`` holds."""
    return sum(
        any(c in piece for c in chars)
        for chars in (b"abcdefghijklmnopqrstuvwxyz", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"0123456789")
    )


def wordish(piece: bytes) -> bool:
    """Is ``piece`` a word, a camelCase name or a short version (``v2``)?"""
    return word_like(piece) or _camel_case(piece) or _version_like(piece)


def _version_like(piece: bytes) -> bool:
    """Is ``piece`` a short word of a version or a unit (``v2``, ``x64``, ``utf8``)?"""
    return len(piece) < RANDOM_FROM and _VERSION_LIKE.fullmatch(piece) is not None


def _camel_case(piece: bytes) -> bool:
    """Is ``piece`` a word of words in camelCase (``TypeError``, ``getValue``): letters, each
    capital followed by a small one?"""
    return piece.isalpha() and all(
        piece[i + 1 : i + 2].islower() for i in range(len(piece)) if piece[i : i + 1].isupper()
    )


def word_like(piece: bytes) -> bool:
    """Is ``piece`` made of words (``start``, ``Stripe``, ``README.md``, ``sk_test_``): each
    part between ``.``, ``_``, ``-``, ``/`` all letters, in one case or capitalized? (A
    random chunk of a token seldom is, and all of one's pieces hardly ever.)"""
    parts = piece.replace(b"_", b".").replace(b"-", b".").replace(b"/", b".").split(b".")
    return all(
        not part or (part.isalpha() and (part.islower() or part.isupper() or part.istitle()))
        for part in parts
    )
