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

# What no text holds, in the patterns here (compiled as Latin-1: a byte outside the class is
# none): RE2 has no lookahead, so ``(?!)`` does not compile (an empty list of keywords).
NOTHING = "[^\\x00-\\xff]"

# A name keyword of a generic rule worth looking for cut: letters, ``_`` and ``-``, five or
# more (``api_key``, ``password``, ``secret``); ``pass=``, ``auth=(`` and the like are not.
_NAME_WORD = re.compile(r"[A-Za-z][A-Za-z_-]{4,}")


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

    def _pattern(self, names_only: bool = False) -> Any:
        """Each keyword cut by one separator or more (``_MARK`` where each stood), and each
        name whole before one, its name going on up to it (``["secret_", "key=…"]``): only
        those, so that a text full of whole keywords (a JSON log) is read in one pass.
        (``names_only``: the names alone, in the same groups; the first matches nothing.)"""
        if not hasattr(self, "_compiled"):
            cut, folded = [], []
            # (longest first: RE2 takes the leftmost alternative of those that match)
            for word, kind in sorted(self._kinds.items(), key=lambda wk: -len(wk[0])):
                (folded if kind == "name" else cut).append(_cut_spellings(word))
            names = sorted(self._names, key=len, reverse=True)
            goes_on = "|".join(re2.escape(w.decode()) for w in names) or NOTHING
            named = (
                f"|(?i:({'|'.join(folded) or NOTHING}))"
                f"|(?i:({goes_on}))[A-Za-z0-9_-]{{0,24}}{_MARK_RE}"
            )
            options = re2.Options()
            options.encoding = re2.Options.Encoding.LATIN1
            options.max_mem = 64 << 20
            options.log_errors = False
            self._compiled = re2.compile(
                f"({'|'.join(cut) or NOTHING}){named}".encode("latin-1"), options
            )
            self._compiled_names = re2.compile(f"({NOTHING}){named}".encode("latin-1"), options)
        return self._compiled_names if names_only else self._compiled

    def find(self, data: bytes, separator: Any) -> Iterator[Cut]:
        """Each keyword in ``data`` that a separator (``separator``, a compiled pattern)
        cuts, in order."""
        spans = [m.span() for m in separator.finditer(data)]
        if not spans:
            return
        # The text with each run of separators one mark (separators that touch have an empty
        # item between them: ``["pass", "", "word=…"]``), the bytes each mark stands for past
        # one, and each mark's first separator (the one a cut names, as the items' own do).
        pieces, taken, first, last = [], [0], [], -1
        for n, (a, b) in enumerate(spans):
            if a == last:  # (touching the one before: the same mark)
                taken[-1] += b - a
            else:
                pieces.append(data[max(last, 0) : a])
                taken.append(taken[-1] + b - a - 1)
                first.append(n)
            last = b
        pieces.append(data[last:])
        marked = _MARK.join(pieces)
        spans = [spans[n] for n in first]
        marks = [a - taken[i] for i, (a, _) in enumerate(spans)]  # where each mark stands
        pattern, pos = self._pattern(), 0
        while (m := pattern.search(marked, pos)) is not None:
            pos = m.end()
            yield self._cut(m, marks, spans, taken)
            if m.group(1) is not None:
                # A name may begin inside a prefix cut too (``["and", "a", "pi_key=…"]``:
                # ``dapi`` first); the search goes on past the prefix, so it is read here.
                inner = self._pattern(names_only=True).search(marked, m.start() + 1)
                if inner is not None and inner.start() < m.end():
                    yield self._cut(inner, marks, spans, taken)

    def _cut(self, m: Any, marks: list[int], spans: list[tuple[int, int]], taken: list[int]) -> Cut:
        """The cut a match ``m`` of the marked text stands for in the text."""
        if m.group(3) is not None:  # a name whole, going on up to the next item
            end = m.end(3)
            i = bisect.bisect_left(marks, m.end() - 1)
            kind = "name"
        else:
            folded = m.group(2) is not None
            word = m.group().replace(_MARK, b"")
            kind = "name" if folded else self._kinds.get(word, "name")
            end = m.end()
            i = bisect.bisect_left(marks, m.start())  # the first mark inside it
        inside = bisect.bisect_left(marks, end)  # the marks before its end
        return Cut(spans[i][0], spans[i][1], kind, end + taken[inside])


# A separator as the cut search reads it: a byte no keyword holds.
_MARK = b"\0"
_MARK_RE = "\\x00"


def _cut_spellings(word: bytes) -> str:
    """A pattern for ``word`` cut by one mark or more: its first mark after each of its
    characters but the last, any after that."""
    chars = [re2.escape(chr(c)) for c in word]
    spelled = []
    for first in range(1, len(chars)):
        rest = f"(?:{_MARK_RE})?".join(chars[first:])
        spelled.append("".join(chars[:first]) + _MARK_RE + rest)
    return "|".join(spelled) or NOTHING
