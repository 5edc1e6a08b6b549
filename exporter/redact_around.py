"""A token's match around an earlier placeholder (a private key with ``[REDACTED:…]``
between its armour lines: a key cut across two messages with another secret between, or
a diff's new line between an old key's lines): its pieces before, between and after the
placeholders, each replaced; the placeholders stay as they are."""

from __future__ import annotations


def pieces_around(
    data: bytes, start: int, end: int, spans: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Where the pieces of ``data[start:end]`` around the placeholders ``spans`` hold there
    are, each without the blank space at its ends; a piece of only space left out."""
    found = []
    at = start
    for s, e in [*spans, (end, end)]:
        if e <= start or s < at:
            continue
        piece = data[at : min(s, end)]
        core = piece.strip()
        if core:
            lead = at + len(piece) - len(piece.lstrip())
            found.append((lead, lead + len(core)))
        at = e
        if at >= end:
            break
    return found


def replaced_pieces(
    data: bytes, start: int, end: int, pieces: list[tuple[int, int]], placeholder: bytes
) -> bytes:
    """``data[start:end]`` with each of its ``pieces`` replaced by ``placeholder``: the
    placeholders between them, and the blank space at their ends, kept (the lines stay)."""
    out = []
    at = start
    for a, b in pieces:
        out += (data[at:a], placeholder)
        at = b
    out.append(data[at:end])
    return b"".join(out)
