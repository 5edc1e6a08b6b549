"""A token split across two items of a list of strings (``["sk-ant-api03-…P0", "qR1s…-AA"]``:
a model's output streamed in chunks, a long string a tool broke up): both halves go.

Only where a token's own rule runs (its prefix is near), the two items are read joined: a
secret the rules find across the join is one that continues into the next item, when the
first item alone holds no whole token at its end (a prefix and a body cut short). Read
before the rules' own pass, so a generic rule cannot first take the next item as a value
the first one names (``["AGE-SECRET-KEY-1…", "…"]``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .redact_names import PLACEHOLDER

if TYPE_CHECKING:
    from .redact_rules import Rule

# Between two items of a list of strings: a quote, a comma (a line break, written or
# escaped, and indentation), the same quote (escaped in JSON inside a string too).
_BETWEEN = re.compile(rb"""(\\{0,3}["']),[ \t]*(?:(?:\r?\n|\\{1,3}n)[ \t]*)?\1""")
_TOKEN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/~$:")
_LONGEST = 300  # the longest half of a token looked at
# The rules over a text: each secret they find in it, as bytes, with its rule's id.
Finds = Callable[[bytes], list[tuple[bytes, str]]]


def prefixed(rules: Sequence[Rule]) -> frozenset[int]:
    """The rules (their places in ``rules``) of a token known by its prefix, not a name's
    value: those whose token a list of strings may split."""
    return frozenset(
        i for i, r in enumerate(rules) if r.near and r.keywords and not (r.generic or r.fold)
    )


def redact_split(
    data: bytes, windows: list[tuple[int, int]], finds: Finds, counts: Counter[str] | None
) -> bytes:
    """``data`` with both halves of each token that ``finds`` sees only with two items near
    ``windows`` (where a token's prefix is) joined replaced by its placeholder (``counts``
    gains one a token); ``data`` itself when there is none."""
    pieces: list[bytes] = []
    last = 0
    for (start, cut), (after, end), rule_id in _halves(data, _merged(windows), finds):
        if start < last:
            continue
        placeholder = PLACEHOLDER.format(rule_id).encode()
        pieces += (data[last:start], placeholder, data[cut:after], placeholder)
        last = end
        if counts is not None:
            counts[rule_id] += 1
    if not pieces:
        return data
    pieces.append(data[last:])
    return b"".join(pieces)


def _halves(
    data: bytes, windows: list[tuple[int, int]], finds: Finds
) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """The two halves (their spans) of each token split across two items, in order."""
    spans: list[tuple[tuple[int, int], tuple[int, int], str]] = []
    for a, b in windows:
        for m in _BETWEEN.finditer(data, a, b):
            cut, after = m.span()
            start = cut
            while start > cut - _LONGEST and start and data[start - 1] in _TOKEN:
                start -= 1
            end = after
            while end < after + _LONGEST and end < len(data) and data[end] in _TOKEN:
                end += 1
            if start == cut or end == after:
                continue
            joined = data[start:cut] + data[after:end]
            left = cut - start
            across = [
                ((start + at, cut), (after, after + at + len(secret) - left), rule_id)
                for secret, rule_id in finds(joined)
                for at in _places(joined, secret)
                if at < left < at + len(secret)
            ]
            # Not a whole token in the first item (a token of no fixed length, ``sk_live_…``,
            # would take the next item's word too): only one cut short.
            if across and not any(data[start:cut].endswith(s) for s, _ in finds(data[start:cut])):
                spans += across
    return sorted(set(spans))


def _merged(windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``windows`` in order, those that overlap joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(windows):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _places(text: bytes, part: bytes) -> list[int]:
    """Where ``part`` occurs in ``text``."""
    places, at = [], text.find(part)
    while at != -1:
        places.append(at)
        at = text.find(part, at + 1)
    return places
