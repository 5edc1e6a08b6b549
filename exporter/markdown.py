"""Markdown that shows session text exactly as it was typed, and cannot act in the vault.

What is code and what is text is decided by a CommonMark parse (``markdown_code``): its
fenced and indented blocks and its code spans are kept byte for byte. Only
the text around them is escaped, and only where CommonMark or Obsidian would act on a
character in that position, so ``snake_case``, ``mcp__x__y``, ``src/__init__.py`` and
``**/*.ts`` stay searchable as typed. Text never becomes: a tag, wikilink, embed, image,
link to a local file, link definition, footnote, highlight, strikethrough, block id,
``%%`` comment, maths, raw HTML or comment, entity, callout, task checkbox, Dataview field
or query, or a heading above the turn headings (headings are demoted). Code spans that a
plugin would run (``=…``, ``$=…``) get a zero-width space in front; fenced blocks a plugin
would run (``dataview``, ``tasks``…) get a highlighting language in front of their info.

When the located code does not match the parse exactly, the whole text is shown verbatim
in a fenced block: never an escape inside code, never live text.
"""

from __future__ import annotations

import re

from .markdown_code import (  # noqa: F401  (code_ranges, first_code_opener: part of this module's API)
    _BACKTICKS,
    _CONTAINER,
    _LIST_MARKER,
    _QUOTES,
    _Block,
    _layout,
    _Paragraph,
    _span_runs,
    _spans_of,
    code_ranges,
    first_code_opener,
    inside_quotes,
)
from .markdown_html import Carry, block_lines, carried_lines, literal_prefix
from .markdown_links import ZERO_WIDTH_SPACE, link_alias, unlinked, wikilink, without_templater  # noqa: F401  (this module's API)
from .markdown_plugins import (  # noqa: F401  (safe_info: part of this module's API)
    inert_block,
    inert_block_text,
    inert_span,
    inert_written_span,
    safe_info,
)
from .markdown_text import _ACTS, _ATX, _CODE_MARK, _FENCE_LINE, _escape_text, _Unsure
from .markdown_verbatim import as_code, verbatim_words

_LEADING_TABS = re.compile(r"^[ \t]*\t")
_NEEDS_WORK = re.compile(r"[<&$%\[\]#\\^`~=*_:-]|^ {4}|\t", re.MULTILINE)
_INDENTED_LATER = re.compile(r"\n[ >]*  ")  # a typed paragraph may be laid out (``_pasted``)
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# Control characters (a carriage return and ESC among them) that session text may hold
# wherever the adapters pass it on as it was (a tool's name, a command, a model's id).
_HIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# The same, as a byte table for a long text: each of those bytes to 0, the others to 1 (a
# character past ASCII is bytes of 0x80 and up in UTF-8). ``re`` tests its class at each
# character, about three times the instructions of a translate and a memchr.
_SHOWN = bytes(0 if _HIDDEN.match(chr(b)) else 1 for b in range(256))
_SHORT = 256  # characters: below this, ``re``'s one call costs less than encoding


def has_hidden(text: str) -> bool:
    """Does ``text`` hold a control character other than a tab or a newline (a carriage
    return is one)?"""
    if len(text) < _SHORT:
        return _HIDDEN.search(text) is not None
    return b"\0" in text.encode("utf-8", "surrogatepass").translate(_SHOWN)


def _visible(text: str) -> str:
    """``text`` without control characters and terminal codes, as ``clean.strip_control``
    leaves a prose text or a tool's output: a NUL in a note made git and grep take it for
    a binary file; and no Templater command that runs when the note is shown. Every filter
    starts here, so what it escapes is what is shown."""
    if has_hidden(text):
        from .clean import strip_control  # (clean imports this module)

        text = strip_control(text)
    return without_templater(text)


