"""Tokens a text writes broken or encoded: read as they are meant, redacted where they stand.

A token split by a shell continuation (``\\`` at a line's end) or a quoted-printable soft
break (``=`` at a line's end), or written with an HTML entity (``ghp&#95;…``, which a note's
reading view shows as ``_``), a Markdown escape (``ghp\\_…``, ``sk\\-ant\\-…``: text copied
from a renderer, a model's escaped underscores), a JSON escape (``\\u005f``) or URL
encoding (``%3A`` in a Telegram token, ``https%3A%2F%2Fhooks.slack.com…``) is no token to
the rules, while the text means one. ``View`` is the text with those pieces read (a break
joined, an escape decoded), and where each of its characters stands in the text.
``Redactor.text`` runs the rules over the view and replaces, in the text itself, each
secret found there across such a piece: both halves of a split token and the break between
them, an escaped token whole. A secret the text holds plainly is left to the rules' own
pass (it has no such piece in it), so the view adds no finding the text did not mean.
"""

from __future__ import annotations

import html
import re
import string
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

# A break inside a token (the continuation's indentation on the next line goes with it; a
# soft break's ``=`` with the character before it: RE2 has no look-behind), an HTML
# character reference, a JSON escape, a URL-encoded byte. Linear (``_PIECES``), and looked
# for only in a text holding what begins one (``_signs``).
_PIECE = (
    r"\\\r?\n[ \t]*|[!-~]=\r?\n|&#[0-9]{1,7};|&#[xX][0-9a-fA-F]{1,6};|&[A-Za-z]{2,10};"
    r"|\\u[0-9a-fA-F]{4}|%[0-9A-Fa-f]{2}|\\[_-]"
)
# What an escape may stand for inside a token: a token's characters, not the ones that end
# one (``=``, ``&``, quotes, ``<``: ``line%3Dghp_…%3Dmore`` keeps its ``%3Dmore``).
_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "_-.:/+@~$!")
_NAMED_WITHIN = 64  # characters: about as far as a rule reads before a secret
# A view longer than this is read by the rules only around its pieces (``View.windows``):
# this many characters either side of each, out to the ends of their lines where those are
# near. Far more than a rule reads around a secret (``redact_keywords``: 64 before a
# keyword, 640 after), so a secret across a piece is found as in the whole view.
_WHOLE_UP_TO = 64 * 1024
_AROUND = 4096
_TO_LINE_END = 1024


def _signs(text: str) -> bool:
    """Does ``text`` hold what begins a piece? (Most texts hold none: a chain of ``in``
    answers that faster than a loop over the signs. A sign of two or three characters is
    looked for only where its first is: one character is found at memchr's speed, a longer
    needle a character at a time.)"""
    return (
        "%" in text
        or "&" in text
        or ("\\" in text and any(sign in text for sign in ("\\u", "\\\n", "\\\r\n", "\\_", "\\-")))
        or ("=" in text and ("=\n" in text or "=\r\n" in text))
    )


# Python's own engine, not RE2: every alternative is a fixed run of characters but the
# continuation's indentation, which ends the piece (nothing to backtrack into), so this is
# linear too; and its match objects cost a tenth of RE2's wrapper's, which a text with an
# escape in every other word (``my\\_var``, 50,000 a MB) spent most of its time in.
_PIECES = re.compile(_PIECE)


def _read(piece: str) -> str | None:
    """What ``piece`` means inside a token: nothing (a break), one printable ASCII character
    (an escape), or None (it stays as written: ``&nbsp;``, ``%20``, ``\\u00e9``)."""
    if piece[:2] in ("\\\n", "\\\r"):
        return ""
    if len(piece) == 2 and piece[0] == "\\":  # Markdown's escape: ``ghp\_…``, ``sk\-ant\-…``
        return piece[1]
    if piece[-1] == "\n":  # a soft break, after a token's character
        return piece[0]
    if piece[0] == "&":
        char = html.unescape(piece)
    else:  # \\uXXXX or %XX
        char = chr(int(piece[2:] if piece[0] == "\\" else piece[1:], 16))
    return char if len(char) == 1 and char in _TOKEN_CHARS else None


