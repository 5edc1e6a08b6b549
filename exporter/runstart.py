"""What a run says about the vault before it reads a session: a state file it cannot use,
temporary files an earlier run left that it could not remove, and, when the redaction
rules are new to the vault's notes, the notes whose very names held a secret (renamed; a
dry run says they would be), and a vault whose notes it has no record of (a new machine:
the notes deleted from it come back). Where the notes' folder went, when the person moved
it. Where every note it recorded is gone, or most of them at once, it stops (``notesgone``)."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from . import notefile, vaultio
from .collector import collector_lasting
from .errors import Problem
from .notefile import INDEX_PREFIX
from .notesgone import stop_if_notes_gone
from .redact_outputs import redact_state, rename_secret_paths
from .state import STATE_DIR, STATE_FILE, State, set_aside_unreadable
from .vault import Vault
from .vaultattach import AttachmentNames
from .vaultpaths import assistant_folder, in_assistant, inside, safe_relpath
from .vaultsurvey import HEAD_BYTES, skipped_folder
from .vaultunrecorded import Unrecorded, unrecorded_at_start
from .vaultunrecorded import unrecorded_notes as unrecorded_notes  # (export's, said from here)

if TYPE_CHECKING:
    from .options import ExportOptions
    from .redact import Redactor

RENAMED_SECRET = "renamed: its file name held a secret (update links to the old name)"
# (a dry run moves nothing: it lists the note's change at its old name, redacted)
RENAMED_SECRET_DRY = "would be renamed: its file name holds a secret (update links to the old name)"
TEMP_LEFT = (
    "a temporary file an earlier run left here could not be removed (is its folder "
    "read-only?): each run tries again, or delete it yourself (it holds a note's text)"
)
# A vault made in an assistant's own folder before a run refused one there (``config``).
MOVE_IT = (
    "Move the vault out of it, its .ccexport/ folder too (so no note is written twice), "
    "and give its new place to --vault or the config's vault (a nightly run: ccexport "
    "schedule install again)"
)
STATE_ANEW, STATE_ANEW_DRY = "this run writes it anew", "a run without --dry-run writes it anew"


def vault_notices(vault: Vault, redactor: Redactor | None, rerender: bool) -> list[Problem]:
    """The warnings a run starts with; ``rerender``: templates, settings or rules changed
    since the notes were written (notes written before redaction, or with other rules)."""
    notices = []
    if vault.state.unreadable:
        notices.append(Problem(f"{STATE_DIR}/{STATE_FILE}", unreadable_state(vault)))
    # (what the sweep at the start of this run could not remove; a dry run sweeps nothing)
    notices += [Problem(path, TEMP_LEFT) for path in vaultio.left_behind]
    if redactor and rerender:
        redact_state(vault.state, redactor)
        notices += renamed_notices(vault, rename_secret_paths(vault, redactor))
    return notices


def unreadable_state(vault: Vault) -> str:
    """What a run says of a state file it could not use. A run that writes moves it aside
    first and says where: it used to tell the person to put a backup back while it wrote a
    new state over the file. A dry run, which writes nothing, still leaves that choice."""
    said = (f"could not be used: {vault.state.unreadable}; every source is read again and "
            f"each note found by its session id, so no note or edit of yours is lost")  # fmt: skip
    if vault.dry_run:
        return (f"{said} ({STATE_ANEW_DRY}); but the notes you deleted from the vault are no "
                "longer known as deleted and would be written again: delete them again, or "
                "first put back .ccexport/state.json from a backup")  # fmt: skip
    kept = set_aside_unreadable(vault.root)
    moved = f"; the unreadable file is kept as {kept}" if kept else ""
    return (f"{said} ({STATE_ANEW}{moved}); but the notes you deleted from the vault are no "
            "longer known as deleted and are written again: delete them again")  # fmt: skip


def renamed_notices(vault: Vault, paths: list[str]) -> list[Problem]:
    """What a run says of each note moved off a name that held a secret."""
    why = RENAMED_SECRET_DRY if vault.dry_run else RENAMED_SECRET
    return [Problem(path, why) for path in paths]


def renamed_again(problems: list[Problem], vault: Vault, moves: list[tuple[str, str]]) -> None:
    """Say each note moved (``moves``: from, to) off a name holding a secret of its
    session's. One the run's start renamed already (the rules found one in its name; a dry
    run named it there, and left it where it was) is said once, where it went at last."""
    why = RENAMED_SECRET_DRY if vault.dry_run else RENAMED_SECRET
    said = {p.path: n for n, p in enumerate(problems) if p.message == why}
    for old, new in moves:
        at = next((said[p] for p in (old, safe_relpath(vault.scrub(old))) if p in said), None)
        if at is None:
            said[new] = len(problems)
            problems.append(Problem(new, why))
        else:
            problems[at] = replace(problems[at], path=new)
            said[new] = at


# Notes looked for by identity to tell where a missing folder went (each a search of the
# vault, but one search reads every note's head once for all of them).
FOLLOW_SAMPLE = 3
FOLDER_FOLLOWED = (
    'the folder "{old}" is not in the vault and its notes are in "{new}" (renamed or moved '
    "in Obsidian): new notes, index notes and the Sessions.base go there too. To make that "
    'the setting and end this warning, set folder = "{new}" in the vault\'s '
    ".ccexport/config.toml"
)
# The old folder is there again, holding only what ccexport writes beside the notes: a
# machine that did not know of the move (a new one, or .ccexport/ lost: sync tools do not
# carry it) wrote them, and the sync tool brought them here.
FOLDER_LEFT = (
    'the folder "{old}" holds only files ccexport wrote there (its Sessions.base, index '
    'notes) while its notes are in "{new}" (renamed or moved in Obsidian): new notes, index '
    'notes and the Sessions.base go to "{new}", and "{old}" may be deleted. To make that '
    'the setting and end this warning, set folder = "{new}" in the vault\'s '
    ".ccexport/config.toml"
)
SESSIONS_BASE = "Sessions.base"


@dataclass(frozen=True, slots=True)
class FolderFollowed(Problem):
    """The warning that the notes' folder ``old`` was followed to ``path``: the report
    lists a note the state still places in ``old`` (one left deleted) where it is now."""

    old: str = ""

    def now_at(self, relpath: str) -> str:
        """``relpath`` in the folder the notes are in now."""
        prefix = self.old + "/"
        return self.path + relpath[len(self.old) :] if relpath.startswith(prefix) else relpath


INDEX_FOLDER = "Projects"  # the projects' index notes, below the notes' folder


def moved_folder(
    vault: Vault,
    folder: str,
    layout: str = "{source}/{project}",
    found: list[tuple[str, str]] | None = None,
) -> tuple[str, Problem | None]:
    """The folder new notes go to: the configured one, or where its notes went when the
    person renamed or moved it inside the vault (it is not there, or holds only what
    ccexport writes beside notes, and its notes are found, by identity, below one other
    folder: the ones the state recorded in it, or, with no state, most of the vault's).
    Else the next new note made a second folder of the old name beside the notes: two
    trees, two Sessions bases, and the projects' index notes split between them."""
    folder = folder.strip("/")
    if not folder or _notes_listed(vault, folder) or _there(vault.root, folder):
        vault.state.folders.pop(folder, None)  # (there again: the person's choice now)
        return folder, None
    moved = recorded_folder(vault.root, vault.state, folder)
    if moved == folder and _recorded_any(vault.state):  # (moved again: from where it was)
        moved = _moved_to(vault, vault.state.folders.get(folder) or folder)
    elif moved == folder:  # no record (a new machine, .ccexport/ lost): the vault tells
        moved = _found_moved(folder, layout, _session_notes(vault) if found is None else found)
    if moved is None or not inside(moved) or not (vault.root / moved).is_dir():
        return folder, None
    vault.state.folders[folder] = moved  # (the notes' records follow them: asked once)
    said = FOLDER_LEFT if (vault.root / folder).exists() else FOLDER_FOLLOWED
    return moved, FolderFollowed(moved, said.format(old=folder, new=moved), old=folder)


def recorded_folder(root: Path, state: State, folder: str) -> str:
    """Where the state says the notes of ``folder`` went, while ``folder`` is not in the
    vault (or holds only what ccexport writes) and that one is; else ``folder`` (``doctor``
    asks, searching nothing)."""
    folder = folder.strip("/")
    moved = state.folders.get(folder)
    if not moved or not (root / moved).is_dir() or _there(root, folder):
        return folder
    return moved


def _notes_listed(vault: Vault, folder: str) -> bool:
    """Is a note the state records below ``folder`` in its place (its folder's listing, kept
    for the run's own checks)? The folder then holds notes, and is not walked."""
    prefix = folder + "/"
    recorded = [r.path for k, r in vault.state.notes.items()
                if not r.deleted and not k.startswith(INDEX_PREFIX)
                and r.path.startswith(prefix) and inside(r.path)]  # fmt: skip
    return any(vault.listed(path) for path in recorded[:FOLLOW_SAMPLE])


def _there(root: Path, folder: str) -> bool:
    """Is the notes' folder in the vault as the person's: a link, a file, or a folder
    holding more than what ccexport writes beside notes (``_holds_more``)?"""
    path = root / folder
    if path.is_symlink() or path.exists() and not path.is_dir():
        return True
    return path.is_dir() and _holds_more(root, folder)


def _holds_more(root: Path, folder: str) -> bool:
    """Does ``folder`` hold anything but ``Sessions.base``, the index notes and empty
    folders? The first other file ends the walk: a folder of notes costs a few listings,
    and no read (the index notes are read last, when nothing else was found)."""
    pending, index_notes = [folder], []
    index_folder = f"{folder}/{INDEX_FOLDER}"
    while pending:
        at = pending.pop()
        try:
            entries = sorted(os.scandir(root / at), key=lambda e: e.name)
        except OSError:
            return True  # (not listed: taken as the person's, as before)
        for entry in entries:
            relpath = f"{at}/{entry.name}"
            if skipped_folder(entry.name):
                continue  # (never notes: a sync tool's or the system's)
            if entry.is_dir(follow_symlinks=False):
                pending.insert(0 if relpath == index_folder else len(pending), relpath)
            elif relpath == f"{folder}/{SESSIONS_BASE}":
                continue
            elif entry.name.endswith(".md") and (
                at == index_folder or relpath == f"{index_folder}.md"
            ):
                index_notes.append(relpath)
            else:
                return True
    return not all(_index_note(root, relpath) for relpath in index_notes)


def _index_note(root: Path, relpath: str) -> bool:
    """Is the file one of ccexport's index notes (its frontmatter says so)?"""
    try:
        found = vaultio.read_file(root, relpath, HEAD_BYTES)
    except OSError:
        return False
    metadata = notefile.read_frontmatter(found[0].decode("utf-8", "replace")) if found else None
    holder = notefile.identity(metadata) if metadata else None
    return holder is not None and holder.startswith(INDEX_PREFIX)


def _recorded_any(state: State) -> bool:
    """Does the state record a session note (its folder's notes are then looked for)?"""
    return any(not key.startswith(INDEX_PREFIX) for key in state.notes)


def _found_moved(folder: str, layout: str, notes: list[tuple[str, str]]) -> str | None:
    """With no record of the vault's notes: the one folder more than half of the session
    ``notes`` in the vault (path, source) are below, each at its place
    (the folders ``layout`` names for it, then its file), while none is below ``folder``."""
    prefix = folder + "/"
    if not notes or any(path.startswith(prefix) for path, _ in notes):
        return None
    tops = Counter(top for path, source in notes if (top := _top_of(path, source, layout)))
    top, count = tops.most_common(1)[0] if tops else ("", 0)
    return top if count * 2 > len(notes) else None


def _top_of(path: str, source: str, layout: str) -> str | None:
    """The notes' folder a note is in, by the folders ``layout`` names for it (its source's
    as named; a project's, year's or month's: any name, as a name is made safe), then its
    file; None for a note not so placed."""
    source = re.escape(source)
    pieces = re.split(r"{(\w*)}", layout.strip("/"))
    below = "".join((source if p == "source" else "[^/]+") if n % 2 else re.escape(p)
                    for n, p in enumerate(pieces))  # fmt: skip
    found = re.fullmatch(f"(.+?)/{below}/[^/]+" if below else "(.+?)/[^/]+", path)
    return found.group(1) if found else None


def _moved_to(vault: Vault, folder: str) -> str | None:
    """The one folder the notes recorded in ``folder`` are found below, by identity, each at
    its place (a note the person moved alone is no folder's)."""
    prefix = folder + "/"
    recorded = [
        (key, record.path[len(prefix):])
        for key, record in vault.state.notes.items()
        if not record.deleted and not key.startswith(INDEX_PREFIX)
        and record.path.startswith(prefix)
    ][:FOLLOW_SAMPLE]  # fmt: skip
    places = set()
    for key, rest in recorded:
        now = vault.path_of(key)
        if now and now.endswith("/" + rest) and len(now) > len(rest) + 1:
            places.add(now[: -len(rest) - 1])  # (a note moved alone is no folder's)
    return places.pop() if len(places) == 1 else None


def open_vault(options: ExportOptions) -> tuple[Vault, ExportOptions, list[Problem], Unrecorded]:
    """The vault with its state, which lives all run (``collector_lasting``), and the
    options with the folder the notes are in (``moved_folder``: asked first, while the
    notes' records still say where they were); a run stops here where every note the state
    records is gone, or most of them (``stop_if_notes_gone``); the warnings said after the
    run (a live list: the walks of the vault add what they leave out, ``vaultpaths.LeftOut``).
    Last, how many session notes the vault holds that no state records, or held as a run
    began that did not finish (``unrecorded_notes`` says it after the run)."""
    with collector_lasting():
        vault = Vault(options.vault, dry_run=options.dry_run, diff=options.diff,
                      force=options.force, restore=options.restore)  # fmt: skip
    vault.left_out.notes_folders = (options.folder.strip("/"),)  # (not where it was followed)
    vault.let_go_of_other_vaults()
    found = None if _recorded_any(vault.state) else _session_notes(vault)
    folder, said = moved_folder(vault, options.folder, options.layout, found)
    options = replace(options, folder=folder) if said else options
    stop_if_notes_gone(vault, options.restore or options.accept_deleted)
    vault.attachment_names = AttachmentNames(str(vault.root), options.attachments_folder)
    notices = vault.left_out.said
    notices[:0] = [said] if said else []
    if held := assistant_folder(vault.root, options.home, options.paths):
        notices.insert(0, Problem(str(vault.root), f"this vault {in_assistant(*held)}. {MOVE_IT}"))
    return vault, options, notices, unrecorded_at_start(vault, found is not None)


def _session_notes(vault: Vault) -> list[tuple[str, str]]:
    """Every session note in the vault: (path, source). The vault's search by identity,
    which a run without a record of the notes makes anyway to find each, made now (and
    kept for the run: ``path_of``), so no walk of the vault is added."""
    found = vault.identities()
    return [(path, key.partition(":")[0]) for key, path in found.items()
            if not key.startswith(INDEX_PREFIX)]  # fmt: skip