def escape_prose(text: str, *, literal: bool = False) -> str:
    """Markdown for ``text`` that renders as written, keeping its code untouched.

    ``literal`` is for what a person typed: emphasis markers and backslashes are escaped
    too, so ``*args`` stays ``*args``. A model's reply keeps its formatting (emphasis,
    lists, tables, links to the web).
    """
    text = _visible(text)
    if not _NEEDS_WORK.search(text) and not (literal and _INDENTED_LATER.search(text)):
        return text
    text = text.replace(_CODE_MARK, "")
    layout = _layout(text)
    if layout is None:
        return fence(text, "text")
    try:
        return "\n".join(_render(layout, literal))
    except _Unsure:
        return fence(text, "text")


def _render(layout: list[_Block | _Paragraph], literal: bool) -> list[str]:
    out: list[str] = []
    carry: Carry | None = None  # an HTML block (made text) going on past a blank line
    for piece in layout:
        if isinstance(piece, _Block):
            carry = None  # (the parser sees no code inside an HTML block)
            if not piece.fenced and out and out[-1].strip(" \t>"):
                # What ended the text before it (an HTML block, an underline) may now be
                # a paragraph, which an indented code block cannot interrupt.
                out.append(_QUOTES.match(piece.lines[0]).group(0).rstrip())  # type: ignore[union-attr]
            out.extend(_render_block(piece))
        elif piece.bodies == [""]:
            out.extend(piece.prefixes)  # a blank line: a block that ends at a marker goes on
        elif literal and carry is None and (pasted := _pasted(piece)) is not None:
            out.extend(pasted)
        else:
            lines, carry = _escape_paragraph(piece, literal, carry)
            out.extend(lines)
    return out


def _pasted(paragraph: _Paragraph) -> list[str] | None:
    """A typed paragraph laid out by its spaces (a pasted traceback, a compiler's
    diagnostics) as a fenced ``text`` block, its lines as typed: as prose CommonMark drops
    each line's indentation, and the ``^^^^`` under an expression points at nothing. Laid
    out: a later line indented four columns or a tab past its container, or two lines
    indented two (one such line is how prose wrapped by a terminal reads). None for any
    other paragraph."""
    prefixes, bodies = paragraph.prefixes, paragraph.bodies
    if len(bodies) < 2 or "\t" in prefixes[0] or bodies[0][:1] == "<":
        return None
    inside = _later_prefix(prefixes[0])
    lines, indented, deep = [bodies[0]], 0, False
    for prefix, body in zip(prefixes[1:], bodies[1:], strict=True):
        if prefix.startswith(inside) and not prefix[len(inside) :].strip(" \t"):
            extra = prefix[len(inside) :]
        elif not prefix.strip():
            extra = prefix  # a lazy line (its container's prefix left out): as typed
        else:
            return None  # a container opened or closed: prose, as before
        indented += extra.startswith("  ")
        deep = deep or extra.startswith(("    ", "\t"))
        lines.append(extra + body)
    if not (deep or indented >= 2):
        return None
    block = fence("\n".join(lines), "text").split("\n")
    return [prefixes[0] + block[0]] + [inside + line for line in block[1:]]


def escape_inline(text: str) -> str:
    """One line of text (a title, a label) safe anywhere inline, shown as typed."""
    text = " ".join(_visible(text).replace(_CODE_MARK, "").split())
    spans = _span_runs(text) if "`" in text else []
    # Code spans in a title stay code (``Ran `pytest -k auth` ``); the rest is text.
    codes = [text[a:b] for a, b in spans]
    parked = "".join(
        text[(spans[k - 1][1] if k else 0) : a] + _CODE_MARK for k, (a, _b) in enumerate(spans)
    )
    parked += text[spans[-1][1] :] if spans else text
    emphasis: list[int] = []
    escaped = _escape_text(parked, literal=True, inline=True, escaped_emphasis=emphasis)
    if emphasis and "`" not in parked and (words := verbatim_words(parked, emphasis)):
        # As in a prompt: a word that would hold a backslash (``__init\_\_``) is code.
        parked, codes = as_code(parked, codes, words)
        escaped = _escape_text(parked, literal=True, inline=True)
    if not codes:
        return _inert_line_start(escaped)
    pieces = escaped.split(_CODE_MARK)
    return _inert_line_start(
        pieces[0]
        + "".join(
            inert_written_span(code) + after for code, after in zip(codes, pieces[1:], strict=True)
        )
    )


