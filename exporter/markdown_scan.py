"""The code in a plain text, found without the CommonMark parser: the fast path.

Most messages are prose with code spans and top-level fenced blocks. For those, the code
the parser would find can be read line by line: fences that start in the first column, and
backtick runs that pair up within each line. Anything whose reading depends on more than
that (indentation, block quotes, HTML, links, tables, strikethrough, a backtick run left
open, unusual line breaks) returns None, and the caller asks the parser. The answer has the
parser's shape (``markdown_code._parsed_code``); ``tests/test_code_scan.py`` checks that
both agree on random Markdown and on the corpus, and ``CCEXPORT_REFERENCE_RENDER=1``
bypasses this module.
"""

from __future__ import annotations

import re
from typing import Any

# Characters whose handling differs between parsers or line splitters: the parser decides.
_UNUSUAL = re.compile(r"[\r\f\v\x00\x85\u2028\u2029\x1c-\x1e]")
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})(.*)")
# A line the scan cannot read alone: indented four columns or a tab (indented code, or a
# list item's continuation), a quote, HTML, a fence inside a list item or indented, a
# link reference definition.
_CONTAINER_OR_DEEP = re.compile(
    r"^[ >*+\d.)-]*(?: {4}|\t)"  # four columns of indentation, after list markers too
    r"|^[ ]*(?:(?:[-+*]|\d{1,9}[.)])[ ]+)*(?:>|```|~~~|\[)"  # quote, fence, [label]
    # HTML that may start a block; a hyphenated tag (``<system-reminder>``, never one of
    # CommonMark's block names) with text after it on the line starts a paragraph.
    r"|^[ ]*(?:(?:[-+*]|\d{1,9}[.)])[ ]+)*<(?![A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+>[ \t]*\S)"
)
# Inline constructs that can claim a backtick before a code span does: strikethrough,
# inline and reference links, and raw HTML or autolinks unless the tag closes on its line
# without quotes (a code span could only be inside a quoted value or a comment).
_CLAIMS_BACKTICKS = re.compile(r"~~|\]\(|\]\[|\]:|<(?:[!?]|[A-Za-z/](?![^<>\n\"']*>))")
_RUN = re.compile(r"`+")
# A line that could be a table's delimiter row: where one exists, a cell boundary could cut
# a code span that holds a pipe.
_TABLE_RULE = re.compile(r"^[ \t|:]*-[ \t|:-]*$", re.MULTILINE)


def scanned_code(text: str) -> tuple[list[dict[str, Any]], list[str]] | None:
    """Code blocks and code span contents, shaped as the parser gives them; None when the
    text needs the parser."""
    if _UNUSUAL.search(text):
        return None
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # the parser does not count the empty line after a final newline
    blocks: list[dict[str, Any]] = []
    spans: list[str] = []
    table = "|" in text and bool(_TABLE_RULE.search(text))
    i, count = 0, len(lines)
    while i < count:
        line = lines[i]
        opener = _FENCE_OPEN.match(line)
        if opener:
            marker, info = opener.groups()
            if (marker[0] == "`" and "`" in info) or "\\" in info or "&" in info:
                return None  # not a fence, or an info string the parser unescapes
            closer = re.compile(rf" {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*")
            end = i + 1
            while end < count and not closer.fullmatch(lines[end]):
                end += 1
            block: dict[str, Any] = {
                "type": "block_code",
                "raw": "".join(content + "\n" for content in lines[i + 1 : end]),
                "style": "fenced",
                "marker": marker,
            }
            if info.strip():
                block["attrs"] = {"info": info.strip()}
            blocks.append(block)
            i = end + 1
            continue
        if _CONTAINER_OR_DEEP.match(line):
            return None
        if "`" in line or "~" in line or "<" in line or "]" in line:
            found = _line_spans(line, table)
            if found is None:
                return None
            spans.extend(found)
        i += 1
    return blocks, spans


def _line_spans(line: str, table: bool) -> list[str] | None:
    """The code spans of one line of prose, when every backtick run on it is paired and
    nothing outside them can claim one; None otherwise."""
    runs = list(_RUN.finditer(line))
    spans: list[str] = []
    outside: list[str] = []
    k = cursor = 0
    while k < len(runs):
        run = runs[k]
        if line[: run.start()].endswith("\\"):
            return None  # an escaped backtick: the parser decides
        close = next(
            (j for j in range(k + 1, len(runs)) if len(runs[j].group(0)) == len(run.group(0))),
            None,
        )
        if close is None:
            return None  # a run left open could pair with one on another line
        code = line[run.end() : runs[close].start()]
        if table and "|" in code:
            return None  # a table cell boundary could cut it
        spans.append(code)
        outside.append(line[cursor : run.start()])
        cursor = runs[close].end()
        k = close + 1
    outside.append(line[cursor:])
    # Text between spans is kept apart, so that no construct is made up across a span.
    if any(_CLAIMS_BACKTICKS.search(piece) for piece in outside):
        return None
    return spans
