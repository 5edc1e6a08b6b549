"""The stop before a run that would take a lost folder of notes for the person's deletions:
every recorded note gone at once, more than half of them, or every note of one source's
folder (a sync tool's bad day, a vault restored without its notes). ``runstart.open_vault``
asks it first; ``ccexport doctor`` asks it too."""

from __future__ import annotations

import os
import posixpath
from collections import Counter
from pathlib import Path

from .errors import ExporterError
from .notefile import INDEX_PREFIX
from .state import State
from .vault import Vault

# Fewer recorded notes than this gone at once is a person's deletion as likely as a lost folder.
NOTES_GONE_MIN = 3
# More than half of the recorded notes gone at once, and at least this many: a partial
# restore, or a sync tool still bringing a folder back (review29 F3: 40 of 41 were taken as
# the person's deletion). A person deletes notes a few at a time, or a project's folder;
# half of every note in one go is a clean-up rare enough to confirm once (--accept-deleted).
NOTES_GONE_PART_MIN = 10
NOTES_GONE = (
    "the {n} session notes ccexport recorded in this vault are all gone{apart} ({where}), "
    "so this run stops without recording them as deleted by you or writing anything. "
    "If a sync tool is still bringing them back, run again later; to write them again, run "
    "ccexport --restore; if you deleted them on purpose, run ccexport --accept-deleted once"
)
NOTES_GONE_PART = (
    "{gone} of the {n} session notes ccexport recorded in this vault are gone at once{apart} "
    "(most were in {where}), too many to be notes deleted one by one, so this run stops "
    "without recording them as deleted by you or writing anything. If a sync tool is still "
    "bringing them back, run again later; to write them again, run ccexport --restore; if "
    "you deleted them on purpose, run ccexport --accept-deleted once"
)
# Every recorded note of one source gone at once, this many at least, while the vault's
# other notes are there: its folder lost whole (review43 L1: a sync tool that lost
# "AI Sessions/claude-code/", 23 of 73 notes, was taken for 23 deletions of the person's).
NOTES_GONE_FOLDER = (
    "{listed} gone at once, every one, while the vault's other notes are there: a folder "
    "lost whole, not notes deleted one by one, so this run stops without recording them as "
    "deleted by you or writing anything. If a sync tool is still bringing them back, run "
    "again later; to write them again, run ccexport --restore; if you deleted them on "
    "purpose, run ccexport --accept-deleted once"
)
# Said of the notes gone whose sessions this machine does not have: a run with
# --accept-deleted counts only the others among its "deleted" (review43 L2: the stop said
# 57 gone, the run after it "55 deleted").
NOT_HERE = (
    " ({here} of sessions on this machine, {n} of sessions it does not have: another "
    "machine's, or ones whose source is gone from here)"
)


def stop_if_notes_gone(vault: Vault, allowed: bool) -> None:
    """Stop a run that would record every note of the vault, or more than half of them, or
    every note of one source's folder (``_whole_folders``), as deleted by the person: the
    folder that held them is gone, or came back in part (a sync tool's bad day, a vault
    restored without it or from an older backup, a folder moved out of the vault), which
    is no decision taken note by note. Each would be left deleted for good, and the
    sessions' sources are pruned after a month. ``--restore`` writes them again,
    ``--accept-deleted`` takes them as deleted: either is ``allowed``. One listing per
    folder; a search by identity only when too many are missing (they may have moved)."""
    if allowed:
        return
    notes = vault.state.notes.items()
    kept = [(k, r.path) for k, r in notes if not r.deleted and not k.startswith(INDEX_PREFIX)]
    if len(kept) < NOTES_GONE_MIN:
        return
    missing = _missing(vault, kept)
    if not _too_many(missing, kept) and not _whole_folders(missing, kept):
        return
    # (moved or renamed: found where the person put them; one search reads every note once;
    # or found under a name that is not UTF-8, left out and said: ``vaultpaths.LeftOut``)
    gone = [(k, p) for k, p in missing if not vault.path_of(k)
            and k not in vault.left_out.keys and not vault.in_cloud_only(p)]  # fmt: skip
    if not _too_many(gone, kept):
        if folders := _whole_folders(gone, kept):
            raise ExporterError(NOTES_GONE_FOLDER.format(listed=_folders_listed(folders)))
        return
    tops = Counter(path.split("/", 1)[0] for _, path in gone)
    where = ", ".join(top for top, _ in tops.most_common(3)) + (", …" if len(tops) > 3 else "")
    not_here = _not_here(vault.state, gone)
    apart = NOT_HERE.format(here=len(gone) - not_here, n=not_here) if not_here else ""
    if len(gone) == len(kept):
        where = _not_there(vault.root, [path for _, path in gone]) or f"they were in {where}"
        raise ExporterError(NOTES_GONE.format(n=len(kept), where=where, apart=apart))
    raise ExporterError(
        NOTES_GONE_PART.format(gone=len(gone), n=len(kept), where=where, apart=apart)
    )