# What, at the start of a line, would reach past it: a fence or a math block (to the end of
# the note, over the end marker and the person's notes), a setext underline (the line
# above made a heading). Not a quote, list or heading mark, which shape only their own
# line: escaping them would put a backslash in many a heading ("# 1\. Setup"), where
# search looks for the title as typed.
_BLOCK_START = re.compile(r"~{3,}|\$\$|=+[ \t]*$|-+[ \t]*$")


def _inert_line_start(text: str) -> str:
    """``text`` with what would reach past its line from a line's start escaped
    (``\\~~~``, ``\\$$``): harmless after other text on its line."""
    return "\\" + text if _BLOCK_START.match(text) else text


def fence(text: str, lang: str = "") -> str:
    """A fenced code block that its content cannot close early (and no plugin runs)."""
    text = inert_block_text(_visible(text))
    ticks = "```"  # enough unless the text holds a run of three or more
    if "```" in text:
        ticks = "`" * (max(len(m) for m in _BACKTICKS.findall(text)) + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{ticks}{safe_info(lang)}\n{body}{ticks}"


def code_span(text: str) -> str:
    """Inline code that shows ``text`` exactly, whatever backticks it holds."""
    text = inert_span(" ".join(_visible(text).split("\n")))
    ticks = "`"
    if "`" in text:
        ticks = "`" * (max(len(m) for m in _BACKTICKS.findall(text)) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def clipped_code(text: str, cut: str = "") -> str:
    """``code_span`` of a text cut short, its mark of the cut (``cut``, ending it: "…")
    after the code, not in it: it is no part of the command or path."""
    if cut and text.endswith(cut):
        return code_span(text[: -len(cut)]) + cut
    return code_span(text)


def callout(kind: str, title: str, body: str, *, folded: bool = True) -> str:
    """An Obsidian callout (``> [!note]- Title``) holding ``body``, folded by default."""
    head = f"> [!{kind}]{'-' if folded else ''} {title}".rstrip()
    body = body.strip("\n")
    if not body:
        return head
    lines = body.split("\n")
    if "\t" in body:
        lines = _tabs_to_spaces_outside_fences(lines)
    # Text right under the title would continue the title's paragraph (a "---" there would
    # make it a heading, indented code would be text): a quoted blank line first.
    head += "\n" if _FENCE_LINE.match(lines[0]) else "\n>\n"
    # "> " before every line; an empty line gets ">" alone (no trailing space).
    quoted = "> " + "\n> ".join(lines)
    if "\n\n" in body:
        # The first and last lines hold text, so each empty one sits between two newlines;
        # a pass leaves every other one of a run (they share a newline), so two passes.
        quoted = quoted.replace("\n> \n", "\n>\n").replace("\n> \n", "\n>\n")
    return head + quoted


def _tabs_to_spaces_outside_fences(lines: list[str]) -> list[str]:
    """A tab right after "> " counts as fewer columns, so an indented code block would not
    stay one inside a callout: leading tabs become spaces, except in fenced code, which
    keeps its bytes."""
    out: list[str] = []
    closing: re.Pattern[str] | None = None
    for line in lines:
        if closing is not None:
            if closing.match(line):
                closing = None
            elif closing.match(line.expandtabs(2)):
                # Behind "> " a tab counts fewer columns: this line would close the fence.
                line = _LEADING_TABS.sub(lambda m: m.group(0).expandtabs(4), line)
            out.append(line)
            continue
        opener = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if opener:
            run = opener.group(1)
            closing = re.compile(rf"^ {{0,3}}{re.escape(run[0])}{{{len(run)},}}[ \t]*$")
        out.append(_LEADING_TABS.sub(lambda m: m.group(0).expandtabs(4), line))
    return out


# ---------------------------------------------------------------------------------------
# The located code and prose, written back: code as it was, prose escaped.


# Cursor's code citations, which its replies put where a fence's language goes: the file
# the code is from (``typescript:src/app.ts``), or the lines it is (``12:20:src/app.rs``).
_CITATION = re.compile(r"(?:([A-Za-z][\w+#-]*)|\d+:\d+):(\S*[/\\.]\S*)")


def _cited(info: str) -> str:
    """A citation as an info string Obsidian reads: the language first, as a word of its
    own (it takes the first word for the language: ``typescript:src/app.ts`` highlighted
    nothing), then the citation as written."""
    m = _CITATION.fullmatch(info.split(" ", 1)[0]) if ":" in info else None
    if m is None:
        return info
    from .toolinput import lang_of_file  # (a citation is rare: imported then)

    return f"{m.group(1) or lang_of_file(m.group(2))} {info}"


def _later_prefix(prefix: str) -> str:
    """The prefix a later line of a block needs to stay in the first line's containers:
    its quotes (and tabs) kept, a list marker's columns as spaces."""
    return re.sub(r"[^>\t]", " ", prefix)


def _render_block(block: _Block) -> list[str]:
    """A code block's lines as they were; a plugin's info string is neutralised and an unclosed
    fence is closed, so it cannot swallow what follows."""
    out = list(block.lines)
    if not block.fenced:
        return inert_block(out, 0, len(out))
    inert_block(out, 1, len(out) - (0 if block.unclosed else 1))
    m = _FENCE_OPENER.match(out[0])
    if m:
        out[0] = m.group(1) + m.group(2) + safe_info(_cited(m.group(3)))
        if block.unclosed:
            prefix = _later_prefix(m.group(1))
            out.append(prefix + m.group(2))
    return out


def _escape_paragraph(
    paragraph: _Paragraph, literal: bool, carry: Carry | None = None
) -> tuple[list[str], Carry | None]:
    """A prose paragraph's lines: prefixes kept, bodies escaped, code spans kept; and the
    HTML block made text that goes on past it (``carry``: one opened above it)."""
    prefixes = paragraph.prefixes
    html: set[int] = set()
    if carry is not None:
        quotes = carry[1]
        html, carry = carried_lines(prefixes, paragraph.bodies, carry)
    elif paragraph.bodies[0][:1] == "<":
        quotes = prefixes[0].count(">")
        html, carry = block_lines(prefixes, paragraph.bodies)
    if (
        not html
        and not paragraph.spans
        and not any(_ACTS[literal].search(b) for b in paragraph.bodies)
    ):
        # Nothing any rule acts on (most list items): kept as it is, unless
        # a line may underline the text above it (``---``, ``===``), which becomes a heading.
        if not any(_SETEXT.match(b) for b in paragraph.bodies[1:]):
            return [p + b for p, b in zip(prefixes, paragraph.bodies, strict=True)], carry
    bodies = list(paragraph.bodies)
    if html:  # lines of an HTML block, text once its opener is: their markers are text too
        prefixes = [literal_prefix(p, quotes) if k in html else p for k, p in enumerate(prefixes)]
    underlines = set()
    for k in range(1, len(bodies)):
        if not _SETEXT.match(bodies[k]):
            continue
        simple = k == 1 and k not in html and _continues(prefixes[0], prefixes[1])
        # A one-line setext heading of a model's becomes an ATX heading (demoted below);
        # under a person's line (``literal``) the run is text, kept as typed: it was most
        # likely a separator, and a heading in the outline would be words never typed.
        if (
            simple
            and not literal
            and not _ATX.match(bodies[0])
            and not _FENCE_LINE.match(bodies[0])
        ):
            bodies[0] = ("#" if "=" in bodies[1] else "##") + " " + bodies[0]
            bodies[1] = ""
        else:
            underlines.add(k)  # lazy lines make containers unsure: text, to be safe
    # (Deep lines matter only to a "#" run, which is all they keep as it is.)
    hashes = any(b[:1] == "#" for b in bodies[1:])
    deep = _deep_lines(paragraph.prefixes) - html if hashes else set()
    joined = "\n".join(bodies)
    spans = paragraph.spans if bodies == paragraph.bodies else _spans_of(paragraph.prefixes, bodies)
    codes = [joined[a:b] for a, b in spans]
    pos, parked = 0, []
    for a, b in spans:
        parked.append(joined[pos:a] + _CODE_MARK)
        pos = b
    parked.append(joined[pos:])
    if (underlines or deep or html) and any("\n" in c for c in codes):
        # Lines joined by a code span across them: number the lines as parked. A line that
        # starts inside a span starts nothing: it is no longer one of the deep lines.
        starts = [0]
        for body in bodies:
            starts.append(starts[-1] + len(body) + 1)
        in_span = {k for k in range(len(bodies)) if any(a < starts[k] < b for a, b in spans)}
        deep, html = deep - in_span, html - in_span
        underlines, deep, html = (
            {
                k - sum(c.count("\n") for (a, _), c in zip(spans, codes, strict=True) if a < at)
                for k in lines
                for at in (starts[k],)
            }
            for lines in (underlines, deep, html)
        )
    text = "".join(parked)
    emphasis: list[int] | None = [] if literal else None
    escaped = _escape_text(
        text, literal=literal, underlines=underlines, deep=deep, plain=html,
        escaped_emphasis=emphasis,
    )  # fmt: skip
    if emphasis and "`" not in text and (words := verbatim_words(text, emphasis)):
        # A typed word that would hold a backslash (``src/__init\_\_.py``) is code instead.
        # (Not beside a lone backtick of the person's: it would pair with a new span's.)
        text, codes = as_code(text, codes, words)
        escaped = _escape_text(text, literal=literal, underlines=underlines, deep=deep, plain=html)
    pieces = escaped.split(_CODE_MARK)
    rebuilt = [pieces[0]]
    for code, after in zip(codes, pieces[1:], strict=True):
        rebuilt.append(inert_written_span(code))
        rebuilt.append(after)
    lines = "".join(rebuilt).split("\n")
    return [p + b for p, b in zip(prefixes, lines, strict=True)], carry


def _deep_lines(prefixes: list[str]) -> set[int]:
    """The lines after a paragraph's first on which no block can start, as their prefixes
    say: no list marker, every line so far in as many quotes, and indented four columns
    or more past the container. Its column is at most the indentation (inside the quotes)
    of the first line, or that of the last list item's text above. There ``# x`` is the
    paragraph's text, not a heading (so it is not demoted)."""
    quotes = prefixes[0].count(">")
    column = inside_quotes(prefixes[0])
    deep: set[int] = set()
    for k in range(1, len(prefixes)):
        prefix = prefixes[k]
        if prefix.count(">") != quotes or "\t" in prefix or "\t" in prefixes[0]:
            break  # a quote opened or closed, or tabs: unsure from here on
        if _LIST_MARKER.search(prefix):
            column = inside_quotes(prefix)  # an item (nested, or after the last): its text's
        elif inside_quotes(prefix) >= column + 4:
            deep.add(k)
    return deep


def _continues(previous: str, prefix: str) -> bool:
    """Does a line with ``prefix`` continue the paragraph of a line with ``previous`` (so
    that ``===`` or ``---`` on it would underline a heading)?"""
    if previous.count(">") != prefix.count(">") or _LIST_MARKER.search(prefix):
        return False
    width = len(prefix.expandtabs(4))
    item = re.match(r"^.*?(?:[-+*]|\d{1,9}[.)])[ \t]*", previous)
    if item:
        column = len(item.group(0).expandtabs(4))
        return column <= width <= column + 3
    quote = len(re.match(r"^(?:[ \t]*>[ ]?)*", prefix).group(0))  # type: ignore[union-attr]
    return width - quote <= 3


_FENCE_OPENER = re.compile(rf"^({_CONTAINER.pattern})(`{{3,}}|~{{3,}})(.*)$")


# ---------------------------------------------------------------------------------------
# Escaping the text around the code.
