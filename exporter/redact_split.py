"""A token split across two items of a list of strings (``["sk-ant-api03-…P0", "qR1s…-AA"]``:
a model's output streamed in chunks, a long string a tool broke up): both halves go.

Only where a token's own rule runs (its prefix is near), the two items are read joined: a
secret the rules find across the join is one that continues into the next item, when the
first item alone holds no whole token at its end (a prefix and a body cut short). Read
before the rules' own pass, so a generic rule cannot first take the next item as a value
the first one names (``["AGE-SECRET-KEY-1…", "…"]``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .redact_names import PLACEHOLDER

if TYPE_CHECKING:
    from .redact_keywords import Spots
    from .redact_rules import Rule

# Between two items of a list of strings: a quote, a comma (a line break, written or
# escaped, and indentation), the same quote (escaped in JSON inside a string too).
_SEPARATOR = r"""\\{0,3}["'],[ \t]*(?:(?:\r?\n|\\{1,3}n)[ \t]*)?\\{0,3}["']"""
_CHAR = r"[A-Za-z0-9_.+/~$:-]"
# The characters of a token's half: before the first item's end (read backwards), after
# the next item's start.
_HALF = re.compile(rb"[A-Za-z0-9_.+/~$:-]{1,300}")
# Rules whose keywords are no token's prefix: commands and names, addresses (a URL's
# password, a webhook's), a query's ``sig=``, and the 599 endings of a Discord token.
NOT_PREFIXES = frozenset({
    "password-flag", "aws-secret-key", "discord-bot-token", "cookie", "uri-credentials",
    "slack-webhook", "discord-webhook", "teams-webhook", "azure-sas-token",
})  # fmt: skip
# Rules whose keyword stands inside or at the end of their token (``…-us14``, ``:AA…``,
# ``…T3BlbkFJ…``): the next item of a split one may hold it instead of the first.
_INNER_WORDS = frozenset({
    "mailchimp-api-key", "telegram-bot-token", "openai-api-key", "azure-ad-client-secret",
    "terraform-cloud-token",
})  # fmt: skip
# The rules over a text: each secret they find in it, as bytes, with its rule's id.
Finds = Callable[[bytes], list[tuple[bytes, str]]]


class SplitItems:
    """The rules of a token known by its prefix (not a name's value), and their prefixes:
    what a list of strings may split."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = frozenset(
            i
            for i, r in enumerate(rules)
            if r.near and r.keywords and not (r.generic or r.fold or r.id in NOT_PREFIXES)
        )
        self._prefixes = sorted({k for i in self.rules for k in rules[i].keywords})
        self._inner = sorted({k for r in rules if r.id in _INNER_WORDS for k in r.keywords})

    @cached_property
    def _pairs(self) -> Any:
        """Two items that may hold a split token: a prefix, the rest of the first item up to
        the separator; or the separator, the next item's start up to a keyword that ends a
        token (``…-us14``). One RE2 search (linear time) for any of them."""
        import re2

        words = "|".join(re2.escape(k) for k in self._prefixes)
        inner = "|".join(re2.escape(k) for k in self._inner) or "(?!)"
        pattern = f"(?:{words}){_CHAR}*({_SEPARATOR})|({_SEPARATOR}){_CHAR}*(?:{inner})"
        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1
        options.max_mem = 64 << 20
        options.log_errors = False
        return re2.compile(pattern.encode("latin-1"), options)

    def redact(self, data: bytes, spots: Spots, finds: Finds, counts: Counter[str] | None) -> bytes:
        """``data`` with both halves of each token that ``finds`` sees only with two items
        joined replaced by its placeholder (``counts`` gains one a token); ``data`` itself
        when there is none. Looked for when a prefix is in it (``spots``)."""
        if not self.rules.intersection(spots) or (b'",' not in data and b"'," not in data):
            return data
        pieces: list[bytes] = []
        last = 0
        for (start, cut), (after, end), rule_id in self._halves(data, finds):
            if start < last:
                continue
            placeholder = PLACEHOLDER.format(rule_id).encode()
            pieces += (data[last:start], placeholder, data[cut:after], placeholder)
            last = end
            if counts is not None:
                counts[rule_id] += 1
        if not pieces:
            return data
        pieces.append(data[last:])
        return b"".join(pieces)

    def _halves(
        self, data: bytes, finds: Finds
    ) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
        """The two halves (their spans) of each token split across two items, in order."""
        spans: list[tuple[tuple[int, int], tuple[int, int], str]] = []
        pos = 0
        while (m := self._pairs.search(data, pos)) is not None:
            cut, after = m.span(1) if m.start(1) >= 0 else m.span(2)
            pos = after  # (the next pair may begin in this one's second item)
            back = _HALF.match(data[max(0, cut - 300) : cut][::-1])
            ahead = _HALF.match(data, after)
            if back is None or ahead is None:
                continue
            start, end = cut - back.end(), ahead.end()
            joined = data[start:cut] + data[after:end]
            left = cut - start
            across = [
                ((start + at, cut), (after, after + at + len(secret) - left), rule_id)
                for secret, rule_id in finds(joined)
                for at in _places(joined, secret)
                if at < left < at + len(secret)
            ]
            # Not a whole token in the first item (a token of no fixed length, ``sk_live_…``,
            # would take the next item's word too): one cut short only.
            whole = finds(data[start:cut]) if across else []
            if not any(data[start:cut].endswith(s) for s, _ in whole):
                spans += across
        return sorted(set(spans))


def _places(text: bytes, part: bytes) -> list[int]:
    """Where ``part`` occurs in ``text``."""
    places, at = [], text.find(part)
    while at != -1:
        places.append(at)
        at = text.find(part, at + 1)
    return places
