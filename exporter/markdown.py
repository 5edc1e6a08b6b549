"""Markdown that shows session text exactly as it was typed, and cannot hurt the vault.

Outside code, every character Markdown, HTML or Obsidian would act on is backslash-escaped:
``<`` and ``>`` (so ``Vec<String>`` or ``<div>`` stay visible), entity-like ``&``, ``$``
(Obsidian maths), ``#`` (tags), ``[[``/``]]`` (wikilinks and embeds), ``%%`` (comments),
block ids, and relative Markdown links (which would point into the vault). Inside code spans
and fenced blocks nothing changes. Headings are demoted below the turn headings so a reply's
``# Title`` does not break the note's outline.

The scanner that finds code is cross-checked with mistune: if mistune sees different code
than the scanner does, the text is shown verbatim in a fenced block rather than risk an
escape inside code.
"""

from __future__ import annotations

import re
import textwrap
from functools import lru_cache
from typing import Any

# Turn headings in a note are h3; headings inside a reply start one below.
HEADING_FLOOR = 4

_FENCE_OPEN = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LINE_START = re.compile(r"(?m)^((?: {0,3}>[ ]?)*)(?:( {0,3})(#{1,6})(?=[ \t]|$))?")
_SETEXT_ANY = re.compile(r"(?m)^ {0,3}(=+|-+)[ \t]*$")
# A code span: a backtick run closed by the next run of the same length on the same line.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.*?)(?<!`)\1(?!`)")
_BACKTICKS = re.compile(r"`+")
_NEEDS_WORK = re.compile(r"[<>&$%\[\]#\\^`~=*_-]|^ {4}|\t")
_LINK = re.compile(r"(!?)\[([^\[\]\n]*)\]\(([^()\s]*)(?:\s+\"[^\"\n]*\")?\)")
_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_BLOCK_ID = re.compile(r"(?m)(\s)\^([\w-]+[ \t]*)$")
_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
# Characters escaped in model-written Markdown: structure is kept, HTML and Obsidian syntax
# are not. In literal mode (what a person typed), emphasis markers are escaped as well.
# A model's own backslash escape (``\|`` in a table) is Markdown it meant: kept as a unit.
_SPECIAL_MD = re.compile(r"\\[!-/:-@\[-`{-~]|[<>$#]|%%|\[\[|\]\]")
_INLINE = re.compile(r"[\\`*_\[\]<>$#|%^~=]")
_SPECIAL_LITERAL = re.compile(r"\\(?=[!-/:-@\[-`{-~])|[<>$#*_]|%%|\[\[|\]\]")


def escape_prose(text: str, *, literal: bool = False) -> str:
    """Markdown for ``text`` that renders as written, keeping its code untouched.

    ``literal`` is for what a person typed: emphasis markers are escaped too, so
    ``__init__.py`` stays ``__init__.py``. Model replies keep their Markdown formatting.
    """
    if not _NEEDS_WORK.search(text):
        return text
    if "\x01" in text or "\x02" in text:
        text = text.replace("\x01", "").replace("\x02", "")
    lines = text.split("\n")
    segments = _split_fences(lines) if ("```" in text or "~~~" in text) else [(False, lines)]
    if _has_code(text) and _risky(segments) and not _same_code(text, segments):
        return fence(text, "text")
    indented = _indented_code(text)
    out: list[str] = []
    for is_code, seg in segments:
        if is_code:
            out.extend(seg)
        elif indented or _SETEXT_ANY.search("\n".join(seg)):
            out.extend(_escape_lines(seg, literal, indented))  # needs line-by-line context
        else:
            out.append(_escape_block("\n".join(seg), literal))
    return "\n".join(out)


def escape_inline(text: str) -> str:
    """One line of text (a title, a label) safe anywhere inline."""
    text = " ".join(text.split())
    return _ENTITY.sub(r"\\&", _INLINE.sub(r"\\\g<0>", text))


def fence(text: str, lang: str = "") -> str:
    """A fenced code block that its content cannot close early."""
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{ticks}{lang}\n{body}{ticks}"


