"""Attachments the person renamed: followed, not copied again.

ccexport names each attached file by the hash of its content (``<16 hex>.<ext>`` in the
attachments folder) and embeds it by that path. A person who renames such a file in
Obsidian (``shot.png`` for ``7f99182cd4231406.png``) has Obsidian rewrite every embed of
it, the ones in generated parts too. Two things then follow from the content alone, with
no record kept:

- the embed Obsidian rewrote is not the person's edit of the generated part: the file it
  leads to holds the content the written name was made from (``written_name``);
- the next time the note is written, it embeds the file under the person's name, and no
  second copy is written under the hash name (``AttachmentNames.renamed``).

Only a file in the attachments folder is looked for by name (a file moved elsewhere is
found through a path in the link, else copied again, which loses nothing). A file renamed
twice between two updates of its note is not recognised: the note gets a conflict copy, as
for any edit of its generated part.

A file the person deleted stays deleted, as a deleted note does: the state records the
files ccexport wrote into the folder (``State.attachments``), and one recorded and gone,
not renamed, is not copied again; the note says in its place that it was deleted
(``embed_renamed`` with a ``Deleted``), by the name the person last saw it under (review43
L7): the record keeps, for each file gone from its hash name, the name it was last found
under (``Recorded.names``), learned where a note is written (``renamed``) and at each
run's end (``recorded``: a file missing from its hash name is looked for once, by content).
``--restore`` copies it back. Without the record (the state lost, another machine), the
files in the folder are recorded anew, and one deleted before that is copied back.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from collections.abc import Iterable

_HASH_NAME = re.compile(r"[0-9a-f]{16}")


def written_name(name: str) -> bool:
    """Is ``name`` one ccexport gives a file it copies (its content's hash, an extension)?
    Any other file in the folder is the person's (or one of ours they renamed)."""
    return bool(_HASH_NAME.fullmatch(name.rpartition(".")[0] or name))


# What a link target may not hold (Obsidian refuses these in a name, or a link breaks).
_UNLINKABLE = re.compile(r"[\[\]|#^\n\r]")
_READ_AT_MOST = 64 << 20  # a larger file in the folder is not one ccexport wrote


def content_name(data: bytes) -> str:
    """The stem ccexport gives an attachment holding ``data``."""
    return hashlib.sha256(data).hexdigest()[:16]


class Deleted(str):
    """The path of a file ccexport wrote that the person deleted (``AttachmentNames.renamed``):
    not copied again, its embeds say so, by ``name``: the one the person last saw it under
    (theirs, if they renamed it before deleting it; else its own)."""

    name: str

    def __new__(cls, relpath: str, seen: str | None = None) -> Deleted:
        deleted = super().__new__(cls, relpath)
        deleted.name = (seen or relpath).rpartition("/")[2]
        return deleted


class Recorded(list[str]):
    """The state's record of the files ccexport wrote into the folder (their hash names),
    and ``names``: for each one gone from its hash name, the path it was last found under
    (the person's name for it; its own, once found under none). Saved beside the list
    (``state.json``'s ``attachment_names``, which an older version ignores); a record that
    differs only in its names differs, so that a run that learns one saves it."""

    def __init__(self, paths: Iterable[str] = (), names: dict[str, str] | None = None) -> None:
        super().__init__(paths)
        self.names = dict(names or {})

    def __eq__(self, other: object) -> bool:
        return list.__eq__(self, other) is True and self.names == getattr(other, "names", {})

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # (a list: not hashable)


# What a note says in place of a file the person deleted (as of a file not copied: italic).
DELETED_WORDS = "*`{name}` was deleted from the vault, and is not copied again.*"


class AttachmentNames:
    """The attachments folder's files under names of the person's choosing, by content, and
    those the person deleted."""

    def __init__(self, root: str, folder: str) -> None:
        self.root = root
        self.folder = folder.strip("/")
        self._by_content: dict[str, str] | None = None  # hash stem -> path in the vault
        # The files ccexport wrote into the folder, as the state records them (``remember``);
        # None: not told (every missing file is copied, as before).
        self.written: set[str] | None = None
        self.restore = False  # ``--restore``: a deleted file is copied back
        self._copied: set[str] = set()  # missing ones let be copied this run
        # Written files gone from their hash names -> the path each was last found under.
        self.names: dict[str, str] = {}

    def remember(self, written: list[str] | None, restore: bool = False) -> None:
        """Take the state's record of the files ccexport wrote (with the names they were
        last found under, ``Recorded``). Without one (a state an older version wrote, or
        none), every hash-named file in the folder now is taken for one (the record is
        then saved by this run)."""
        self.restore = restore
        if written is not None:
            self.written = set(written)
            names = getattr(written, "names", {})
            self.names = {k: v for k, v in names.items() if k in self.written}
            return
        self.written = set()
        try:
            entries = list(os.scandir(os.path.join(self.root, self.folder)))
        except OSError:
            return
        for entry in entries:
            if written_name(entry.name) and not _UNLINKABLE.search(entry.name):
                self.written.add(f"{self.folder}/{entry.name}")

    def recorded(self) -> Recorded | None:
        """The record to save: the files written before and those copied this run that
        are there now (one whose copy failed is not taken for one later deleted); with the
        name each one gone from its hash name was last found under (``_learn_names``)."""
        if self.written is None:
            return None
        for relpath in self._copied - self.written:
            if os.path.lexists(os.path.join(self.root, relpath)):
                self.written.add(relpath)
        self._copied.clear()
        self._learn_names()
        return Recorded(sorted(self.written), self.names)

    def _learn_names(self) -> None:
        """Keep the name of each written file the person renamed since, though no note of
        it was written, so that the note, should they delete it later, names it as they
        last saw it: the folder listed once a run, its files read (``_scan``) only when one
        of ours is gone from its hash name with no name known for it yet. One there again
        under its hash name (``--restore``) has none."""
        try:
            there = set(os.listdir(os.path.join(self.root, self.folder)))
        except OSError:
            return
        prefix = f"{self.folder}/"
        for relpath in [k for k in self.names if k not in self.written]:
            del self.names[relpath]
        gone = []
        for relpath in sorted(self.written):
            name = relpath.removeprefix(prefix)
            if name in there:
                self.names.pop(relpath, None)
            elif relpath not in self.names and relpath.startswith(prefix) and "/" not in name:
                gone.append(relpath)
        if not gone:
            return
        if self._by_content is None:
            self._by_content = self._scan()
        for relpath in gone:  # (found under no name: deleted, known by its own)
            stem = relpath.rpartition("/")[2].rpartition(".")[0]
            self.names[relpath] = self._by_content.get(stem, relpath)

    def _scan(self) -> dict[str, str]:
        """Each file in the folder whose stem is not a hash, by the hash of its content
        (read once a run, the first time a hash-named file is missing)."""
        found: dict[str, str] = {}
        try:
            entries = list(os.scandir(os.path.join(self.root, self.folder)))
        except OSError:
            return found
        for entry in sorted(entries, key=lambda e: e.name):
            stem = entry.name.rpartition(".")[0] or entry.name
            if _HASH_NAME.fullmatch(stem) or _UNLINKABLE.search(entry.name):
                continue
            try:
                if not entry.is_file(follow_symlinks=False):
                    continue
                if entry.stat(follow_symlinks=False).st_size > _READ_AT_MOST:
                    continue
                with open(entry.path, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            found.setdefault(content_name(data), f"{self.folder}/{entry.name}")
        return found

    def renamed(self, relpath: str) -> str | None:
        """Where the person keeps the file ccexport names ``relpath`` (a hash name in the
        attachments folder, missing), renamed; a ``Deleted`` when they deleted it (ccexport
        wrote it, and it is not there under another name either); None when it is to be
        copied (new, or ``--restore``)."""
        folder, _, name = relpath.rpartition("/")
        stem = name.rpartition(".")[0]
        if folder != self.folder or not _HASH_NAME.fullmatch(stem):
            return None
        if self._by_content is None:
            self._by_content = self._scan()
        found = self._by_content.get(stem)
        if found is None and self.written is not None:
            if relpath in self.written and not self.restore:
                return Deleted(relpath, self.names.get(relpath))
            self._copied.add(relpath)
            self.names.pop(relpath, None)  # (copied again under its own name)
        elif found is not None and relpath in (self.written or ()):
            self.names[relpath] = found
        return found

    def written_name(self, target: str, note_folder: str) -> str | None:
        """The path ccexport embedded a file by, when the link ``target`` (as Obsidian
        wrote it: a path in the vault, a path relative to the linking note, or a name in
        the attachments folder) leads to a file in the vault: the hash name of what it
        holds. None when it leads to no such file."""
        target = target.strip()
        candidates = [target, posixpath.join(note_folder, target)]
        if "/" not in target:
            candidates.append(f"{self.folder}/{target}")
        candidates = [posixpath.normpath(c) for c in candidates]
        for path in candidates:
            if path.startswith(("../", "/")) or path == ".." or path.endswith(".md"):
                continue
            full = os.path.join(self.root, path)
            try:
                if os.path.islink(full) or not os.path.isfile(full):
                    continue
                if os.stat(full).st_size > _READ_AT_MOST:
                    continue
                with open(full, "rb") as f:
                    data = f.read()
            except (OSError, ValueError):
                continue
            name, dot, ext = path.rpartition("/")[2].rpartition(".")
            return f"{self.folder}/{content_name(data)}.{ext}" if dot and name else None
        # A file the person renamed, then deleted: the embed Obsidian rewrote leads nowhere
        # now, but the record knows whose name it was.
        return next((k for k, v in self.names.items() if v != k and v in candidates), None)


def embed_renamed(body: str, relpath: str, renamed: str) -> str | None:
    """``body`` with every link to ``relpath`` leading to ``renamed`` instead; None when
    ``relpath`` is also named where a link is not (a template's own use of the path), so
    that the file keeps its hash name there too. A ``Deleted`` file: every embed of it
    (or link) says instead that it was deleted; the body is never None, so it is not
    copied again."""
    if isinstance(renamed, Deleted):
        link = re.compile(r"!?\[\[" + re.escape(relpath) + r"(?:\|[^\]\n]*)?\]\]")
        words = DELETED_WORDS.format(name=renamed.name)
        return link.sub(lambda _m: words, body)
    links = body.count(f"[[{relpath}]]") + body.count(f"[[{relpath}|")
    if links != body.count(relpath):
        return None
    return body.replace(f"[[{relpath}]]", f"[[{renamed}]]").replace(
        f"[[{relpath}|", f"[[{renamed}|"
    )
