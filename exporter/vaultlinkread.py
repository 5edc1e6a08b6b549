"""The links of a note, or of a canvas, as Obsidian reads them: what keeps a part note a
session no longer has (``vaultbacklinks``).

A note's text is read by a CommonMark parser (mistune, as ``markdown_parsed``): a link in a
code block or in inline code is code, not a link, in Obsidian, so it keeps nothing. Its
wikilinks are found in the text the parser leaves (Obsidian's own syntax, which CommonMark
reads as plain text), a Markdown link's text included, its Markdown links and embeds as the
parser reads them. Obsidian reads a wikilink before inline code: ``[[Note|`code` label]]``
is a link, so a code span counts as code only for a wikilink wholly inside it (review34 3). Where a
reading is unsure, a link is counted (a note kept too many is the person's to delete; one
removed under their link is a link leading nowhere): in HTML and in the frontmatter (a
property may hold a link), the text is searched as it stands.

A canvas (``.canvas``, JSON) links a note by a file card (``nodes[].file``, its path in the
vault) or by a link in a text card's Markdown (``nodes[].text``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

import orjson

from .vaultlinks import WIKILINK

# Frontmatter at the very start (Obsidian's properties): read as text, not Markdown.
_FRONTMATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(?:.*?\r?\n)?---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
# [text](target.md) as it stands in text the parser did not read (frontmatter, HTML): its
# spaces %20, its parentheses balanced (Obsidian's "(part 2)"), or [text](<tar get.md>)
_MARKDOWN_LINK = re.compile(r"\]\(\s*(?:<([^<>\n]+)>|((?:[^()\s]|\([^()\s]*\))+))")
# What code starts with: a fence or a span's backtick, an indented line (the parser reads
# a note with any of them; one without is searched as it stands, ten times sooner)
_MAY_HOLD_CODE = re.compile(r"`|~~~|^(?: {4}|[ ]{0,3}\t)", re.MULTILINE)
# Inline nodes whose text is the node's own, joined to the text around it (a wikilink
# spans them: "[[a_b_c]]" is several text nodes), and nodes that break that text.
_TEXT_NODES = {"text", "inline_html"}
_BREAKS = {"softbreak", "linebreak", "link", "image"}
_LINK_NODES = {"link", "image"}  # an embed ![](note.md) keeps a note as a link does


def link_name(target: str) -> str:
    """The name a link leads to, as Obsidian matches it when it is unique in the vault
    (its last path segment, without ``.md``), folded: Obsidian matches names regardless
    of case."""
    name = target.strip().rpartition("/")[2].partition("#")[0].strip()
    return name.removesuffix(".md").casefold()


def note_links(text: str, among: Collection[str] | None = None) -> set[str]:
    """The names (``link_name``) the note ``text`` links to or embeds. ``among``: the names
    asked about, when only those matter: a note with code whose search as it stands finds
    none of them is not parsed (the search finds every link the parser does, and more)."""
    names: set[str] = set()
    if "[[" not in text and "](" not in text:
        return names  # (no link in it: not parsed, most of a vault's notes)
    if m := _FRONTMATTER.match(text):
        _searched(m.group(0), names)
        text = text[m.end() :]
    if _MAY_HOLD_CODE.search(text):
        if among is not None:
            plain: set[str] = set()
            _searched(text, plain)
            if plain.isdisjoint(among):
                return names  # (parsing is slow: 1.5 s a megabyte of notes with code)
        _read(_parser()(text), names)
    else:  # (no code in it: found as it stands, the parser's links and a few more, sooner)
        _searched(text, names)
    return names


def canvas_links(data: bytes) -> set[str]:
    """The names a canvas's file cards and text cards link to; none for a file that is
    not a canvas (not JSON, or not its shape)."""
    try:
        canvas = orjson.loads(data)
    except orjson.JSONDecodeError:
        return set()
    nodes = canvas.get("nodes") if isinstance(canvas, dict) else None
    names: set[str] = set()
    for node in nodes if isinstance(nodes, list) else ():
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("file"), str):
            names.add(link_name(node["file"]))
        if isinstance(node.get("text"), str):
            names |= note_links(node["text"])
    return names


@lru_cache(maxsize=1)
def _parser() -> Any:
    import mistune  # imported lazily: a run that removes no part never loads it

    parser = mistune.create_markdown(renderer="ast")
    # Emphasis is not looked for: Obsidian reads a wikilink before it ("[[a *b* c]]" is one
    # link), so its markers stay in the text around the link.
    parser.inline.rules.remove("emphasis")
    # A code span keeps its source, backticks too: a wikilink around it is read whole.
    parser.inline.register("codespan", None, _codespan_with_source)
    return parser


def _codespan_with_source(inline: Any, m: re.Match[str], state: Any) -> int:
    """mistune's code span, which keeps only the code, with the text it was read from."""
    end = inline.parse_codespan(m, state)
    token = state.tokens[-1] if state.tokens else None
    if token is not None and token.get("type") == "codespan":
        token["source"] = state.src[m.start() : end]
    return end


def _read(nodes: list[dict[str, Any]], names: set[str]) -> None:
    """Collect the links of parsed ``nodes``: each run of inline text (its code spans as
    written) searched for wikilinks, each link's and image's target and text; code blocks
    skipped."""
    run = _Run()
    for node in nodes:
        kind = node.get("type")
        if kind in _TEXT_NODES:
            run.text(node.get("raw", ""))
            continue
        if kind == "codespan":
            run.code(node.get("source") or node.get("raw", ""))
            continue
        if kind in _BREAKS:
            run.text("\n")  # (no wikilink spans a line, nor another link)
        if kind in _LINK_NODES:
            url = (node.get("attrs") or {}).get("url")
            if isinstance(url, str) and url:
                names.add(link_name(unquote(url)))
        if kind == "block_html":
            _searched(node.get("raw", ""), names)
        elif kind != "block_code":  # (a link's text too: Obsidian links "[see [[a]]](b.md)")
            children = node.get("children")
            if isinstance(children, list):
                run.found(names)
                run = _Run()
                _read(children, names)
    run.found(names)


class _Run:
    """A run of inline text, and where in it its code spans are: a wikilink wholly inside
    one is code; one around or across a span is a link (where unsure, it is counted)."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.size = 0
        self.spans: list[tuple[int, int]] = []

    def text(self, piece: str) -> None:
        self.pieces.append(piece)
        self.size += len(piece)

    def code(self, source: str) -> None:
        self.spans.append((self.size, self.size + len(source)))
        self.text(source)

    def found(self, names: set[str]) -> None:
        for m in WIKILINK.finditer("".join(self.pieces)):
            if not any(start <= m.start() and m.end() <= end for start, end in self.spans):
                names.add(_wikilink_name(m))


def _wikilinks(text: str, names: set[str]) -> None:
    names.update(_wikilink_name(m) for m in WIKILINK.finditer(text))


def _wikilink_name(m: re.Match[str]) -> str:
    # (a table's "[[note\|shown]]" escapes its pipe: the parser reads it without the "\")
    return link_name(m.group(1).removesuffix("\\"))


def _searched(text: str, names: set[str]) -> None:
    """Links in text that is not read as Markdown, found as it stands."""
    _wikilinks(text, names)
    for m in _MARKDOWN_LINK.finditer(text):
        names.add(link_name(unquote(m.group(1) or m.group(2))))