@dataclass(slots=True)
class View:
    """``text`` with its breaks joined and its escapes decoded, and the way back."""

    text: str
    _marks: list[int]  # a view position from which the text goes on plainly ...
    _at: list[int]  # ... and the text's position there
    _decoded: dict[int, tuple[int, int]]  # a decoded character -> the escape's span

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The text's span of the view's ``start:end`` (``end`` > ``start``)."""
        return self._start(start), self._end(end - 1)

    def across(self, start: int, end: int) -> bool:
        """Does the view's ``start:end`` hold a piece read otherwise than written?"""
        first, last = self.span(start, end)
        return last - first != end - start

    def named_by(self, start: int) -> bool:
        """Is a piece read otherwise than written just before the view's ``start`` (where a
        rule reads what names a secret: ``--password \\`` on the line before, the scheme of
        ``https%3A%2F%2Fhooks.slack.com/…``)?"""
        k = bisect_right(self._marks, start) - 1
        return k > 0 and start - self._marks[k] <= _NAMED_WITHIN

    def windows(self) -> list[tuple[int, int, bool]]:
        """The stretches of the view the rules read for the secrets across its pieces:
        ``(start, end, cut)``, ``cut`` when an end falls inside a line rather than at one of
        its ends (a finding there may be a longer token cut short). The whole view when it
        is short."""
        size = len(self.text)
        if size <= _WHOLE_UP_TO:
            return [(0, size, False)]
        stretches: list[tuple[int, int]] = []
        marks, i = self._marks, 1
        while i < len(marks):
            start, end = max(0, marks[i] - _AROUND), min(size, marks[i] + _AROUND)
            # The marks whose stretches join this one's, jumped to (a text dense with
            # pieces has one every few characters: one stretch, a few steps).
            while (k := bisect_right(marks, end + _AROUND, i + 1) - 1) > i:
                i, end = k, min(size, marks[k] + _AROUND)
            stretches.append((start, end))
            i += 1
        out = []
        for start, end in stretches:
            cut = False
            if start > 0:
                line = self.text.rfind("\n", max(0, start - _TO_LINE_END), start)
                if line != -1:
                    start = line + 1
                elif start <= _TO_LINE_END:
                    start = 0
                else:
                    cut = True
            if end < size:
                line = self.text.find("\n", end, end + _TO_LINE_END)
                end, cut = (line, cut) if line != -1 else (end, True)
            out.append((start, end, cut))
        return out

    def _start(self, i: int) -> int:
        if i in self._decoded:
            return self._decoded[i][0]
        k = bisect_right(self._marks, i) - 1
        return self._at[k] + (i - self._marks[k])

    def _end(self, i: int) -> int:
        return self._decoded[i][1] if i in self._decoded else self._start(i) + 1


def view(text: str, worth: Callable[[str], bool] | None = None) -> View | None:
    """``text`` as a token in it is meant (``View``); None when nothing in it reads otherwise,
    or (``worth``: may the rules find anything in a view's text?) when its only pieces are
    Markdown's escapes and the rules could find nothing in it."""
    if not _signs(text):
        return None
    if not _other_signs(text):
        return _unescaped(text, worth)
    out: list[str] = []
    marks, at, decoded = [0], [0], {}
    seen = last = 0  # the view's length so far; the end of the text's last piece read
    for m in _PIECES.finditer(text):
        piece = m.group()
        start, end = m.span()
        if piece == "\\_" or piece == "\\-":  # Markdown's escape (the most of them)
            char: str | None = piece[1]
        else:
            char = _read(piece)
            if char is None or (char and piece[-1] == "\n" and not text[end : end + 1].strip()):
                continue  # (a soft break joins a token only with one going on after it)
        if start != last:
            out.append(text[last:start])
            seen += start - last
        if char:
            out.append(char)
            decoded[seen] = (start, end)
            seen += 1
        marks.append(seen)
        at.append(end)
        last = end
    if len(marks) == 1:
        return None
    out.append(text[last:])
    return View("".join(out), marks, at, decoded)


_MARKDOWN = re.compile(r"\\[_-]")


def _other_signs(text: str) -> bool:
    """Does ``text`` hold what begins a piece other than Markdown's escapes?"""
    return (
        "%" in text
        or "&" in text
        or ("\\" in text and any(sign in text for sign in ("\\u", "\\\n", "\\\r\n")))
        or ("=" in text and ("=\n" in text or "=\r\n" in text))
    )


def _unescaped(text: str, worth: Callable[[str], bool] | None) -> View | None:
    """``view(text)`` of a text whose only pieces are Markdown's escapes (``\\_``, ``\\-``),
    built in bulk: one in four words of a text may be one (``my\\_var``), too many to read
    one at a time. Each escape's ``\\`` goes: the escapes before a character, one each."""
    meant = text.replace("\\_", "_").replace("\\-", "-")  # (no two escapes overlap)
    if meant == text or (worth is not None and not worth(meant)):
        return None  # (no keyword in it: ``my\\_var`` in every other word of prose)
    starts = [m.start() for m in _MARKDOWN.finditer(text)]
    seen = [start - k for k, start in enumerate(starts)]  # each decoded character's place
    ends = [start + 2 for start in starts]
    spans = dict(zip(seen, zip(starts, ends, strict=True), strict=True))
    return View(meant, [0, *(v + 1 for v in seen)], [0, *ends], spans)


def near_a_cut(stretch: str, found: list[tuple[bytes, str]]) -> bool:
    """Is a secret found in ``stretch`` (cut out of a longer text) at one of its ends?"""
    reach = 64  # characters: a token cut short ends at the cut, or a quote or two before
    for secret, _ in found:
        value = secret.decode("utf-8", "replace")
        at = stretch.find(value)
        while at != -1:
            if at < reach or at + len(value) > len(stretch) - reach:
                return True
            at = stretch.find(value, at + 1)
    return False
