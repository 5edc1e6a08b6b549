"""A secret found once, redacted wherever else it occurs: the one way redaction spreads.

A rule that judges a value by what is around it (``token="…"``, ``credentials:`` over a
key, ``{"password": …}``) finds that value only there; the same value a few lines down, in
prose or in another message, has nothing around it to go by. ``Spread`` finds every
occurrence of the secrets found so far in one walk of a keyword automaton (pyahocorasick),
inside other words too. Used within one text (``redact_nested``: a value below a holder
and the line that uses it) and across a whole session and its family (``redact_sessions``).

A secret is looked for as the texts it is looked for in are written: a session's strings
as they are, the bytes ``redact_nested`` reads as Latin-1 (positions there are byte
offsets) as bytes read so.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

import ahocorasick

from .model import family_roots
from .redact_names import PLACEHOLDER, plausible_secret

if TYPE_CHECKING:
    from .model import Session

# What a value must be to be looked for across a session: long and random enough that it
# is the secret wherever it occurs, not a word or a name that happens to be there too.
SPREAD_SHORTEST = 12
_SPREAD_ENTROPY = 3.0  # bits per character (4.0 without digits: ``plausible_secret``)


def spreadable(value: str) -> bool:
    """Is ``value``, which a rule redacted, safe to redact wherever else it occurs? Not a
    shape that is evidence elsewhere, whatever a name beside it once said: a UUID, a git
    SHA or a SHA-256, a path or an address (``oauth2/v1/token``); there it was redacted,
    elsewhere it stays searchable."""
    return (
        len(value) >= SPREAD_SHORTEST
        and not any(c.isspace() for c in value)
        and not _EVIDENCE.fullmatch(value)
        and not ("/" in value and any(_WORD.fullmatch(part) for part in value.split("/")))
        and plausible_secret(value, _SPREAD_ENTROPY, quoted=True)
    )


_EVIDENCE = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"  # a UUID
    r"|[0-9a-f]{40}|[0-9a-f]{64}|[0-9A-F]{40}|[0-9A-F]{64}"  # a git SHA, a SHA-256 (an
    # API key of 32 hex digits is spread: as a file's MD5 it would rarely stand by a name)
    r"|[A-Za-z][\w+.-]*://\S*"  # an address
)
_WORD = re.compile(r"[a-z]{3,}")  # a path's folder named in words (not a key's random run)


class Spread:
    """Secrets, each with its rule's id, found again. Each is given as the texts it is
    looked for in are written: ``str`` for texts, UTF-8 bytes read as Latin-1 for bytes
    (``redact_nested``)."""

    def __init__(self, secrets: Iterable[tuple[str, str]]) -> None:
        self._automaton = ahocorasick.Automaton()
        for secret, rule_id in secrets:
            if secret:
                self._automaton.add_word(secret, (len(secret), rule_id))
        self.empty = not len(self._automaton)
        if not self.empty:
            self._automaton.make_automaton()

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """``(start, end, rule id)`` of every occurrence in ``text``, in any order."""
        if self.empty:
            return []
        return [
            (last + 1 - length, last + 1, rule_id)
            for last, (length, rule_id) in self._automaton.iter(text)
        ]

    def text(self, text: str, counts: Counter[str] | None = None) -> str:
        """``text`` with every occurrence replaced by its placeholder (``counts`` gains one
        each); ``text`` itself when there is none."""
        return replaced(text, self.spans(text) if text else [], counts)


def replaced(
    text: str, spans: list[tuple[int, int, str]], counts: Counter[str] | None = None
) -> str:
    """``text`` with each of ``spans`` (start, end, rule id; an overlapping one left out:
    ``without_overlaps``) replaced by its rule's placeholder; ``counts`` gains one each.
    ``text`` itself when there is none."""
    spans = without_overlaps(spans)
    if not spans:
        return text
    pieces: list[str] = []
    last = 0
    for start, end, rule_id in spans:
        pieces += (text[last:start], PLACEHOLDER.format(rule_id))
        last = end
        if counts is not None:
            counts[rule_id] += 1
    pieces.append(text[last:])
    return "".join(pieces)


def without_overlaps(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``spans`` in order, each overlapping an earlier one left out; of two that start
    together the longer is kept (so no tail of a longer secret is left in the text)."""
    kept: list[tuple[int, int, str]] = []
    for span in sorted(spans, key=lambda s: (s[0], -s[1])):
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return kept


def families(sessions: Iterable[Session]) -> dict[str, str]:
    """Each session's family among ``sessions``, by id (``family_roots``)."""
    return family_roots({s.session_id: s.parent_id for s in sessions})
