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
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from . import notefile, vaultbatch, vaultio, vaultlinks
from .notecopies import behind, choose_note, copy_of, older_copy, own_older
from .state import NoteRecord, State
from .vaultbatch import same_file, stat_key
from .vaultpaths import LeftOut, inside, skipped_folder

HEAD_BYTES = 65_536  # enough for the frontmatter of almost any note
# Windows' folder listings give each file's time and size for free; elsewhere each costs a stat.
LISTING_GIVES_STAT = os.name == "nt"
READ_KEPT = 4  # files of a note remembered as read (``replaced``): a few machines' each
_UNNAMED: dict[Path, dict[str, tuple[int, int, int]]] = {}


def unnamed_notes(root: Path) -> dict[str, tuple[int, int, int]]:
    """The notes of the vault at ``root`` that name no session, by path: the inode, time
    and size each had when it was read. Kept for the life of the process, so that
    ``watch``'s rounds in a vault of the person's thousands of notes read them once."""
    return _UNNAMED.setdefault(root, {})


LISTED_TITLES = 4  # the titles of the person's kept per note for their links (the latest)


class NoteSurvey:
    """The reading half of ``Vault`` (a base class of it), which sets these attributes."""

    root: Path
    state: State
    _batch: vaultbatch.WriteBatch
    _identities: dict[str, str] | None
    _moved: bool
    relist: bool  # the index notes are to be written again this run
    run: int  # this run's stamp (``State.run``)
    scrub: Callable[[str], str]  # redaction of what the vault quotes and the state keeps
    _targets: vaultlinks.LinkTargets | None  # which note a link leads to, once built
    _last_move: int | None  # the last run that found a note moved (None: not looked yet)
    _note_inodes: set[int] | None  # the inodes the notes were written with (``same_note``)
    # key -> (the note chosen, the other files naming the same session), at the last ``notes``
    copies: dict[str, tuple[str, list[str]]]
    _listings: dict[str, dict[str, os.stat_result | None]]  # folder -> names (_listing)
    restore: bool  # --restore: a note the person deleted is written again
    dry_run: bool
    _noted: set[str]  # the notes this run wrote (a dry run: would write) and recorded
    # The notes that name no session or index, as the last survey found them: a first export
    # surveys twice (notes another machine wrote, then the index notes' list), and ``watch``
    # once a round; a note that stays as it was is not read again (``unnamed_notes``).
    _unnamed: dict[str, tuple[int, int, int]]

    def _kind(self, relpath: str) -> str:
        self._batch.settle(relpath)
        try:
            return vaultio.kind(self.root, relpath)
        except OSError:
            return "other"

    def _frontmatter(self, relpath: str, named: bool = False) -> dict[str, Any] | None:
        """The frontmatter of a note file, read safely (never a link or FIFO). ``named``:
        only of a note whose text holds a key that names a session or an index; the
        person's own notes, most of a vault, are then passed over without parsing (in a
        vault of 20,000 of them, YAML took 2 s of every run that wrote an index note)."""
        self._batch.settle(relpath)
        try:
            found = vaultio.read_file(self.root, relpath, HEAD_BYTES)
            if found and len(found[0]) == HEAD_BYTES:
                head = found[0].decode("utf-8", "replace")
                if not notefile.has_frontmatter_end(head):
                    found = vaultio.read_file(self.root, relpath)
        except OSError:
            return None
        if not found or named and not any(k in found[0] for k in notefile.IDENTITY_KEYS):
            return None
        return notefile.read_frontmatter(found[0].decode("utf-8", "replace"))

    def holds_another(self, relpath: str, key: str) -> bool:
        """Is another session's note at ``relpath`` (given the freed name of ``key``'s)?"""
        return self._identity_of(relpath) not in (None, key)

    def _identity_of(self, relpath: str) -> str | None:
        fm = self._frontmatter(relpath, named=True)
        return notefile.identity(fm) if fm is not None else None

    def _follow(self, key: str, record: NoteRecord, path: str) -> None:
        """The note was moved to ``path``. If that changes how it is linked, the index
        notes are written again this run: their links to it would lead nowhere (a move
        outside Obsidian), or be Obsidian's, which the next change of an index would
        otherwise first have to undo."""
        if path == record.path:
            return
        was = vaultlinks.remembered(key, record, path, self.run, self.scrub)
        if was is not record.was:
            self.state.run = self._last_move = self.run
            self.relist = True
        if self._targets is not None:
            self._targets.move(key, record.path, path)
        record.was, record.path = was, path
        self._moved = True

    def identities(self) -> dict[str, str]:
        """Every note in the vault that names a session or an index, by its identity: the
        search by identity, made once a run (``path_of`` uses it too)."""
        self._find_by_identity("")
        return self._identities or {}

    def properties(self, relpath: str) -> dict[str, Any] | None:
        """The frontmatter of a note naming a session or index, read safely; else None."""
        return self._frontmatter(relpath, named=True)

    def listed(self, relpath: str) -> bool:
        """Is the note's name in its folder's listing (``_listed``)?"""
        return self._listed(relpath)

    def _find_by_identity(self, key: str) -> str | None:
        if self._identities is None:
            every: dict[str, list[str]] = {}
            for path, k, _, _ in self._survey():
                every.setdefault(k, []).append(path)
            self._identities = {k: choose_note(paths, None) for k, paths in every.items()}
        found = self._identities.get(key)
        return found if found and self._kind(found) == "file" else None

    def _survey(self) -> Iterator[tuple[str, str, NoteRecord | None, dict[str, Any] | None]]:
        """Every note in the vault that names a session or index: (path, identity, its
        record when the file is still what this machine last wrote, else its frontmatter).
        Notes this machine wrote cost a stat; the others (another machine's) are read.
        A session found twice (a sync tool's copy) is yielded twice: see ``notecopies._rank``."""
        by_path = {r.path: (k, r) for k, r in self.state.notes.items()}
        later = []
        unnamed: dict[str, tuple[int, int, int]] = {}
        for relpath, st in self._note_files():
            known = by_path.get(relpath)
            if known and self.same_note(known[1], st):
                self._restamp(known[1], st)
                yield relpath, known[0], known[1], None
                continue
            seen = (st.st_ino, st.st_mtime_ns, st.st_size)
            if self._unnamed.get(relpath) == seen:
                unnamed[relpath] = seen
                continue  # the person's own note, read by an earlier survey
            fm = self._frontmatter(relpath, named=True)
            key = notefile.identity(fm) if fm is not None else None
            if key and not self.left_out.undecodable(relpath, key):
                later.append((relpath, key, None, fm))
            else:
                unnamed[relpath] = seen
        self._unnamed.clear()  # (only the notes still there)
        self._unnamed.update(unnamed)
        yield from later

    def note_files(self, ending: str = ".md") -> Iterator[tuple[str, os.stat_result]]:
        """The regular ``.md`` files of the vault (``_note_files``), or those of another
        ``ending`` (a canvas's)."""
        return self._note_files(ending)

    def _note_files(self, ending: str = ".md") -> Iterator[tuple[str, os.stat_result]]:
        """The regular ``.md`` files of the vault (or of another ``ending``), in a stable
        order; no link is followed."""
        self._batch.commit()
        for dirpath, dirnames, filenames in os.walk(self.root):
            folder = Path(dirpath).relative_to(self.root).as_posix()  # once per folder
            prefix = "" if folder == "." else folder + "/"
            left_out = self.left_out
            if prefix and (
                left_out.vault_of_its_own(folder, dirnames) or left_out.code_tree(folder, filenames)
            ):
                dirnames.clear()
                continue
            dirnames[:] = sorted(d for d in dirnames if not skipped_folder(d))
            for name in sorted(filenames):
                if name.endswith(ending) and not name.startswith("."):
                    try:
                        st = os.lstat(os.path.join(dirpath, name))
                    except OSError:
                        continue
                    if stat.S_ISREG(st.st_mode):
                        yield prefix + name, st

    @property
    def left_out(self) -> LeftOut:
        """What the walks of the vault left out (``vaultpaths.LeftOut``), said once a run."""
        found: LeftOut | None = getattr(self, "_left_out", None)
        if found is None:
            found = self._left_out = LeftOut(self.root, self.state)
        return found

    def leads_nowhere(self, target: str, folder: str) -> bool:
        """Does a link target lead to no note in the vault, as Obsidian resolves one: by
        its path in the vault, from the linking note's ``folder``, or by name anywhere?
        (A walk of the vault: asked only of a link no note ccexport wrote is known by.)"""
        target, paths = vaultlinks.link_paths(target, folder)
        for relpath, _ in self._note_files():
            bare = relpath[:-3]
            if bare in paths or ("/" not in target and vaultlinks.stem(relpath) == target):
                return False
        return True

    def notes(
        self, describe: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> dict[str, tuple[str, dict[str, Any]]]:
        """Every note in the vault by identity: its path and what ``describe`` makes of its
        frontmatter (from the state for notes unchanged since this machine wrote them). Index
        notes built from this list every machine's sessions, not only this one's. A session
        in several files is listed at the one ``choose_note`` chooses, the others in
        ``copies``."""
        found: dict[str, tuple[str, dict[str, Any]]] = {}
        every: dict[str, list[str]] = {}  # key -> every file naming it
        metas: dict[str, dict[str, Any]] = {}
        shape = describe({}).keys()  # what is listed about a note
        for relpath, key, record, fm in self._survey():
            every.setdefault(key, []).append(relpath)
            if record is None:
                metas[relpath] = describe(fm or {})
            elif record.meta.keys() == shape or key.startswith(notefile.INDEX_PREFIX):
                metas[relpath] = record.meta
            else:  # kept by an older version, without something now listed: read once
                metas[relpath] = record.meta = describe(self._frontmatter(relpath) or {})
                self._moved = True  # (the state is written with it)
        self.copies = {}
        for key, paths in every.items():
            record = self.state.notes.get(key)
            chosen = choose_note(paths, record.path if record is not None else None)
            found[key] = (chosen, metas[chosen])
            if record is not None and record.path not in paths and not record.deleted:
                # Moved where no unit of this run looked (its transcript is gone, or the
                # run was narrowed): the record follows it, as ``path_of`` would have.
                # (A renamed "X (done).md" reads as a sync tool's copy of X: a copy only
                # when another file names the session too.)
                copied = len(paths) > 1 and copy_of(chosen, record.path)
                if self._kind(record.path) == "missing" and not copied:
                    self._follow(key, record, chosen)
            if len(paths) == 1:
                continue
            self.copies[key] = (chosen, sorted(p for p in paths if p != chosen))
            if record is not None and record.path != chosen and record.path in paths:
                # This machine wrote a copy (its state said so): from the next run it
                # writes the note every machine chooses, or the two would each grow one;
                # its source is read again then, so that note gets what the copy got.
                record.path, record.stat = chosen, []
                self._moved = True
                for unit, source in self.state.sources.items():
                    if key in source.get("notes", ()):
                        self.state.outdate(unit)
        # The notes iCloud keeps in the cloud only are listed as on a machine that holds
        # them (the index notes of both are the same).
        for key, record in self.state.notes.items():
            if key not in found and not record.deleted and self.in_cloud_only(record.path):
                found[key] = (record.path, record.meta)
        self._remember_titles(found)
        if self.dry_run:  # what it would write is in the state, not on disk: listed as it
            for key in self._noted:
                record = self.state.notes.get(key)
                if (
                    record is not None
                    and not record.deleted
                    and not key.startswith(notefile.INDEX_PREFIX)
                ):
                    found[key] = (record.path, record.meta)
        return found

    def _remember_titles(self, found: dict[str, tuple[str, dict[str, Any]]]) -> None:
        """The titles the index notes list: a note's own, as its properties hold it (the
        person's, where they retitled it; the state's record keeps ccexport's until the note
        is written again). The links of an index note say the title it was written with,
        which a later retitle does not change: each is kept (the last few), so that a link
        Obsidian rewrote to a name no note has is still known by it (``vaultlinks``)."""
        titles = self.state.titles
        for key, (_path, meta) in found.items():
            title = meta.get("title") if meta else None
            record = self.state.notes.get(key)
            if type(title) is not str or record is None or title == record.meta.get("title"):
                continue
            if key.startswith(notefile.INDEX_PREFIX):
                continue  # (an index note is linked by its path, never by its title)
            known = titles.get(key, [])
            if title not in known:
                titles[key] = [*known, title][-LISTED_TITLES:]
                self._moved = True  # (the state is written with it)
        for key in [k for k in titles if k not in self.state.notes]:
            del titles[key]  # (a note dropped from the state)
        if self._targets is not None:
            self._targets.listed(titles)

    def _listed(self, relpath: str) -> bool:
        """Its name is in its folder's listing, read once a run: a no-op run checks every
        note, and 20,000 notes in 25 folders cost 25 listings instead of 20,000 ``lstat``.
        Only names are read, so a link on the way does no harm; a name not listed (or a
        folder that cannot be listed) is looked at by the safe walk, which decides."""
        folder, _, name = relpath.rpartition("/")
        return name in self._listing(folder, relpath)

    def _listing(self, folder: str, relpath: str) -> dict[str, os.stat_result | None]:
        """A folder's names, each with its time and size where the listing gives them for
        free (Windows: ``replaced`` then needs no ``stat`` for a note as written; else None)."""
        names = self._listings.get(folder)
        if names is None:
            names = {}
            if inside(relpath):  # a damaged or planted state: no folder outside is listed
                try:
                    path = os.path.join(self.root, folder)
                    if LISTING_GIVES_STAT:
                        with os.scandir(path) as entries:
                            names = {e.name: e.stat(follow_symlinks=False) for e in entries}
                    else:
                        names = dict.fromkeys(os.listdir(path))
                except (OSError, ValueError):
                    names = {}
            self._listings[folder] = names
        return names

    def replaced(self, record: NoteRecord, key: str) -> bool:
        """Is the note another file than the one this machine last wrote or read: an older
        copy put in its place (taken back from a sync tool's versions or a backup, ``git
        checkout``, ``cp -p`` into the note)? Its generated part may then be out of date
        while its source is not. A file with the time and size it was written with is the
        note (under a new inode: a vault copied with its times, or a file system that numbers
        inodes anew at each mount); any other is read, and its generated part decides
        (``notecopies.older_copy``, ``behind``): a note the person edited in place, or another
        machine's copy of the same note, costs no re-read of its session. A note gone from
        its place is looked for by identity first: moved, the file there is compared (else
        this run would follow the move and leave the comparison to the next, which would
        then read the unit and write the state again)."""
        if len(record.stat) < 3:  # never written by this machine, or not known
            return False
        if not self._listed(record.path) and not self.in_cloud_only(record.path):
            moved = self._find_by_identity(key)  # (None: deleted, the deletion check says so)
            if moved:
                self._follow(key, record, moved)
        folder, _, name = record.path.rpartition("/")
        listing = self._listing(folder, record.path)
        if name not in listing:
            return False  # gone (the deletion check decides), or in the cloud only
        listed = listing[name]
        if listed is not None and same_file(record.stat, listed):
            return False  # as written (Windows: its listing has no inode to restamp)
        try:
            now = os.lstat(os.path.join(self.root, record.path))
        except (OSError, ValueError):
            return False  # gone meanwhile: the deletion check decides
        if same_file(record.stat, now):
            if self._own_inode(record, now):
                self._restamp(record, now)
            return False  # (another note's file renamed onto its path: the writes decide)
        seen = stat_key(now)
        if seen in record.read:
            return False  # read by an earlier run, and no older copy
        parsed = self._read_note(record)
        if parsed and notefile.identity(parsed.metadata) not in (None, key):
            # Another session's note was moved onto this one's name: this one moved too (it
            # is followed, and compared where it is), or is gone (its unit is read again,
            # and the writes decide: the state must not take the other note for it).
            moved = self._find_by_identity(key)
            if moved is None or moved == record.path:
                return True
            self._follow(key, record, moved)
            return self.replaced(record, key)
        older = older_copy(parsed, record)
        if older is None:  # (a note written before end markers held a hash)
            return now.st_ino != record.stat[2]
        if older and parsed is not None:  # an older copy, or another machine's note
            if own_older(parsed, record) or behind(parsed, record):
                return True
        if parsed is not None and self.holds_secret(parsed, record.keys):
            return True  # (also where only a property of ours holds it: ours are rewritten)
        # Kept when the state is next written, not written for this alone (with .ccexport/
        # synced, two machines would each rewrite it), so a note the person wrote in is read
        # once. ``stat`` stays as written: it tells the survey that the frontmatter is.
        record.read = [seen, *record.read[: READ_KEPT - 1]]  # (a new list: see NoteRecord)
        return False

    def holds_secret(self, parsed: notefile.NoteText, ours: Iterable[str]) -> bool:
        """Does the note's generated part, or its value of one of ``ours`` (properties of
        ccexport's), hold what the current redaction rules redact (another machine's
        version or rules, or ``--no-redact``, let it through; an older version missed it)?"""
        if self.scrub is str:
            return False
        values = [parsed.owned, *(parsed.metadata.get(k) for k in ours)]
        texts = [t for v in values for t in (v if isinstance(v, list) else [v])]
        return any(isinstance(t, str) and self.scrub(t) != t for t in texts)

    def _read_note(self, record: NoteRecord) -> notefile.NoteText | None:
        """The note file at the record's path, parsed; None if it cannot be read or parsed."""
        try:
            found = vaultio.read_file(self.root, record.path)
            return (
                notefile.parse(found[0].decode("utf-8", "replace"), record.lines) if found else None
            )
        except (OSError, notefile.NoteFormatError):
            return None

    def as_written(self, record: NoteRecord) -> bool:
        """Is the file at the record's path the note as this machine last wrote or found it
        (its time, size and inode)? Not one the person or a sync tool changed since."""
        self._batch.settle(record.path)
        try:
            st = os.lstat(os.path.join(self.root, record.path))
        except (OSError, ValueError):
            return False
        return len(record.stat) == 3 and self.same_note(record, st)

    def same_note(self, record: NoteRecord, st: os.stat_result) -> bool:
        """Is the file ``st`` the note ``record`` was written as? Its time and size say so
        (``same_file``), under an inode of its own."""
        return same_file(record.stat, st) and self._own_inode(record, st)

    def _own_inode(self, record: NoteRecord, st: os.stat_result) -> bool:
        """The inode it was written with, or one no note was written with: two notes
        written in one tick of a coarse clock (FAT, HFS+, older Linux) can share a time
        and a size, and one renamed onto the other's path keeps its own inode."""
        if st.st_ino == record.stat[2]:
            return True
        if self._note_inodes is None:
            notes = self.state.notes.values()
            self._note_inodes = {r.stat[2] for r in notes if len(r.stat) == 3}
        return st.st_ino not in self._note_inodes

    def _restamp(self, record: NoteRecord, st: os.stat_result) -> None:
        """The note is the one last written, under another inode (``same_note``): the
        record takes it, so that once the state is next written, a run knows the note by
        one ``stat`` again. Not written for this alone: with ``.ccexport/`` synced, two
        machines would each write the state on every run, their own inodes in it."""
        if record.stat[2] != st.st_ino:
            record.stat = stat_key(st)  # a new list: lists read from the file are shared
            if self._note_inodes is not None:
                self._note_inodes.add(st.st_ino)

    def in_cloud_only(self, relpath: str) -> bool:
        """iCloud Drive (macOS before 14, "Optimize Mac Storage") replaces a file it moves
        off the disk with ``.<name>.icloud`` beside it; the note is not deleted."""
        folder, slash, name = relpath.rpartition("/")
        return self._listed(f"{folder}{slash}.{name}.icloud")
