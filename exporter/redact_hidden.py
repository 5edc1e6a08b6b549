"""Characters that hide a token from the redaction rules while a note shows it whole: the
ones that show nothing (zero-width spaces, soft hyphens, direction marks, variation
selectors, …) when they sit inside a token. ``redact.py`` redacts a text again without
them where that finds more; terminal codes and control characters are ``clean``'s."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import re2

# Characters that show nothing: C1 controls; format characters (zero-width spaces and
# joiners, the soft hyphen, direction marks, embeddings and isolates, the word joiner, a
# byte order mark, tag characters); the combining grapheme joiner, variation selectors and
# Mongolian ones; Hangul fillers. One inside a token (between two of a token's characters)
# hides it from the rules while the note shows it whole.
_INVISIBLE = (
    "\x80-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f"
)
_INVISIBLE_RUN = re.compile(f"[{_INVISIBLE}]+")
# The same, in a token, over the UTF-8 bytes: RE2 looks through a long text six times as fast
# as ``_inside_tokens``.
_INSIDE_TOKEN_UTF8 = f"[!-~][{_INVISIBLE}]+[!-~]".encode()


def split_tokens(text: str, data: bytes) -> list[tuple[int, int]]:
    """Where invisible characters sit inside a token of ``text`` (``_inside_tokens``),
    looked for only where RE2 finds any in ``data``, the UTF-8 bytes of the text before
    it was redacted (a placeholder, ASCII, makes no such place)."""
    if _inside_token_utf8().search(data) is None:
        return []
    return _inside_tokens(text)


@cache
def _inside_token_utf8() -> Any:
    return re2.compile(_INSIDE_TOKEN_UTF8)  # (compiled when first used, as the rules are)


def _inside_tokens(text: str) -> list[tuple[int, int]]:
    """The runs of invisible characters between two characters a token is made of
    (printable ASCII but the space). Found run by run: a pattern looking around every
    position of a long text cost 40% of redacting it."""
    return [
        m.span()
        for m in _INVISIBLE_RUN.finditer(text)
        if 0 < m.start() and m.end() < len(text)
        and "!" <= text[m.start() - 1] <= "~" and "!" <= text[m.end()] <= "~"
    ]  # fmt: skip


def without(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without the (sorted, separate) ``spans``."""
    kept, at = [], 0
    for start, end in spans:
        kept.append(text[at:start])
        at = end
    kept.append(text[at:])
    return "".join(kept)
