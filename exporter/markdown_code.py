"""Where the code is in a text, cut into code blocks and prose paragraphs, so that the code
is kept byte for byte while the prose around it is escaped (``markdown``).

The line scan (``markdown_scan``) finds the code of most texts; for the rest the CommonMark
parser's code is located in the lines (``markdown_parsed``). When what is found cannot be
trusted (a table that could take code apart, a tab after a container, code the parse puts
elsewhere), the layout is None and the caller shows the whole text verbatim: unsure means
hands off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from .markdown_scan import (
    _TABLE_RULE,
    Fences,
    Places,
    closing_run,
    runs_by_length,
    scan,
    splits_cells,
)

# The reference switch (reference.py: light, as every run reads it), named here as before.
from .reference import REFERENCE_ENV as REFERENCE_ENV
from .reference import read_reference_switch as read_reference_switch
from .reference import reference_rendering

_BACKTICKS = re.compile(r"`+")
_HAS_CODE = re.compile(r"`|~~~|^(?: {4}|\t)|^[ \t>*+\d.)-]*(?: {4}|\t)", re.MULTILINE)
# A line's container prefix: indentation, blockquote markers, list markers.
_CONTAINER = re.compile(r"(?:[ \t]*>[ ]?|[ \t]*(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)[ \t]?)*[ \t]*")
_LIST_MARKER = re.compile(r"[-+*]|\d{1,9}[.)]")
_TAB_AFTER_CONTAINER = re.compile(r"^(?:[ \t]*(?:>|[-+*]|\d{1,9}[.)]))+[ ]*\t")
_BLANK = " \t\r\n\f\v"  # white space to CommonMark (a no-break space is text)
_QUOTES = re.compile(r"(?:[ \t]*>[ ]?)*")


def inside_quotes(prefix: str) -> int:
    """The width of a prefix after its quote markers, each with the one space it takes."""
    return len(prefix) - len(_QUOTES.match(prefix).group(0))  # type: ignore[union-attr]


@dataclass(slots=True)
class _Block:
    """A code block as the parser sees it, kept line for line."""

    lines: list[str]
    start: int  # index of its first line in the source
    fenced: bool
    unclosed: bool


@dataclass(slots=True)
class _Paragraph:
    """Prose lines up to a blank line or code block: container prefixes (``> ``, ``- ``,
    indentation) kept as structure, bodies escaped, code spans kept."""

    prefixes: list[str]
    bodies: list[str]
    start: int
    spans: list[tuple[int, int]]  # in "\n".join(bodies)


def _layout(text: str) -> list[_Block | _Paragraph] | None:
    """The text cut into code blocks and prose paragraphs; None when the parser's code
    cannot be located exactly (the caller then shows the text verbatim)."""
    lines = text.split("\n")
    has_code = bool(_HAS_CODE.search(text))
    if has_code and "\n" in text and _QUOTE_LINE.search(text) and _requoted_after_lazy_line(lines):
        return None  # containers the parser places unlike CommonMark: unsure, on both paths
    scanned = scan(text) if has_code and not reference_rendering() else None
    pieces: list[_Block | _Paragraph] | None
    if scanned is not None:
        # The scan read the code line by line: where it is needs no looking for.
        pieces = _scanned_layout(lines, scanned[2], scanned[3])
    elif has_code:
        from .markdown_parsed import located_layout  # the parser's path: the rarer one

        pieces = located_layout(text, lines)
        if pieces is None:
            return None
    else:
        pieces = _paragraphs(lines, 0, len(lines))
    for piece in pieces if "\t" in text else ():
        outside = piece.lines if isinstance(piece, _Block) and not piece.fenced else []
        if isinstance(piece, _Paragraph):
            outside = [p + b for p, b in zip(piece.prefixes, piece.bodies, strict=True)]
        if any(_TAB_AFTER_CONTAINER.match(line) for line in outside):
            return None  # parsers count a tab after "> " or "- " differently: unsure
    if has_code and any(_a_table_may_claim(piece) for piece in pieces):
        return None  # a GFM table may read as live text what the parse calls code
    if has_code and any(_container_may_end(piece, lines) for piece in pieces):
        return None  # CommonMark may end the item or quote there, and read code as text
    return pieces


_ITEM_LINE = re.compile(r"(?:[ ]*>[ ]?)*[ ]{0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")


def _quoted(line: str) -> bool:
    return ">" in _QUOTES.match(line).group(0)  # type: ignore[union-attr]


# A code line's own lead: quote markers and spaces (a "- " in code is no list marker).
_LEAD = re.compile(r"(?:[ ]*>[ ]?)*[ ]*")


def _may_be_lazy(line: str) -> bool:
    """Could this line, its quote's ``>`` left out, be text going on in the quote's
    paragraph? Only where it cannot open a block: indented four columns (or a tab) or more,
    whatever containers its spaces belong to."""
    lead = line[: len(line) - len(line.lstrip(" \t"))]
    return "\t" in lead or len(lead) >= 4


def _container_may_end(piece: _Block | _Paragraph, lines: list[str]) -> bool:
    """May CommonMark (and Obsidian) read as text what mistune calls this block's code?
    - a line of a fenced block starts left of its fence: in a list item that line ends the
      item, so the fence is never closed there and the line is prose, where links and tags
      act (at the top level the line is code either way: unsure all the same);
    - a fence indented four columns or more follows a quote's line without a ``>`` of its
      own: it cannot open a block there, so it may continue the quote's paragraph lazily
      (one indented less opens its block, which ends the quote: CommonMark, markdown-it
      and mistune agree, and a reply quoting a line before its code keeps its layout);
    - a tab-indented block sits right below a list item: the tab may reach only the item's
      text, a paragraph of the item (parsers count tabs apart)."""
    if not isinstance(piece, _Block):
        return False
    if not piece.fenced:
        if not piece.lines[0].startswith("\t"):
            return False
        above = next((lines[i] for i in range(piece.start - 1, -1, -1) if lines[i].strip()), "")
        return bool(_ITEM_LINE.match(above)) or above[:1] in (" ", "\t")  # (an item's text)
    if len(piece.lines) < 2:
        return False
    before = lines[piece.start - 1] if piece.start else ""
    if _quoted(before) and not _quoted(piece.lines[0]) and _may_be_lazy(piece.lines[0]):
        return True
    column = len(_CONTAINER.match(piece.lines[0]).group(0))  # type: ignore[union-attr]
    if not column:
        return False
    return any(
        line.strip(_BLANK) and len(_LEAD.match(line).group(0)) < column  # type: ignore[union-attr]
        for line in piece.lines[1:]
    )


# What starts a block of its own when a quote's ">" is left out: such a line ends the quote.
# Any other text line continues the quote's paragraph ("lazily") and keeps the quote open.
# A quote's line after the first: most texts have none (a literal "\n" first: a fast search).
_QUOTE_LINE = re.compile(r"\n[ \t]*>")
# A line that surely ends the paragraph instead of continuing it lazily: blank, or a block
# that can interrupt a paragraph (a bullet with text, an ordered item numbered 1, an ATX
# heading, a fence) at most three spaces in. Anything else counts as lazy, the safe side:
# ``#g``, ``2. x``, an empty ``-`` and ``<x`` cannot interrupt a paragraph.
_NOT_LAZY = re.compile(r"[ \t]*$| {0,3}(?:[-+*][ \t]+\S|1[.)][ \t]+\S|#{1,6}(?:[ \t]|$)|```|~~~)")


def _requoted_after_lazy_line(lines: list[str]) -> bool:
    """Does a quote go on after a lazy line? In ``> - a`` / ``a`` / ``>     # d`` the
    unquoted line continues the quoted paragraph, so to CommonMark the quote and its list
    item are still open on the third line (a heading in the item); mistune closes them at
    the lazy line and reads the third line as code in a new quote. Within one run of
    non-blank lines: a line of text with fewer ``>`` than one before it, then one with more.
    """
    top, dropped = -1, None  # the deepest quote of the run; the lowest lazy line's depth
    text_before = False  # the line before held text after its ">"s (a paragraph may be open)
    for line in lines:
        if not line.strip(_BLANK):
            top, dropped, text_before = -1, None, False
            continue
        quotes = _QUOTES.match(line).group(0)  # type: ignore[union-attr]
        depth = quotes.count(">")
        if dropped is not None and depth > dropped:
            return True
        if depth < top and text_before and not _NOT_LAZY.match(line, len(quotes)):
            dropped = depth if dropped is None else min(dropped, depth)
        elif depth < top:
            top = depth  # a block of its own closed the deeper quotes
        top = max(top, depth)
        text_before = bool(line[len(quotes) :].strip(_BLANK))
    return False


def _scanned_layout(lines: list[str], fences: Fences, places: Places) -> list[_Block | _Paragraph]:
    """The pieces where the scan found them: its fenced blocks, and prose paragraphs whose
    code spans are the ones it paired on each line."""
    spans_at: dict[int, list[tuple[int, int]]] = {}
    for line, start, end in places:
        spans_at.setdefault(line, []).append((start, end))
    pieces: list[_Block | _Paragraph] = []
    cursor = 0
    for first, stop, closed in fences:
        pieces.extend(_paragraphs(lines, cursor, first, spans_at))
        pieces.append(_Block(lines[first:stop], first, True, not closed))
        cursor = stop
    pieces.extend(_paragraphs(lines, cursor, len(lines), spans_at))
    return pieces


def _a_table_may_claim(piece: _Block | _Paragraph) -> bool:
    """Could a table take code of this piece apart? A fence opener holding a pipe above
    a possible delimiter row is a table's header to renderers that try tables first
    (markdown-it, GFM), not a fence. And GFM ends a cell at every pipe not escaped by a
    backslash, inside code spans too, and reads each line below a delimiter row as a row,
    while the parser may keep a span whole, or end the table early and join the lines.
    (A table never crosses a blank line: only the paragraph's own lines matter.)"""
    if isinstance(piece, _Block):
        return piece.fenced and len(piece.lines) > 1 and _heads_table(*piece.lines[:2])
    bodies = piece.bodies
    if not piece.spans or not any(
        "|" in above and _heads_table(above, below) for above, below in pairwise(bodies)
    ):
        return False  # no table here (most paragraphs: no pipe at all)
    joined = "\n".join(bodies)
    return any("\n" in joined[a:b] or splits_cells(joined[a:b]) for a, b in piece.spans)


def _heads_table(above: str, below: str) -> bool:
    """Could ``above`` (it holds a pipe) be a table's header row and ``below`` (with or
    without its quote or list markers) its delimiter row?"""
    if "|" not in above:
        return False
    rest = below[_CONTAINER.match(below).end() :]  # type: ignore[union-attr]
    return bool(_TABLE_RULE.match(below) or _TABLE_RULE.match(rest))


def _paragraphs(
    lines: list[str],
    start: int,
    end: int,
    spans_at: dict[int, list[tuple[int, int]]] | None = None,
) -> list[_Paragraph]:
    """The prose lines ``lines[start:end]`` as paragraphs; their code spans are found here,
    or given by line (``spans_at``: where the scan paired them in each line)."""
    out: list[_Paragraph] = []
    prefixes: list[str] = []
    bodies: list[str] = []
    first = start

    def close(at: int) -> None:
        nonlocal prefixes, bodies, first
        if prefixes:
            spans = (
                _spans_of(prefixes, bodies)
                if spans_at is None
                else _spans_placed(spans_at, first, prefixes, bodies)
            )
            out.append(_Paragraph(prefixes, bodies, first, spans))
        prefixes, bodies, first = [], [], at

    for i in range(start, end):
        line = lines[i]
        if line[:1].isalpha():  # no container prefix, not blank: most lines of prose
            prefixes.append("")
            bodies.append(line)
            continue
        cut = _CONTAINER.match(line).end() if line else 0  # type: ignore[union-attr]
        if (
            line
            and not line[cut:].strip(_BLANK)
            and prefixes
            and line[_QUOTES.match(line).end() :].strip(_BLANK)
        ):  # type: ignore[union-attr]
            # An empty list item cannot interrupt a paragraph, and "-" may underline it:
            # either way the line is the paragraph's text.
            quote = _QUOTES.match(line).end()  # type: ignore[union-attr]
            cut = quote + len(line[quote:]) - len(line[quote:].lstrip(" "))
        if not line or not line[cut:].strip(_BLANK):  # blank: the paragraph ends
            close(i)
            out.append(_Paragraph([line], [""], i, []))
            first = i + 1
            continue
        prefixes.append(line[:cut])
        bodies.append(line[cut:])
    close(end)
    return out


def _spans_of(prefixes: list[str], bodies: list[str]) -> list[tuple[int, int]]:
    """Code spans of a run of prose lines; a span never crosses the start of a quote or a
    list item (where the parse disagrees, it is caught by the check against the parse)."""
    joined = "\n".join(bodies)
    if "`" not in joined:
        return []
    spans: list[tuple[int, int]] = []
    start = offset = 0
    for k in range(len(bodies) + 1):
        if k < len(bodies) and (k == 0 or not _opens_block(prefixes[k - 1], prefixes[k])):
            continue
        piece = joined[offset : offset + sum(len(b) + 1 for b in bodies[start:k]) - 1]
        spans.extend((offset + a, offset + b) for a, b in _span_runs(piece))
        offset += len(piece) + 1
        start = k
    return spans


def _spans_placed(
    spans_at: dict[int, list[tuple[int, int]]], first: int, prefixes: list[str], bodies: list[str]
) -> list[tuple[int, int]]:
    """The spans of a paragraph starting at line ``first``, from their places in each line
    (a prefix holds no backtick: every span is in a line's body)."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for k, body in enumerate(bodies):
        cut = len(prefixes[k]) - offset
        spans.extend((a - cut, b - cut) for a, b in spans_at.get(first + k, ()))
        offset += len(body) + 1
    return spans


def _opens_block(previous: str, prefix: str) -> bool:
    """Does a line with ``prefix`` start a quote or list item (not continue a paragraph)?"""
    indent = len(prefix.expandtabs(4)) - len(prefix.expandtabs(4).lstrip(" "))
    deeper = prefix.count(">") > previous.count(">")
    return indent <= 3 and (deeper or bool(_LIST_MARKER.search(prefix)))


def _span_runs(text: str) -> list[tuple[int, int]]:
    """Code spans by CommonMark's rule: a backtick run (not backslash-escaped) opens a
    span that the next run of the same length closes; an unmatched run is text."""
    spans: list[tuple[int, int]] = []
    runs = list(_BACKTICKS.finditer(text))
    by_length = runs_by_length(runs)
    k = 0
    while k < len(runs):
        m = runs[k]
        start, length = m.start(), m.end() - m.start()
        slash = start  # the backslashes right before it (each belongs to this run alone)
        while slash and text[slash - 1] == "\\":
            slash -= 1
        if (start - slash) % 2:
            start, length = start + 1, length - 1  # the first backtick is escaped
        close = closing_run(by_length, k, length) if length else None
        if close is None:
            k += 1
            continue
        spans.append((start, runs[close].end()))
        k = close + 1
    return spans


def first_code_opener(text: str) -> int:
    """Where code (a code span, a fenced or an indented block) could first open in
    ``text``; its length if nowhere. A tag starting before it is not code: code that
    holds a ``<`` opens before it (a backtick run, a fence, an indented line's indentation)."""
    m = _HAS_CODE.search(text)
    return m.start() if m else len(text)


def code_ranges(text: str) -> list[tuple[int, int]]:
    """Character ranges of ``text`` that are code (blocks and spans), per the parse.

    When the parse cannot be located in the text, all of it counts as code: callers use
    this to leave code alone, so unsure means hands off."""
    if not _HAS_CODE.search(text):
        return []
    layout = _layout(text)
    if layout is None:
        return [(0, len(text))]
    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    ranges: list[tuple[int, int]] = []
    for piece in layout:
        if isinstance(piece, _Block):
            ranges.append((starts[piece.start], starts[piece.start + len(piece.lines)] - 1))
            continue
        origin: list[int] = []  # source offset of each character of the joined bodies
        for k, (prefix, body) in enumerate(zip(piece.prefixes, piece.bodies, strict=True)):
            base = starts[piece.start + k] + len(prefix)
            origin.extend(range(base, base + len(body) + 1))
        ranges.extend((origin[a], origin[b - 1] + 1) for a, b in piece.spans)
    return ranges
