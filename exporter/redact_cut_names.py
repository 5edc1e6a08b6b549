"""A secret's name whose assignment a list of strings cuts where the name's keyword stands
whole (``["a", "ccess_token=", "…"]``, ``["api_key ", "=", " …"]``): the item ends in the
name, an ``=`` or ``:`` or spaces, and the value follows in the next item.

``redact_cut`` finds a keyword a separator cuts, or a name that goes on up to one; a name
followed by the start of its assignment at an item's end is neither, and the rules' own pass
sees ``token=", "…`` as no assignment. Found here as a cut after the item, ``redact_split``
then reads the items after it joined, as it does those of a cut name.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import re2

from .redact_cut import NOTHING, Cut

# After a name's keyword: the rest of its name, then an assignment's start (``=``, ``:``,
# ``:=``, ``=>``) or spaces before one, up to the item's end.
_GOES_ON = r"[A-Za-z0-9_-]{0,24}(?:[ \t]*(?::=|=>|=|:)[ \t]*|[ \t]+)"


class AssignedNames:
    """The names (keywords of generic rules, any case) that an item ends with, their
    assignment begun, before a separator (``separator``: a pattern of one)."""

    def __init__(self, names: Iterable[bytes], separator: str) -> None:
        words = sorted(names, key=len, reverse=True)  # (longest first: RE2 takes the leftmost)
        alternatives = "|".join(re2.escape(w.decode()) for w in words) or NOTHING
        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1
        options.max_mem = 16 << 20
        options.log_errors = False
        pattern = f"(?i:({alternatives})){_GOES_ON}({separator})"
        self._pattern: Any = re2.compile(pattern.encode("latin-1"), options)

    def find(self, data: bytes) -> Iterator[Cut]:
        """Each such name in ``data``: a cut at the separator after it, the name ending
        where its keyword ends."""
        pos = 0
        while (m := self._pattern.search(data, pos)) is not None:
            cut, after = m.span(2)
            yield Cut(cut, after, "name", m.end(1))
            pos = after  # (the next item may end in a name too)
