"""The code in a plain text, found without the CommonMark parser: the fast path.

Most messages are prose with code spans and top-level fenced blocks. For those, the code
the parser would find can be read line by line: fences that start in the first column (or
indented alike in a list item), backtick runs that pair up within each line, quoted lines
of plain text. Anything whose reading depends on more than that (indentation that does not
continue a paragraph, quotes holding blocks, HTML, link reference definitions, a span with
a pipe in a table's lines, strikethrough, a link with a title, a backtick run left open,
unusual line breaks) returns None, and the caller asks the parser. The answer has the
parser's shape (``markdown_parsed._parser_code``); ``tests/test_code_scan.py`` checks
that both agree on random Markdown and on the corpus, and ``CCEXPORT_REFERENCE_RENDER=1``
bypasses this module.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from typing import Any

# Characters whose handling differs between parsers or line splitters: the parser decides.
_UNUSUAL = re.compile(r"[\r\f\v\x00\x85\u2028\u2029\x1c-\x1e]")
# A fence opens in the first column, or indented by up to three spaces (which its lines
# then lose): see ``_fence``.
_FENCE_OPEN = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")
# A list marker, and the markers and spaces that may open a line before its text.
_MARKER = r"(?:[-+*]|\d{1,9}[.)])"
_OPENING = rf"^[ ]*(?:{_MARKER}[ ]+)*"
# A line the scan cannot read alone: a quote, HTML, a fence inside a list item or indented.
_CONTAINER_OR_HTML = re.compile(
    rf"{_OPENING}(?:>|```|~~~"
    # HTML that may start a block; a hyphenated tag (``<system-reminder>``, never one of
    # CommonMark's block names) with text after it on the line starts a paragraph.
    r"|<(?![A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+>[ \t]*\S))"
)
# A fence opener indented four spaces or more: in a list item, or indented code or text.
_DEEP_FENCE = re.compile(r"( {4,})(`{3,}|~{3,})(.*)")
# A list item's first line: its marker's indentation, the marker (a number's digits apart)
# and the spaces before its text, which starts where the match ends.
_ITEM_START = re.compile(r"( *)(?:[-+*]|(\d{1,9})[.)])( {1,4})(?=[^ \t])")
_THEMATIC = re.compile(r" *([-*_])(?: *\1){2,} *")
# A block quote's markers before its text: up to three spaces, ">" and one space, nested.
_QUOTE_MARKERS = re.compile(r"(?: {0,3}>[ ]?)+")
# Four columns of indentation (after list markers too) or a tab: indented code, unless the
# line continues a paragraph (indented code cannot interrupt one).
_DEEP = re.compile(r"^[ >*+\d.)-]*(?: {4}|\t)")
# A list marker followed by five spaces or more opens an item that starts with indented
# code, and such an item may interrupt a paragraph; after four, the item's text starts five
# columns in, which the parser (the fallback) misreads for a fence below it: both unsure.
_ITEM_OF_CODE = re.compile(rf"{_OPENING}{_MARKER}[ ]{{4}}")
# A line that opens with a bracket may define a link reference ("[label]: url").
_LABEL = re.compile(rf"{_OPENING}\[")
# List markers and indentation before a line's text.
_PREFIX = re.compile(rf"(?:[ \t]*{_MARKER}(?=[ \t]|$)[ \t]?)*[ \t]*")
# Text that ends a paragraph rather than continuing it: a heading, a thematic break or a
# setext underline (read widely, as the parser does: any mix of these characters).
_ENDS_PARAGRAPH = re.compile(r"#{1,6}(?:[ \t]|$)|[-*_=+ \t]+$")
# Inline constructs that can claim a backtick before a code span does: strikethrough,
# inline links unless the destination closes right there (no space, quote, parenthesis,
# bracket, backslash or backtick before its ")": no title, nothing to claim), reference
# links, and raw HTML or autolinks unless the tag closes on its line without quotes (a
# code span could only be inside a quoted value or a comment).
_CLAIMS_BACKTICKS = re.compile(
    r"~~|\]\((?![^\s()<>\\`\"']*\))|\]\[|\]:|<(?:[!?]|[A-Za-z/](?![^<>\n\"']*>))"
)
_RUN = re.compile(r"`+")
# A line that could be a table's delimiter row: the parser takes empty cells too, so "|"
# alone is one, and any white space (a no-break space too) counts as empty. Below a line
# with a pipe, a table may start, and a cell boundary could cut a code span holding a pipe.
# (A lookahead, not two starred classes around "[|-]": those backtrack quadratically on a
# long line of dashes.)
_TABLE_RULE = re.compile(r"^(?=[^\n]*[|-])(?:[^\S\n]|[|:-])+$", re.MULTILINE)


# Where the scan found the code: each fenced block's lines (``lines[first:stop]``, its
# closing fence included when it has one) and each code span's line and its characters in
# that line, backticks included.
Fences = list[tuple[int, int, bool]]  # (first, stop, closed)
Places = list[tuple[int, int, int]]  # (line, start, end)


def scan(text: str) -> tuple[list[dict[str, Any]], list[str], Fences, Places] | None:
    """Code blocks and code span contents, shaped as the parser gives them, and where each
    is (``Fences``, ``Places``: the layout is read from them); None when the text needs the
    parser."""
    if _UNUSUAL.search(text):
        return None
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # the parser does not count the empty line after a final newline
    blocks: list[dict[str, Any]] = []
    spans: list[str] = []
    fences: Fences = []
    places: Places = []
    tables = _table_lines(text, lines) if "|" in text else _NO_LINES
    i, count = 0, len(lines)
    previous: str | None = None  # the line before, unless a fence or nothing came before
    while i < count:
        line = lines[i]
        # A line opening with a letter opens no fence, container, HTML, label or indented
        # code (each of those starts with white space, a marker or a sign), nor does an
        # empty one: most lines.
        if line and not line[0].isalpha():
            if ">" in line[:4] and (quote := _quoted_text(line)) is not None:
                # A block quote's line of plain text: the spans on it are the line's own.
                if i in tables or not _line_spans(line, False, spans, places, i):
                    return None  # a table's row perhaps, or spans the parser must pair
                i, previous = i + 1, quote  # what a line after it would continue
                continue
            opener = _FENCE_OPEN.match(line)
            if opener is None and line.startswith("    "):
                opener = _item_fence(lines, i, fences)  # deeper: only in a list item
            if opener:
                fenced = _fence(lines, i, *opener.groups())
                if fenced is None:
                    return None
                block, after = fenced
                blocks.append(block)
                fences.append((i, min(after, count), after <= count))
                i, previous = after, None
                continue
            if _CONTAINER_OR_HTML.match(line) or (_LABEL.match(line) and _may_define(line)):
                return None
            deep = _DEEP.match(line)
            if deep and (
                previous is None
                or not _continues_paragraph(previous)
                or i in tables
                or i - 1 in tables  # a blank line ending a table: the parser's own reading
                or deep.group(0).endswith("\t")
                or _ITEM_OF_CODE.match(line)
            ):
                return None
        if ("`" in line or "~" in line or "<" in line or "]" in line) and not _line_spans(
            line, i in tables, spans, places, i
        ):
            return None
        previous = line
        i += 1
    return blocks, spans, fences, places


def _quoted_text(line: str) -> str | None:
    """The text of a block quote's line (after its markers) when it is a paragraph's text
    or nothing: it opens with a letter, a quotation mark or a code span (not a fence), and
    holds no pipe (a table in a quote is not looked for). None otherwise, or not a quote."""
    markers = _QUOTE_MARKERS.match(line)
    if not markers:
        return None
    text = line[markers.end() :]
    if not text.strip(" "):
        return ""  # a blank line of the quote: it ends the paragraph in it
    first = text[0]
    if not (first.isalpha() or first in "\"'“„«`") or "|" in text:
        return None
    if first == "`" and _FENCE_OPEN.match(text):
        return None
    return text


def _fence(
    lines: list[str], at: int, indent: str, marker: str, info: str
) -> tuple[dict[str, Any], int] | None:
    """The fenced block opened on line ``at``, shaped as the parser gives it, and the index
    of the line after it; None when the parser must decide.

    An indented fence may sit in a list item (``1. Step:`` then ``   ```ts``) or not; it
    reads the same either way when every line of it keeps the fence's indentation (which
    each line loses) and its closing fence has exactly that indentation: a line indented
    less could end a list item, and so the fence, early, and a closing fence indented more
    may close it in an item (up to three columns past the item's text) and not outside. A
    blank line of spaces no wider than that indentation is an empty line of the block
    either way; one wider, or holding a tab, is counted differently inside an item: the
    parser decides, as it does for an indented fence that is never closed."""
    if (marker[0] == "`" and "`" in info) or "\\" in info or "&" in info:
        return None  # not a fence, or an info string the parser unescapes
    closer = _closing_fence(marker[0], len(marker))
    depth, end, count = len(indent), at + 1, len(lines)
    content: list[str] = []
    while end < count:
        line = lines[end]
        if closer.fullmatch(line) or (depth and closer.fullmatch(line.lstrip(" "))):
            if depth and not (line.startswith(indent) and line[depth] != " "):
                return None  # closed elsewhere (the item's own indentation, say): unsure
            break
        if depth:
            if len(line) <= depth and not line.strip(" "):
                content.append("")  # blank, within the indentation: empty in or out of a list
            elif line.startswith(indent) and line.strip(" \t") and "\t" not in _lead(line):
                content.append(line[depth:])
            else:
                return None
        else:
            content.append(line)
        end += 1
    if depth and end == count:
        return None
    block: dict[str, Any] = {
        "type": "block_code",
        "raw": "".join(line + "\n" for line in content),
        "style": "fenced",
        "marker": marker,
    }
    if info.strip():
        block["attrs"] = {"info": info.strip()}
    return block, end + 1


def _item_fence(lines: list[str], at: int, fences: Fences) -> re.Match[str] | None:
    """A fence indented four spaces or more (``     ```json``) that opens in a list item: the
    nearest item above has its text up to three columns left of the fence, every line
    between is indented at least as far as that text, and each item of the chain, up to
    one in the first columns, is an item for sure (a bullet, a number 1, or one after a
    blank line: another number may be a paragraph's text). Anything else, a tab, or an
    item above the last fenced block, is the parser's to read (None)."""
    opener = _DEEP_FENCE.fullmatch(lines[at])
    if opener is None:
        return None
    need = least = len(opener.group(1))  # the fence's column; the least indentation since
    for k in range(at - 1, fences[-1][1] - 1 if fences else -1, -1):
        line = lines[k]
        if "\t" in line:
            return None
        if not line.strip(" "):
            continue
        item = _ITEM_START.match(line)
        if item is None or _THEMATIC.fullmatch(line):
            least = min(least, len(_lead(line)))
            continue
        marker_at, text_at = len(item.group(1)), item.end()
        if text_at > need:  # an item deeper than the fence: the fence ends it
            least = min(least, marker_at)
            continue
        if text_at < need - 3 or least < text_at:
            return None  # too deep for this item, or a line between may have ended it
        number = item.group(2)
        # (the parser takes a line of five spaces or more for no blank line there: the
        # paragraph above goes on, and a number other than 1 cannot interrupt it)
        if number not in (None, "1") and k and (lines[k - 1].strip(" ") or len(lines[k - 1]) > 4):
            return None
        if marker_at <= 3:
            return opener
        need = least = marker_at  # the item itself sits in an item above
    return None


@lru_cache(maxsize=64)
def _closing_fence(char: str, length: int) -> re.Pattern[str]:
    """A line that closes a fence of ``length`` ``char``: indented up to three spaces."""
    return re.compile(rf" {{0,3}}{re.escape(char)}{{{length},}}[ \t]*")


def _lead(line: str) -> str:
    """A line's leading white space."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def _continues_paragraph(line: str) -> bool:
    """Is this line paragraph text, so that an indented line after it continues it?"""
    text_at = _PREFIX.match(line).end()  # type: ignore[union-attr]
    return bool(line[text_at:].strip(" \t")) and not _ENDS_PARAGRAPH.match(line, text_at)


def runs_by_length(runs: list[re.Match[str]]) -> dict[int, list[int]]:
    """The indexes of the backtick runs, by each run's length, in order."""
    found: dict[int, list[int]] = {}
    for k, run in enumerate(runs):
        found.setdefault(run.end() - run.start(), []).append(k)
    return found


def closing_run(by_length: dict[int, list[int]], k: int, length: int) -> int | None:
    """The first run after the ``k``-th with ``length`` backticks: the one that closes a
    code span opened there (found by bisection: a text of many unmatched runs would make
    a walk to it quadratic)."""
    found = by_length.get(length, ())
    at = bisect_right(found, k)
    return found[at] if at < len(found) else None


def _table_lines(text: str, lines: list[str]) -> frozenset[int]:
    """The lines a table could take: every line of each run of non-blank lines that holds a
    possible delimiter row below a line with a pipe. A table's header is the line right
    above its delimiter row and its rows the lines below, up to the first blank line (a
    line of spaces and tabs at most), in every renderer; so no line outside these runs can
    be a cell, and a code span there is not cut at a pipe."""
    taken: set[int] = set()
    at = counted = 0  # the line number of offset ``counted``, counted as the rules come
    for rule in _TABLE_RULE.finditer(text):
        above = text.rfind("\n", 0, rule.start() - 1) + 1
        if not rule.start() or "|" not in text[above : rule.start()]:
            continue
        at += text.count("\n", counted, rule.start())
        counted = rule.start()
        if at in taken:
            continue
        first = at
        while first and lines[first - 1].strip(" \t"):
            first -= 1
        stop = at + 1
        while stop < len(lines) and lines[stop].strip(" \t"):
            stop += 1
        taken.update(range(first, stop))
    return frozenset(taken)


_NO_LINES: frozenset[int] = frozenset()


def _may_define(line: str) -> bool:
    """Could this line (which opens with a bracket) start a link reference definition? Not
    when its first ``]`` closes a plain label without a colon right after it."""
    rest = line[_LABEL.match(line).end() :]  # type: ignore[union-attr]
    close = rest.find("]")
    return (
        close < 0
        or "\\" in rest[:close]
        or "[" in rest[:close]
        or rest[close + 1 : close + 2] == ":"
    )


def splits_cells(code: str) -> bool:
    """Does ``code`` hold a pipe that would end a table cell (not right after a lone
    backslash; after two, the backslash itself may be the escaped character)?"""
    at = code.find("|")
    while at >= 0:
        slash = at
        while slash and code[slash - 1] == "\\":  # the backslashes right before it
            slash -= 1
        if at - slash != 1:
            return True
        at = code.find("|", at + 1)
    return False


def _line_spans(line: str, table: bool, spans: list[str], places: Places, at: int) -> bool:
    """Add the code spans of one line of prose (line ``at``) to ``spans`` and their places
    to ``places``, when every backtick run on it is paired and nothing outside them can
    claim one; False otherwise (the scan then steps aside, and what was added is dropped).
    ``table``: the line may be a table's row."""
    runs = list(_RUN.finditer(line))
    by_length: dict[int, list[int]] | None = None  # made when first needed
    outside: list[str] = []
    k = cursor = 0
    while k < len(runs):
        run = runs[k]
        if run.start() and line[run.start() - 1] == "\\":
            return False  # an escaped backtick: the parser decides
        length = run.end() - run.start()
        if k + 1 < len(runs) and runs[k + 1].end() - runs[k + 1].start() == length:
            close: int | None = k + 1  # the very next run closes it (most spans)
        else:
            by_length = by_length or runs_by_length(runs)
            close = closing_run(by_length, k, length)
        if close is None:
            return False  # a run left open could pair with one on another line
        code = line[run.end() : runs[close].start()]
        if table and splits_cells(code):
            return False  # a table cell boundary could cut it
        spans.append(code)
        places.append((at, run.start(), runs[close].end()))
        outside.append(line[cursor : run.start()])
        cursor = runs[close].end()
        k = close + 1
    outside.append(line[cursor:])
    # Text between spans is kept apart, so that no construct is made up across a span.
    return not any(_CLAIMS_BACKTICKS.search(piece) for piece in outside)
