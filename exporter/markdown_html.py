"""The lines of an HTML block that the escaper turns into text.

To CommonMark, a line opening an HTML block (``<div>``, ``<source>``, ``<!-- …``) makes it
and the lines after it raw HTML, up to a blank line (or, for ``<script>``, ``<pre>``,
comments and the like, up to their end marker): a ``> x``, ``# x`` or ``- x`` there is
text. The escaper escapes the opener's ``<`` (no raw HTML reaches the vault), so those
lines would become a quote, a heading or a list. ``block_lines`` says which lines of a
paragraph were inside such a block; their quote and list markers and ``#`` runs are then
escaped too (``literal_prefix``, and the escaper's line rules).

Only a block opened on a paragraph's first line, outside any list item, is looked for. One
that goes on past blank lines (``<pre>``, ``<script>``, a comment…) is followed into the
paragraphs after them (``Carry``) until its end marker or a line out of its quote. Elsewhere
the lines keep the escaper's usual rules (nothing becomes live that was not: at worst a
heading is demoted, a quote or list shown as one).
"""

from __future__ import annotations

import re

from .markdown_code import _LIST_MARKER, inside_quotes
from .markdown_text import _ATTR

# CommonMark's seven kinds of HTML block start, by what ends each (None: a blank line).
_ENDS_AT: list[tuple[re.Pattern[str], str | None]] = [
    (re.compile(r"<(script|pre|style|textarea)(?:[ \t>]|$)", re.IGNORECASE), "</{}>"),
    (re.compile(r"<!--"), "-->"),
    (re.compile(r"<\?"), "?>"),
    (re.compile(r"<![A-Za-z]"), ">"),
    (re.compile(r"<!\[CDATA\["), "]]>"),
    (
        re.compile(
            r"</?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col"
            r"|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer"
            r"|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main"
            r"|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section"
            r"|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[ \t]|/?>|$)",
            re.IGNORECASE,
        ),
        None,
    ),
    (
        re.compile(rf"(?:<[A-Za-z][A-Za-z0-9-]*{_ATTR}*\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>)\s*$"),
        None,
    ),
]


Carry = tuple[str, int]  # an HTML block still open after a paragraph: its end, its quotes


def block_lines(prefixes: list[str], bodies: list[str]) -> tuple[set[int], Carry | None]:
    """The lines after the first that were inside an HTML block the first line opens, and
    the block if it goes on past the paragraph (only one that ends at a marker does)."""
    first, body = prefixes[0], bodies[0]
    if _LIST_MARKER.search(first) or "\t" in first or inside_quotes(first) > 3:
        return set(), None
    found = next(((m, end) for start, end in _ENDS_AT if (m := start.match(body))), None)
    if found is None:
        return set(), None
    opened, end = found
    if end is not None and "{}" in end:
        end = end.format(opened.group(1).lower())
    if end is not None and end in body[opened.end() :].lower():
        return set(), None  # ended on its own line
    return _until_end(prefixes, bodies, 1, end, first.count(">"))


def carried_lines(
    prefixes: list[str], bodies: list[str], carry: Carry
) -> tuple[set[int], Carry | None]:
    """The lines of a paragraph inside an HTML block opened above it, from its first."""
    return _until_end(prefixes, bodies, 0, *carry)


def _until_end(
    prefixes: list[str], bodies: list[str], start: int, end: str | None, quotes: int
) -> tuple[set[int], Carry | None]:
    inside: set[int] = set()
    for k in range(start, len(prefixes)):
        prefix = prefixes[k]
        if prefix.count(">") < quotes or "\t" in prefix:
            return inside, None  # out of the quote that holds it (or unsure): it ends
        inside.add(k)
        if end is not None and end in bodies[k].lower():
            return inside, None
    return inside, (end, quotes) if end is not None else None


def literal_prefix(prefix: str, quotes: int) -> str:
    """A prefix whose markers past the first ``quotes`` quote markers are text: the first
    of them escaped (``>`` of ``>>>>>>> REPLACE``, ``-`` or ``1.`` of a list item)."""
    kept = 0
    for i, char in enumerate(prefix):
        if char == ">":
            if kept == quotes:
                return prefix[:i] + "\\" + prefix[i:]
            kept += 1
        elif char not in " \t":
            marker = _LIST_MARKER.match(prefix, i)
            if marker:
                at = marker.end() - 1 if prefix[i].isdigit() else i  # "1\." and "\-"
                return prefix[:at] + "\\" + prefix[at:]
            return prefix
    return prefix
