"""Where a person's edit inside a generated part goes when the part is written anew: a copy
in a folder Obsidian shows (``Conflicts`` below the notes folder), and a line in the note
itself, below its end marker, that links to it. Before, the copy went to the hidden
``.ccexport/conflicts/`` with no word in the note: the person, who works in Obsidian, saw
their edit vanish (review29 F11). ``doctor`` counts the copies still there, old ones too.
"""

from __future__ import annotations

import itertools
import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from . import lineends, notefile, vaultio
from .markdown_links import wikilink
from .state import STATE_DIR
from .vaultpaths import safe_component

if TYPE_CHECKING:
    from .vault import Vault

FOLDER = "Conflicts"  # below the notes folder
HIDDEN = f"{STATE_DIR}/conflicts"  # where versions before this one put them
# A copy's name: the second it was saved, (n) for another in that second, the note's name.
_COPY_NAME = re.compile(r"^\d{4}-\d\d-\d\d \d{6}(?: \(\d+\))? .+\.md$")


def folder_of(notes_folder: str, relpath: str) -> str:
    """The folder a note's copies go to: ``Conflicts`` below the notes folder (that of the
    note's own path when the run did not say: its first folder), or the vault's top."""
    top = notes_folder.strip("/") or (relpath.partition("/")[0] if "/" in relpath else "")
    return f"{top}/{FOLDER}" if top else FOLDER


def save_edit(
    vault: Vault, relpath: str, parsed: notefile.NoteText, folder: str, written: str
) -> str:
    """Save the generated part the person edited (``parsed.owned``), with a line saying
    whose it is and the lines that differ from ``written`` (the part as ccexport writes it
    now: ``editdiff``), as a new file in ``folder``; its path. Never one with an identity of a
    session: the vault would take it for a second copy of the note. Named by the second it
    is saved; another in that second (``watch`` while the person types) takes (2), (3)…"""
    now = datetime.now()
    stamp, note = now.strftime("%Y-%m-%d %H%M%S"), vault.scrub(Path(relpath).name)
    for n in itertools.count(1):
        name = safe_component(f"{stamp} ({n}) {note}" if n > 1 else f"{stamp} {note}")
        target = f"{folder}/{name}"
        if vaultio.kind(vault.root, target) in ("missing", "blocked"):
            break  # (blocked: the write says why)
    if not vault.dry_run:
        link = wikilink(relpath.removesuffix(".md"), Path(relpath).stem)
        head = (
            f"Your edit of {link} inside its generated part, as it was on "
            f"{now:%Y-%m-%d %H:%M} when ccexport wrote that part anew from its session. Copy "
            "what you want to keep into the note, below its end marker (text there is "
            "yours and stays), then delete this file."
        )
        from . import editdiff  # (with ``markdown``: loaded by a run that saves an edit)

        theirs, marked = parsed.owned or "", parsed.written_hash  # (marked: what it last wrote)
        text = vault.scrub(editdiff.copy_text(head, written, theirs, vault.scrub, marked))
        vaultio.write_file(vault.root, target, text.encode("utf-8", "replace"))
    return target


def said_in_note(parsed: notefile.NoteText, saved: str, when: datetime | None = None) -> str:
    """The person's text below the end marker, with a line first that says where their
    edit went (a callout, so it stands out; theirs from then on, kept or deleted by them)."""
    day = (when or datetime.now()).strftime("%Y-%m-%d")
    link = wikilink(saved.removesuffix(".md"), Path(saved).stem)
    line = (
        f"> [!warning] Your edit of {day} inside the generated part above was saved to {link}, "
        "and the part was written anew from its session: copy what you want to keep below "
        "this line, then delete the line."
    )
    after = parsed.after
    gap = "" if after.startswith(("\n", "\r\n")) or not after else "\n"
    return lineends.written(f"{line}\n{gap}", parsed.eol) + after


def copy_folders(notes_folder: str) -> tuple[str, str]:
    """The folders copies of edits are in: the visible one, the hidden one of earlier
    versions."""
    return folder_of(notes_folder, ""), HIDDEN


def is_copy(folder: str, name: str) -> bool:
    """Is the file ``name`` in ``folder`` (of ``copy_folders``) a copy of an edit? In the
    hidden folder every file is; the person's own files may share the visible one."""
    return folder == HIDDEN or is_copy_name(name)


def is_copy_name(name: str) -> bool:
    """Is ``name`` one ``save_edit`` gives (the person's own files may share the folder)?"""
    return _COPY_NAME.match(name) is not None


def copies_left(vault: Path, notes_folder: str) -> dict[str, list[str]]:
    """The copies of edits still in the vault, by folder (the visible one, the hidden one
    of earlier versions): those the person has not yet dealt with and deleted."""
    found: dict[str, list[str]] = {}
    for folder in copy_folders(notes_folder):
        try:
            names = sorted(p.name for p in (vault / folder).iterdir() if p.is_file())
        except OSError:
            continue
        names = [n for n in names if is_copy(folder, n)]
        if names:
            found[folder] = names
    return found
