"""Which notes the person's own notes link to, by name: asked before a part note a session
no longer has is removed (``vaultparts``). A link of theirs to it would then lead nowhere
(review29), so a part they link to stays, as one they edited does.

The person's notes are those that name no session or index (ccexport's notes link to their
parts: those links go with the notes), and are not a copy of an edit ccexport saved aside.
A canvas of theirs (``.canvas``) links a note as a note does: by a card showing it, or a
link in a card's text. Links are read as Obsidian reads them (``vaultlinkread``): one in
code is no link. Read only when a part is about to go (once a run): a walk of the vault,
each note and canvas read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import notefile, vaultio
from .editcopies import FOLDER as COPIES_FOLDER
from .editcopies import is_copy_name
from .vaultlinkread import canvas_links, link_name, note_links

if TYPE_CHECKING:
    from .vault import Vault

CANVAS = ".canvas"  # Obsidian's canvas: JSON, its cards showing notes or holding Markdown


def names_linked_by_own_notes(vault: Vault) -> set[str]:
    """The names (``vaultlinkread.link_name``) of part notes the person's notes link to:
    read once a run, with the first part to go (a change of settings can drop parts of
    hundreds of sessions: a walk of the vault each was hours on a big one). A run writes
    none of the person's notes."""
    if vault.own_links is None:
        vault.own_links = _read_own_links(vault)
    return vault.own_links


def _read_own_links(vault: Vault) -> set[str]:
    names: set[str] = set()
    ours = {record.path for record in vault.state.notes.values()}  # (not read: ccexport's)
    # (the part notes a run may remove: a note linking to none of them is not parsed)
    parts = {link_name(r.path) for key, r in vault.state.notes.items() if "#part" in key}
    for relpath, _ in vault.note_files():
        folder, _, name = relpath.rpartition("/")
        if relpath in ours or folder.endswith(COPIES_FOLDER) and is_copy_name(name):
            continue  # (ccexport's notes and its copies of an edit: their links are its own)
        try:
            found = vaultio.read_file(vault.root, relpath)
        except OSError:
            continue
        if not found:
            continue
        data = found[0]
        text = data.decode("utf-8", "replace")
        if any(key in data for key in notefile.IDENTITY_KEYS):
            fm = notefile.read_frontmatter(text)
            if fm is not None and notefile.identity(fm):
                continue  # a note of ccexport's
        names |= note_links(text, parts)
    for relpath, _ in vault.note_files(CANVAS):
        try:
            found = vaultio.read_file(vault.root, relpath)
        except OSError:
            continue
        names |= canvas_links(found[0]) if found else set()
    return names
