"""What a conflict copy says first: the lines the person changed in a generated part, as a
short unified diff of ccexport's text against theirs, above their whole text (review35 8:
the copy was the whole old part, ~1,000 lines for a long note, with nothing marking the
edit, and the person had to compare it by hand).

The diff is session text: it goes in a fenced block (``markdown.fence``, which its content
cannot close and no plugin runs), so a link, tag or embed in it stays inert. Only ccexport's
text as it writes the part now is known (the state keeps a hash of what it wrote before, not
the text): the lines the session added at the end since are no edit of the person's, and are
counted, not shown.
"""

from __future__ import annotations

import difflib

from . import lineends
from .markdown import fence

SHOWN_LINES = 60  # of the diff, its two headers aside: the whole text follows it
LINE_WIDTH = 300  # characters of a line shown (one paragraph is one line: it can be long)
CONTEXT = 2  # unchanged lines around each change
OURS, THEIRS = "ccexport", "yours"


def copy_text(head: str, written: str, theirs: str) -> str:
    """A conflict copy's text: ``head`` (whose edit, what to do), what differs between
    ccexport's text ``written`` and the person's ``theirs``, then ``theirs`` whole."""
    theirs = lineends.without_cr(theirs).strip("\n")
    said = summary(written, theirs)
    whole = "Your text as you had it, whole:" if said and theirs else ""
    return "\n\n".join(part for part in (head, said, whole, theirs) if part) + "\n"


def summary(written: str, theirs: str) -> str:
    """The lines that differ, as Markdown (a sentence, a fenced ``diff`` block, a line
    saying what was left out); "" when no line differs."""
    ours_lines = _lines(written)
    their_lines = _lines(theirs)
    ours_lines, grown = _without_growth(ours_lines, their_lines)
    diff = list(difflib.unified_diff(ours_lines, their_lines, OURS, THEIRS, n=CONTEXT, lineterm=""))
    if not diff:
        return ""
    heads, body = diff[:2], diff[2:]
    shown = [_cut(line) for line in body[:SHOWN_LINES]]
    said = [
        "What differs, in short: lines starting with `-` are ccexport's, as it writes the "
        "part now from its session; lines starting with `+` are yours."
    ]
    if grown:
        said.append(
            f"The last {_lines_of(grown)} of ccexport's text, which yours does not have (what "
            "the session added since), are left out."
        )
    text = " ".join(said) + "\n\n" + fence("\n".join([*heads, *shown]), "diff")
    if len(body) > SHOWN_LINES:
        text += f"\n\n… {_lines_of(len(body) - SHOWN_LINES)} more of this comparison left out."
    return text


def _lines(text: str) -> list[str]:
    text = lineends.without_cr(text).strip("\n")
    return [line.rstrip(" \t") for line in text.split("\n")] if text else []


def _without_growth(ours: list[str], theirs: list[str]) -> tuple[list[str], int]:
    """ccexport's lines without those it has after the last of the person's (the session
    went on), and how many those are. When the person's last lines differ from ccexport's
    too, as many of ccexport's are kept as the person has there (their edit is read
    against those). All are kept when nothing else would differ: the person removed the
    part's last lines."""
    opcodes = difflib.SequenceMatcher(None, ours, theirs).get_opcodes()
    tag, start, end, their_start, their_end = opcodes[-1] if opcodes else ("", 0, 0, 0, 0)
    if tag not in ("delete", "replace") or end != len(ours) or their_end != len(theirs):
        return ours, 0
    kept = start + min(end - start, their_end - their_start)
    if kept == end or (tag == "delete" and all(op[0] == "equal" for op in opcodes[:-1])):
        return ours, 0
    return ours[:kept], end - kept


def _cut(line: str) -> str:
    return line if len(line) <= LINE_WIDTH else line[:LINE_WIDTH] + " …"


def _lines_of(count: int) -> str:
    return f"{count:,} line" + ("" if count == 1 else "s")