def code_span(text: str) -> str:
    """Inline code that shows ``text`` exactly, whatever backticks it holds."""
    text = " ".join(text.split("\n"))
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
    quoted = "\n".join(f"> {line}" if line else ">" for line in body.split("\n"))
    return f"{head}\n{quoted}"


def wikilink(target: str, label: str | None = None) -> str:
    """``[[target|label]]``; the target is a vault file name without ``.md``."""
    if label and label != target:
        clean = re.sub(r"[\[\]|#^]", " ", label)
        return f"[[{target}|{' '.join(clean.split())}]]"
    return f"[[{target}]]"


def _split_fences(lines: list[str]) -> list[tuple[bool, list[str]]]:
    """Cut text into (is_code, lines) runs; an unclosed fence is closed at the end."""
    segments: list[tuple[bool, list[str]]] = []
    prose: list[str] = []
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if not m or (m.group(2)[0] == "`" and "`" in m.group(3)):
            prose.append(lines[i])
            i += 1
            continue
        if prose:
            segments.append((False, prose))
            prose = []
        char, width = m.group(2)[0], len(m.group(2))
        closing = re.compile(rf"^\s*{re.escape(char)}{{{width},}}\s*$")
        code = [lines[i]]
        i += 1
        while i < len(lines) and not closing.match(lines[i]):
            code.append(lines[i])
            i += 1
        if i < len(lines):
            code.append(lines[i])
            i += 1
        else:
            code.append(m.group(1) + m.group(2))
        segments.append((True, code))
    if prose:
        segments.append((False, prose))
    return segments


def _has_code(text: str) -> bool:
    return "`" in text or "~~~" in text


def _risky(segments: list[tuple[bool, list[str]]]) -> bool:
    """Code the line scanner may misjudge: spans across lines, fences in quotes or deep
    indentation. Only then is mistune asked (it is slow, and agrees everywhere else)."""
    for is_code, seg in segments:
        if is_code:
            if seg[0].startswith("    ") or seg[0].lstrip().startswith(">"):
                return True
            continue
        block = "\n".join(seg)
        if "`" in block and "`" in _CODE_SPAN.sub("", block):
            return True  # a backtick run that does not close on its line
        if ">" in block and re.search(r"(?m)^ {0,3}>.*(```|~~~)", block):
            return True
    return False


@lru_cache(maxsize=1)
def _mistune_ast() -> Any:
    import mistune  # imported lazily: start-up stays small when nothing needs it

    return mistune.create_markdown(renderer="ast")


def _mistune_code(text: str) -> tuple[list[str], list[str], list[str]]:
    """What mistune considers code: fenced blocks, indented blocks, spans."""
    fenced: list[str] = []
    indented: list[str] = []
    spans: list[str] = []

    def walk(nodes: list[dict[str, Any]]) -> None:
        for node in nodes:
            kind = node.get("type")
            if kind == "block_code":
                (fenced if node.get("style") == "fenced" else indented).append(node["raw"])
            elif kind == "codespan":
                spans.append(node["raw"])
            children = node.get("children")
            if isinstance(children, list):
                walk(children)

    walk(_mistune_ast()(text))
    return fenced, indented, spans


def _norm(code: str) -> str:
    return textwrap.dedent(code).strip("\n").strip()


def _same_code(text: str, segments: list[tuple[bool, list[str]]]) -> bool:
    """Does mistune find the same fenced blocks and code spans as the scanner?"""
    fenced, _indented, spans = _mistune_code(text)
    mine_fenced = [_norm("\n".join(seg[1:-1])) for is_code, seg in segments if is_code]
    if [_norm(c) for c in fenced] != mine_fenced:
        return False
    mine_spans: list[str] = []
    for is_code, seg in segments:
        if not is_code:
            for line in seg:
                mine_spans.extend(" ".join(c.split()) for c in _code_span_texts(line))
    return [" ".join(s.split()) for s in spans] == mine_spans