def _not_there(root: Path, paths: list[str]) -> str | None:
    """``AI Sessions/claude-code not there``: the folders that held the notes and are gone
    themselves (each the highest such folder, up to three), when every note was in one; None
    when some note's folders are all there (the notes were deleted, not their folder). Not
    the notes' top folder, which may still hold the index notes (review50 L2)."""
    missing: Counter[str] = Counter()
    there: dict[str, bool] = {}  # folder -> is it there (thousands of notes share a few)
    for path in paths:
        parts = path.split("/")[:-1]
        folders = ("/".join(parts[: i + 1]) for i in range(len(parts)))
        folder = next((f for f in folders if not there.setdefault(f, (root / f).is_dir())), None)
        if folder is None:
            return None
        missing[folder] += 1
    named = [folder for folder, _ in missing.most_common(3)]
    return ", ".join(named) + (", …" if len(missing) > 3 else "") + " not there"


def _too_many(gone: list[tuple[str, str]], kept: list[tuple[str, str]]) -> bool:
    """All of the recorded notes, or more than half and at least ``NOTES_GONE_PART_MIN``."""
    return len(gone) * 2 > len(kept) and len(gone) >= min(len(kept), NOTES_GONE_PART_MIN)


def _whole_folders(
    gone: list[tuple[str, str]], kept: list[tuple[str, str]]
) -> list[tuple[str, str, int]]:
    """(source, folder, how many) for each source whose every recorded note is ``gone``, at
    least ``NOTES_GONE_PART_MIN`` of them, all below one folder that holds no other
    source's note (its own: ``AI Sessions/claude-code`` by the default layout). A person
    deletes a few notes, or a project's folder; a layout without the source's folder
    (``{project}``) gives no folder of one source, and a source with notes elsewhere
    (moved by the person, and there) is not gone whole."""
    by_source: dict[str, list[str]] = {}
    for key, path in gone:
        by_source.setdefault(key.partition(":")[0], []).append(path)
    recorded = Counter(key.partition(":")[0] for key, _ in kept)
    found = []
    for source, paths in sorted(by_source.items()):
        if len(paths) < max(NOTES_GONE_PART_MIN, recorded[source]):
            continue
        folder = posixpath.commonpath([posixpath.dirname(path) for path in paths])
        others = (k for k, p in kept if not k.startswith(source + ":"))
        if folder and not any(p.startswith(folder + "/") for p in others):
            found.append((source, folder, len(paths)))
    return found


def _folders_listed(folders: list[tuple[str, str, int]]) -> str:
    said = [f"the {n} session notes of {source} ccexport recorded in {folder}/ are"
            for source, folder, n in folders]  # fmt: skip
    return "; ".join(said)


def _not_here(state: State, gone: list[tuple[str, str]]) -> int:
    """How many of the ``gone`` notes are of sessions this machine does not have: their
    unit, as the state records it, is a file not on this disk (another machine's home, or
    a source pruned). A run reads no such session, so it leaves their notes alone."""
    keys = {key for key, _ in gone}
    absent = 0
    for unit, record in state.sources.items():
        mine = keys.intersection(record.get("notes", ()))
        here = os.path.lexists(unit) or os.path.lexists(unit.rpartition("#")[0])
        if mine and not here:
            absent += len(mine)
            keys -= mine
    return absent


def _missing(vault: Vault, kept: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The recorded notes not in their folder's listing (read once a run, and kept for the
    run's own checks: a vault of 20,000 notes in 25 folders costs 25 listings)."""
    return [(key, path) for key, path in kept if not vault.listed(path)]
