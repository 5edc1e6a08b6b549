"""A token split across two items of a list of strings (``["sk-ant-api03-…P0", "qR1s…-AA"]``:
a model's output streamed in chunks, a long string a tool broke up): both halves go.

Only where a token's own rule runs (its prefix is near), the two items are read joined: a
secret the rules find across the join is one that continues into the next item, when the
first item alone holds no whole token at its end (a prefix and a body cut short). Read
before the rules' own pass, so a generic rule cannot first take the next item as a value
the first one names (``["AGE-SECRET-KEY-1…", "…"]``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

import re2

from .redact_cut import NOTHING, Cut, CutKeywords, items_before, latin1_pattern
from .redact_cut_names import NAMED_RULES, AssignedNames, CutShortNames, value_items
from .redact_cut_words import SPACED_RULES, SpacedItems, spaced_secrets
from .redact_names import PLACEHOLDER
from .redact_pieces import reads_random, short_chunk, word_like, wordish

if TYPE_CHECKING:
    from .redact_keywords import Spots
    from .redact_rules import Rule

# Between two items of a list of strings: a quote, a comma (a line break, written or
# escaped, and indentation), the same quote (escaped in JSON inside a string too).
_SEPARATOR = r"""\\{0,3}["'],[ \t]*(?:(?:\r?\n|\\{1,3}n)[ \t]*)?\\{0,3}["']"""
_CHAR = r"[A-Za-z0-9_.+/~$:-]"
# The characters of a token's half: before the first item's end (read backwards), after
# the next item's start.
_HALF = re2.compile(rb"[A-Za-z0-9_.+/~$:-]{1,300}")
_LONGEST = 300  # characters of a token (its half read backwards, all of its items)
# A token split over more items than this (a stream of one character a chunk) is not read.
_MOST_ITEMS = 8
# A whole string item of a list (a name and its value: ``key=…``, ``key: …``).
_STRING = re2.compile(rb"[^\"'\\\r\n]{0,300}")
# Rules whose keywords are no token's prefix: commands and names, addresses (a URL's
# password, a webhook's), a query's ``sig=``, and the 599 endings of a Discord token.
NOT_PREFIXES = frozenset({
    "password-flag", "aws-secret-key", "discord-bot-token", "cookie", "uri-credentials",
    "slack-webhook", "discord-webhook", "teams-webhook", "azure-sas-token",
})  # fmt: skip


def prefix_rule(rule: Rule) -> bool:
    """Does ``rule`` know a token by its prefix (specific, not folded, not of a name)?"""
    return not (rule.generic or rule.fold or rule.id in NOT_PREFIXES)


# Rules whose keyword stands inside or at the end of their token (``…-us14``, ``:AA…``,
# ``…T3BlbkFJ…``): the next item of a split one may hold it instead of the first.
_INNER_WORDS = frozenset({
    "mailchimp-api-key", "telegram-bot-token", "openai-api-key", "azure-ad-client-secret",
    "terraform-cloud-token",
})  # fmt: skip
# Rules of a name and its value whose name a list may cut (``["api_", "key=…"]``).
_NAMED = frozenset({"generic-password", "generic-secret"})
_NAME_REACH = 64  # bytes from a cut name's end to its value's start
# An assignment after a name (as the generic rules read one): ``=``, ``:``, ``is``, ``was``.
_ASSIGNS = re2.compile(rb"[=:]|[ \t](?:is|was)[ \t]")
# An item that is an assignment alone (``["password", "=", "…"]``: words, one an item).
_ASSIGNMENT_ITEM = re2.compile(rb"[ \t]*(?::=|=>|=|:|is:?|was:?)[ \t]*")
# An item that ends in ``is`` or ``was`` (as the generic rules assign with them).
_ENDS_ASSIGNING = re2.compile(rb"[ \t](?:is|was):?\z")
# The rules over a text: each secret they find in it, as bytes, with its rule's id.
Finds = Callable[[bytes], list[tuple[bytes, str]]]


class SplitItems:
    """The rules of a token known by its prefix (not a name's value), and their prefixes:
    what a list of strings may split."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = frozenset(
            i for i, r in enumerate(rules) if r.near and r.keywords and prefix_rule(r)
        )
        # (Only theirs: a private key's lines are a list's items, and its own rule reads them.)
        self._ids = frozenset(rules[i].id for i in self.rules)
        self._prefixes = sorted({k for i in self.rules for k in rules[i].keywords})
        self._inner = sorted({k for r in rules if r.id in _INNER_WORDS for k in r.keywords})
        names = CutKeywords.name_words(k for r in rules if r.id in _NAMED for k in r.keywords)
        # A command or a sentence whose words are the items (``["mysql", "-p…"]``); a short
        # name cut (``["p", "wd=", "…"]``: in no spot). Both in the cut keywords' one pass.
        self._spaced = SpacedItems(_SEPARATOR)
        also = (CutShortNames(), self._spaced)
        self._cuts = CutKeywords(self._prefixes, self._inner, names, also)
        # A name whole before its assignment's start, at an item's end (``"access_token="``).
        self._assigned = AssignedNames([n.encode() for n in names], _SEPARATOR)
        self._named_rules = frozenset(i for i, r in enumerate(rules) if r.id in NAMED_RULES)
        self._spaced_rules = frozenset(i for i, r in enumerate(rules) if r.id in SPACED_RULES)

    @cached_property
    def _pairs(self) -> Any:
        """Two items that may hold a split token: a prefix, the rest of the first item up to
        the separator; or the separator, the next item's start up to a keyword that ends a
        token (``…-us14``). One RE2 search (linear time) for any of them."""

        words = "|".join(re2.escape(k) for k in self._prefixes)
        inner = "|".join(re2.escape(k) for k in self._inner) or NOTHING
        pattern = f"(?:{words}){_CHAR}*({_SEPARATOR})|({_SEPARATOR}){_CHAR}*(?:{inner})"
        return latin1_pattern(pattern)

    def may_cut(self, data: bytes) -> bool:
        """May ``data``, where the rules' prefilter found no keyword, hold one cut between
        two items of a list?"""
        return (b'",' in data or b"'," in data) and any(
            cut.kind != "words" for cut in self._cuts.find(data, _separator())
        )

    def redact(self, data: bytes, spots: Spots, finds: Finds, counts: Counter[str] | None) -> bytes:
        """``data`` with every piece of each token that ``finds`` sees only with items
        joined replaced by its placeholder (``counts`` gains one a token); ``data`` itself
        when there is none. Looked for when a prefix is in it (``spots``)."""
        if b'",' not in data and b"'," not in data:
            return data
        # A keyword cut between two items is in no spot: looked for in the list itself.
        cuts = list(self._cuts.find(data, _separator()))
        anchors = [cut for cut in cuts if cut.kind == "words"]
        cuts = [cut for cut in cuts if cut.kind != "words"]
        if not self._named_rules.isdisjoint(spots):  # (its keyword whole: a rule's spot)
            cuts += self._assigned.find(data)
        spaced = anchors and not self._spaced_rules.isdisjoint(spots)
        runs = list(self._spaced.runs(data, anchors)) if spaced else []
        if self.rules.isdisjoint(spots) and not cuts and not runs:
            return data
        pieces: list[bytes] = []
        last = 0
        for parts, rule_id in self._pieces(data, finds, cuts, runs):
            if parts[0][0] < last:
                continue
            placeholder = PLACEHOLDER.format(rule_id).encode()
            for start, end in parts:
                pieces += (data[last:start], placeholder)
                last = end
            if counts is not None:
                counts[rule_id] += 1
        if not pieces:
            return data
        pieces.append(data[last:])
        return b"".join(pieces)

    def _pieces(
        self, data: bytes, finds: Finds, cuts: list[Cut], runs: list[list[tuple[int, int]]]
    ) -> list[tuple[tuple[tuple[int, int], ...], str]]:
        """The pieces (their spans, one an item) of each token split across items, in order."""
        found: set[tuple[tuple[tuple[int, int], ...], str]] = set()
        # The readings of neighbouring keywords share most of their items (each one's
        # beginnings and ends are the next one's, shifted by an item): each join is read by
        # the rules once, however many readings hold it.
        finds = _read_once(finds)
        pairs: list[tuple[int, int, bool]] = []
        pos = 0
        while (m := self._pairs.search(data, pos)) is not None:
            inner = m.start(1) < 0
            cut, after = m.span(2) if inner else m.span(1)
            pos = after  # (the next pair may begin in this one's second item)
            pairs.append((cut, after, inner))
        for cut in cuts:
            if cut.kind == "name":
                found.update(_named(data, cut, finds))
            else:
                pairs.append((cut.cut, cut.after, cut.kind == "inner"))
        for cut, after, inner in pairs:
            found.update(self._pair(data, cut, after, inner, finds))
        for run in runs:
            found.update(((span,), rule_id) for span, rule_id in spaced_secrets(data, run, finds))
        # (Where two begin at the same place, the wider first: a value of several items
        # over the reading of words that takes its first: ``["password", "=", "…", "…"]``.)
        return sorted(found, key=lambda piece: (piece[0][0][0], -piece[0][-1][1], piece))

    def _pair(
        self, data: bytes, cut: int, after: int, inner: bool, finds: Finds
    ) -> list[tuple[tuple[tuple[int, int], ...], str]]:
        """The tokens across the items on either side of the separator ``cut``..``after``."""
        back = _HALF.match(data[max(0, cut - _LONGEST) : cut][::-1])
        ahead = _HALF.match(data, after)
        if back is None or ahead is None:
            return []
        items = [(cut - back.end(), cut), (after, ahead.end())]
        items += _items_after(data, ahead.end())
        # A prefix begins its token in the first item; a keyword inside or at the end of
        # one (``…-us14``) may have its token begin one or more items before.
        earlier = _items_before(data, items[0][0]) if inner else []
        items = earlier + items
        found = []
        # Each beginning, and each end from the last item back: the widest reading that
        # finds a token across items (a token ends before a word that follows it).
        for first in range(len(earlier) + 1):
            for last in range(len(items), len(earlier) + 1, -1):
                tokens = _across(data, items[first:last], finds, self._ids)
                if tokens:
                    found += tokens
                    break
        return found


def _named(data: bytes, cut: Cut, finds: Finds) -> list[tuple[tuple[tuple[int, int], ...], str]]:
    """The value of a generic rule whose name ``cut`` cuts (``["api_", "key=…"]``): its
    pieces in the items after the name, when the items joined hold it."""
    back = _STRING.match(data[max(0, cut.cut - _LONGEST) : cut.cut][::-1])
    items = [(cut.cut - back.end(), cut.cut)]
    items += value_items(data, cut.after, _separator(), _MOST_ITEMS - 1)
    # Where the name ends in the join: its bytes before ``cut.end`` in the items.
    named = sum(min(b, cut.end) - a for a, b in items if a < cut.end)
    found = _named_in(data, items, named, finds)
    if found or len(items) < 3:
        return found
    # A value followed by words (``["pass", "word=", "…", "and", "more"]``) ends at its own
    # item's end: read with fewer items, when the join assigns the name a value.
    joined, _ = _joined(data, items, spaced=True)
    if _ASSIGNS.search(joined[named : named + _NAME_REACH]) is None:
        return []
    for last in range(len(items) - 1, 1, -1):
        if found := _named_in(data, items[:last], named, finds):
            return found
    return []


def _named_in(
    data: bytes, items: list[tuple[int, int]], named: int, finds: Finds
) -> list[tuple[tuple[tuple[int, int], ...], str]]:
    """The generic rules' values in the ``items`` joined that begin within reach of the
    name ending at ``named`` in the join: their pieces' spans in ``data``."""
    joined, offsets = _joined(data, items, spaced=True)
    out = []
    for secret, rule_id in finds(joined):
        if rule_id not in NAMED_RULES:
            continue
        for at in _places(joined, secret):
            if not named <= at <= named + _NAME_REACH:
                continue
            taken = _taken(items, offsets, at, at + len(secret))
            # (A value of several items, one of them a word, a name or a version, is words
            # joined: ``value``, ``anTokens`` ``v2``; of one, a word.)
            reads_as_word = wordish if len(taken) > 1 else word_like
            if taken and not any(reads_as_word(data[a:b]) for a, b in taken):
                if not _numbers_as_words(data, items, taken) and not _quote_inside(data, taken):
                    out.append((tuple(taken), rule_id))
    return out


def _numbers_as_words(
    data: bytes, items: list[tuple[int, int]], taken: list[tuple[int, int]]
) -> bool:
    """Is a value of several items numbers after an assignment that is an item of its own
    (``["password", "=", "2222", "3306"]``): words, as ``password = 2222 3306`` reads (a
    password's name then a port), not one number cut in pieces?"""
    if len(taken) < 2 or not all(data[a:b].isdigit() for a, b in taken):
        return False
    first = next(n for n, (a, b) in enumerate(items) if a <= taken[0][0] < b)
    return first > 0 and _ASSIGNMENT_ITEM.fullmatch(data[slice(*items[first - 1])]) is not None


def _quote_inside(data: bytes, taken: list[tuple[int, int]]) -> bool:
    """Does more than the list's separators stand between two pieces of a value: a quote
    of an item's own (``["password", "is is x64=\"", "is="]``, ``["password=", "'is='",
    "x64="]``), which, the items written out, would end the value there? Or is a piece before
    the last a word and ``=`` (``["token=", "passwordvalue=", "config=", "an"]``): a name's
    assignment of its own, not a piece of a value (a random piece and ``=`` still is)."""
    for (a, end), (start, _) in zip(taken, taken[1:], strict=False):
        if data[end - 1 : end] == b"=" and wordish(data[a:end].rstrip(b"=")):
            return True  # (a word and ``=`` before more of it: an assignment of its own)
        while end < start and (sep := _separator().match(data, end)) is not None:
            end = sep.end()  # (an empty item between: its two separators)
        if end != start:
            return True
    return False


def _read_once(finds: Finds) -> Finds:
    """``finds``, each text read once (for one list's readings: their joins repeat)."""
    read: dict[bytes, list[tuple[bytes, str]]] = {}

    def once(joined: bytes) -> list[tuple[bytes, str]]:
        if joined not in read:
            read[joined] = finds(joined)
        return read[joined]

    return once


def _across(
    data: bytes, items: list[tuple[int, int]], finds: Finds, ids: frozenset[str]
) -> list[tuple[tuple[tuple[int, int], ...], str]]:
    """Each token of a rule in ``ids`` that ``finds`` sees in the ``items`` joined and that
    crosses from one to the next: its pieces' spans in ``data``."""
    joined, offsets = _joined(data, items)
    out = []
    for secret, rule_id in finds(joined):
        if rule_id not in ids:
            continue
        for at in _places(joined, secret):
            taken = _taken(items, offsets, at, at + len(secret))
            if len(taken) < 2:
                continue  # (in one item: the rules' own pass finds it)
            # Items of words alone (``["sk_test_", "start", "Stripe"]``) are no token's pieces.
            if all(wordish(data[a:b]) for a, b in taken):
                continue
            # A token of no fixed length (``sk_live_…``) whole without its last piece would
            # take the next item's word too: it goes on there only when that reads as a body.
            shorter = b"".join(data[a:b] for a, b in taken[:-1])
            if any(found == shorter for found, _ in finds(shorter)):
                last_piece = data[taken[-1][0] : taken[-1][1]]
                if not (reads_random(last_piece) or short_chunk(last_piece)):
                    continue
            out.append((tuple(taken), rule_id))
    return out


def _joined(
    data: bytes, items: list[tuple[int, int]], spaced: bool = False
) -> tuple[bytes, list[int]]:
    """The ``items`` joined, and where each begins in the join (``spaced``: a space after
    an item that ends in ``is`` or ``was`` before one that begins with none, as words are
    joined: ``["the password is", "…"]``)."""
    pieces = [data[a:b] for a, b in items]
    if spaced:
        pieces = [
            p + b" "
            if n + 1 < len(pieces) and _ENDS_ASSIGNING.search(p) and pieces[n + 1][:1] not in b" \t"
            else p
            for n, p in enumerate(pieces)
        ]
    offsets = [0]
    for piece in pieces:
        offsets.append(offsets[-1] + len(piece))
    return b"".join(pieces), offsets


def _taken(
    items: list[tuple[int, int]], offsets: list[int], at: int, end: int
) -> list[tuple[int, int]]:
    """The spans in the text of what ``at``..``end`` of the items' join takes of each."""
    return [
        (a + max(0, at - off), a + min(b - a, end - off))
        for (a, b), off in zip(items, offsets, strict=False)
        if off < end and at < off + b - a
    ]


def _items_after(data: bytes, pos: int) -> list[tuple[int, int]]:
    """The items of token characters that follow the one ending at ``pos``, each whole
    (one that ends in another character ends the token): their spans, a few at most."""
    items: list[tuple[int, int]] = []
    total = 0
    while len(items) < _MOST_ITEMS and total < _LONGEST:
        sep = _separator().match(data, pos)
        if sep is None:
            break
        piece = _HALF.match(data, sep.end())
        if piece is None:
            break
        items.append(piece.span())
        total += piece.end() - piece.start()
        pos = piece.end()
    return items


def _items_before(data: bytes, pos: int) -> list[tuple[int, int]]:
    """The items of token characters before the one beginning at ``pos``, in order."""
    return items_before(data, pos, _separator_before(), _HALF, _MOST_ITEMS, _LONGEST, 64)


@lru_cache(maxsize=1)
def _separator() -> Any:
    return re2.compile(_SEPARATOR.encode())


@lru_cache(maxsize=1)
def _separator_before() -> Any:
    return re2.compile(b"(?:" + _SEPARATOR.encode() + rb")\z")


def _places(text: bytes, part: bytes) -> list[int]:
    """Where ``part`` occurs in ``text``."""
    places, at = [], text.find(part)
    while at != -1:
        places.append(at)
        at = text.find(part, at + 1)
    return places
