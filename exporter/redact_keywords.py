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
        """The keywords as they are spelled (a token's prefix: ``ghp_``, ``AKIA``)."""
        return _automaton(self.rules, folded=False)

    @cached_property
    def folded(self) -> Any:
        """The keywords of names (``fold``) in small letters: the text is walked in small
        letters for them too, so a name is found in any mix of case (``X-API-Key``)."""
        return _automaton(self.rules, folded=True)

    @cached_property
    def any_keyword(self) -> Any:
        """One linear-time search for any keyword at all (a name's in any case): most
        texts hold none, and this answers for them several times faster than walking the
        automaton. None when it cannot be built (the automaton alone then decides)."""
        exact = [w for w, _ in self.automaton.items()] if len(self.automaton) else []
        # (a name's forms as spelled, in any case: RE2 does not fold ``Ã`` as ``_folded`` does)
        folded = sorted(
            {
                spelling.encode("utf-8", "surrogatepass").decode("latin-1")
                for rule in self.rules
                if rule.fold
                for spelling in _spellings(rule)
            }
        )
        if not exact and not folded:
            return None
        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1  # one byte, one character, as below
        options.max_mem = 64 << 20
        options.log_errors = False
        words = [re2.escape(w.encode("latin-1")) for w in exact]
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
        lengths = [*self.automaton.values(), *self.folded.values()]
        return max((length for length, _ in lengths), default=0)

    def spots(self, data: bytes) -> Spots:
        """Where each rule can match: the stretches of text around its keywords, or None
        (all of it) for a rule whose keyword is not part of what it matches."""
        spots: Spots = dict.fromkeys(self.always)
        if not len(self.automaton) and not len(self.folded):
            return spots
        size = len(data)
        latin = data.decode("latin-1")  # one character per byte: positions are byte offsets
        # A name's keywords are held in small letters: the text is walked so for them.
        walks = ((self.automaton, str), (self.folded, _folded))
        if size > _PREFILTER_FROM and self.any_keyword is not None:
            # Each stretch sliced out: the automaton copies the whole string it is given.
            stretches = self.stretches(data)
            found = (
                (a + end, value)
                for automaton, how in walks
                if len(automaton)
                for a, b in stretches
                for end, value in automaton.iter(how(latin[a:b]))
            )
        else:
            found = (
                hit
                for automaton, how in walks
                if len(automaton)
                for hit in automaton.iter(how(latin))
            )
        for end, (length, rules) in found:
            start, stop = end + 1 - length - _BEFORE, end + 1 + _AFTER
            for i in rules:
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


def _automaton(rules: Sequence[Rule], folded: bool) -> Any:
    """The keywords of ``rules`` that are names (``folded``: in small letters), or those
    spelled as they are, each with its length and the rules it names."""
    automaton = ahocorasick.Automaton()
    for i, rule in enumerate(rules):
        if rule.fold != folded:
            continue
        for spelling in _spellings(rule):
            # Text is searched as its UTF-8 bytes read as Latin-1: so is each keyword
            # (a user's ``clé`` is found too), and its length is counted in bytes.
            word = spelling.encode("utf-8", "surrogatepass").decode("latin-1")
            word = _folded(word) if folded else word
            known = automaton.get(word, (len(word), ()))[1]
            if i not in known:
                automaton.add_word(word, (len(word), (*known, i)))
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
