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

import html.entities
import re
import unicodedata
from typing import Any

from .markdown_code import (  # noqa: F401  (code_ranges: part of this module's API)
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
)

HEADING_FLOOR = 4

# Fenced blocks that a common plugin executes or renders as Markdown, and the language
# they are highlighted as instead (the original info string stays visible after it).
PLUGIN_FENCES: dict[str, str] = {
    "dataview": "sql",
    "dataviewjs": "js",
    "query": "text",
    "tasks": "text",
    "js-engine": "js",
    "base": "yaml",
    "bases": "yaml",
    "button": "text",
    "meta-bind": "text",
    "meta-bind-button": "yaml",
    "meta-bind-js-view": "js",
    "tracker": "yaml",
    "datacorejs": "js",
    "datacorejsx": "jsx",
    "datacorets": "ts",
    "datacoretsx": "tsx",
    "templater": "js",
}
PLUGIN_FENCE_PREFIXES = ("ad-", "run-", "dataview", "datacore")
# Inline code Dataview evaluates: queries (``= …``) and JavaScript (``$= …``).
_PLUGIN_SPAN = re.compile(r"^\s*\$?=")
ZERO_WIDTH_SPACE = "\u200b"

_LEADING_TABS = re.compile(r"^[ \t]*\t")
_NEEDS_WORK = re.compile(r"[<&$%\[\]#\\^`~=*_:-]|^ {4}|\t", re.MULTILINE)
_ATX = re.compile(r"(#{1,6})(?=[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LINK_START = re.compile(r"\[[^\[\]\n]*\]\((?:https?|mailto|ftp):", re.IGNORECASE)
_BLOCK_HTML = re.compile(r"^ {0,3}<[A-Za-z/!?]")
# CommonMark raw HTML and autolinks, where ``<`` would start one.
_ATTR = r"""(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)"""
_INLINE_HTML = re.compile(
    rf"<(?:[A-Za-z][A-Za-z0-9-]*{_ATTR}*\s*/?>|/[A-Za-z][A-Za-z0-9-]*\s*>|!--|\?|![A-Za-z]"
    r"|!\[CDATA\[|[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\x00-\x20<>\x7f]*>"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*>)"
)
_ENTITY = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")
_NAMED_ENTITIES = {name.rstrip(";") for name in html.entities.html5 if name.endswith(";")}
# Obsidian: a tag is ``#`` not inside a word, then tag characters, not all digits. A block
# id is `` ^id`` at the end of a line.
_BLOCK_ID = re.compile(r"(?<!\S)\^(?=[A-Za-z0-9-]+[^\S\n]*\\?$)", re.MULTILINE)
_LINK_TAIL = re.compile(
    r"\]\(\s*(<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)
_WEB = re.compile(r"<?(?:https?|mailto|ftp):", re.IGNORECASE)
_ASCII_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_CODE_MARK = "\ue000"  # stands for one code span while text around it is escaped


def escape_prose(text: str, *, literal: bool = False) -> str:
    """Markdown for ``text`` that renders as written, keeping its code untouched.

    ``literal`` is for what a person typed: emphasis markers and backslashes are escaped
    too, so ``*args`` stays ``*args``. A model's reply keeps its formatting (emphasis,
    lists, tables, links to the web).
    """
    if not _NEEDS_WORK.search(text):
        return text
    text = text.replace(_CODE_MARK, "")
    layout = _layout(text)
    if layout is None:
        return fence(text, "text")
    try:
        return "\n".join(_render(layout, literal))
    except _Unsure:
        return fence(text, "text")


class _Unsure(Exception):
    """Text that cannot be escaped with certainty: it is shown verbatim."""


def _render(layout: list[_Block | _Paragraph], literal: bool) -> list[str]:
    out: list[str] = []
    for piece in layout:
        if isinstance(piece, _Block):
            if not piece.fenced and out and out[-1].strip(" \t>"):
                # What ended the text before it (an HTML block, an underline) may now be
                # a paragraph, which an indented code block cannot interrupt.
                out.append(_QUOTES.match(piece.lines[0]).group(0).rstrip())  # type: ignore[union-attr]
            out.extend(_render_block(piece))
        else:
            out.extend(_escape_paragraph(piece, literal))
    return out


def escape_inline(text: str) -> str:
    """One line of text (a title, a label) safe anywhere inline, shown as typed."""
    text = " ".join(text.replace(_CODE_MARK, "").split())
    spans = _span_runs(text) if "`" in text else []
    if not spans:
        return _escape_text(text, literal=True, inline=True)
    # Code spans in a title stay code (``Ran `pytest -k auth` ``); the rest is text.
    codes = [text[a:b] for a, b in spans]
    parked = "".join(
        text[(spans[k - 1][1] if k else 0) : a] + _CODE_MARK for k, (a, _b) in enumerate(spans)
    )
    parked += text[spans[-1][1] :]
    pieces = _escape_text(parked, literal=True, inline=True).split(_CODE_MARK)
    return pieces[0] + "".join(
        _plugin_safe_span(code) + after for code, after in zip(codes, pieces[1:], strict=True)
    )


def fence(text: str, lang: str = "") -> str:
    """A fenced code block that its content cannot close early (and no plugin runs)."""
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{ticks}{safe_info(lang)}\n{body}{ticks}"


def safe_info(info: str) -> str:
    """A fence's info string that no plugin acts on: ``dataview`` -> ``sql dataview``."""
    word = info.strip().split(" ", 1)[0].lower() if info.strip() else ""
    if word in PLUGIN_FENCES:
        return f"{PLUGIN_FENCES[word]} {info.strip()}"
    if word.startswith(PLUGIN_FENCE_PREFIXES):
        return f"text {info.strip()}"
    return info


def code_span(text: str) -> str:
    """Inline code that shows ``text`` exactly, whatever backticks it holds."""
    text = " ".join(text.split("\n"))
    if _PLUGIN_SPAN.match(text):
        text = ZERO_WIDTH_SPACE + text
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def callout(kind: str, title: str, body: str, *, folded: bool = True) -> str:
    """An Obsidian callout (``> [!note]- Title``) holding ``body``, folded by default."""
    head = f"> [!{kind}]{'-' if folded else ''} {title}".rstrip()
    body = body.strip("\n")
    if not body:
        return head
    lines = _tabs_to_spaces_outside_fences(body.split("\n"))
    if not _FENCE_LINE.match(lines[0]):
        # Text right under the title would continue the title's paragraph (a "---" there
        # would make it a heading, indented code would be text): a quoted blank line first.
        lines.insert(0, "")
    quoted = "\n".join(f"> {line}" if line else ">" for line in lines)
    return f"{head}\n{quoted}"


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


def wikilink(target: str, label: str | None = None) -> str:
    """``[[target|label]]``; the target is a vault file name without ``.md``."""
    if label and label != target:
        clean = re.sub(r"[\[\]|#^]", " ", label)
        return f"[[{target}|{' '.join(clean.split())}]]"
    return f"[[{target}]]"


# ---------------------------------------------------------------------------------------
# The located code and prose, written back: code as it was, prose escaped.


def _render_block(block: _Block) -> list[str]:
    """A code block's lines as they were; a plugin's info string is neutralised and an unclosed
    fence is closed, so it cannot swallow what follows."""
    if not block.fenced:
        return list(block.lines)
    out = list(block.lines)
    m = _FENCE_OPENER.match(out[0])
    if m:
        out[0] = m.group(1) + m.group(2) + safe_info(m.group(3))
        if block.unclosed:
            prefix = re.sub(r"[^>\t]", " ", m.group(1))
            out.append(prefix + m.group(2))
    return out


def _escape_paragraph(paragraph: _Paragraph, literal: bool) -> list[str]:
    """A prose paragraph's lines: prefixes kept, bodies escaped, code spans kept."""
    bodies = list(paragraph.bodies)
    underlines = set()
    for k in range(1, len(bodies)):
        if not _SETEXT.match(bodies[k]):
            continue
        simple = k == 1 and _continues(paragraph.prefixes[0], paragraph.prefixes[1])
        if simple and not _ATX.match(bodies[0]) and not _FENCE_LINE.match(bodies[0]):
            # A one-line setext heading becomes an ATX heading (demoted below).
            bodies[0] = ("#" if "=" in bodies[1] else "##") + " " + bodies[0]
            bodies[1] = ""
        else:
            underlines.add(k)  # lazy lines make containers unsure: text, to be safe
    joined = "\n".join(bodies)
    spans = paragraph.spans if bodies == paragraph.bodies else _spans_of(paragraph.prefixes, bodies)
    codes = [joined[a:b] for a, b in spans]
    pos, parked = 0, []
    for a, b in spans:
        parked.append(joined[pos:a] + _CODE_MARK)
        pos = b
    parked.append(joined[pos:])
    if underlines and any("\n" in c for c in codes):
        # Lines joined by a code span across them: number the underlines as parked.
        starts = [0]
        for body in bodies:
            starts.append(starts[-1] + len(body) + 1)
        underlines = {
            k - sum(c.count("\n") for (a, _), c in zip(spans, codes, strict=True) if a < at)
            for k in underlines
            for at in (starts[k],)
        }
    escaped = _escape_text("".join(parked), literal=literal, underlines=underlines)
    pieces = escaped.split(_CODE_MARK)
    rebuilt = [pieces[0]]
    for code, after in zip(codes, pieces[1:], strict=True):
        rebuilt.append(_plugin_safe_span(code))
        rebuilt.append(after)
    lines = "".join(rebuilt).split("\n")
    return [p + b for p, b in zip(paragraph.prefixes, lines, strict=True)]


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


def _plugin_safe_span(code: str) -> str:
    """A code span Dataview would evaluate gets a zero-width space before its ``=``."""
    ticks = len(code) - len(code.lstrip("`"))
    inner = code[ticks : len(code) - ticks]
    if not _PLUGIN_SPAN.match(inner):
        return code
    at = inner.index("=") - (1 if inner.lstrip().startswith("$") else 0)
    return code[:ticks] + inner[:at] + ZERO_WIDTH_SPACE + inner[at:] + code[len(code) - ticks :]


# ---------------------------------------------------------------------------------------
# Escaping the text around the code.


def _is_punct(c: str) -> bool:
    if c in _ASCII_PUNCT or c == _CODE_MARK:
        return True
    return unicodedata.category(c)[0] in "PS"


def _escape_text(
    text: str, *, literal: bool, inline: bool = False, underlines: set[int] | None = None
) -> str:
    """Backslashes before exactly the characters that would act in their position.

    ``text`` is one paragraph (lines start where a block could start) with each code span
    replaced by ``_CODE_MARK``; ``inline`` text is one line inside a heading or title."""
    n = len(text)
    slash = [False] * n
    keep = [False] * n  # escaped by the author, or part of a web link's address
    heading: dict[int, tuple[int, str]] = {}

    i = 0
    while i < n:
        if text[i] == "\\":
            following = text[i + 1] if i + 1 < n else "\n"
            if literal and (following in _ASCII_PUNCT or following in "\n" + _CODE_MARK):
                slash[i] = True
                if following == "`":
                    slash[i + 1] = True  # it was escaped, and must stay text
            elif not literal and following in _ASCII_PUNCT:
                keep[i] = keep[i + 1] = True
                i += 2
                continue
        i += 1

    def mark(at: int) -> None:
        if 0 <= at < n and not keep[at]:
            slash[at] = True

    offset = 0
    for number, line in enumerate(text.split("\n")):
        if not inline:
            rest = text[offset:]
            _line_start(line, offset, number in (underlines or ()), mark, heading, rest)
        _dataview_fields(line, offset, mark, every=inline)
        for m in _BLOCK_ID.finditer(line):
            mark(offset + m.start())
        offset += len(line) + 1

    for m in _SPECIAL.finditer(text):
        at, s = m.start(), m.group(0)
        if keep[at] and len(s) > 1:
            at, s = at + 1, s[1:]  # the rest of a run whose first character is escaped
        if keep[at]:
            continue
        c = s[0]
        if c == "<":
            if _INLINE_HTML.match(text, at):
                mark(at)
        elif c == "&":
            e = _ENTITY.match(text, at)
            if e and (e.group(1)[0] == "#" or e.group(1) in _NAMED_ENTITIES):
                mark(at)
        elif c == "#":
            before = text[at - 1] if at else " "
            if not (before.isalnum() or before in "/&") and _TAG_BODY.match(text, at + 1):
                mark(at)
        elif c in "[]":
            if len(s) > 1:
                for k in range(at, at + len(s)):
                    mark(k)
            elif c == "[" and (text[at - 1 : at] == "!" or text[at + 1 : at + 2] == "^"):
                mark(at)
            elif c == "]" and text[at + 1 : at + 2] == "(":
                tail = _LINK_TAIL.match(text, at)
                if tail and _WEB.match(tail.group(1).strip()):
                    for k in range(at + 1, tail.end()):
                        keep[k] = True
                else:
                    mark(at)
        elif c == "^" and text[at + 1 : at + 2] == "[":
            mark(at)
        elif c == "%" and len(s) > 1:
            for k in range(at, at + len(s)):
                mark(k)
        elif c == "`" and inline:
            for k in range(at, at + len(s)):
                mark(k)
    if inline:
        closing = re.search(r"(?<!\S)#+[ \t]*$", text)
        if closing:
            mark(closing.start())  # a heading's closing sequence would vanish
    for char in "$=~":
        _paired(text, char, keep, mark)
    if literal or inline:
        _emphasis(text, keep, slash)

    out: list[str] = []
    i = 0
    while i < n:
        if i in heading:
            length, hashes = heading[i]
            out.append(hashes)
            i += length
            continue
        if slash[i]:
            out.append("\\")
        out.append(text[i])
        i += 1
    return "".join(out)


_SPECIAL = re.compile(r"<|&|#|\[+|\]+|\^|%+|`+")
_TAG_BODY = re.compile(r"[\w/-]*(?:[^\W\d]|[/-])")


def _line_start(
    line: str,
    offset: int,
    underline: bool,
    mark: Any,
    heading: dict[int, tuple[int, str]],
    rest: str,
) -> None:
    """Rules for the start of a block: headings are demoted; HTML blocks, definitions,
    callouts, task boxes, fences and setext underlines become text."""
    body = line.lstrip(" ")
    at = offset + (len(line) - len(body))
    m = _ATX.match(body)
    if m:
        level = len(m.group(1))
        heading[at] = (level, "#" * min(6, level + HEADING_FLOOR - 1))
        return
    if underline:
        for k in range(len(body.rstrip())):
            mark(at + k)  # every character: what is left of a run would still pair
        return
    # Readers that trim any white space first (no-break spaces too) see the same start.
    lead = len(body) - len(body.lstrip())
    if _BLOCK_HTML.match(body[lead:]) or body[lead:].startswith(("[!", "[ ]", "[x]", "[X]")):
        mark(at + lead)
    elif body[lead:].startswith("[") and "]:" in rest and not _LINK_START.match(body[lead:]):
        mark(at + lead)  # a link reference definition, its label possibly across lines
    fence = _FENCE_LINE.match(body)
    if fence and fence.group(1)[0] == "~":
        for k in range(len(fence.group(1))):
            mark(at + k)
    elif fence and "`" not in body[len(fence.group(0)) :]:
        # The parse saw no fence here (an HTML block before it, say), but once that is
        # text this line would open one; backslashes in a backtick run would pair with
        # other runs, so the text is shown verbatim instead.
        raise _Unsure


def _dataview_fields(line: str, offset: int, mark: Any, *, every: bool = False) -> None:
    """Dataview reads ``key:: value`` (the first ``::`` of a line) and ``[key:: value]``
    or ``(key:: value)`` anywhere; a backslash between the colons leaves neither. In a
    title (``every``) the template's own text comes first, so every ``::`` is broken."""
    first = True
    for m in re.finditer(":{2,}", line):
        before = line[: m.start()]
        if first or every or "[" in before or "(" in before:
            for k in range(m.start() + 1, m.end()):
                mark(offset + k)  # no two colons left side by side
        first = False


def _paired(text: str, char: str, keep: list[bool], mark: Any) -> None:
    """Maths (``$``), highlights (``==``) and strikethrough (``~~``) need an opening run
    followed by text and a later closing run after text; only then are all runs escaped.
    A character its author escaped ends a run (what is left of it may still pair)."""
    if char not in text:
        return
    least = 1 if char == "$" else 2
    runs: list[tuple[int, int]] = []
    for m in re.finditer(re.escape(char) + "+", text):
        start = None
        for k in range(m.start(), m.end() + 1):
            if k < m.end() and not keep[k]:
                start = k if start is None else start
            elif start is not None:
                if k - start >= least:
                    runs.append((start, k))
                start = None
    if not runs:
        return
    display = char == "$" and sum((b - a) // 2 for a, b in runs) > 1  # $$ … $$
    opened = False
    for a, b in runs:
        after = text[b : b + 1]
        before = text[a - 1 : a] if a else ""
        if display or (opened and before and not before.isspace()):
            for start, end in runs:
                for k in range(start, end):
                    mark(k)
            return
        if after and not after.isspace():
            opened = True


def _emphasis(text: str, keep: list[bool], slash: list[bool]) -> None:
    """CommonMark's emphasis pairing over ``*`` and ``_`` runs; the closing run of each
    pair is escaped, again until nothing pairs (``**/*.ts`` and ``snake_case`` never do)."""
    while True:
        runs = []
        for m in re.finditer(r"\*+|_+", text):
            chars = [k for k in range(m.start(), m.end()) if not keep[k] and not slash[k]]
            if len(chars) != m.end() - m.start():
                continue  # part of the run is already text; treat the rest as text too
            before = text[m.start() - 1] if m.start() else " "
            after = text[m.end()] if m.end() < len(text) else " "
            left = not after.isspace() and (
                not _is_punct(after) or before.isspace() or _is_punct(before)
            )
            right = not before.isspace() and (
                not _is_punct(before) or after.isspace() or _is_punct(after)
            )
            if m.group(0)[0] == "*":
                can_open, can_close = left, right
            else:
                can_open = left and (not right or _is_punct(before))
                can_close = right and (not left or _is_punct(after))
            runs.append([m.start(), m.end(), m.group(0)[0], can_open, can_close, len(m.group(0))])
        closers = _pair_runs(runs)
        if not closers:
            return
        for start, end in closers:
            for k in range(start, end):
                slash[k] = True


def _pair_runs(runs: list[list[Any]]) -> list[tuple[int, int]]:
    """The runs that close emphasis (process_emphasis, without links)."""
    remaining = [r[5] for r in runs]
    active = [True] * len(runs)
    closers: list[tuple[int, int]] = []
    for c, closer in enumerate(runs):
        if not closer[4]:
            continue
        while remaining[c] > 0:
            match = None
            for o in range(c - 1, -1, -1):
                opener = runs[o]
                if not active[o] or not opener[3] or opener[2] != closer[2] or not remaining[o]:
                    continue
                if (opener[4] or closer[3]) and (opener[5] + closer[5]) % 3 == 0:
                    if opener[5] % 3 or closer[5] % 3:
                        continue
                match = o
                break
            if match is None:
                break
            use = 2 if remaining[match] >= 2 and remaining[c] >= 2 else 1
            remaining[match] -= use
            remaining[c] -= use
            for k in range(match + 1, c):
                active[k] = False
            if (closer[0], closer[1]) not in closers:
                closers.append((closer[0], closer[1]))
    return closers
