"""Finding notes in a vault: what is at a path, which note a file is, every note by identity.

A note is known by its identity (``source`` + ``session_id`` in its frontmatter), not by its
path: the user may move it, and another machine may have written it. These reads are the
part of ``Vault`` that looks at the vault without writing it. They are safe (no link or FIFO
is ever followed or read), cheap for the notes this machine wrote (a ``stat`` instead of a
read), and they settle or commit the vault's write batch first, so a note written this run
is seen as it will be on disk.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from . import notefile, vaultbatch, vaultio
from .state import STATE_DIR, NoteRecord, State
from .vaultbatch import stat_key

HEAD_BYTES = 65_536  # enough for the frontmatter of almost any note
_SKIP_DIRS = {".obsidian", ".trash", ".git", STATE_DIR}


class NoteSurvey:
    """The reading half of ``Vault`` (a base class of it), which sets these attributes."""

    root: Path
    state: State
    _batch: vaultbatch.WriteBatch
    _identities: dict[str, str] | None

    def _kind(self, relpath: str) -> str:
        self._batch.settle(relpath)
        try:
            return vaultio.kind(self.root, relpath)
        except OSError:
            return "other"

    def _frontmatter(self, relpath: str) -> dict[str, Any] | None:
        """The frontmatter of a note file, read safely (never a link or FIFO)."""
        self._batch.settle(relpath)
        try:
            found = vaultio.read_file(self.root, relpath, HEAD_BYTES)
            if found and len(found[0]) == HEAD_BYTES:
                head = found[0].decode("utf-8", "replace")
                if not notefile.has_frontmatter_end(head):
                    found = vaultio.read_file(self.root, relpath)
        except OSError:
            return None
        return notefile.read_frontmatter(found[0].decode("utf-8", "replace")) if found else None

    def _identity_of(self, relpath: str) -> str | None:
        fm = self._frontmatter(relpath)
        return notefile.identity(fm) if fm is not None else None

    def _find_by_identity(self, key: str) -> str | None:
        if self._identities is None:
            self._identities = {}
            for path, k, _, _ in self._survey():
                self._identities.setdefault(k, path)
        found = self._identities.get(key)
        return found if found and self._kind(found) == "file" else None

    def _survey(self) -> Iterator[tuple[str, str, NoteRecord | None, dict[str, Any] | None]]:
        """Every note in the vault that names a session or index: (path, identity, its
        record when the file is still what this machine last wrote, else its frontmatter).
        Notes this machine wrote cost a stat; the others (another machine's) are read.
        A session found twice (a sync tool's copy) yields the recorded path first."""
        by_path = {r.path: (k, r) for k, r in self.state.notes.items()}
        later = []
        for relpath, st in self._note_files():
            known = by_path.get(relpath)
            if known and known[1].stat and known[1].stat == stat_key(st):
                yield relpath, known[0], known[1], None
                continue
            fm = self._frontmatter(relpath)
            key = notefile.identity(fm) if fm is not None else None
            if key:
                later.append((relpath, key, None, fm))
        yield from later

    def _note_files(self) -> Iterator[tuple[str, os.stat_result]]:
        """The regular ``.md`` files of the vault, in a stable order; no link is followed."""
        self._batch.commit()
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
            folder = Path(dirpath).relative_to(self.root).as_posix()  # once per folder
            prefix = "" if folder == "." else folder + "/"
            for name in sorted(filenames):
                if name.endswith(".md") and not name.startswith("."):
                    try:
                        st = os.lstat(os.path.join(dirpath, name))
                    except OSError:
                        continue
                    if stat.S_ISREG(st.st_mode):
                        yield prefix + name, st

    def notes(
        self, describe: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> dict[str, tuple[str, dict[str, Any]]]:
        """Every note in the vault by identity: its path and what ``describe`` makes of its
        frontmatter (from the state for notes unchanged since this machine wrote them). Index
        notes built from this list every machine's sessions, not only this one's."""
        found: dict[str, tuple[str, dict[str, Any]]] = {}
        for relpath, key, record, fm in self._survey():
            if key not in found:
                meta = record.meta if record is not None else describe(fm or {})
                found[key] = (relpath, meta)
        return found
