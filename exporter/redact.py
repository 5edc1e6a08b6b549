"""Secret redaction: every string ccexport writes from a session passes through here first.

The pipeline redacts each session once, right after it is loaded (``redact_session``), so
its title (also a file name and a state entry), properties, prose, tool inputs and
outputs, thinking and everything built from them never hold a secret, and the worker
processes never see one. A secret becomes ``[REDACTED:<rule id>]``: the same text on
every run, so re-runs stay no-ops.

Fast by design: the rules' keywords say which rules can match at all, and where
(``redact_keywords.py``); only those run, as RE2 patterns (linear time, no
catastrophic backtracking) over the UTF-8 bytes around their keywords. Most text meets no
keyword and is returned as is. A text file attached to a message (source code, a log) is
session text too: its bytes are redacted as UTF-8, and so is an image's text metadata
(``redact_media.py``: a chunk with a secret is left out). Any other file that is not text
is scanned as its bytes and the text it compresses (``redact_binary.py``; a PNG's or JPEG's
compressed pixels are not read): one that holds a secret is not copied.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cached_property, lru_cache, partial
from typing import Any

from .model import Session
from .redact_around import pieces_around, replaced_pieces
from .redact_base64 import encoded_keywords
from .redact_commands import command_password, database_named
from .redact_hidden import split_tokens, without
from .redact_identifiers import code_identifier
from .redact_keynames import bare_key, cell_end, key_named_only
from .redact_keywords import KeywordIndex, Spots
from .redact_names import (
    HOLDER_WORDS,
    PLACEHOLDER,
    STAND_IN,
    generic_value,
    held_secret,
    shannon_entropy,
    stand_in_password,
)
from .redact_parts import PartRedaction
from .redact_rules import RULES, Rule, compile_rule
from .redact_sessions import FamilyRedaction
from .redact_split import SplitItems
from .redact_spread import Spread, replaced
from .redact_values import ValueRedaction
from .redact_views import View, near_a_cut, view

_PLACEHOLDER_START = b"[REDACTED:"
# A placeholder, ours or one already in the text (a rule's id, as ``config`` allows one).
_PLACEHOLDER_RE = rb"\[REDACTED:[A-Za-z0-9_.-]{1,100}\]"
_BLANK = b"\x00"  # what a placeholder's inside is to a rule: no word, no ``:``, no space
# Control characters, ESC (which starts a terminal code) among them: what rendering drops.
_HIDDEN = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
_PASSES = 12
_DECODE_DEPTH = 2  # base64 of base64 of a secret is read; deeper is not
_Near = list[tuple[int, int]] | None | bool  # stretches, all of a text (None), or nowhere
# Short recurring texts remembered as clean (``Redactor._recurring``): a bounded number.
_KEPT_KEY, _KEPT_KEYS = 64, 4096
# Bump when the engine's behaviour changes: notes are rendered again with the new result
# (what each version changed: docs/development.md, "Redaction's versions").
ENGINE_VERSION = "23"


class Redactor(PartRedaction, FamilyRedaction, ValueRedaction):
    """A rule set, compiled once when first used (a run with nothing to read compiles
    nothing): redacts texts, values and whole sessions."""

    def __init__(self, rules: Sequence[Rule], allow: Iterable[str] = ()) -> None:
        self.rules = tuple(rules)
        self.allow = frozenset(allow)
        self._allow_bytes = frozenset(a.encode("utf-8", "surrogatepass") for a in self.allow)
        self._placeholders = [PLACEHOLDER.format(r.id).encode() for r in self.rules]
        self._entropy = {r.id: r.entropy for r in self.rules if r.generic}
        self._judge = partial(held_secret, entropy=self._entropy, allow=self.allow)
        self._holder, self._encoded = len(self.rules), len(self.rules) + 1  # (``keywords``)
        self._decoding = 0  # how deep in base64 decoded from base64 the rules now read
        self._split = SplitItems(self.rules)  # tokens a list of strings may split
        self._clean_keys: set[str] = set()  # short recurring texts found clean (``_recurring``)
        # While a session is redacted (``session``): the secrets found so far, then (its
        # second pass) those of them looked for everywhere in it instead of the rules. Held
        # here rather than passed down every call that reaches a text: one session at a time.
        self._found: list[tuple[bytes, str]] | None = None
        self._spread: Spread | None = None
        # The text the rules last read, as they read it (``_opaque``), and its placeholders.
        self._last_opaque: tuple[bytes, bytes, list[tuple[int, int]]] | None = None
        digest = hashlib.sha256(ENGINE_VERSION.encode())
        for rule in self.rules:
            digest.update(repr(rule).encode())
        digest.update(repr(sorted(self.allow)).encode())
        self.fingerprint = digest.hexdigest()

    @cached_property
    def keywords(self) -> KeywordIndex:
        """Where each rule can match, and (its last two entries) whether a text holds a key
        that holds secrets (``credentials:``), or a token prefix as base64 spells it: only
        such a text is read for one. Built with the first text read (the base64 spellings
        of 600 words are 6 ms of a run that reads none)."""
        encoded = Rule("base64", encoded_keywords(self.rules), "")
        return KeywordIndex((*self.rules, _HOLDER_WORDS, encoded))

    @cached_property
    def _regexes(self) -> list[Any]:
        return [compile_rule(r) for r in self.rules]

    @cached_property
    def _groups(self) -> list[int]:
        return [regex.groups for regex in self._regexes]

    # -- text ------------------------------------------------------------------------------

    def text(self, text: str, counts: Counter[str] | None = None) -> str:
        """``text`` with every secret replaced by its placeholder."""
        if not text:
            return text
        if self._spread is not None:  # a session's second pass: its secrets, found again
            return self._spread.text(text, counts)
        meant = view(text, self._may_find)
        if meant is not None:  # a token split by a break, or escaped (``redact_views``)
            text = self._broken(text, meant, counts)
        data = text.encode("utf-8", "surrogatepass")
        redacted = self._text(text, data, counts)
        if len(data.translate(None, _HIDDEN)) != len(data):
            # Terminal codes and control characters go when a note is rendered
            # (``clean.strip_control``): a token they split (grep's colours around its
            # match) would be whole there. Redacted without them, if that finds more.
            from .clean import strip_control

            shown = strip_control(redacted)
            again = self._text(shown, shown.encode("utf-8", "surrogatepass"), counts)
            if again is shown:
                # A code that ends with the backslash of an escape after it (``ESC \``, then
                # ``n`` of ``\n``) glues that letter to a token it joins: read with it kept.
                from .redact_terminal import escapes_kept

                kept = escapes_kept(redacted)
                if kept is not None:
                    shown = kept
                    again = self._text(shown, shown.encode("utf-8", "surrogatepass"), counts)
            redacted = redacted if again is shown else again
        inside = [] if data.isascii() else split_tokens(redacted, data)
        if inside:
            # A zero-width space, soft hyphen or direction mark inside a token is not seen:
            # the note would show it whole. Redacted without those (only those: an emoji's
            # joiner or a Persian word's stays), if that finds more.
            shown = without(redacted, inside)
            again = self._text(shown, shown.encode("utf-8", "surrogatepass"), counts)
            redacted = redacted if again is shown else again
        return redacted

    def _broken(self, text: str, meant: View, counts: Counter[str] | None) -> str:
        """``text`` with each secret the rules find in ``meant`` across a break or an escape
        replaced, where it stands in ``text``, by its placeholder."""
        found = self._found_across(meant)
        outer = self._found
        spans: list[tuple[int, int, str]] = []
        for secret, rule_id in found:
            value = secret.decode("utf-8", "replace")
            at = meant.text.find(value) if value else -1
            while at != -1:
                # (also one the text holds plainly, named by a piece read: ``--password \``;
                # elsewhere the rules' own pass judges it, and only where it is named)
                if meant.across(at, at + len(value)) or meant.named_by(at):
                    spans.append((*meant.span(at, at + len(value)), rule_id))
                    if outer is not None:  # (looked for across the session as it is read)
                        outer.append((secret, rule_id))
                at = meant.text.find(value, at + 1)
        return replaced(text, spans, counts)

    def _found_across(self, meant: View) -> list[tuple[bytes, str]]:
        """The secrets the rules find in ``meant`` where they read it (``View.windows``):
        all of it when a finding at a cut end may be a longer token cut short."""
        outer, self._found = self._found, []
        try:
            for start, end, cut in meant.windows():
                before = len(self._found)
                stretch = meant.text[start:end]
                self._text(stretch, stretch.encode("utf-8", "surrogatepass"), None)
                if cut and near_a_cut(stretch, self._found[before:]):
                    self._found = []
                    self._text(meant.text, meant.text.encode("utf-8", "surrogatepass"), None)
                    break
            return self._found
        finally:
            self._found = outer

    def _text(self, text: str, data: bytes, counts: Counter[str] | None) -> str:
        original = data
        spots, held, encoded = self._spots(data)
        if not spots and held is False and encoded is False and not self._split.may_cut(data):
            return text
        # A token's prefix ends an item of a list of strings: its body may go on in the next.
        # (First: a generic rule could take the next item as a value the first one names.)
        changed = self._split.redact(data, spots, self._finds, counts)
        if changed is not data:
            data, (spots, held, encoded) = changed, self._spots(changed)
        # A placeholder can give the token glued after it a word boundary: run to a fixpoint
        # (each pass that changes something replaces a secret; glued tokens need one each).
        for _ in range(_PASSES):
            before = data
            order = sorted(spots)
            while order:
                i = order.pop(0)
                changed = self._apply(i, data, spots[i], counts)
                if changed is not data:  # positions moved: find the keywords again
                    data, (spots, held, encoded) = changed, self._spots(changed)
                    order = [j for j in sorted(spots) if j > i]
            if data is before:
                break
            spots, held, encoded = self._spots(data)
        self._last_opaque = None  # (not kept past its text: it may be a large one)
        if encoded is not False and self._decoding < _DECODE_DEPTH:
            # A token prefix as base64 spells it: the run around it, decoded, read again.
            from .redact_base64 import redact_encoded

            changed = redact_encoded(data, encoded, self._decoded, counts)
            if changed is not data:
                data, (spots, held, encoded) = changed, self._spots(changed)
        if held is not False:  # a value named by a key above it
            from .redact_nested import redact_held  # (few texts hold one: imported then)

            data = redact_held(data, self._judge, counts, held, self._found)
        return text if data is original else data.decode("utf-8", "surrogatepass")

    def _may_find(self, text: str) -> bool:
        """May the rules find anything in ``text`` (``_text`` reads it past its prefilter)?"""
        data = text.encode("utf-8", "surrogatepass")
        spots, held, encoded = self._spots(data)
        return bool(spots) or held is not False or encoded is not False or self._split.may_cut(data)

    def _spots(self, data: bytes) -> tuple[Spots, _Near, _Near]:
        """Where each rule can match, where the words of holders are, and where base64
        spells a token's prefix (False: nowhere)."""
        spots = self.keywords.spots(data)
        return spots, spots.pop(self._holder, False), spots.pop(self._encoded, False)

    def _finds(self, data: bytes) -> list[tuple[bytes, str]]:
        """Each secret the rules find in ``data`` (ASCII), with its rule's id; uncounted."""
        outer, self._found = self._found, []
        try:
            self._text(data.decode("latin-1"), data, None)
            return self._found
        finally:
            self._found = outer

    def _decoded(self, text: str) -> str:
        """``text`` (decoded from base64) with the rules applied, uncounted: the run it
        was decoded from is what is counted and replaced."""
        self._decoding += 1
        try:
            return self._text(text, text.encode("utf-8", "surrogatepass"), None)
        finally:
            self._decoding -= 1

    def _apply(
        self,
        i: int,
        data: bytes,
        windows: list[tuple[int, int]] | None,
        counts: Counter[str] | None,
    ) -> bytes:
        rule, regex = self.rules[i], self._regexes[i]
        # An earlier rule's placeholder is one opaque piece here: its inside (``:``, the
        # rule's id) is hidden from the pattern, so ``https://[REDACTED:github-pat]@host``
        # has no ``user:password``, and no match may take part of one, or one, as a secret.
        seen, inside = self._opaque(data)
        matches = []
        for pos, endpos in windows or [(0, len(data))]:
            for m in regex.finditer(seen, pos, endpos):
                if m.end() == endpos and endpos < len(data):
                    # It may go on past the stretch (a long key): look at the whole text.
                    return self._apply(i, data, None, counts)
                matches.append(m)
        pieces: list[bytes] = []
        last = 0
        for m in matches:
            group = _secret_group(m)
            start, end = m.span(group)
            if rule.generic:  # (``|token|…|``: a value ends its table's cell)
                end = cell_end(data, m.start(), start, end)
            if start < last:
                continue
            if inside and _overlaps(start, end, inside):
                if rule.generic:  # (a value is never judged with a placeholder in it)
                    continue
                # A token's match (a private key's lines) around an earlier placeholder:
                # each piece of it before, between and after the placeholders goes.
                spans = pieces_around(data, start, end, inside)
                around = [data[a:b] for a, b in spans]
                if not around or not self._is_secret(
                    rule, b"".join(around), data[m.start() : start], data[m.start() : m.end()],
                    group == self._groups[i], data[end : end + 2],
                ):  # fmt: skip
                    continue
                pieces += (
                    data[last:start],
                    replaced_pieces(data, start, end, spans, self._placeholders[i]),
                )
                last = end
                if counts is not None:
                    counts[rule.id] += 1
                if self._found is not None:  # (whole, for ``_broken``; its pieces, to spread)
                    self._found += [(data[start:end], rule.id), *((p, rule.id) for p in around)]
                continue
            if not self._is_secret(
                rule,
                data[start:end],
                data[m.start() : start],
                data[m.start() : m.end()],
                group == self._groups[i],
                data[end : end + 2],
                data[max(0, m.start() - 40) : m.start()],
            ):
                continue
            pieces += (data[last:start], self._placeholders[i])
            last = end
            if counts is not None:
                counts[rule.id] += 1
            if self._found is not None:
                self._found.append((data[start:end], rule.id))
        if not pieces:
            return data
        pieces.append(data[last:])
        return b"".join(pieces)

    def _opaque(self, data: bytes) -> tuple[bytes, list[tuple[int, int]]]:
        """``_opaque(data)``, kept for the next rule while the text stays as it is."""
        last = self._last_opaque
        if last is None or last[0] is not data:
            self._last_opaque = last = (data, *_opaque(data))
        return last[1], last[2]

    def _is_secret(
        self,
        rule: Rule,
        secret: bytes,
        named_by: bytes,
        whole: bytes,
        last_group: bool,
        after: bytes = b"",
        before: bytes = b"",
    ) -> bool:
        """Is ``secret``, which ``rule`` matched (``whole``: all of the match; ``named_by``:
        what comes before the secret in it), one?"""
        if not secret or secret.startswith(_PLACEHOLDER_START):
            return False
        if secret in self._allow_bytes or whole in self._allow_bytes:
            return False
        value = secret.decode("utf-8", "replace")
        if value in rule.not_values:
            return False
        if STAND_IN.match(value):
            return False  # "${DB_PASSWORD}", "<your key>", "***": documentation, not a secret
        if rule.pair and stand_in_password(named_by.decode("utf-8", "replace"), value):
            return False  # "amqp://guest:guest@", "user:password@": a default, a stand-in
        if rule.generic:  # (the last group of a generic rule is the unquoted value)
            named = named_by.decode("utf-8", "replace")
            if command_password(rule.id, named, value):
                return True  # ``curl -u me:…``, ``wget --password …``: a password as it is
            if database_named(rule.id, named, value):
                return False  # ``mysql -u root -p shop_db_v2``: the database's name
            if rule.id == "generic-secret" and code_identifier(value):
                return False  # ``token: GPT2TokenizerFast``: a class's name, not a token
            if rule.id == "generic-secret" and key_named_only(named):
                # ``APP_KEY=…``, ``fernet_key = …``: a key only when it looks like one
                if not bare_key(before.decode("utf-8", "replace") + named, value):
                    return False
            return generic_value(value, named, after, rule.entropy or 0.0, not last_group)
        if rule.id == "url-user-token" and len(value) < 20:
            return False  # (a user's name: ``https://octocat2@github.com``)
        return rule.entropy is None or shannon_entropy(value) >= rule.entropy

    # -- values and sessions ---------------------------------------------------------------

    def _recurring(self, text: str, counts: Counter[str] | None) -> str:
        """A short text that comes again and again (a tool input's key such as ``command``,
        a model's name), redacted: those found clean are remembered."""
        if text in self._clean_keys and self._spread is None:
            return text
        new = self.text(text, counts)
        kept = len(self._clean_keys) < _KEPT_KEYS and self._spread is None
        if new is text and len(text) <= _KEPT_KEY and kept:
            self._clean_keys.add(text)
        return new


