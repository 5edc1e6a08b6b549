"""The line ends of a note: LF as ccexport writes it, or CRLF as a sync tool, git
(``core.autocrlf``) or an editor on Windows left it.

An update writes ccexport's parts (the generated part, its markers, the properties it
rewrites) with the note's line ends, and the person's text as it is, byte for byte: a
CRLF note stays CRLF throughout instead of mixing the two (editors and git complain about
a mix, and a sync tool that normalises would rewrite the note). A new note is LF.
"""

from __future__ import annotations

import re

CRLF = "\r\n"
LF = "\n"

_BARE_LF = re.compile(r"(?<!\r)\n")


def of_note(text: str) -> str:
    """The line end an update writes in the note ``text``: that of its first line break.

    The first, not the most: a sync tool, git and an editor each turn every line of the
    file, so its first line (the frontmatter's opening ``---``, which ccexport wrote and
    the person leaves alone) says what the file was turned to; a note an earlier version
    left mixed (the person's lines and the fences CRLF, ccexport's parts LF, often most of
    them) starts CRLF too, and its next update makes it CRLF throughout. And it costs one
    look at the first line, not a count over the whole note, on every note updated."""
    first = text.find("\n")
    return CRLF if first > 0 and text[first - 1] == "\r" else LF


def written(text: str, eol: str) -> str:
    """``text`` that ccexport wrote with LF line ends (none of the person's lines in it),
    with ``eol`` instead."""
    return text if eol == LF else text.replace(LF, eol)


def bare_to_crlf(text: str) -> str:
    """``text`` with each line break that is a lone LF made CRLF (a CRLF kept as it is)."""
    return _BARE_LF.sub(CRLF, text) if LF in text else text


def without_cr(text: str) -> str:
    """``text`` with the CRs that end its lines removed (the last line's too: a region read
    from a CRLF note ends with one), as ccexport wrote it, for comparing and hashing."""
    if "\r" not in text:
        return text
    return LF.join(line.rstrip("\r") for line in text.split(LF))


def as_lf(text: str, eol: str) -> str:
    """``text`` from a note whose line ends are ``eol``, as ccexport writes it (LF), to be
    compared with what it would write."""
    return text if eol == LF else without_cr(text)


def trimmed(text: str) -> str:
    """``text`` with the blanks (spaces, tabs) and CRs that end its lines removed, and the
    line breaks around it: what an editor that trims trailing whitespace on save (Obsidian's
    Linter, VS Code, vim) leaves of it, so that such a save is no edit (as CRLF is not)."""
    # (a one-character search, where it answers, is several times faster than a two's)
    tabs, crs = "\t" in text and "\t\n" in text, "\r" in text
    if " \n" not in text and not tabs and not crs:
        if not text.endswith((" ", "\t")):
            return text.strip("\n")  # (the same object when nothing is stripped)
    # Only the lines that end in a blank are cut, each found by ``str.find`` (fast in C):
    # splitting a note of thousands of lines to strip each cost 8% of an export's
    # instructions, a regular expression more.
    ends = []  # where a line's last character, before its break, is a blank
    for sign in (" \n", *(["\t\n"] if tabs else []), *(["\r\n"] if crs else [])):
        at = text.find(sign)
        while at != -1:
            ends.append(at)
            at = text.find(sign, at + 2)
    pieces, last = [], 0
    for end in sorted(ends):
        start = end
        while start > last and text[start - 1] in _BLANKS:
            start -= 1
        pieces.append(text[last:start])
        last = end + 1  # (the line break stays)
    pieces.append(text[last:])
    return "".join(pieces).rstrip(_BLANKS).strip("\n")


_BLANKS = " \t\r"  # what ``trimmed`` takes from the end of a line
