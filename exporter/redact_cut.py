"""A secret's keyword cut between two items of a list of strings (``["gh", "p_…"]``,
``["api_", "key=…"]``): no keyword stands in the text, so the rules' prefilter sees none.

The list is read with its separators taken out; a keyword found there across a separator is
where two items may join into a secret. ``redact_split`` then reads those items joined as it
does a token whose prefix ends an item.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import re2

# A name keyword of a generic rule worth looking for cut: letters, ``_`` and ``-``, five or
# more (``api_key``, ``password``, ``secret``); ``pass=``, ``auth=(`` and the like are not.
_NAME_WORD = re.compile(r"[A-Za-z][A-Za-z_-]{4,}")
# What may follow a name's keyword in its item when the name goes on in the next one.
_NAME_GOES_ON = re2.compile(rb"[A-Za-z0-9_-]{0,24}")


@dataclass(frozen=True)
class Cut:
    """A keyword cut by the separator at ``cut``..``after`` (bytes of the text), in which
    ``kind`` of rule: ``prefix`` (a token begins with it), ``inner`` (it stands inside or
    at the end of a token), ``name`` (a generic rule's name: its value follows)."""

    cut: int
    after: int
    kind: str
    end: int  # where the keyword ends in the text


class CutKeywords:
    """The keywords of the rules a list may split, found cut between items."""

    def __init__(self, prefixes: Iterable[str], inner: Iterable[str], names: Iterable[str]) -> None:
        self._kinds: dict[bytes, str] = {}
        for kind, words in (("name", names), ("inner", inner), ("prefix", prefixes)):
            for word in words:
                self._kinds[word.encode()] = kind
        self._names = sorted(w for w, kind in self._kinds.items() if kind == "name")

    @staticmethod
    def name_words(keywords: Iterable[str]) -> list[str]:
        """The keywords of a generic rule worth looking for cut (as lower case)."""
        return sorted({k.lower() for k in keywords if _NAME_WORD.fullmatch(k)})

    def _pattern(self) -> Any:
        if not hasattr(self, "_compiled"):
            exact = [re2.escape(w.decode()) for w, k in self._kinds.items() if k != "name"]
            folded = [re2.escape(w.decode()) for w in self._names]
            # (Longest first: RE2 takes the leftmost alternative of those that match.)
            exact_words = "|".join(sorted(exact, key=len, reverse=True)) or "(?!)"
            folded_words = "|".join(sorted(folded, key=len, reverse=True)) or "(?!)"
            pattern = f"({exact_words})|(?i:({folded_words}))"
            options = re2.Options()
            options.encoding = re2.Options.Encoding.LATIN1
            options.max_mem = 64 << 20
            options.log_errors = False
            self._compiled = re2.compile(pattern.encode("latin-1"), options)
        return self._compiled

    def find(self, data: bytes, separator: Any) -> Iterator[Cut]:
        """Each keyword in ``data`` that a separator (``separator``, a compiled pattern)
        cuts, in order."""
        view = separator.sub(b"", data)
        if len(view) == len(data):
            return
        pattern = self._pattern()
        if pattern.search(view) is None:
            return
        spans = [m.span() for m in separator.finditer(data)]
        # Where each separator stood in the view, and the bytes taken out before it.
        at_view, taken = [], [0]
        for a, b in spans:
            at_view.append(a - taken[-1])
            taken.append(taken[-1] + b - a)
        for m in pattern.finditer(view):
            start, end = m.span()
            i = bisect.bisect_right(at_view, start)  # the first separator after its start
            word = m.group().lower() if m.group(2) is not None else m.group()
            kind = self._kinds.get(word, "name")
            # A name may also go on in the next item (``["secret_", "key=…"]``); a prefix
            # ending an item is ``redact_split``'s own pair.
            if i >= len(at_view) or (at_view[i] >= end and kind != "name"):
                continue  # whole in one item
            if at_view[i] >= end and not _NAME_GOES_ON.fullmatch(view, end, at_view[i]):
                continue
            last = bisect.bisect_left(at_view, end) - 1  # the last separator inside it
            yield Cut(spans[i][0], spans[i][1], kind, end + taken[last + 1])
