"""Where the CommonMark parser (mistune) says the code of a text is, found line by line
in the text: the sure path, for what the line scan (``markdown_scan``) steps aside from,
and for every text with ``CCEXPORT_REFERENCE_RENDER=1``. ``located_layout`` gives the
pieces ``markdown_code._layout`` gives, or None when the located code does not match the
parse exactly (the caller then shows the whole text verbatim: unsure means hands off).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any

from .markdown_code import _BLANK, _CONTAINER, _QUOTES, _Block, _Paragraph, _paragraphs

# Where an indented code line's code starts: containers, then four columns of indentation.
_INDENTED_CODE = re.compile(
    r"^(?:[ \t]*>[ ]?|[ \t]*(?:[-+*]|\d{1,9}[.)])[ \t])*?(?: {4}|[ ]{0,3}\t)[ \t]*"
)


def _inside(opener: str, line: str) -> bool:
    """Is ``line`` inside the containers (quotes, list items) an opener's prefix opened?"""
    if not line.strip(_BLANK):
        return True
    quotes = opener.count(">")
    if quotes and _QUOTES.match(line).group(0).count(">") < quotes:  # type: ignore[union-attr]
        return False
    item = re.match(r"^.*(?:[-+*]|\d{1,9}[.)])[ \t]*", opener)
    if item:
        column = len(item.group(0).expandtabs(4))
        return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" >")) >= column
    return True


@lru_cache(maxsize=1)
def _parser() -> Any:
    import mistune  # imported lazily: start-up stays small when nothing needs it

    parser = mistune.create_markdown(renderer="ast", plugins=["table", "strikethrough"])
    # Only code is looked for. Emphasis is resolved after the scan, so it cannot move a code
    # span; strikethrough stays, because it claims its text before code spans are found.
    parser.inline.rules.remove("emphasis")
    return parser


def _parser_code(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Code blocks (in document order) and code span contents, as the parser sees them."""
    blocks: list[dict[str, Any]] = []
    spans: list[str] = []

    def walk(nodes: list[dict[str, Any]]) -> None:
        for node in nodes:
            kind = node.get("type")
            if kind == "block_code":
                blocks.append(node)
            elif kind == "codespan":
                spans.append(node["raw"])
            children = node.get("children")
            if isinstance(children, list):
                walk(children)

    walk(_parser()(text))
    return blocks, spans


def located_layout(text: str, lines: list[str]) -> list[_Block | _Paragraph] | None:
    """The parser's code blocks and spans found in the lines; None where they cannot all be
    found exactly as parsed."""
    parsed_blocks, parsed_spans = _parser_code(text)
    pieces: list[_Block | _Paragraph] = []
    cursor = 0
    # Blocks of the same code still to place: an indented one may be found in as many
    # places, no more (a line of that text the parse read as something else would be
    # taken for one).
    left = Counter(_same_code(node) for node in parsed_blocks)
    for node in parsed_blocks:
        block = _find_block(node, lines, cursor, left[_same_code(node)])
        left[_same_code(node)] -= 1
        if block is None:
            return None
        pieces.extend(_paragraphs(lines, cursor, block.start))
        pieces.append(block)
        cursor = block.start + len(block.lines)
    pieces.extend(_paragraphs(lines, cursor, len(lines)))
    found = [
        _span_norm(joined[a:b])
        for p in pieces
        if isinstance(p, _Paragraph) and p.spans
        for joined in ("\n".join(p.bodies),)
        for a, b in p.spans
    ]
    if found != [" ".join(s.split()) for s in parsed_spans]:
        return None
    return pieces


def _same_code(node: dict[str, Any]) -> tuple[Any, ...]:
    return (node.get("style"), node.get("raw"), str((node.get("attrs") or {}).get("info")))


def _find_block(
    node: dict[str, Any], lines: list[str], cursor: int, alike: int = 1
) -> _Block | None:
    raw: str = node.get("raw", "")
    content = raw.split("\n") if raw else []
    if raw.endswith("\n"):
        content.pop()
    info = str((node.get("attrs") or {}).get("info") or "")
    if node.get("style") == "fenced":
        marker: str = node.get("marker") or "```"
        opener, closer = _fence_lines(marker[0], len(marker))
        for first in range(cursor, len(lines)):
            m = opener.match(lines[first])
            if not m or not _lines_end_with(lines, first + 1, content):
                continue
            rest = lines[first][m.end() :].lstrip(marker[0])
            if (marker[0] == "`" and "`" in rest) or info.strip() not in rest:
                continue  # not an opener: CommonMark forbids backticks in its info
            if "\t" in lines[first][: len(m.group(0)) - len(marker)].lstrip(" >"):
                return None  # a tab before a fence: parsers count its columns differently
            after = first + 1 + len(content)
            closed = after < len(lines) and closer.match(lines[after])
            inner = lines[first + 1 : after + 1 if closed else after]
            prefix = _CONTAINER.match(lines[first]).group(0)  # type: ignore[union-attr]
            # (A fence in the first column is inside no container: every line is inside.)
            if prefix and not all(_inside(prefix, line) for line in inner):
                return None  # the parse disagrees with CommonMark's containers: unsure
            if closed:
                return _Block(lines[first : after + 1], first, True, False)
            return _Block(lines[first:after], first, True, True)
        return None
    while content and not content[-1].strip():
        content.pop()
    if not content:
        return None
    found = []
    for first in range(cursor, len(lines)):
        if not lines[first].strip(_BLANK) or not _lines_end_with(lines, first, content):
            continue
        indent = _INDENTED_CODE.match(lines[first])
        if indent and len(indent.group(0)) + len(content[0]) >= len(lines[first].rstrip()):
            found.append(first)
    if not found or len(found) > alike:
        return None  # not found, or found where the parse saw something else: unsure
    return _Block(lines[found[0] : found[0] + len(content)], found[0], False, False)


@lru_cache(maxsize=64)
def _fence_lines(char: str, length: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Where a fence of ``length`` or more ``char`` opens a line (after its containers),
    and a line that closes it."""
    opener = rf"^{_CONTAINER.pattern}{re.escape(char)}{{{length},}}"
    return re.compile(opener), re.compile(rf"{opener}[ \t]*$")


def _lines_end_with(lines: list[str], start: int, content: list[str]) -> bool:
    if start + len(content) > len(lines):
        return False
    for offset, want in enumerate(content):
        line = lines[start + offset]
        if line.endswith(want) or line.rstrip().endswith(want.rstrip()):
            continue
        if "\t" in line and line.expandtabs(4).endswith(want):
            continue
        return False
    return True


def _span_norm(code: str) -> str:
    ticks = len(code) - len(code.lstrip("`"))
    return " ".join(code[ticks : len(code) - ticks].split())
