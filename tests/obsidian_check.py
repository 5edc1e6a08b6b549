"""What a note holds, read the way Obsidian and its common plugins read it.

An independent check for the escaping in ``exporter/markdown.py``: a CommonMark parse
(markdown-it-py, with GitHub tables and strikethrough as Obsidian has them), then
Obsidian's own rules over the text CommonMark leaves as text. A backslash-escaped
character counts as text, as in Obsidian. ``constructs`` lists everything that would act
(a tag, a link, a heading…) as ``(kind, detail)`` pairs; ``visible`` is the text a reader
sees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("text_join")
ZERO_WIDTH_SPACE = "\u200b"

_WEB = re.compile(r"(?:https?|mailto|ftp):", re.IGNORECASE)
_PLUGIN_LANGS = {"dataview", "dataviewjs", "query", "tasks", "js-engine", "base", "bases"}
_ESCAPED = "\x00"  # stands for a backslash-escaped character in the text Obsidian reads
# An escaped "_" is one too, but Dataview reads the raw line, where "_" starts a key.
_ESCAPED_UNDERSCORE = "\x01"

# Obsidian's syntax inside text (with escaped characters blanked out).
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("tag", re.compile(r"(?<![^\W_])(?<![/&\x00])#[\w/-]*(?:[^\W\d]|[/-])")),
    ("wikilink", re.compile(r"!?\[\[[^\]\n]*(?:\]\])?")),
    ("footnote", re.compile(r"\[\^|\^\[")),
    ("highlight", re.compile(r"==(?=[^\s=]).*?(?<=[^\s=])==", re.DOTALL)),
    ("strikethrough", re.compile(r"~~(?=[^\s~]).*?(?<=[^\s~])~~", re.DOTALL)),
    ("comment", re.compile(r"%%")),
    ("maths", re.compile(r"\$\$.*?\$\$|\$(?=[^\s$]).*?(?<=[^\s$])\$", re.DOTALL)),
    ("block id", re.compile(r"(?m)(?<!\S)\^[A-Za-z0-9-]+[ \t]*$")),
    ("dataview field", re.compile(r"[\[(][^\n]*::")),
)


# Templater runs a dynamic command found in any text of a shown note, code included (it walks
# the rendered text nodes): its regular expression, as the plugin's source has it.
_TEMPLATER = re.compile(r"(<%(?:-|_)?\s*[*~]{0,1})\+((?:.|\s)*?%>)")


# Meta Bind makes a field or button of a code element (inline or a block's) holding just this.
_META_BIND = re.compile(r"(?:INPUT|VIEW|BUTTON)\[.*\]\Z", re.DOTALL)


def _meta_bind(code: str) -> list[Construct]:
    return [Construct("meta bind field", code)] if _META_BIND.match(code) else []


def _templater(text: str) -> list[Construct]:
    return [Construct("templater command", m.group(0)) for m in _TEMPLATER.finditer(text)]


@dataclass(frozen=True, slots=True)
class Construct:
    kind: str
    detail: str


def _inline(children: list[Any]) -> tuple[str, str, list[Construct]]:
    """(text as Obsidian reads it, visible text, constructs) of one inline run."""
    seen: list[str] = []
    shown: list[str] = []
    found: list[Construct] = []
    for tok in children:
        kind = tok.type
        if kind == "text":
            seen.append(tok.content)
            shown.append(tok.content)
        elif kind == "text_special":
            if tok.info == "entity":
                found.append(Construct("entity", tok.markup))
            literal = tok.info == "escape" and tok.content == tok.markup  # "\1" is text
            escaped = _ESCAPED_UNDERSCORE if tok.content == "_" else _ESCAPED
            seen.append(tok.content if literal else escaped)
            shown.append(tok.content)
        elif kind in ("softbreak", "hardbreak"):
            seen.append("\n")
            shown.append("\n")
        elif kind == "code_inline":
            seen.append(_ESCAPED)
            shown.append(tok.content)
            if re.match(r"\s*\$?=", tok.content):
                found.append(Construct("dataview query", tok.content))
            found.extend(_meta_bind(tok.content))
        elif kind == "link_close":
            seen.append("](…)")  # the raw text Obsidian reads has the link's brackets
        elif kind == "link_open":
            seen.append("[")
            href = tok.attrs.get("href", "")
            if not _WEB.match(str(href)):
                found.append(Construct("local link", str(href)))
        elif kind == "image":
            found.append(Construct("image", str(tok.attrs.get("src", ""))))
            shown.append(tok.content)
        elif kind == "html_inline":
            found.append(Construct("html", tok.content))
        elif kind == "s_open":
            found.append(Construct("strikethrough", ""))
        if kind.endswith(("_open", "_close")) and kind != "link_open" and tok.markup:
            seen.append(tok.markup)  # emphasis delimiters are in the text Obsidian reads
    return "".join(seen), "".join(shown), found


def _obsidian(text: str) -> list[Construct]:
    plain = text.replace(_ESCAPED_UNDERSCORE, _ESCAPED)
    found = [Construct(kind, m.group(0)) for kind, rule in _RULES for m in rule.finditer(plain)]
    return found + [Construct("dataview field", key) for key in _full_line_fields(text)]


def _full_line_fields(text: str) -> list[str]:
    """Dataview's ``key:: value`` lines: at a line's first ``::``, the text before it is
    signs (any character but a letter, a digit or ``_``: colons, escaped characters and code
    spans too), then a key. The key is letters, digits, spaces, ``_``, ``/`` and ``-`` to
    Dataview; here anything but a colon or an escaped character (its backslash), to be
    safe. An escaped ``_`` may start the key: its backslash is a sign, its ``_`` a letter."""
    keys = []
    word = "0123456789_" + _ESCAPED_UNDERSCORE
    for line in text.split("\n"):
        sep = line.find("::")
        if sep < 0:
            continue
        key = line[:sep].strip()
        start = next((i for i, c in enumerate(key) if c.isalpha() or c in word), len(key))
        rest = key[start + 1 :]
        if not any(c in ":\\" + _ESCAPED + _ESCAPED_UNDERSCORE for c in rest):
            keys.append(line[: sep + 2])
    return keys


# A wikilink as Obsidian reads a line: from a ``[[`` to the first ``]]``, before anything
# else on the line (a code span inside it is none), its alias shown as text, literally:
# no Markdown in it acts, and a backslash in it is shown (an escape is none).
WIKILINK = re.compile(r"(!?)\[\[((?:(?!\]\])[^\n])*)\]\]")
_LINK_MARK = "\ue000"  # (a private-use character: text no rule reads)


def links(note_body: str) -> list[tuple[str, str]]:
    """``(target, alias)`` of each wikilink, as Obsidian reads them (the alias: the text
    shown, the target when there is none)."""
    found = []
    for m in WIKILINK.finditer(note_body):
        target, bar, alias = m.group(2).partition("|")
        found.append((m.group(1) + target, alias if bar else target))
    return found


def parse(note_body: str, *, read_links: bool = False) -> tuple[list[Construct], str]:
    """Constructs and visible text of a Markdown body. ``read_links``: its wikilinks read
    as Obsidian reads them (``WIKILINK``): each is one "wikilink" construct, and what its
    alias holds is shown as text, not parsed as Markdown."""
    if read_links:
        shown_links = [alias for _, alias in links(note_body)]
        found = [Construct("wikilink", m.group(0)) for m in WIKILINK.finditer(note_body)]
        more, text = parse(WIKILINK.sub(_LINK_MARK, note_body))
        for alias in shown_links:
            # read in the alias all the same: Dataview's fields and Obsidian's comments in
            # the raw line, Templater's commands in the text shown
            raw = "[" + alias
            found += [Construct(kind, m.group(0)) for kind, rule in _RULES
                      if kind in ("comment", "dataview field") for m in rule.finditer(raw)]  # fmt: skip
            found += _templater(alias)
            text = text.replace(
                _LINK_MARK, " ".join(alias.replace(ZERO_WIDTH_SPACE, "").split()), 1
            )
        return found + more, text
    env: dict[str, Any] = {}
    tokens = _MD.parse(note_body, env)
    found: list[Construct] = []
    shown: list[str] = []
    for ref in env.get("references", {}):
        found.append(Construct("link definition", ref))
    quote_start = False
    list_item_start = False
    for tok in tokens:
        if tok.type == "heading_open":
            found.append(Construct("heading", tok.tag))
        elif tok.type == "html_block":
            found.append(Construct("html", tok.content))
            found.extend(_templater(tok.content))
        elif tok.type in ("fence", "code_block"):
            shown.append(tok.content)
            found.extend(_templater(tok.content))
            found.extend(_meta_bind(tok.content.rstrip("\n")))
            lang = tok.info.strip().split(" ")[0].lower() if tok.info.strip() else ""
            if lang in _PLUGIN_LANGS or lang.startswith(("ad-", "run-")):
                found.append(Construct("plugin block", lang))
        elif tok.type == "blockquote_open":
            quote_start = True
            continue
        elif tok.type == "list_item_open":
            list_item_start = True
            continue
        elif tok.type == "inline":
            seen, visible_text, inline_found = _inline(tok.children or [])
            found.extend(inline_found)
            found.extend(_obsidian(seen))
            if quote_start and re.match(r"\[!", seen):
                head = re.match(r"\[![^\]\n]*\][+-]?", seen)
                found.append(Construct("callout", head[0] if head else seen.split("\n")[0]))
            # Obsidian makes a task of any one character between the brackets ("[?]",
            # "[-]", "[a]": a theme's or the Tasks plugin's statuses), not only " " and "x".
            if list_item_start and re.match(r"\[[^\n]\](?:[ \t]|$)", seen):
                found.append(Construct("task", seen.split("\n", 1)[0]))
            shown.append(visible_text)
            found.extend(_templater(visible_text))  # (its text nodes, joined: stricter)
        if tok.type != "paragraph_open":
            quote_start = list_item_start = False
    return found, " ".join(" ".join(shown).replace(ZERO_WIDTH_SPACE, "").split())


def constructs(note_body: str) -> list[Construct]:
    return parse(note_body)[0]


def visible(note_body: str) -> str:
    return parse(note_body)[1]
