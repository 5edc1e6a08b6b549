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


def kept_before_redaction(vault: Path, name: str) -> bool:
    """Is the copy ``name`` in the hidden folder a note's earlier text, kept aside by a
    version before 7 December when it wrote the note again to redact a secret (from a
    shorter source: the copy may hold turns the note no longer has), rather than an edit of
    the person's? Such a copy is a whole note whose generated part is as ccexport wrote it
    (its end marker's hash matches); an edit saved there by an even older version is not."""
    try:
        found = vaultio.read_file(vault, f"{HIDDEN}/{name}")
    except OSError:
        return False
    if not found:
        return False
    try:
        parsed = notefile.parse(found[0].decode("utf-8", "replace"))
    except notefile.NoteFormatError:
        return False
    return parsed.edited is False


def copies_said(vault: Path, notes_folder: str) -> tuple[str, list[str]] | None:
    """What ``doctor`` says of the copies still in the vault, and their paths (names
    redacted: a copy's name is its note's, which may hold a secret an earlier version
    left); None when there are none. The person's edits saved aside, not yet dealt with;
    and apart, a copy in the hidden folder that is a note's earlier text, kept before a
    secret was redacted from it (``kept_before_redaction``), which is no edit of theirs
    (review43 L4: "2 of your edits … 1 in .ccexport/conflicts/")."""
    from .redact import redact_text

    left = copies_left(vault, notes_folder)
    if not left:
        return None
    earlier = [name for name in left.get(HIDDEN, []) if kept_before_redaction(vault, name)]
    edits = {place: [n for n in names if place != HIDDEN or n not in earlier]
             for place, names in left.items()}  # fmt: skip
    edits = {place: names for place, names in edits.items() if names}
    shown = [redact_text(f"{place}/{name}") for place, names in edits.items() for name in names]
    kept = [redact_text(f"{HIDDEN}/{name}") for name in earlier]
    said = [_edits_said(edits, shown)] if shown else []
    said += [_earlier_said(kept)] if kept else []
    return ". ".join(said), shown + kept


def _listed(paths: list[str]) -> str:
    more = f" and {len(paths) - 5} more" if len(paths) > 5 else ""
    return f"{'; '.join(paths[:5])}{more}"


def _edits_said(left: dict[str, list[str]], shown: list[str]) -> str:
    where = ", ".join(f"{len(names)} in {place}/" for place, names in left.items())
    edits = (
        "1 edit of yours inside a generated part was saved aside and is"
        if len(shown) == 1
        else f"{len(shown)} of your edits inside generated parts were saved aside and are"
    )
    return (
        f"{edits} not yet dealt with ({where}): {_listed(shown)}. Copy what you want to keep "
        "into the note, below its end marker, then delete the copy"
    )


def _earlier_said(kept: list[str]) -> str:
    texts = (
        "1 note's earlier text was" if len(kept) == 1 else f"{len(kept)} notes' earlier texts were"
    )
    return (
        f"{texts} kept aside in {HIDDEN}/ by a version before 7 December, when it wrote the "
        "note again from a shorter source to redact a secret (no edit of yours; the copy may "
        f"hold turns the note no longer has): {_listed(kept)}. Copy what you want to keep "
        "into the note, below its end marker, then delete the copy"
    )
