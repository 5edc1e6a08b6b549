"""Links ccexport writes (``[[target|alias]]``) and property values from a session that
must not become links: the alias shows a title, and nothing of the session in it or in a
property acts as Obsidian or a plugin syntax (a Templater command among them).

Part of ``markdown``'s API (imported there); kept apart to keep that module one read.
"""

from __future__ import annotations

import re
from typing import Any

ZERO_WIDTH_SPACE = "\u200b"

# What a link's alias cannot hold (it would end or split the link, as Obsidian and
# ``vaultlinks`` read one): each becomes a space; a control character (a NUL, ESC) is left
# out. Obsidian shows the rest of an alias as text, literally (no Markdown in it acts, and
# an escape in it would be shown): "#", "^", "*", "`", "$", "==" or "<b>" read as typed.
_NOT_IN_ALIAS = str.maketrans(
    "[]|\u200b", "    ", "".join(map(chr, [*range(0x09), *range(0x0B, 0x20), 0x7F]))
)


# Read in a link's alias too, by Dataview (``[[a|std::vector]]`` holds a field: it scans
# from each "[" for a key before "::") and by Obsidian's comments ("%%" there may hide the
# rest of an index note): a zero-width space parts each pair, the words stay as they read.
_PAIRED_IN_ALIAS = re.compile(r"(?<=:)(?=:)|(?<=%)(?=%)")

# Templater, a common plugin, runs a dynamic command (``<%+ … %>``; ``<%*+ … %>`` is
# JavaScript) wherever a note Obsidian shows holds one, in code blocks and links too: it
# reads the rendered text. A zero-width space after the ``<`` leaves it as it reads, inert.
# A reply's Markdown keeps its backslash escapes, which the rendered text drops (``<\%+``
# shows as ``<%+``): each mark may follow one.
_TEMPLATER_DYNAMIC = re.compile(r"<(?=\\?%(?:\\?[-_])?\s*(?:\\?[*~])?\\?\+)")


def without_templater(text: str) -> str:
    """``text`` with no Templater command that runs when its note is shown."""
    if "<%" not in text and "<\\%" not in text:
        return text  # (nearly every text: two scans in C)
    return _TEMPLATER_DYNAMIC.sub("<" + ZERO_WIDTH_SPACE, text)


def link_alias(label: str) -> str:
    """``label`` as the alias of a link shows it (``vaultlinks`` compares titles so)."""
    shown = without_templater(" ".join(label.translate(_NOT_IN_ALIAS).split()))
    return (
        _PAIRED_IN_ALIAS.sub(ZERO_WIDTH_SPACE, shown) if "::" in shown or "%%" in shown else shown
    )


def wikilink(target: str, label: str | None = None) -> str:
    """``[[target|label]]``; the target is a vault file name without ``.md``."""
    shown = link_alias(label) if label else ""
    if shown and shown != target:  # (a label of "[[" alone: none, not an empty one)
        return f"[[{target}|{shown}]]"
    return f"[[{target}]]"


_LINK_OPENER = re.compile(r"\[(?=\[)")


def unlinked(value: Any) -> Any:
    """A property value taken from a session (a title, a project, a path…), which Obsidian
    must not read as a link: a text or list property holding ``[[x]]`` is a live link,
    listed among the backlinks of ``x`` and in the graph. A zero-width space parts each
    ``[[`` (``![[`` too); every other character stays, so the words stay searchable. A
    list is done item by item; anything but text is returned as it is."""
    if isinstance(value, str):
        value = without_templater(value)  # (shown as text where properties are shown so)
        return _LINK_OPENER.sub("[" + ZERO_WIDTH_SPACE, value) if "[[" in value else value
    if isinstance(value, list):
        return [unlinked(item) for item in value]
    return value
