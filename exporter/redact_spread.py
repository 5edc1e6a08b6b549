"""A secret found once, redacted wherever else it occurs: the one way redaction spreads.

A rule that judges a value by what is around it (``token="…"``, ``credentials:`` over a
key, ``{"password": …}``) finds that value only there; the same value a few lines down, in
prose or in another message, has nothing around it to go by. ``Spread`` finds every
occurrence of the secrets found so far in one walk of a keyword automaton (pyahocorasick),
inside other words too. Used within one text (``redact_nested``: a value below a holder
and the line that uses it) and across a whole session (``redact.Redactor.session``).

Texts are searched as their UTF-8 bytes read as Latin-1, so positions are byte offsets.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import ahocorasick

from .redact_names import PLACEHOLDER, plausible_secret

# What a value must be to be looked for across a session: long and random enough that it
# is the secret wherever it occurs, not a word or a name that happens to be there too.
SPREAD_SHORTEST = 12
_SPREAD_ENTROPY = 3.0  # bits per character (4.0 without digits: ``plausible_secret``)


def spreadable(value: str) -> bool:
    """Is ``value``, which a rule redacted, safe to redact wherever else it occurs?"""
    return (
        len(value) >= SPREAD_SHORTEST
        and not any(c.isspace() for c in value)
        and plausible_secret(value, _SPREAD_ENTROPY, quoted=True)
    )


class Spread:
    """Secrets (each as UTF-8 bytes read as Latin-1, with its rule's id), found again."""

    def __init__(self, secrets: Iterable[tuple[str, str]]) -> None:
        self._automaton = ahocorasick.Automaton()
        for secret, rule_id in secrets:
            if secret:
                self._automaton.add_word(secret, (len(secret), rule_id))
        self.empty = not len(self._automaton)
        if not self.empty:
            self._automaton.make_automaton()

    def spans(self, latin: str) -> list[tuple[int, int, str]]:
        """``(start, end, rule id)`` of every occurrence in ``latin``, in any order."""
        if self.empty:
            return []
        return [
            (last + 1 - length, last + 1, rule_id)
            for last, (length, rule_id) in self._automaton.iter(latin)
        ]

    def data(self, data: bytes, counts: Counter[str] | None = None) -> bytes:
        """``data`` with every occurrence replaced by its placeholder (``counts`` gains one
        each); ``data`` itself when there is none."""
        spans = without_overlaps(self.spans(data.decode("latin-1")))
        if not spans:
            return data
        pieces: list[bytes] = []
        last = 0
        for start, end, rule_id in spans:
            pieces += (data[last:start], PLACEHOLDER.format(rule_id).encode())
            last = end
            if counts is not None:
                counts[rule_id] += 1
        pieces.append(data[last:])
        return b"".join(pieces)

    def text(self, text: str, counts: Counter[str] | None = None) -> str:
        """``text`` with every occurrence replaced; ``text`` itself when there is none."""
        if self.empty or not text:
            return text
        data = text.encode("utf-8", "surrogatepass")
        new = self.data(data, counts)
        return text if new is data else new.decode("utf-8", "surrogatepass")


def without_overlaps(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``spans`` in order, each overlapping an earlier one left out; of two that start
    together the longer is kept (so no tail of a longer secret is left in the text)."""
    kept: list[tuple[int, int, str]] = []
    for span in sorted(spans, key=lambda s: (s[0], -s[1])):
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return kept
