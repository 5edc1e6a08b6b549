"""Index notes of this vault that another run wrote over (cli10 5): an earlier version,
exporting into a vault that holds this one as a folder, took this vault's ``Projects.md``
for its own and wrote its list there, links made from its top. The file is ccexport's,
unedited (its end marker's hash holds), yet not what this vault wrote; a run of this vault
with nothing new did not write its index notes again, so only deleting the note and
``--restore`` repaired it. Such a note now has the index notes written again by the run.

Cheap on every run: a stat per index note this vault recorded (on Windows, where a stat
costs a file opened, a listing of their folders gives it); one is read only when it is no
longer the file this vault last wrote (``same_file``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from . import notefile, vaultio, vaultsurvey
from .errors import ExporterError
from .state import State
from .vaultbatch import same_file
from .vaultpaths import inside

READ_AT_MOST = 8 * 1024 * 1024  # an index note past this is left to the next change


def replaced_index_notes(root: Path, state: State) -> list[str]:
    """The index notes (their paths) whose file holds a generated part of ccexport's,
    unedited, other than the one this vault last wrote there."""
    found = []
    listed: dict[str, dict[str, os.stat_result]] = {}  # folder -> name -> stat (Windows)
    for key, record in state.notes.items():
        if not key.startswith(notefile.INDEX_PREFIX) or record.deleted or not inside(record.path):
            continue
        st = _stat(root, record.path, listed)
        if st is None or same_file(record.stat, st) or not record.hash:
            continue  # (gone: the person deleted it, said by the run)
        if _written_over(root, record.path, record.hash, record.lines):
            found.append(record.path)
    return found


def _stat(root: Path, relpath: str, listed: dict[str, dict[str, os.stat_result]]) -> Any:
    if not vaultsurvey.LISTING_GIVES_STAT:  # (read here: a test sets it)
        try:
            return os.lstat(root / relpath)
        except OSError:
            return None
    folder, _, name = relpath.rpartition("/")
    if folder not in listed:
        listed[folder] = {}
        try:
            with os.scandir(root / folder) as entries:
                for entry in entries:
                    listed[folder][entry.name] = entry.stat(follow_symlinks=False)
        except OSError:
            pass
    return listed[folder].get(name)


def _written_over(root: Path, relpath: str, own: str, lines: int) -> bool:
    try:
        read = vaultio.read_file(root, relpath, READ_AT_MOST)
    except (OSError, ExporterError):
        return False  # (a link or FIFO there now: the run's write refuses it, and says so)
    if read is None:
        return False
    parsed = notefile.parse(read[0].decode("utf-8", "replace"), lines)
    if parsed.owned is None or parsed.edited is not False:
        return False  # no generated part, or one the person edited: the run's own rules
    return not notefile.hash_matches(parsed.owned, own[:16])
