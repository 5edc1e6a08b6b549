"""What a run says about the vault before it reads a session: a state file it cannot use,
temporary files an earlier run left that it could not remove, and, when the redaction
rules are new to the vault's notes, the notes whose very names held a secret (renamed; a
dry run says they would be). And where every note it recorded is gone, that it stops."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from . import vaultio
from .collector import collector_lasting
from .errors import ExporterError, Problem
from .notefile import INDEX_PREFIX
from .redact_outputs import redact_state, rename_secret_paths
from .state import STATE_DIR, STATE_FILE, State
from .vault import Vault
from .vaultattach import AttachmentNames
from .vaultpaths import inside, safe_relpath

if TYPE_CHECKING:
    from pathlib import Path

    from .options import ExportOptions
    from .redact import Redactor

RENAMED_SECRET = "renamed: its file name held a secret (update links to the old name)"
# (a dry run moves nothing: it lists the note's change at its old name, redacted)
RENAMED_SECRET_DRY = "would be renamed: its file name holds a secret (update links to the old name)"
TEMP_LEFT = (
    "a temporary file an earlier run left here could not be removed (is its folder "
    "read-only?): each run tries again, or delete it yourself (it holds a note's text)"
)
STATE_ANEW, STATE_ANEW_DRY = "this run writes it anew", "a run without --dry-run writes it anew"


def vault_notices(vault: Vault, redactor: Redactor | None, rerender: bool) -> list[Problem]:
    """The warnings a run starts with; ``rerender``: templates, settings or rules changed
    since the notes were written (notes written before redaction, or with other rules)."""
    notices = []
    if vault.state.unreadable:
        anew = STATE_ANEW_DRY if vault.dry_run else STATE_ANEW
        why = (f"could not be used: {vault.state.unreadable}; every source is read again "
               f"and each note found by its session id, so nothing is lost ({anew})")  # fmt: skip
        notices.append(Problem(f"{STATE_DIR}/{STATE_FILE}", why))
    # (what the sweep at the start of this run could not remove; a dry run sweeps nothing)
    notices += [Problem(path, TEMP_LEFT) for path in vaultio.left_behind]
    if redactor and rerender:
        redact_state(vault.state, redactor)
        notices += renamed_notices(vault, rename_secret_paths(vault, redactor))
    return notices


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


# Fewer recorded notes than this all gone is a person's deletion as likely as a lost folder.
NOTES_GONE_MIN = 3
NOTES_GONE = (
    "the {n} session notes ccexport recorded in this vault are all gone ({where} not there), "
    "so this run stops without recording them as deleted by you or writing anything. If a "
    "sync tool is still bringing them back, run again later; to write them again, run "
    "ccexport --restore; if you deleted them on purpose, run ccexport --accept-deleted once"
)


def stop_if_notes_gone(vault: Vault, allowed: bool) -> None:
    """Stop a run that would record every note of the vault as deleted by the person: the
    folder that held them is gone (a sync tool's bad day, a vault restored without it, a
    folder moved out of the vault), which is no decision taken note by note. Each would be
    left deleted for good, and the sessions' sources are pruned after a month. ``--restore``
    writes them again, ``--accept-deleted`` takes them as deleted: either is ``allowed``.
    One stat per top folder; a search by identity only when all are gone (the person may
    have renamed the folder)."""
    if allowed:
        return
    notes = vault.state.notes.items()
    kept = [(k, r.path) for k, r in notes if not r.deleted and not k.startswith(INDEX_PREFIX)]
    if len(kept) < NOTES_GONE_MIN:
        return
    tops = sorted({path.split("/", 1)[0] for _, path in kept})
    if any((vault.root / top).exists() for top in tops):
        return
    if any(vault.path_of(key) for key, _ in kept[:NOTES_GONE_MIN]):
        return  # moved or renamed: found where the person put them
    where = ", ".join(tops[:3]) + (", …" if len(tops) > 3 else "")
    raise ExporterError(NOTES_GONE.format(n=len(kept), where=where))


# Notes looked for by identity to tell where a missing folder went (each a search of the
# vault, but one search reads every note's head once for all of them).
FOLLOW_SAMPLE = 3
FOLDER_FOLLOWED = (
    'the folder "{old}" is not in the vault and its notes are in "{new}" (renamed or moved '
    "in Obsidian): new notes, index notes and the Sessions.base go there too. To make that "
    'the setting and end this warning, set folder = "{new}" in the vault\'s '
    ".ccexport/config.toml"
)


def followed_folder(options: ExportOptions, vault: Vault) -> tuple[ExportOptions, list[Problem]]:
    """The options with the folder new notes go to (``moved_folder``), and the warning."""
    folder, said = moved_folder(vault, options.folder)
    return (replace(options, folder=folder), [said]) if said else (options, [])


def moved_folder(vault: Vault, folder: str) -> tuple[str, Problem | None]:
    """The folder new notes go to: the configured one, or where its notes went when the
    person renamed or moved it inside the vault (it is not there, and the notes recorded in
    it are found, by identity, each at its place below one other folder). Else the next new
    note made a second folder of the old name beside the notes: two trees, two Sessions
    bases, and the projects' index notes split between them."""
    folder = folder.strip("/")
    if not folder or (vault.root / folder).exists() or (vault.root / folder).is_symlink():
        vault.state.folders.pop(folder, None)  # (there again: the person's choice now)
        return folder, None
    moved = recorded_folder(vault.root, vault.state, folder)
    if moved == folder:  # (not known yet, or moved again: from where it was)
        moved = _moved_to(vault, vault.state.folders.get(folder) or folder)
    if moved is None or not inside(moved) or not (vault.root / moved).is_dir():
        return folder, None
    vault.state.folders[folder] = moved  # (the notes' records follow them: asked once)
    return moved, Problem(moved, FOLDER_FOLLOWED.format(old=folder, new=moved))


def recorded_folder(root: Path, state: State, folder: str) -> str:
    """Where the state says the notes of ``folder`` went, while ``folder`` is not in the
    vault and that one is; else ``folder`` (``doctor`` asks, searching nothing)."""
    folder = folder.strip("/")
    moved = state.folders.get(folder)
    if not moved or (root / folder).exists() or not (root / moved).is_dir():
        return folder
    return moved


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


def open_vault(options: ExportOptions) -> tuple[Vault, ExportOptions, list[Problem]]:
    """The vault with its state, which lives all run (``collector_lasting``), and the
    options with the folder the notes are in (``followed_folder``: asked first, while the
    notes' records still say where they were); a run stops here where every note the state
    records is gone (``stop_if_notes_gone``)."""
    with collector_lasting():
        vault = Vault(options.vault, dry_run=options.dry_run, diff=options.diff,
                      force=options.force, restore=options.restore)  # fmt: skip
    options, followed = followed_folder(options, vault)
    stop_if_notes_gone(vault, options.restore or options.accept_deleted)
    vault.attachment_names = AttachmentNames(str(vault.root), options.attachments_folder)
    return vault, options, followed
