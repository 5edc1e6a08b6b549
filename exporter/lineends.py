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
    spans = trimmed_spans(text)
    if len(spans) == 1:
        return text[spans[0][0] : spans[0][1]]  # (the same object when it is all of it)
    return "".join(text[start:end] for start, end in spans)


def trimmed_spans(text: str) -> list[tuple[int, int]]:
    """The stretches of ``text`` that ``trimmed`` keeps, in order (none for nothing): a
    region's hash reads them in place, with no trimmed copy of a part of megabytes."""
    # (a one-character search, where it answers, is several times faster than a two's)
    tabs, crs = "\t" in text and "\t\n" in text, "\r" in text
    if " \n" not in text and not tabs and not crs and not text.endswith((" ", "\t")):
        start, end = len(text) - len(text.lstrip("\n")), len(text.rstrip("\n"))
        return [(start, end)] if start < end else []
    # Only the lines that end in a blank are cut, each found by ``str.find`` (fast in C):
    # splitting a note of thousands of lines to strip each cost 8% of an export's
    # instructions, a regular expression more.
    ends = []  # where a line's last character, before its break, is a blank
    for sign in (" \n", *(["\t\n"] if tabs else []), *(["\r\n"] if crs else [])):
        at = text.find(sign)
        while at != -1:
            ends.append(at)
            at = text.find(sign, at + 2)
    spans, last = [], 0
    for end in sorted(ends):
        start = end
        while start > last and text[start - 1] in _BLANKS:
            start -= 1
        spans.append([last, start])
        last = end + 1  # (the line break stays)
    spans.append([last, len(text)])
    # The whole's ``.rstrip(_BLANKS).strip("\n")``, across the stretches.
    _strip_end(text, spans, _BLANKS)
    _strip_end(text, spans, "\n")
    while spans:
        first = spans[0]
        while first[0] < first[1] and text[first[0]] == "\n":
            first[0] += 1
        if first[0] < first[1]:
            break
        spans.pop(0)
    return [(start, end) for start, end in spans if start < end]


def _strip_end(text: str, spans: list[list[int]], chars: str) -> None:
    while spans:
        last = spans[-1]
        while last[1] > last[0] and text[last[1] - 1] in chars:
            last[1] -= 1
        if last[1] > last[0]:
            return
        spans.pop()


_BLANKS = " \t\r"  # what ``trimmed`` takes from the end of a line
