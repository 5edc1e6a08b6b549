"""A terminal code that ends with a backslash also written as an escape's (``ESC X ESC \\``,
then ``n…``: a literal ``\\n`` before a token): rendering drops the code with its last
backslash (``clean.strip_control``) and glues the escape's letter to a token the code split
(``ESC [m`` inside it), where the text gave it a boundary. The rules read the text as
rendered, and this reading too, with that backslash kept."""

from __future__ import annotations

import re

# The codes rendering drops (the same pattern: a code is one to both).
from .clean import ANSI_CODE, strip_control

_ESCAPE_LETTERS = frozenset("nrtu")  # (``\n``, ``\r``, ``\t``, ``\u003c``)


def escapes_kept(text: str) -> str | None:
    """``strip_control(text)``, but where a terminal code ends with a backslash and an
    escape's letter follows it, that backslash kept; None when no code ends so."""
    if "\x1b" not in text:
        return None
    kept = False

    def code(m: re.Match[str]) -> str:
        nonlocal kept
        if m.group().endswith("\\") and text[m.end() : m.end() + 1] in _ESCAPE_LETTERS:
            kept = True
            return "\\"
        return ""

    out = ANSI_CODE.sub(code, text)
    return strip_control(out) if kept else None
