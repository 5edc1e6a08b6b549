"""A secret's keyword cut between two items of a list of strings (``["gh", "p_…"]``,
``["api_", "key=…"]``): no keyword stands in the text, so the rules' prefilter sees none.

The list is read with its separators taken out; a keyword found there across a separator is
where two items may join into a secret. ``redact_split`` then reads those items joined as it
does a token whose prefix ends an item.

Other finders of what a list's items hold between them (a short name cut, an item a
list's words are read around) ride on the same pass (``also``): each is found as its own
search of the marked text would find it, in one read of it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

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
    at the end of a token), ``name`` (a generic rule's name: its value follows); or
    ``words``: an item at ``cut``..``after`` the list's words are read around
    (``redact_cut_words``)."""

    cut: int
    after: int
    kind: str
    end: int  # where the keyword ends in the text


@dataclass(frozen=True)
class Marked:
    """A text with each run of separators one mark (separators that touch have an empty
    item between them: ``["pass", "", "word=…"]``)."""

    text: bytes
    marks: list[int]  # where each mark stands in ``text``
    spans: list[tuple[int, int]]  # each mark's first separator in the text it was made from
    taken: list[int]  # the bytes the marks before each one stand for past one each
    firsts: list[int]  # each mark's first separator: its number among all of them
    separators: int  # how many there are

    def at(self, pos: int) -> int:
        """Where ``pos`` of the marked text (at no mark) stands in the text."""
        return pos + self.taken[bisect.bisect_left(self.marks, pos)]

    def run(self, i: int) -> int:
        """How many separators the mark ``i`` stands for."""
        ends = self.firsts[i + 1] if i + 1 < len(self.firsts) else self.separators
        return ends - self.firsts[i]


class MarkedFinder(Protocol):
    """A search of a marked text that rides on the cut keywords' one pass."""

    def marked_pattern(self) -> str:
        """Its pattern over a marked text (``MARK_RE`` for a mark; RE2, as Latin-1)."""
        ...

    def found(self, m: Any, marked: Marked) -> tuple[list[Cut], int]:
        """The cuts of its match ``m`` and where its own search would go on."""
        ...

    def first_bytes(self) -> frozenset[int]:
        """The bytes a match of its pattern may begin with (past the text's start)."""
        ...


class CutKeywords:
    """The keywords of the rules a list may split, found cut between items (and what the
    finders ``also`` find, in the same pass)."""

    def __init__(
        self,
        prefixes: Iterable[str],
        inner: Iterable[str],
        names: Iterable[str],
        also: Sequence[MarkedFinder] = (),
    ) -> None:
        self._also = tuple(also)
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
                f"|(?i:({goes_on}))[A-Za-z0-9_-]{{0,24}}{MARK_RE}"
            )
            self._source = f"({'|'.join(cut) or NOTHING}){named}"
            self._compiled = latin1_pattern(self._source)
            self._compiled_names = latin1_pattern(f"({NOTHING}){named}")
        return self._compiled_names if names_only else self._compiled

    def find(self, data: bytes, separator: Any) -> Iterator[Cut]:
        """Each keyword in ``data`` that a separator (``separator``, a compiled pattern)
        cuts, and what the finders ``also`` find, in order of where each match begins."""
        marked = _marked(data, separator)
        if marked is None:
            return
        anywhere, searches = self._searches()
        # One search for any of them; at each place one matches, each whose own search
        # would have gone on to there tries its own pattern (as its own search would: the
        # first place it matches at, past its last match), so none hides another.
        goes_on, pos = [0] * len(searches), 0
        while (m := anywhere.search(marked.text, pos)) is not None:
            start, first = m.start(), marked.text[m.start()]
            for n, (pattern, found, firsts) in enumerate(searches):
                if goes_on[n] > start or (start and first not in firsts):
                    continue  # (a match of its own search cannot begin here)
                if n == 0:  # (the keywords' pattern comes first in ``anywhere``: ``m`` is its)
                    own = m if any(m.start(g) >= 0 for g in (1, 2, 3)) else None
                else:
                    own = pattern.match(marked.text, start)
                if own:
                    cuts, goes_on[n] = found(own, marked)
                    yield from cuts
            pos = start + 1

    def _searches(self) -> tuple[Any, list[tuple[Any, Any, frozenset[int]]]]:
        """One pattern for the keywords' cuts and each finder's; and each one's own, with
        what reads its matches."""
        if not hasattr(self, "_all"):
            firsts = frozenset(c for w in self._kinds for c in w[:1].lower() + w[:1].upper())
            searches = [(self._pattern(), self._found, firsts)]
            searches += [
                (latin1_pattern(f.marked_pattern()), f.found, f.first_bytes()) for f in self._also
            ]
            patterns = [self._source] + [f.marked_pattern() for f in self._also]
            anywhere = latin1_pattern("|".join(f"(?:{p})" for p in patterns))
            self._all = (anywhere if self._also else self._pattern(), searches)
        return self._all

    def _found(self, m: Any, marked: Marked) -> tuple[list[Cut], int]:
        """The cut of a match ``m`` of the keywords' pattern, and one of a name that begins
        inside a prefix cut (``["and", "a", "pi_key=…"]``: ``dapi`` first; the search goes
        on past the prefix, so it is read here)."""
        cuts = [self._cut(m, marked)]
        if m.group(1) is not None:
            inner = self._pattern(names_only=True).search(marked.text, m.start() + 1)
            if inner is not None and inner.start() < m.end():
                cuts.append(self._cut(inner, marked))
        return cuts, m.end()

    def _cut(self, m: Any, marked: Marked) -> Cut:
        """The cut a match ``m`` of the marked text stands for in the text."""
        marks, spans, taken = marked.marks, marked.spans, marked.taken
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