# Not a rule: its keywords say a text may hold a key that holds secrets.
_HOLDER_WORDS = Rule("holder", HOLDER_WORDS, "", fold=True)


def _opaque(data: bytes) -> tuple[bytes, list[tuple[int, int]]]:
    """``data`` as the rules read it, each placeholder's inside blanked out (the same
    length, so positions hold), and where the placeholders are; ``data`` itself and no
    places when it holds none (most texts: one search)."""
    if _PLACEHOLDER_START not in data:
        return data, []
    inside = [m.span() for m in _placeholders().finditer(data)]
    if not inside:
        return data, []
    seen = bytearray(data)
    for start, end in inside:
        seen[start + 1 : end - 1] = _BLANK * (end - start - 2)
    return bytes(seen), inside


def _overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    """Does ``start:end`` share a byte with any of ``spans`` (in order, not overlapping)?"""
    k = bisect_right(spans, (end,))  # the spans that start before ``end``
    return start < end and k > 0 and spans[k - 1][1] > start


@lru_cache(maxsize=1)
def _placeholders() -> Any:
    import re2

    return re2.compile(_PLACEHOLDER_RE)


def _secret_group(m: Any) -> int:
    """The last capture group that took part in the match; 0 (all of it) if none did."""
    for group in range(len(m.groups()), 0, -1):
        if m.span(group) != (-1, -1):
            return group
    return 0


@lru_cache(maxsize=8)
def redactor(extra: tuple[Rule, ...] = (), allow: tuple[str, ...] = ()) -> Redactor:
    """The rule set in effect: the user's extra rules first, then ours; cached per process."""
    return Redactor((*extra, *RULES), allow)


def redact_text(text: str, counts: Counter[str] | None = None) -> str:
    """``text`` with the built-in rules applied; ``counts`` (if given) gains one per secret."""
    return redactor().text(text, counts)


def redact_session(session: Session, counts: Counter[str] | None = None) -> Session:
    """``session`` with the built-in rules applied to every string in it."""
    return redactor().session(session, counts)
