"""A secret's name whose assignment a list of strings cuts where the name's keyword stands
whole (``["a", "ccess_token=", "…"]``, ``["api_key ", "=", " …"]``): the item ends in the
name, an ``=`` or ``:`` or spaces, and the value follows in the next item.

``redact_cut`` finds a keyword a separator cuts, or a name that goes on up to one; a name
followed by the start of its assignment at an item's end is neither, and the rules' own pass
sees ``token=", "…`` as no assignment. Found here as a cut after the item, ``redact_split``
then reads the items after it joined, as it does those of a cut name.

The item may also open the value's quote (``["api_key=\\"", "…", "\\""]``), assign with
``is`` or ``was`` (``["the password is", "…"]``), or end in a short name the password rule
takes only as a word of its own (``["pwd=", "…"]``), or in ``Bearer `` (a bearer token's
keyword: ``["-H", "Authorization: Bearer ", "…"]``). The value's item may be quoted in
itself (``["password=", "'…'"]``).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from typing import Any

import re2

from .redact_cut import MARK_RE, NOTHING, Cut, Marked, latin1_pattern

# After a name's keyword: the rest of its name, then an assignment's start (``=``, ``:``,
# ``:=``, ``=>``, `` is``, `` was``) or spaces before one, up to the item's end.
_ASSIGNMENT = r"(?:[ \t]*(?::=|=>|=|:)[ \t]*|[ \t]+(?:(?:is|was):?[ \t]*)?)"
_GOES_ON = r"[A-Za-z0-9_-]{0,24}" + _ASSIGNMENT
# The short names of a password the rules take (``PASSWORD_WORD`` in ``redact_names``) only
# after no letter, or after a small one in camelCase (``pwd``, ``db_pass``, ``dbPwd``; not
# ``bypass``), followed at once by the assignment (``passes=`` is no name).
_SHORT = (
    r"(?:[^A-Za-z](?i:(pass|pwd))|[a-z](Pass|Pwd))"
    r"(?:[ \t]*(?::=|=>|=|:)[ \t]*|[ \t]+(?:is|was):?[ \t]*)"
)
# ``auth`` (``generic-secret``'s Docker form: ``auth=…``, ``auth: …``) after no word's
# character, followed at once by ``=`` or ``:`` (``oauth=``, ``auth_mode=`` are no names).
_AUTH = r"[^\w-](?i:(auth))[ \t]*[:=][ \t]*"
# A bearer token's keyword and the space after it (``bearer-token``: ``bearer\s+…``).
_BEARER = r"(?i:\b(bearer))[ \t]+"
# A quote the name's item opens its value with (``api_key="``, escaped in JSON too).
_OPENS = r"(?:\\{0,3}[\"'])?"
# The rules a cut found here may name: the generic ones and the bearer token's.
NAMED_RULES = frozenset({"generic-password", "generic-secret", "bearer-token"})
# An item's quote, and a string item's characters (as ``redact_split`` reads one).
_QUOTE = re2.compile(rb"\\{0,3}[\"']")
_STRING = re2.compile(rb"[^\"'\\\r\n]{0,300}")


class AssignedNames:
    """The names (keywords of generic rules, any case) that an item ends with, their
    assignment begun, before a separator (``separator``: a pattern of one)."""

    def __init__(self, names: Iterable[bytes], separator: str) -> None:
        words = sorted(names, key=len, reverse=True)  # (longest first: RE2 takes the leftmost)
        alternatives = "|".join(re2.escape(w.decode()) for w in words) or NOTHING
        named = f"(?i:({alternatives})){_GOES_ON}|{_SHORT}|{_AUTH}|{_BEARER}"
        pattern = f"(?:{named})({_OPENS})({separator})"
        self._pattern: Any = latin1_pattern(pattern, 16 << 20)

    def find(self, data: bytes) -> Iterator[Cut]:
        """Each such name in ``data``: a cut at the separator after it (at the quote it
        opens, if any: the value is read without it), the name ending where its keyword
        ends."""
        pos = 0
        while (m := self._pattern.search(data, pos)) is not None:
            name = next(g for g in range(1, 6) if m.start(g) >= 0)
            yield Cut(m.start(6), m.end(7), "name", m.end(name))
            pos = m.end(7)  # (the next item may end in a name too)


# A short password name (``pwd``, ``pass``) cut by a separator or two, after no letter, its
# assignment following at once: ``["p", "wd=", "…"]``. (Long names: ``redact_cut``.)
_SHORT_SPELLINGS = ("p|wd", "pw|d", "p|ass", "pa|ss", "pas|s")
_LETTERS_AND_BACKSLASH = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\\"
_MOST_SEPARATORS = 2  # (an empty item between the name's pieces: ``["p", "", "wd=", …]``)


class CutShortNames:
    """The short password names a list cuts: found in ``redact_cut``'s pass (a
    ``MarkedFinder``), its separators each run one mark."""

    def marked_pattern(self) -> str:
        cuts = "|".join(s.replace("|", MARK_RE) for s in _SHORT_SPELLINGS)
        assigned = r"(?:[ \t]*(?::=|=>|=|:)|[ \t]+(?:is|was)\b)"
        return rf"(?:[^A-Za-z\\]|\A)((?i:{cuts})){assigned}"

    def first_bytes(self) -> frozenset[int]:
        return frozenset(range(256)) - frozenset(_LETTERS_AND_BACKSLASH)

    def found(self, m: Any, marked: Marked) -> tuple[list[Cut], int]:
        """A cut at the name's (first) separator, the name ending where ``m``'s does."""
        i = bisect.bisect_left(marked.marks, m.start(1))  # (the mark inside the name)
        if marked.run(i) > _MOST_SEPARATORS:
            return [], m.end(1)
        cut, after = marked.spans[i]
        return [Cut(cut, after, "name", marked.at(m.end(1)))], m.end(1)


def value_items(data: bytes, after: int, separator: Any, most: int) -> list[tuple[int, int]]:
    """The string items from ``after`` on (``separator``: a compiled pattern of one; up to
    ``most``): their spans, each without one pair of quotes of its own around it
    (``"'…'"``: a value quoted in its item)."""
    items: list[tuple[int, int]] = []
    pos = after
    while True:
        empty = separator.match(data, pos) is not None  # (its quote the list's own)
        piece = (not empty and _quoted(data, pos)) or _STRING.match(data, pos).span()
        items.append(piece)
        pos = piece[1] + (piece[0] - pos)  # (past its closing quote, as long as its opening)
        sep = separator.match(data, pos)
        if sep is None and (opens := _QUOTE.match(data, pos)) is not None:
            sep = separator.match(data, opens.end())  # (``"key=\""``: a quote it opens)
        if len(items) >= most or sep is None:
            return items
        pos = sep.end()


def _quoted(data: bytes, pos: int) -> tuple[int, int] | None:
    """The inside of an item at ``pos`` quoted whole by one quote (the same one closing it,
    right before the item's own closing quote), or None."""
    opening = _QUOTE.match(data, pos)
    if opening is None:
        return None
    inside = _STRING.match(data, opening.end())
    quote = opening.group()
    closing = inside.end() + len(quote)
    if not inside.end() > inside.start() or not data.startswith(quote, inside.end()):
        return None
    return inside.span() if _QUOTE.match(data, closing) is not None else None
