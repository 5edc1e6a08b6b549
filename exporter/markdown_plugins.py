"""What common Obsidian plugins act on in a note's code, made inert: a fence's info string
that a plugin renders or runs (``dataview``, ``dataviewjs``, ``meta-bind``…), inline code
Dataview evaluates (``= …``, ``$= …``), and code that Meta Bind makes a live field or button
(a code element holding just ``INPUT[…]``, ``VIEW[…]`` or ``BUTTON[…]``). Each keeps its
text: a zero-width space parts it, or the info string gets a language before it.
(Templater's commands, read in any shown text, are ``markdown_links.without_templater``.)

Part of ``markdown``'s API (imported there); kept apart to keep that module one read.
"""

from __future__ import annotations

import re

from .markdown_links import ZERO_WIDTH_SPACE

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
_DATAVIEW_SPAN = re.compile(r"^\s*\$?=")
# What Meta Bind makes of a code element, inline or a block's, holding just ``INPUT[…]``,
# ``VIEW[…]`` or ``BUTTON[…]``: a live field bound to the note's properties, or a button that
# runs what it names. A zero-width space before it leaves it as it reads.
_META_BIND = re.compile(r"(?:INPUT|VIEW|BUTTON)\[.*\]\Z", re.DOTALL)
_META_BIND_NAMES = ("INPUT[", "VIEW[", "BUTTON[")


def safe_info(info: str) -> str:
    """A fence's info string that no plugin acts on: ``dataview`` -> ``sql dataview``."""
    word = info.strip().split(" ", 1)[0].lower() if info.strip() else ""
    if word in PLUGIN_FENCES:
        return f"{PLUGIN_FENCES[word]} {info.strip()}"
    if word.startswith(PLUGIN_FENCE_PREFIXES):
        return f"text {info.strip()}"
    return info


def _before_meta_bind(inner: str) -> str | None:
    """A code span's text with a zero-width space before what Meta Bind would read (the
    span's text as CommonMark gives it: its line ends as spaces, one space trimmed each
    side); None when it would read nothing."""
    if "[" not in inner or not _META_BIND.match(stripped := inner.strip(" \n")):
        return None
    at = inner.index(stripped[0])
    return inner[:at] + ZERO_WIDTH_SPACE + inner[at:]


def inert_span(text: str) -> str:
    """The text of a code span ccexport writes, which no plugin acts on: a zero-width space
    before a Dataview query, or before what Meta Bind would read."""
    if _DATAVIEW_SPAN.match(text):
        return ZERO_WIDTH_SPACE + text
    safe = _before_meta_bind(text)
    return text if safe is None else safe


def inert_written_span(code: str) -> str:
    """A code span as the session wrote it (its backticks too), which no plugin acts on: a
    zero-width space before a Dataview query's ``=`` (``$``), or before Meta Bind's name."""
    if "=" not in code and "[" not in code:
        return code  # most spans: nothing a plugin would act on
    ticks = len(code) - len(code.lstrip("`"))
    inner = code[ticks : len(code) - ticks]
    if (safe := _before_meta_bind(inner)) is not None:
        return code[:ticks] + safe + code[len(code) - ticks :]
    if not _DATAVIEW_SPAN.match(inner):
        return code
    at = inner.index("=") - (1 if inner.lstrip().startswith("$") else 0)
    return code[:ticks] + inner[:at] + ZERO_WIDTH_SPACE + inner[at:] + code[len(code) - ticks :]


def inert_block_text(text: str) -> str:
    """A fenced block's content (ccexport's own fence) that Meta Bind would not read."""
    if text.startswith(_META_BIND_NAMES) and _META_BIND.match(text.rstrip("\n")):
        return ZERO_WIDTH_SPACE + text
    return text


def inert_block(lines: list[str], first: int, end: int) -> list[str]:
    """``lines``, a code block's as the session wrote it, whose content
    (``lines[first:end]``) Meta Bind would make a field or a button of, with a zero-width
    space before it. Its container's marks and indentation are passed over loosely: a block
    that merely starts so gets it. Blank lines at its end are no part of what it holds (the
    code element's text ends at its last line of text)."""
    while end > first and not lines[end - 1].strip(" \t>"):
        end -= 1
    if end <= first or not lines[end - 1].rstrip().endswith("]"):
        return lines
    line = lines[first]
    at = len(line) - len(line.lstrip(" \t>"))
    if line.startswith(_META_BIND_NAMES, at):
        lines[first] = line[:at] + ZERO_WIDTH_SPACE + line[at:]
    return lines
