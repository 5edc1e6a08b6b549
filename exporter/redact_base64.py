"""Secrets written in base64 (``echo -n "token=ghp_…" | base64``, a Kubernetes secret's
``data:``, a pasted ``LS0tLS1CRUdJTi…`` key): a base64 run is redacted whole when what it
decodes to holds a secret by the same rules.

Decoding every base64 run would cost too much (images, encrypted reasoning, fixtures), so
only runs the keyword prefilter points at are decoded: each token prefix the rules know
(``ghp_``, ``sk-ant-``, ``AKIA``, ``-----BEGIN``), and a few names of a secret
(``password``, ``token``), as base64 spells them at each of the three places a byte can
take in a group of three (``ghp_`` is ``Z2hwX`` at the start of a group, ``docF`` one byte
in, ``naHBf`` two: ``encoded_spellings``). Only the characters the word alone decides are
keywords, so the bytes around it do not matter. A run near such a keyword is decoded, a
stretch around the keyword at each of the four alignments, and the rules read the result.
"""

from __future__ import annotations

import binascii
from base64 import b64decode, b64encode
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import re2

from .redact_names import PLACED, PLACEHOLDER
from .redact_split import prefix_rule

if TYPE_CHECKING:
    from .redact_rules import Rule

# Names a secret is given (decoded text such as ``DB_PASSWORD=…``), as three cases write them.
_NAMES = ("password", "passwd", "secret", "token", "api_key", "apikey", "credential")
# How a JSON Web Token begins (``{"alg"``, ``{"typ"``, ``{"kid"`` in base64): its rule's
# keyword, ``eyJ``, spells too little once encoded again.
_TOKEN_STARTS = ("eyJhbGci", "eyJ0eXAi", "eyJraWQi")
_SHORTEST_WORD = 4  # a shorter prefix (``sk-``, ``hf_``) spells too little in base64 alone
# A prefix of three (``sk-``, ``hf_``) is spelled with its token's first character after it
# (one of these: a body of letters and digits, or URL-safe base64) where it needs it.
_BODY_STARTS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
_SHORT_WORD = 3
# A prefix of two spells too little even with one character after it: its token's fixed
# characters around it make it three (Twilio's ``SK`` and a hex digit, then hex; an Azure
# client secret's ``Q~`` after a digit), where the rule says what they are.
_HEX = b"0123456789abcdefABCDEF"
_TWO_CHAR_WORDS = {
    "SK": ([f"SK{chr(c)}" for c in _HEX], _HEX),
    "Q~": ([f"{d}Q~" for d in "0123456789"], _BODY_STARTS.replace(b"-", b"~.-")),
}
# URL-safe base64 (``base64.urlsafe_b64encode``, JWTs, Fernet): ``-`` and ``_`` for ``+``, ``/``.
_URLSAFE = str.maketrans("+/", "-_")
_FROM_URLSAFE = bytes.maketrans(b"-_", b"+/")
# A base64 run worth decoding (16 characters: 12 bytes), or the lines of one wrapped at a
# width (``base64`` wraps at 76, PEM at 64): every line but the last as long as this.
# (RE2, as every rule: linear in the text however it is laid out)
# A URL-safe run (``-``, ``_``) is one too: the longest of the three where they begin.
_LONGEST = re2.Options()
_LONGEST.longest_match = True
_RUN = re2.compile(
    rb"(?:[A-Za-z0-9+/]{60,}\r?\n)+[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9+/]{16,}={0,2}"
    rb"|[A-Za-z0-9_-]{16,}={0,2}",
    _LONGEST,
)
_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_URLSAFE_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_WRAP = 60
# How much of a long run around a keyword is decoded: a token is shorter than this.
_AROUND = 512

Redacted = Callable[[str], str]  # the rules over a decoded text (``Redactor._decoded``)


