"""A token's match around an earlier placeholder (a private key with ``[REDACTED:…]``
between its armour lines: a key cut across two messages with another secret between, or
a diff's new line between an old key's lines): its pieces before, between and after the
placeholders, each replaced; the placeholders stay as they are."""

from __future__ import annotations


def pieces_around(data: bytes, start: int, end: int, spans: list[tuple[int, int]]) -> list[bytes]:
    """The pieces of ``data[start:end]`` around the placeholders ``spans`` hold there,
    each without the blank space at its ends; an empty one (only space) left out."""
    found = []
    at = start
    for s, e in [*spans, (end, end)]:
        if e <= start or s < at:
            continue
        piece = data[at : min(s, end)].strip()
        if piece:
            found.append(piece)
        at = e
        if at >= end:
            break
    return found


def around_pieces(
    data: bytes, start: int, end: int, spans: list[tuple[int, int]], placeholder: bytes
) -> bytes:
    """``data[start:end]``, each piece of it around the placeholders ``spans`` hold there
    replaced by ``placeholder`` (the blank space at a piece's ends kept: the lines stay)."""
    out = []
    at = start
    for s, e in [*spans, (end, end)]:
        if e <= start or s < at:
            continue
        piece = data[at : min(s, end)]
        core = piece.strip()
        if core:
            lead = len(piece) - len(piece.lstrip())
            out += (piece[:lead], placeholder, piece[lead + len(core) :])
        else:
            out.append(piece)
        if s < end:
            out.append(data[s : min(e, end)])
        at = e
        if at >= end:
            break
    return b"".join(out)