def _marked(data: bytes, separator: Any) -> Marked | None:
    """``data`` with each run of separators (``separator``) one mark; None if it has none."""
    spans = [m.span() for m in separator.finditer(data)]
    if not spans:
        return None
    # The bytes each mark stands for past one, and each mark's first separator (the one a
    # cut names, as the items' own do).
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
    marks = [spans[n][0] - taken[i] for i, n in enumerate(first)]  # where each mark stands
    return Marked(_MARK.join(pieces), marks, [spans[n] for n in first], taken, first, len(spans))


def latin1_pattern(pattern: str, max_mem: int = 64 << 20) -> Any:
    """``pattern`` compiled by RE2 over bytes as Latin-1 (a byte a character)."""
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.max_mem = max_mem
    options.log_errors = False
    return re2.compile(pattern.encode("latin-1"), options)


def items_before(
    data: bytes, pos: int, separator_at_end: Any, piece: Any, most: int,
    longest: int, window: int,
) -> list[tuple[int, int]]:  # fmt: skip
    r"""The spans of the items before the one beginning at ``pos``, in order, up to ``most``
    of them and ``longest`` bytes: each separator found by ``separator_at_end`` (a pattern
    ending at ``\z``) in the ``window`` bytes before an item, each item by ``piece`` read
    backwards (its reversed text; None: no item there)."""
    items: list[tuple[int, int]] = []
    total = 0
    while len(items) < most and total < longest:
        sep = separator_at_end.search(data[max(0, pos - window) : pos])
        if sep is None:
            break
        cut = pos - (min(pos, window) - sep.start())
        found = piece.match(data[max(0, cut - 300) : cut][::-1])
        if found is None:
            break
        items.insert(0, (cut - found.end(), cut))
        total += found.end()
        pos = cut - found.end()
    return items


# A separator as the cut search reads it: a byte no keyword holds.
_MARK = b"\0"
MARK_RE = "\\x00"


def _cut_spellings(word: bytes) -> str:
    """A pattern for ``word`` cut by one mark or more: its first mark after each of its
    characters but the last, any after that."""
    chars = [re2.escape(chr(c)) for c in word]
    spelled = []
    for first in range(1, len(chars)):
        rest = f"(?:{MARK_RE})?".join(chars[first:])
        spelled.append("".join(chars[:first]) + MARK_RE + rest)
    return "|".join(spelled) or NOTHING