def _indented_code(text: str) -> set[str]:
    """Indented code blocks (per mistune) that must stay verbatim."""
    if not re.search(r"(^|\n)[ \t]*\n( {4}|\t)", text):
        return set()
    _fenced, indented, _spans = _mistune_code(text)
    return {_norm(c) for c in indented}


def _code_span_texts(line: str) -> list[str]:
    return [m.group(2).strip() for m in _CODE_SPAN.finditer(line)]


def _escape_lines(lines: list[str], literal: bool, indented: set[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        # An indented code block mistune agrees on stays verbatim.
        if indented and (i == 0 or not lines[i - 1].strip()) and re.match(r"( {4}|\t)", line):
            j = i
            while j < len(lines) and (not lines[j].strip() or re.match(r"( {4}|\t)", lines[j])):
                j += 1
            if _norm("\n".join(lines[i:j])) in indented:
                out.extend(lines[i:j])
                i = j
                continue
        if _SETEXT.match(line) and out and out[-1].strip() and _is_plain(out[-1]):
            level = 1 if line.strip()[0] == "=" else 2
            prev_is_single = len(out) == 1 or not out[-2].strip()
            if prev_is_single:
                out[-1] = "#" * min(6, level + HEADING_FLOOR - 1) + " " + out[-1].lstrip()
                i += 1
                continue
            out.append("")  # a multi-line paragraph: break it from the underline
        out.append(_escape_line(line, literal))
        i += 1
    return out


def _is_plain(line: str) -> bool:
    """A line that could be the text of a setext heading."""
    return not re.match(r"^\s*([-*+>#|]|\d+[.)])", line)


def _escape_line(line: str, literal: bool) -> str:
    return _escape_block(line, literal)


def _escape_block(text: str, literal: bool) -> str:
    """Escape a run of prose lines (no fenced code inside), keeping code spans as they are.

    Line-start structure is kept: blockquote markers stay, ATX headings are demoted. Their
    characters are parked as control characters while everything else is escaped."""
    if "#" in text or ">" in text:
        text = _LINE_START.sub(_park_line_start, text)
    if "`" in text:
        pieces: list[str] = []
        pos = 0
        for m in _CODE_SPAN.finditer(text):
            pieces.append(_escape_text(text[pos : m.start()], literal))
            pieces.append(m.group(0))
            pos = m.end()
        pieces.append(_escape_text(text[pos:], literal))
        text = "".join(pieces)
    else:
        text = _escape_text(text, literal)
    if "^" in text:
        text = _BLOCK_ID.sub(r"\1\\^\2", text)
    return text.replace("\x01", "#").replace("\x02", ">")


def _park_line_start(m: re.Match[str]) -> str:
    quote, indent, hashes = m.group(1), m.group(2), m.group(3)
    out = quote.replace(">", "\x02")
    if hashes:
        out += indent + "\x01" * min(6, len(hashes) + HEADING_FLOOR - 1)
    return out


def _escape_text(text: str, literal: bool) -> str:
    if not text:
        return text
    if "](" in text:
        text = _LINK.sub(_neutral_link, text)
    special = _SPECIAL_LITERAL if literal else _SPECIAL_MD
    text = special.sub(_backslash, text)
    if "&" in text:
        text = _ENTITY.sub(r"\\&", text)
    if "\x00" in text:
        text = text.replace("\x00", "\\")
    return text


def _backslash(m: re.Match[str]) -> str:
    s = m.group(0)
    if s == "\\":
        return "\\\\"
    if len(s) == 2 and s[0] == "\\":
        return s  # already escaped by its author
    return "".join("\\" + c for c in s)


def _neutral_link(m: re.Match[str]) -> str:
    """Keep links to the web; show links into the file system as the text they were."""
    bang, label, target = m.group(1), m.group(2), m.group(3)
    if _EXTERNAL.match(target) and not target.lower().startswith("file:"):
        if bang:
            # A remote image would be embedded; a link to it is enough.
            return f"[{label or target}]({target})"
        return m.group(0)
    return f"{bang}\x00[{label}\x00]({target})"
