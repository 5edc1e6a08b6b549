"""Where a note goes: where it is now, or a safe name nobody else holds.

A note is where its record says while the file there is still that note (the file this
machine wrote, or one naming the session): the person may have deleted it and given its
name to another note or to a file of their own, which is then never written. Otherwise it
is found by identity anywhere in the vault. A new note gets its proposed path made safe,
with `` (2)``, `` (3)``… while another file or another note of this run holds it. A note
whose source is unchanged is checked for being deleted (found nowhere: left deleted, and
said once) or back in its place.
"""

from __future__ import annotations

import os
import posixpath

from . import notefile, vaultio
from .change import Action, Change
from .notecopies import copy_of
from .notefile import NoteFormatError
from .state import STATE_DIR, NoteRecord
from .vaultpaths import fold, inside, safe_relpath
from .vaultsurvey import HEAD_BYTES, NoteSurvey

DELETED_NOTE = "deleted in the vault; left deleted (`ccexport --restore` writes it again)"


class NotePlaces(NoteSurvey):
    """The path-choosing part of ``Vault`` (a base class of it), which sets these."""

    _reserved: dict[str, str]  # folded relpath (``fold``) -> key, for paths chosen this run
    _folded: dict[str, dict[str, str]]  # folder -> its names folded -> as listed (_case_twin)
    # Keys that could not take their proposed name -> whether no note held it (the person's
    # file, a folder, a link, a FIFO: the run says so).
    _renamed: dict[str, bool]
    _still: dict[str, tuple[str, bool]]  # key -> (its path, still its note?)
    # An index note's key -> the key its file names, where its project's name held a secret
    # (``index_secrets``): the file is that note, rewritten under its new key.
    was_named: dict[str, str]

    def path_of(self, key: str) -> str | None:
        """Where the note for ``key`` is now, if it exists: recorded, or found by identity.
        A recorded path now holding a link or FIFO is returned, so writing it is refused."""
        record = self.state.notes.get(key)
        if record and inside(record.path):
            kind = self._kind(record.path)
            if kind == "file" and not self._still_note_of(key, record):
                return self._moved_to(record, key)  # another note (or file) took its name
            if kind not in ("missing", "folder"):
                return record.path  # a link or FIFO there now: writing it is refused and reported
        return self._moved_to(record, key)

    def _moved_to(self, record: NoteRecord | None, key: str) -> str | None:
        """Where the note is found by identity; a record follows it there at once, with the
        name it had (links other notes hold to it may say that name: ``vaultlinks``)."""
        found = self._find_by_identity(key)
        if found and record:
            self._follow(key, record, found)
        return found

    def _still_note_of(self, key: str, record: NoteRecord) -> bool:
        """Is the file at a note's recorded path still that note? The person may have
        deleted it and given its name to another note, or to a file of their own. The file
        this machine last wrote (``same_note``) is; another is unless its frontmatter names
        another session, or it has neither an identity nor the markers (not a note of ours),
        and is not empty.
        A file that cannot be read or parsed counts as it: writing it reports why."""
        known = self._still.get(key)
        if known is not None and known[0] == record.path:
            return known[1]  # (asked again for each link to the note, and to write it)
        try:
            if self.same_note(record, os.lstat(os.path.join(self.root, record.path))):
                return True
            text = self._head_of(record.path)
        except OSError:
            return True
        if text is None:
            return False
        metadata = notefile.read_frontmatter(text)
        holder = notefile.identity(metadata) if metadata is not None else None
        # An empty file is the note emptied (by an app, or a crash while it was saved),
        # unless the person deleted the note: then it is theirs (Obsidian makes one when a
        # link to a missing note is clicked), filled only by --restore. A note moved
        # elsewhere is found first (a sync tool's copy of it beside it is no move).
        emptied = not text.strip() and (not record.deleted or self.restore)
        elsewhere = self._find_by_identity(key) if emptied else None
        if elsewhere is not None and not copy_of(elsewhere, record.path):
            emptied = False  # moved, and an empty file took its old name: not the note
        still = self.names(holder, key) if holder is not None else notefile.BEGIN in text or emptied
        self._still[key] = (record.path, still)
        return still

    def choose_path(self, key: str, proposed: str) -> str:
        """The note's path: where it already is, else ``proposed`` made safe and free."""
        existing = self.path_of(key)
        if existing:
            self._reserved[fold(existing)] = key
            return existing
        base = safe_relpath(proposed)
        stem, _, _ = base.rpartition(".md")
        candidate, n = base, 1
        while not self._free(candidate, key):
            n += 1
            candidate = f"{stem} ({n}).md"
        if candidate != base:  # (two sessions' notes of one name: no surprise, unsaid)
            self._renamed[key] = not self._note_at(base)
        self._reserved[fold(candidate)] = key
        return candidate

    def names(self, holder: str, key: str) -> bool:
        """Does a file whose frontmatter names ``holder`` stand for ``key``'s note?"""
        return notefile.names_note(holder, key) or self.was_named.get(key) == holder

    def moved_off_secret(self, key: str, old: str, new: str) -> None:
        """The note of ``key`` was moved from ``old`` (its name held a secret) to ``new``
        (``redact_outputs.move_secret_path``): this run places it there, links name it so,
        and the index notes list it there."""
        self._reserved.pop(fold(old), None)
        self._reserved[fold(new)] = key
        self._still.pop(key, None)
        if self._identities is not None and self._identities.get(key) == old:
            self._identities[key] = new
        if self._targets is not None:
            self._targets.move(key, old, new)
        self.relist = True

    def chooses(self, key: str, proposed: str) -> bool:
        """Would ``choose_path`` give the note exactly ``proposed`` (no other path already
        holds it, and ``proposed`` is safe and free)? Nothing is reserved."""
        existing = self.path_of(key)
        if existing:
            return existing == proposed
        return safe_relpath(proposed) == proposed and self._free(proposed, key)

    def _free(self, relpath: str, key: str) -> bool:
        holder = self._reserved.get(fold(relpath))
        if holder is not None:
            return holder == key
        kind = self._kind(relpath)
        if kind == "missing":
            return self._case_twin(relpath) is None
        if kind == "blocked":  # the write is refused and reported
            return True
        if kind != "file":
            return False
        holder = self._identity_of(relpath)
        if holder is not None and self.was_named.get(key) == holder:
            return True
        return holder == key or holder is None and self._lost_identity(relpath, key)

    def _case_twin(self, relpath: str) -> str | None:
        """A file or folder whose path differs from ``relpath`` by case alone (or by NFC),
        which a case-sensitive disk (Linux) keeps apart: on the Mac or Windows machine the
        vault is synced to, the two are one, and one is lost there. Found in the folders'
        listings, each folder taken in the case it has on disk."""
        found: list[str] = []
        for part in relpath.split("/"):
            folder = "/".join(found)
            if part not in self._listing(folder, relpath):
                folded = self._folded.get(folder)
                if folded is None:
                    names = self._listing(folder, relpath)
                    folded = self._folded[folder] = {fold(name): name for name in names}
                part = folded.get(fold(part), "")
                if not part:
                    return None
            found.append(part)
        twin = "/".join(found)
        return twin if twin != relpath else None

    def _note_at(self, relpath: str) -> bool:
        """Is the name held by a note (chosen this run, or a note's file), not by the
        person's own file, a folder, a link or a FIFO?"""
        if fold(relpath) in self._reserved:
            return True
        if self._kind(relpath) == "missing":
            relpath = self._case_twin(relpath) or relpath
        return self._kind(relpath) == "file" and self._identity_of(relpath) is not None

    def _lost_identity(self, relpath: str, key: str) -> bool:
        """Is the file at the name proposed for ``key``'s note (whose short id it holds) that
        note, with ``session_id`` or ``source`` taken out of its properties (one click in
        Obsidian's panel)? A machine without the state would otherwise write a duplicate
        beside it, and never update the person's note again. It is when it holds our
        markers and what is left of its identity agrees; the update writes the key back."""
        try:
            text = self._head_of(relpath, whole=True)
        except OSError:
            return False
        if text is None or notefile.BEGIN not in text:
            return False
        try:  # the markers as ccexport writes them, each on its line: not a quoted one
            parsed = notefile.parse(text)
        except NoteFormatError:
            return False
        metadata = parsed.metadata
        if parsed.owned is None or not metadata or notefile.identity(metadata) is not None:
            return False
        source, _, session_id = key.partition("#")[0].partition(":")
        kept = {"source": source, "session_id": session_id}
        return all(str(metadata[k]) == v for k, v in kept.items() if metadata.get(k) is not None)

    def _head_of(self, relpath: str, whole: bool = False) -> str | None:
        """A note's text, enough of it for its frontmatter (``whole``: all of it); None when
        there is no file. Read safely (never through a link)."""
        self._batch.settle(relpath)
        found = vaultio.read_file(self.root, relpath, -1 if whole else HEAD_BYTES)
        if found and not whole and len(found[0]) == HEAD_BYTES:  # a long frontmatter
            found = vaultio.read_file(self.root, relpath)
        return found[0].decode("utf-8", "replace") if found else None

    def is_missing(self, relpath: str) -> bool:
        return self._kind(relpath) == "missing"

    def note_deleted(self, key: str) -> Change | None:
        """For a note whose source is unchanged: was it deleted in the vault since? Checked
        with one ``stat`` (and, if it is gone, one search by identity: it may have moved)."""
        record = self.state.notes.get(key)
        if record is None or self.restore:
            return None
        if record.deleted:
            if self.is_back(key, record):
                self._back(key, record)
                return None
            return Change(Action.DELETED, key, record.path)
        self._batch.settle(record.path)
        if self._listed(record.path) or self._kind(record.path) != "missing":
            return None
        if self.in_cloud_only(record.path):
            return None  # not deleted: iCloud took it off this disk, for now
        moved = self._find_by_identity(key)
        if moved:
            self._follow(key, record, moved)
            return None
        if key in self.left_out.keys:
            return None  # not deleted: moved under a name that is not UTF-8 (said so)
        return self._left_deleted(key, record)

    def left_deleted(self, key: str) -> bool:
        """Does the note of ``key`` stay deleted this run: the person deleted it, and no
        ``--restore``? Then another note links to it no more (the link would lead nowhere,
        and Obsidian makes an empty note of the name when it is followed). Without side
        effects: the run says the deletion where the note would be written."""
        record = self.state.notes.get(key)
        if record is None or self.restore or key in self._noted:
            return False
        if record.deleted:
            return not self.is_back(key, record)
        gone = self.path_of(key) is None and key not in self.left_out.keys
        return gone and not self.in_cloud_only(record.path)

    def is_back(self, key: str, record: NoteRecord) -> bool:
        """Is a note left deleted in its place again (taken back from a bin, a sync tool's
        history or an older commit, written by another machine, downloaded by iCloud)?
        Its unit is then read again in the same run (``UnchangedUnits``): a run that only
        noted it would leave the reading to the next, which would write the state again."""
        return (
            record.deleted and self._listed(record.path) and self._identity_of(record.path) == key
        )

    def _back(self, key: str, record: NoteRecord) -> None:
        """A note left deleted came back after its unit's skip was decided (``is_back``
        reads the unit of one found back then): updated again from the next run, which
        reads its source (it may have grown meanwhile); listed again at once."""
        record.deleted, record.stat = False, []
        for unit, source in self.state.sources.items():
            if key in source.get("notes", ()):
                self.state.outdate(unit)
        self.relist = True  # the index notes left it out
        self._moved = True

    def _scrub_record(self, record: NoteRecord) -> None:
        """A record kept for a note left deleted holds no secret the rules now know (one
        its name or title held when an older version, or older rules, wrote it): the state
        keeps none. Its path so redacted leads to no file either: the note stays deleted."""
        path = self.scrub(record.path)
        meta = {k: self.scrub(v) if isinstance(v, str) else v for k, v in record.meta.items()}
        if path != record.path or meta != record.meta:
            record.path, record.meta, record.stat, record.read = path, meta, [], []
            self._moved = True  # (the state is written with it)

    def _left_deleted(self, key: str, record: NoteRecord) -> Change:
        """The person's decision stands: reported once, then silently left deleted."""
        first = not record.deleted
        if not self.dry_run:
            record.deleted = True
            self._scrub_record(record)
        why = DELETED_NOTE if first else ""
        return Change(Action.DELETED, key, record.path, why)

    def let_go_of_other_vaults(self) -> None:
        """Forget the notes the state records in another ccexport vault, a folder of this
        one holding ``.ccexport/`` (the walks leave it out: ``vaultpaths.LeftOut``), and a
        notes' folder followed there. An earlier version took such a vault's notes for
        this one's moved folder, and wrote in them (review48 H1). Their sessions are read
        again, and written where this vault's notes go. A stat per folder the notes are in."""
        theirs: dict[str, bool] = {}  # folder -> below another vault (a stat each, once)

        def in_other(folder: str) -> bool:
            while folder:
                if folder not in theirs:
                    marked = os.path.isdir(os.path.join(self.root, folder, STATE_DIR))
                    theirs[folder] = marked and not self.left_out.ours(folder, [STATE_DIR])
                if theirs[folder]:
                    return True
                folder = posixpath.dirname(folder)
            return False

        notes = self.state.notes
        folders = {record.path.rpartition("/")[0] for record in notes.values()}
        other = {folder for folder in folders if in_other(folder)}
        for old, new in list(self.state.folders.items()):
            if in_other(new):
                del self.state.folders[old]
                self._moved = True
        if not other:
            return
        gone = {key for key, record in notes.items() if record.path.rpartition("/")[0] in other}
        for key in gone:
            del notes[key]
        self._moved = True  # (the state is written without them)
        for unit, source in self.state.sources.items():
            if not gone.isdisjoint(source.get("notes", ())):
                self.state.outdate(unit)