def encoded_spellings(word: str) -> set[str]:
    """The base64 characters ``word`` alone decides, wherever it starts in a group of three
    bytes: one spelling for each of the three places."""
    data = word.encode("utf-8")
    spellings = set()
    for k in range(3):
        # Character i holds bits 6i..6i+6 of the bytes: decided by the word's own bits
        # (8k..8(k+n)) when it lies wholly inside them.
        first, end = -(-8 * k // 6), 8 * (k + len(data)) // 6
        spelled = b64encode(b"\0" * k + data + b"\0\0\0").decode()[first:end]
        if len(spelled) >= 4:
            spellings.add(spelled)
    return spellings


def short_spellings(word: str, starts: bytes = _BODY_STARTS) -> set[str]:
    """The four base64 characters a prefix of three (``sk-``) and its token's first
    character decide, wherever the prefix starts in a group of three bytes: at the start of
    a group the prefix's own four; one or two bytes in, its three whole characters and the
    one its last bits share with the token's first byte (a few spellings: that byte is a
    letter, a digit, ``_`` or ``-``)."""
    data = word.encode("utf-8")
    spellings = set()
    for first in starts:
        body = data + bytes([first])
        spellings.add(b64encode(body + b"\0\0")[:4].decode())
        spellings.add(b64encode(b"\0" + body + b"\0")[2:6].decode())
        spellings.add(b64encode(b"\0\0" + body)[3:7].decode())
    return spellings


def encoded_keywords(rules: Sequence[Rule]) -> tuple[str, ...]:
    """The base64 spellings of the token prefixes ``rules`` name (specific rules only: a
    generic rule's words are names) and of a secret's names."""
    prefixes = {
        word
        for rule in rules
        if prefix_rule(rule)
        for word in rule.keywords
        if word.isascii() and " " not in word
    }
    words = {word for word in prefixes if len(word) >= _SHORTEST_WORD}
    words.update(w for name in _NAMES for w in (name, name.upper(), name.capitalize()))
    words.update(_TOKEN_STARTS)
    spellings = {s for word in words for s in encoded_spellings(word)}
    spellings.update(s for w in prefixes if len(w) == _SHORT_WORD for s in short_spellings(w))
    for word in prefixes & _TWO_CHAR_WORDS.keys():
        threes, starts = _TWO_CHAR_WORDS[word]
        spellings.update(s for three in threes for s in short_spellings(three, starts))
    spellings.update({s.translate(_URLSAFE) for s in spellings})
    return tuple(sorted(spellings))


def redact_encoded(
    data: bytes,
    windows: list[tuple[int, int]] | None,
    redacted: Redacted,
    counts: Counter[str] | None,
) -> bytes:
    """``data`` with each base64 run in ``windows`` (around an encoded keyword) whose
    decoding holds a secret replaced whole by that secret's placeholder; ``data`` itself
    when there is none."""
    spans: list[tuple[int, int, str]] = []
    for a, b in windows or [(0, len(data))]:
        for m in _RUN.finditer(data, a, min(len(data), b + _AROUND)):
            if spans and m.start() < spans[-1][1]:
                continue  # (a run a window before already took)
            rule_id = _secret_in(data, m.start(), m.end(), redacted)
            if rule_id is not None:
                spans.append((*_whole_run(data, m.start(), m.end()), rule_id))
    if not spans:
        return data
    pieces: list[bytes] = []
    last = 0
    for start, end, rule_id in spans:
        if start < last:
            continue
        pieces += (data[last:start], PLACEHOLDER.format(rule_id).encode())
        last = end
        if counts is not None:
            counts[rule_id] += 1
    pieces.append(data[last:])
    return b"".join(pieces)


def _secret_in(data: bytes, start: int, end: int, redacted: Redacted) -> str | None:
    """The rule whose secret the run ``data[start:end]`` (a long one's part near its
    keyword) holds, decoded at each alignment, if any."""
    piece = data[start:end]
    piece = piece.replace(b"\r", b"").replace(b"\n", b"").rstrip(b"=").translate(_FROM_URLSAFE)
    for skip in range(4):
        chunk = piece[skip:]
        chunk = chunk[: len(chunk) - 1] if len(chunk) % 4 == 1 else chunk  # (half a byte)
        if len(chunk) < 16:
            continue
        try:  # (its last group padded: the end of a token is in it)
            text = b64decode(chunk + b"=" * (-len(chunk) % 4), validate=True)
            text = text.decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            continue
        out = redacted(text)
        if out is not text:
            found = PLACED.search(out)
            if found is not None:
                return found.group(1)
    return None


def _whole_run(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The bounds of the whole base64 run around ``data[start:end]``: back to where its
    characters (and the full lines of a wrapped run) begin, on to where they end."""
    if any(c in data[start:end] for c in b"-_"):  # URL-safe: one line, its own alphabet
        while start and data[start - 1] in _URLSAFE_ALPHABET:
            start -= 1
        while end < len(data) and data[end] in _URLSAFE_ALPHABET:
            end += 1
        return start, end
    while start and data[start - 1] in _ALPHABET:
        start -= 1
    while start > 1 and data[start - 1] == 0x0A:  # the line before, if a full line of one
        line_start = data.rfind(b"\n", 0, start - 1) + 1
        line = data[line_start : start - 1].rstrip(b"\r")
        if len(line) < _WRAP or not all(c in _ALPHABET for c in line):
            break
        start = line_start
    m = _RUN.match(data, start)
    return start, max(end, m.end() if m else end)
