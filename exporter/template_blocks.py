"""Where a block a template left open began. Jinja notices an unclosed ``{% if %}`` only at
the tag that cannot close it, or at the template's end, often far below the mistake, and
names the block's kind, not its line ("The innermost block that needs to be closed is
'if'."): the template's tags, read up to there, tell the line."""

from __future__ import annotations

import re

import jinja2

_INNERMOST = re.compile(r"The innermost block that needs to be closed is '(\w+)'")
_END_OF_TEMPLATE = "Unexpected end of template"
# The tags that open a block an ``end…`` tag closes (``set`` only without ``=``: a block set).
_BLOCKS = frozenset({"if", "for", "block", "macro", "call", "filter", "with", "set",
                     "autoescape", "trans"})  # fmt: skip


def opened_at(exc: jinja2.TemplateSyntaxError, env: jinja2.Environment) -> str:
    """`` (the 'if' left open is on line 46)`` for an error naming a block left open,
    else ``""``."""
    named = _INNERMOST.search(exc.message or "")
    if named is None or not exc.source or exc.lineno is None:
        return ""
    upto = None if (exc.message or "").startswith(_END_OF_TEMPLATE) else exc.lineno
    try:
        line = _innermost_open(exc.source, env, named.group(1), upto)
    except jinja2.TemplateSyntaxError:  # (a mistake the lexer meets first: nothing to add)
        return ""
    return f" (the '{named.group(1)}' left open is on line {line})" if line else ""


def _innermost_open(source: str, env: jinja2.Environment, kind: str, upto: int | None) -> int:
    """The line of the innermost block of ``kind`` still open before line ``upto`` (None:
    the end), 0 when none is."""
    open_blocks: list[tuple[str, int]] = []
    for tag, words, line in _tags(source, env):
        if upto is not None and line >= upto:
            break
        if tag in _BLOCKS and not (tag == "set" and "=" in words):
            open_blocks.append((tag, line))
        elif tag.startswith("end"):
            closes = tag[3:]
            for n in range(len(open_blocks) - 1, -1, -1):
                if open_blocks[n][0] == closes:
                    del open_blocks[n:]
                    break
    return next((line for tag, line in reversed(open_blocks) if tag == kind), 0)


def _tags(source: str, env: jinja2.Environment):
    """Each ``{% … %}`` tag: its name, the values of its tokens, its line."""
    tag: str | None = None
    words: list[str] = []
    line = 0
    for lineno, token, value in env.lex(source):
        if token == "block_begin":
            tag, words, line = None, [], lineno
        elif token == "block_end":
            if tag is not None:
                yield tag, words, line
            tag = None
        elif token == "whitespace":
            continue
        elif tag is None and token == "name" and line:
            tag = value
        elif tag is not None:
            words.append(value)
