"""A run's mark in the vault: ``.ccexport/running`` while it writes. A run that finds the
mark left (killed, or leaving temp files a failure could not remove) first sweeps the temp
files of ours it left behind."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from . import vaultio, vaultunrecorded
from .state import LOCK_FILE, STATE_DIR
from .vaultpaths import CODE_TREES, VENV_MARK
from .vaultsurvey import skipped_folder

if TYPE_CHECKING:
    from .vault import Vault

RUNNING_MARKER = "running"  # while a run writes; left by a killed run, or one leaving temps


def begin_run(vault: Vault) -> int:
    """Mark a run as started; if the last one never finished, sweep what it left."""
    marker = f"{STATE_DIR}/{RUNNING_MARKER}"
    vaultio.left_behind.clear()
    removed = 0 if vault.is_missing(marker) else sweep_temp_files(vault.root)
    vault.state_folder_at_start = _state_folder(vault.root)
    vaultio.write_file(vault.root, marker, b"")
    return removed


def end_run(vault: Vault) -> None:
    vaultunrecorded.run_finished(vault)  # (said by this run: the next one has a record)
    if vaultio.left_behind:  # temp files a failure could not remove: the next run sweeps
        return
    vaultio.remove_file(vault.root, f"{STATE_DIR}/{RUNNING_MARKER}")
    began, now = vault.state_folder_at_start, _state_folder(vault.root)
    if began is not None and now is not None and began[1] == now[1]:
        # Nothing in .ccexport changed but the marker, which came and went: its time is put
        # back, so that a re-run over unchanged sources changes nothing at all.
        with contextlib.suppress(OSError, NotImplementedError):
            os.utime(vault.root / STATE_DIR, ns=began[0], follow_symlinks=False)


_Folder = tuple[tuple[int, int], dict[str, tuple[int, int, int]]]


def _state_folder(root: Path) -> _Folder | None:
    """.ccexport's (atime, mtime), and each entry's inode, time and size but the marker's
    and the lock's (a file written or replaced, a folder made: the folder's time is true)."""
    folder = root / STATE_DIR
    try:
        st = os.stat(folder, follow_symlinks=False)
        names = [n for n in os.listdir(folder) if n not in (RUNNING_MARKER, LOCK_FILE)]
        entries = {n: os.stat(folder / n, follow_symlinks=False) for n in names}
    except OSError:
        return None  # unknown: its time is never put back
    return (st.st_atime_ns, st.st_mtime_ns), {
        n: (e.st_ino, e.st_mtime_ns, e.st_size) for n, e in entries.items()
    }


def sweep_temp_files(root: Path) -> int:
    """Remove the temp files a killed run left behind (names start with a dot): beside
    notes, and in ``.ccexport``; never in another tool's folder (a sync tool's archive),
    nor in a folder that is a ccexport vault of its own (its ``.ccexport/``): that vault's
    run may be writing them now; nor in a tree of code (``node_modules``, a virtual
    environment: ``vaultpaths.CODE_TREES``), where no run writes and a walk takes long."""
    removed = 0
    for dirpath, dirnames, filenames in os.walk(root):
        if Path(dirpath) != root and (STATE_DIR in dirnames or VENV_MARK in filenames):
            dirnames.clear()
            continue
        dirnames[:] = [
            d for d in dirnames if d == STATE_DIR or not (skipped_folder(d) or d in CODE_TREES)
        ]
        for name in filenames:
            if vaultio.is_temp_name(name):
                rel = Path(dirpath, name).relative_to(root).as_posix()
                try:
                    removed += vaultio.remove_file(root, rel)
                except OSError:  # its folder still read-only: a later run sweeps it
                    vaultio.left_behind.append(rel)
    return removed
