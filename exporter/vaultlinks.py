"""Links Obsidian rewrote in a generated part: not the person's edit.

When the person renames or moves a note in Obsidian, Obsidian rewrites every link to it,
the links inside other notes' generated parts too (a project's index lists the note; a
parent links its subagent). Their hash then no longer matches the end marker. That part
differs from what ccexport wrote only in those link targets: undoing them gives the text
the marker's hash was made from, and the note is updated without a conflict copy.

Only links to notes known to have moved are undone (``NoteRecord.was``: the names each
had before), and only to a name the note really had, so an edit of anything else in the
part is still an edit. Obsidian writes a link's target in one of three forms (its "New
link format" setting): the name alone, the path in the vault, or the path relative to the
linking note.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping
from itertools import islice, product

from .notefile import owned_hash
from .statefile import NoteRecord

NAMES_KEPT = 8  # earlier names remembered per note
TRIES = 256  # combinations of earlier names tried per part (several renamed notes linked)

# A wikilink's target: up to the alias, heading, block or end ("[[a/b|c]]" -> "a/b").
_TARGET = re.compile(r"(?<=\[\[)[^\[\]|#^\n]+(?=[|#^]|\]\])")


def stem(path: str) -> str:
    """A note's link name: its file name without ``.md``."""
    name = path.rpartition("/")[2]
    return name[:-3] if name.endswith(".md") else name


def remembered(record: NoteRecord, path: str) -> list[str]:
    """``record.was`` once the note moved from ``record.path`` to ``path`` (a new list:
    records share theirs with the state file's table)."""
    if path == record.path:
        return record.was
    old = stem(record.path)
    return [*(name for name in record.was if name != old), old][-NAMES_KEPT:]


def forms(path: str, folder: str) -> Iterator[str]:
    """The targets Obsidian may write for a link to the note at ``path`` from a note in
    ``folder``: its name, its path in the vault, its path relative to ``folder``."""
    full = path[:-3] if path.endswith(".md") else path
    relative = posixpath.relpath(full, folder or ".")
    yield from (stem(path), full, relative, f"./{relative}")
    yield from (f"{stem(path)}.md", f"{full}.md", f"{relative}.md")


def links_followed(
    owned: str, written_hash: str, note_path: str, notes: Mapping[str, NoteRecord]
) -> bool:
    """Is ``owned`` (a generated part whose hash is not ``written_hash``) what ccexport
    wrote, but for the targets of links to moved notes, which Obsidian rewrote?"""
    folder = note_path.rpartition("/")[0]
    names: dict[str, list[str]] = {}  # a target Obsidian may have written -> names before
    for record in notes.values():
        if record.was:
            earlier = list(dict.fromkeys([stem(record.path), *record.was]))
            for form in forms(record.path, folder):
                names.setdefault(form, earlier)
    targets = sorted({m.group(0) for m in _TARGET.finditer(owned) if m.group(0) in names})
    if not targets:
        return False
    return any(
        owned_hash(_retargeted(owned, dict(zip(targets, choice, strict=True)))) == written_hash
        for choice in islice(product(*(names[t] for t in targets)), TRIES)
    )


def _retargeted(owned: str, targets: Mapping[str, str]) -> str:
    return _TARGET.sub(lambda m: targets.get(m.group(0), m.group(0)), owned)
