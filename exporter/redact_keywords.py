"""Where in a text each redaction rule can match: found from the rules' keywords.

Most rules name keywords that every match contains (``ghp_``, ``password``): a rule runs
only on the stretches of text around its keywords, and not at all where none occurs. A
keyword automaton (pyahocorasick) finds every keyword of a text in one walk; for a long
text, a search of all keywords at once (RE2, about ten times the automaton's pace) first
finds the stretches that hold any, and the automaton walks only those. Texts are searched
as their UTF-8 bytes read as Latin-1, so positions are byte offsets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import ahocorasick
import re2

from .redact_rules import Rule

# How far before and after a keyword a match of a rule that contains the keyword may reach;
# a match that runs to the end of its stretch is looked for again in the whole text.
_BEFORE, _AFTER = 64, 640
# Below this many bytes walking the automaton costs less than one call of the RE2 search.
_PREFILTER_FROM = 256

Spots = dict[int, list[tuple[int, int]] | None]


class KeywordIndex:
    """The keywords of a rule set, compiled when first used."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self.always = tuple(i for i, r in enumerate(self.rules) if not r.keywords)

    @cached_property
    def automaton(self) -> Any:
        """Every keyword in small letters (``_folded``), so that one walk of the text in
        small letters finds them all: a name's in any mix of case (``X-API-Key``), a
        token's prefix (``ghp_``, ``AKIA``) then checked against its spelling."""
        return _automaton(self.rules)

    @cached_property
    def any_keyword(self) -> Any:
        """One linear-time search for any keyword at all (a name's in any case): most
        texts hold none, and this answers for them several times faster than walking the
        automaton. None when it cannot be built (the automaton alone then decides)."""
        spelled: dict[bool, set[str]] = {False: set(), True: set()}
        for rule in self.rules:
            for spelling in _spellings(rule):
                spelled[rule.fold].add(spelling.encode("utf-8", "surrogatepass").decode("latin-1"))
        exact, folded = sorted(spelled[False]), sorted(spelled[True])
        if not exact and not folded:
            return None
        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1  # one byte, one character, as below
        options.max_mem = 64 << 20
        options.log_errors = False
        words = [re2.escape(w.encode("latin-1")) for w in exact]
        # (a name's forms as spelled, in any case: RE2 does not fold ``Ã`` as ``_folded`` does)
        if folded:
            words.append(
                b"(?i:" + b"|".join(re2.escape(w.encode("latin-1")) for w in folded) + b")"
            )
        try:
            return re2.compile(b"|".join(words), options)
        except re2.error:
            return None

    @cached_property
    def first_keyword(self) -> Callable[[bytes, int, int], int]:
        return first_match(self.any_keyword)

    @cached_property
    def longest_keyword(self) -> int:
        return max((length for length, _ in self.automaton.values()), default=0)

    def spots(self, data: bytes) -> Spots:
        """Where each rule can match: the stretches of text around its keywords, or None
        (all of it) for a rule whose keyword is not part of what it matches."""
        spots: Spots = dict.fromkeys(self.always)
        automaton = self.automaton
        if not len(automaton):
            return spots
        size = len(data)
        latin = data.decode("latin-1")  # one character per byte: positions are byte offsets
        if size > _PREFILTER_FROM and self.any_keyword is not None:
            # Each stretch sliced out: the automaton copies the whole string it is given.
            found = (
                (a + end, value)
                for a, b in self.stretches(data)
                for end, value in automaton.iter(_folded(latin[a:b]))
            )
        else:
            found = automaton.iter(_folded(latin))
        for end, (length, rules) in found:
            start, stop = end + 1 - length - _BEFORE, end + 1 + _AFTER
            for i, spelled in rules:
                if spelled is not None and latin[end + 1 - length : end + 1] != spelled:
                    continue  # a token's prefix in another case: not the token
                windows = spots.get(i, False)
                if windows is False:  # the rule's first keyword
                    spots[i] = [(max(0, start), min(size, stop))] if self.rules[i].near else None
                elif windows is None:
                    continue
                elif windows[-1][1] >= start:  # overlaps the last stretch: extend it
                    windows[-1] = (windows[-1][0], min(size, stop))
                else:
                    windows.append((start, min(size, stop)))
        return spots

    def stretches(self, data: bytes) -> list[tuple[int, int]]:
        """The stretches that hold every keyword of a long text. A search finds the leftmost
        keyword start at or after where it begins; a keyword starting less than one keyword
        length after a found one ends inside that one's stretch of two lengths, so the next
        search begins there. The automaton then walks only these, and finds what it finds
        walking the whole text, in the same order."""
        longest = self.longest_keyword
        size = len(data)
        first = self.first_keyword
        stretches: list[tuple[int, int]] = []
        pos = 0
        while pos < size:
            start = first(data, pos, size)
            if start < 0:
                break
            stop = min(size, start + 2 * longest)
            if stretches and start <= stretches[-1][1]:
                stretches[-1] = (stretches[-1][0], stop)
            else:
                stretches.append((start, stop))
            pos = start + longest
        return stretches


def _automaton(rules: Sequence[Rule]) -> Any:
    """The keywords of ``rules`` in small letters, each with its length and, for each rule
    it names, the spelling the text must hold there (None: a name's, any case will do)."""
    automaton = ahocorasick.Automaton()
    for i, rule in enumerate(rules):
        for spelling in _spellings(rule):
            # Text is searched as its UTF-8 bytes read as Latin-1: so is each keyword
            # (a user's ``clé`` is found too), and its length is counted in bytes.
            word = spelling.encode("utf-8", "surrogatepass").decode("latin-1")
            key, entry = _folded(word), (i, None if rule.fold else word)
            known = automaton.get(key, (len(key), ()))[1]
            if entry not in known:
                automaton.add_word(key, (len(key), (*known, entry)))
    if len(automaton):
        automaton.make_automaton()
    return automaton


def _folded(latin: str) -> str:
    """``latin`` (bytes read as Latin-1) in small letters: each character stays one (none
    of the first 256 lowers to two), so positions hold."""
    return latin.lower()


def _spellings(rule: Rule) -> set[str]:
    """The keywords as they appear in text: as given, or (``fold``) also in lower case,
    UPPER case, Capitalized and with each word capitalized. A name's are held in small
    letters (``_folded``: any mix of ASCII case is found, ``X-API-Key``); these forms still
    find a name's other letters (``CLÉ`` for ``clé``: its UTF-8 bytes do not lower so)."""
    if not rule.fold:
        return set(rule.keywords)
    return {
        w
        for k in rule.keywords
        for w in (k, k.lower(), k.upper(), k.capitalize(), _WORD_HEAD.sub(_upper, k))
    }


_WORD_HEAD = re.compile(r"(?:^|(?<=[-_ ]))[a-z]")  # the first letter of each word


def _upper(m: re.Match[str]) -> str:
    return m.group().upper()


def first_match(regex: Any) -> Callable[[bytes, int, int], int]:
    """Where ``regex`` first matches in ``data[pos:endpos]`` (-1: nowhere). Through the
    binding's own search when this version of google-re2 has it where it had it (about half
    the cost per call of the wrapper's, which builds a match object), else the wrapper's."""
    native = getattr(regex, "_regexp", None)
    unanchored = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if native is not None and unanchored is not None and hasattr(native, "Match"):
        match = native.Match

        def first(data: bytes, pos: int, endpos: int) -> int:
            return match(unanchored, data, pos, endpos)[0][0]

        return first

    def searched(data: bytes, pos: int, endpos: int) -> int:
        m = regex.search(data, pos, endpos)
        return -1 if m is None else m.start()

    return searched
