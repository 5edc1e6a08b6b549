"""Writing notes into a vault the user lives in, without ever losing what they wrote.

The vault knows a note only as a path, frontmatter and an owned body. Rules:

- A note is found by its identity (``source`` + ``session_id`` in its frontmatter): at the
  path recorded last time while the file there is still that note, or anywhere in the vault
  if the user moved it (or another machine wrote it: the state folder is not needed to find
  a note). Another note, or a file of the person's own, given its name is never written.
- Only the region between the markers and the exporter's own frontmatter keys are
  rewritten. The user's keys keep their exact text, order and comments; their tags, aliases
  and any text outside the region stay.
- If the user edited inside the region (its hash, written on the end marker, no longer
  matches), their version is copied to ``<folder>/Conflicts/`` before it is replaced, a
  line below the end marker links to it (``editcopies``), and the run reports a conflict.
- A note whose ``messages`` would go down (a source restored from an older backup, or
  pruned) is kept as it is and reported, unless the run is forced.
- A file at a target path that is not ours is never touched: the note gets another name. A
  note that is a link, FIFO or device is reported and left alone.
- Identical bytes are never rewritten; every write goes through ``vaultio`` (a temp file with
  an unpredictable name in the same folder, fsync, rename, no link ever followed).
- Nothing the person wrote is ever deleted. A part note a session no longer has goes only
  while it holds nothing but what ccexport wrote there (``vaultparts``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import editcopies, lineends, notefile, notehash, vaultattach, vaultbatch, vaultio, vaultlinks
from .change import Action, Change
from .errors import os_reason
from .notecopies import SHRUNK, earlier_hashes, own_older, shrunk_why
from .notefile import NoteFormatError
from .state import STATE_DIR, STATE_FILE, STATE_VERSION, NoteRecord, State
from .vaultindexes import replaced_index_notes
from .vaultio import UnsafePathError
from .vaultkept import recorded, redacted_in_kept, redacted_note
from .vaultmerge import (
    OWNED,
    OWNED_KEYS,
    edit_kept,
    given_properties,
    merge_frontmatter,
    persons_properties,
    persons_title,
    removed_tags,
    same_but_line_ends,
    seeded_metadata,
    updated_yaml,
)
from .vaultparts import parts_past_the_end
from .vaultpaths import MAX_NAME_BYTES, safe_component, safe_relpath
from .vaultplaces import NotePlaces
from .vaultquotes import quoted_diff
from .vaultsurvey import stat_key, unnamed_notes
from .vaultwords import EMPTIED, IN_CLOUD_ONLY, MARKERS_GONE, MERGE_CONFLICT, RENAMED_NEW

__all__ = [  # also imported from here by other modules and tests
    "MAX_NAME_BYTES", "OWNED_KEYS", "SHRUNK", "Action", "Change", "Vault",
    "merge_frontmatter", "safe_component", "safe_relpath",
]  # fmt: skip

# A session's note written (or found as it would be: parts an older version left past it
# go too): its parts past it, if it is now the last, are looked at.
_WRITTEN = (Action.UPDATED, Action.RENAMED, Action.CONFLICT, Action.UNCHANGED)


class Vault(NotePlaces):
    """A vault folder and the exporter's state in it. ``dry_run`` writes nothing; ``force``
    updates notes even when their source now holds fewer messages. Finding notes (what is
    at a path, a note by identity, every note) is in ``vaultsurvey.NoteSurvey``, choosing a
    note's path in ``vaultplaces.NotePlaces``."""

    def __init__(
        self,
        root: Path,
        *,
        dry_run: bool = False,
        diff: bool = False,
        force: bool = False,
        restore: bool = False,
        state: State | None = None,
    ) -> None:
        self.root = root.expanduser().resolve()
        self.dry_run = dry_run
        self.want_diff = diff
        self.force = force
        self.restore = restore  # write again the notes the person deleted
        # (``state``: the vault's, read already: doctor's checks share one)
        self.state = State.load(self.root) if state is None else state
        # The bytes on disk, not a fresh serialisation: a no-op run with many notes spent a
        # tenth of a second here. Only an empty state (none on disk, or unreadable) is dumped.
        loaded = self.state.loaded
        self._state_bytes = loaded if loaded is not None else self.state.dumps()
        self.titles_before: dict[str, Any] = {}  # key -> its title before this run retitled it
        self.state_folder_at_start: Any = None  # .ccexport as the run began (``vaultrun``)
        self._identities: dict[str, str] | None = None
        self._listings: dict[str, dict[str, os.stat_result | None]] = {}  # (_listing)
        self._folded: dict[str, dict[str, str]] = {}  # folder -> folded name -> name
        self._reserved: dict[str, str] = {}  # folded relpath -> key, for paths chosen this run
        self._renamed: dict[str, bool] = {}  # keys that could not take their proposed name
        self.was_named: dict[str, str] = {}  # index notes' keys -> as their files name them
        self._unsynced: set[str] = set()  # folders renamed into since they were last fsynced
        self._moved = False  # a record now names where its note was moved to
        self._note_inodes: set[int] | None = None  # the inodes notes were written with
        self.copies = {}  # sessions found in several files (see ``notes``)
        self.relist = False  # a note the index notes leave out is back: write them again
        if replaced_index_notes(self.root, self.state):  # (another vault's run wrote there)
            self.relist = True
        self.run = self.state.run + 1  # this run's stamp on the notes it writes or finds moved
        self._targets: vaultlinks.LinkTargets | None = None  # (built when first needed)
        self.own_links: set[str] | None = None  # what the person's notes link to (vaultbacklinks)
        self._last_move: int | None = None  # the last run that found a note moved
        self._noted: set[str] = set()  # keys recorded by this run
        self._unnamed = unnamed_notes(self.root)  # (``NoteSurvey._survey``)
        self._writer: dict[str, str] = {}  # relpath -> the key whose note this run wrote there
        self._still: dict[str, tuple[str, bool]] = {}  # key -> (its path, still its note?)
        # Notes are written as a batch (their fsyncs overlap): a path is settled before it
        # is read, and the batch committed before the vault is walked or the run recorded.
        self._batch = vaultbatch.WriteBatch(self.root)
        # Applied to the old text a conflict copy or a diff quotes (secret redaction).
        self.scrub: Callable[[str], str] = str
        self.notes_folder = ""  # (the run's ``folder``: edits saved aside go below it)
        # The attachments folder's files the person renamed (``vaultattach``), once known.
        self.attachment_names: vaultattach.AttachmentNames | None = None

    # -- notes -------------------------------------------------------------------------

    def write_note(
        self,
        key: str,
        relpath: str,
        metadata: dict[str, Any],
        body: str,
        meta: dict[str, Any] | None = None,
        seeded: dict[str, Any] | None = None,
        made_otherwise: int = 0,
        secrets: Callable[[str], str] | None = None,
    ) -> Change:
        """Create or update one note in place; see the module rules. ``seeded``: the
        person's properties, written only into a note that lacks them; ``made_otherwise``:
        the note was last rendered by another version (``notecopies.MadeBy``: only its
        messages then say it holds more, ``holds_more``); ``secrets``: the note's session's
        secrets redacted (after the rules) wherever the old note is quoted or kept (aliases,
        a conflict copy, a diff). Never raises for one note: what the vault refuses or
        cannot take is a FAILED change naming why."""
        rules = self.scrub
        if secrets is not None:  # (for this note alone: one session's secrets are its own)
            self.scrub = lambda text: secrets(rules(text))
        try:
            change = self._write_note(
                key, relpath, metadata, body, meta, seeded or {}, made_otherwise
            )
            if change.action in _WRITTEN and (gone := parts_past_the_end(self, key, metadata)):
                change.message = f"{change.message}; {gone}" if change.message else gone
            return change
        except OSError as exc:  # a full disk, a planted link, a folder that vanished
            return Change(Action.FAILED, key, relpath, f"could not be written: {os_reason(exc)}")
        finally:
            self.scrub = rules
            notehash.forget()  # (its regions: held no longer than this note)

    def _write_note(
        self,
        key: str,
        relpath: str,
        metadata: dict[str, Any],
        body: str,
        meta: dict[str, Any] | None,
        seeded: dict[str, Any],
        made_otherwise: int,
    ) -> Change:
        owned = body.strip("\n")
        record = self.state.notes.get(key)
        ours = list(metadata.get("tags", []))
        meta = meta or {}
        self._batch.settle(relpath)
        try:
            found = vaultio.read_file(self.root, relpath)
            current = found[0].decode("utf-8") if found else None
        except UnsafePathError as exc:
            return Change(Action.FAILED, key, relpath, f"left alone: {exc}")
        except (OSError, UnicodeDecodeError) as exc:
            return Change(Action.FAILED, key, relpath, f"cannot read the note: {os_reason(exc)}")
        if found is None and record is not None and self.in_cloud_only(record.path):
            return Change(Action.FAILED, key, record.path, IN_CLOUD_ONLY)
        if found is None and record is not None and not self.restore and key not in self._noted:
            # It was written and is gone (not moved: choose_path looked for it by identity).
            # (A dry run records a note it did not write: no file is there the second time.)
            return self._left_deleted(key, record)
        # Emptied (by an app, or a crash while it was saved): nothing of the person's in it
        # to keep, and links lead to it. Written whole again, in its place, as a new note is.
        emptied = found is not None and current is not None and not current.strip()
        if found is None or current is None or emptied:
            text = notefile.compose(
                seeded_metadata(metadata, seeded, {}), "", owned, notefile.NEW_NOTE_TAIL
            )
            if emptied:
                action, message, before = Action.UPDATED, EMPTIED, stat_key(found[1])
            elif key in self._renamed:
                said = RENAMED_NEW if self._renamed[key] else ""
                action, message, before = Action.RENAMED, said, []
            else:
                action, message, before = Action.CREATED, "", []
            written = self._write(key, relpath, text, before)
            self._record(key, relpath, owned, ours, list(metadata), meta, written, seeded=seeded)
            return Change(action, key, relpath, message, quoted_diff(self, "", text, relpath))
        try:
            parsed = notefile.parse(current, record.lines if record else None)
        except NoteFormatError as exc:
            if notefile.merge_conflicted(current):
                return Change(Action.FAILED, key, relpath, MERGE_CONFLICT)
            return Change(Action.FAILED, key, relpath, f"left unchanged: {exc}")
        holder = notefile.identity(parsed.metadata)
        if holder is not None and not self.names(holder, key):  # (never chosen)
            return Change(Action.FAILED, key, relpath, "left alone: it is another session's note")
        if parsed.edited is not False and notefile.merge_conflicted(current):
            # Both sides of a merge in the generated part: rewriting it would leave half
            # the conflict's lines in the person's text. (Only in their text: updated.)
            return Change(Action.FAILED, key, relpath, MERGE_CONFLICT)
        if parsed.owned is None:
            return Change(Action.FAILED, key, relpath, MARKERS_GONE)
        shrunk = "" if self.force else shrunk_why(parsed.metadata, metadata, made_otherwise)
        if shrunk and not self.holds_secret(parsed, metadata):
            if record is None:
                self._record(key, relpath, parsed.owned, ours, list(metadata), {}, None, False)
            return Change(Action.KEPT, key, relpath, shrunk)
        if shrunk:  # a secret the current rules know, redacted where it stands (vaultkept)
            text, owned, edited = redacted_note(parsed, record, metadata, self.scrub)
            written = self._write(key, relpath, text, stat_key(found[1]))
            if record is None:
                self._record(key, relpath, owned, ours, list(metadata), {}, written, False)
            else:
                self._noted.add(key)
                self.state.notes[key] = recorded(
                    record, owned, edited, stat_key(written), self.scrub
                )
            said = f"{shrunk}; {redacted_in_kept(self.dry_run)}"
            return Change(
                Action.KEPT, key, relpath, said, quoted_diff(self, current, text, relpath)
            )
        # An older copy put back whose generated part this machine wrote: the keys of ours
        # in it are ccexport's from then (a part's tokens before it was followed by another)
        own_copy = record is not None and own_older(parsed, record)
        theirs = persons_title(parsed.metadata, metadata, record, own_copy)
        if theirs is not None:  # the person retitled the note: ours goes to its aliases
            metadata = {k: v for k, v in metadata.items() if k != "title"}
            meta = {**meta, "title": theirs}  # (as the index lists it, on every machine)
        kept_keys = frozenset() if theirs is None else frozenset({"title"})
        if persons := persons_properties(parsed.metadata, metadata, record):  # (a client…)
            metadata = {k: v for k, v in metadata.items() if k not in persons}
            kept_keys |= persons
        done = given_properties(record, seeded)  # (added once: one deleted stays deleted)
        ours_merged = seeded_metadata(metadata, seeded, parsed.metadata, done)
        yaml_text = updated_yaml(parsed, ours_merged, record, self.scrub, kept_keys, own_copy)
        removed = removed_tags(parsed, ours, record, own_copy)  # (remembered: vaultmerge)
        text = notefile.recompose(parsed, yaml_text, owned)
        # Nothing new for a generated part the person edited: their edit stays in place.
        kept = parsed.edited and edit_kept(current, parsed, yaml_text, owned)
        text = kept or text
        if text == current or same_but_line_ends(text, current):
            self._record(
                key, relpath, owned, ours, list(metadata), meta, found[1], False, seeded, removed
            )
            return Change(Action.UNCHANGED, key, relpath)
        edited = parsed.edited
        if edited is None:  # a note written before markers carried a hash (read as LF)
            read = lineends.without_cr(parsed.owned)
            edited = record is not None and not notefile.hash_matches(read, record.hash[:16])
        written_hash = parsed.written_hash
        if edited and written_hash and record and self._links_followed(parsed, record, key):
            edited = False  # the person renamed a note, and Obsidian rewrote links to it
        if edited and not kept and lineends.trimmed(parsed.owned) != lineends.trimmed(owned):
            folder = editcopies.folder_of(self.notes_folder, relpath)  # (one Obsidian shows)
            saved = editcopies.save_edit(self, relpath, parsed, folder, owned)
            # A dry run saves nothing (the copy is named by the time of the run that does).
            where = f"would be saved in {folder}/" if self.dry_run else f"was saved to {saved}"
            if not self.dry_run:  # said in the note too, below its end marker, linked
                said = replace(parsed, after=editcopies.said_in_note(parsed, saved))
                text = notefile.recompose(said, yaml_text, owned)
            action, message = Action.CONFLICT, f"your edit inside the generated part {where}"
        else:
            action, message = Action.UPDATED, ""
        written = self._write(key, relpath, text, stat_key(found[1]))
        self._record(
            key, relpath, owned, ours, list(metadata), meta, written, not kept, seeded, removed
        )
        # The whole file, properties too (``updated``, ``messages``): what the run changes.
        return Change(action, key, relpath, message, quoted_diff(self, current, text, relpath))

    def write_attachment(self, relpath: str, data: bytes) -> bool:
        """Write a content-addressed file once; True if it was new."""
        relpath = safe_relpath(relpath)
        if self._kind(relpath) not in ("missing", "blocked"):
            return False
        if not self.dry_run:
            vaultio.write_file(self.root, relpath, data)
        return True

    def _write(self, key: str, relpath: str, text: str, before: list[int]) -> os.stat_result | None:
        """A note: its folder is fsynced once for many notes, before the state records them.
        ``before``: the stat of the file ``text`` was made from (see ``WriteBatch.write``)."""
        if self.dry_run:
            return None
        data = text.encode("utf-8", "replace")
        self._writer[relpath] = key
        written = self._batch.write(relpath, data, before)
        self._unsynced.add(relpath.rpartition("/")[0])
        return written

    def _record(
        self,
        key: str,
        relpath: str,
        owned: str,
        tags: list[str],
        keys: list[str],
        meta: dict[str, Any],
        written: os.stat_result | None,
        wrote: bool = True,
        seeded: Collection[str] = (),
        removed: list[str] | None = None,
    ) -> None:
        """``wrote``: the note was written (or would be, in a dry run) with these links, in
        this run; else it is as an earlier run wrote it. ``seeded``: the person's properties
        it was given (or holds)."""
        lines = owned.count("\n") + 1
        self._noted.add(key)
        before = self.state.notes.get(key)
        if before and before.deleted:
            self.relist = True  # back in the vault: the index notes left it out
        was = before.was if before else []
        if before and before.meta.get("title") != meta.get("title"):
            # Retitled this run (by its tool, or the person): links written before say the
            # title it had (``vaultlinks.LinkTargets.keys_by_title``).
            self.titles_before.setdefault(key, before.meta.get("title"))
        if before and before.path != relpath:  # (moved, found where it now is)
            was = vaultlinks.remembered(key, before, relpath, self.run, self.scrub)
            if was is not before.was:
                self._last_move = self.run
            if self._targets is not None:
                self._targets.move(key, before.path, relpath)
        # A note left as it was says the names of now: stamped now if a note moved since.
        stamp = wrote or before is None or self._moved_since(before.run)
        run = self.run if stamp else before.run
        if run == self.run or (before and was is not before.was):
            self.state.run = self.run
        hash_ = notehash.trimmed_sha256(owned)  # (as the end marker's)
        self.state.notes[key] = NoteRecord(
            relpath, hash_, lines, tags, keys, meta, stat_key(written), was=was, run=run,
            hashes=earlier_hashes(before, hash_),
            seeded=sorted({*(before and before.seeded or ()), *(set(seeded) - OWNED)}),
            removed_tags=removed or [],
        )  # fmt: skip

    def _moved_since(self, run: int) -> bool:
        """Was a note found moved after ``run`` (the last run that found one, once a run)?"""
        if self._last_move is None:
            moves = (move[1] for record in self.state.notes.values() for move in record.was)
            self._last_move = max(moves, default=0)
        return self._last_move > run

    def _links_followed(self, parsed: notefile.NoteText, record: NoteRecord, key: str) -> bool:
        """Does the generated part differ from what was written only where Obsidian
        rewrote links to notes the person renamed or moved (``vaultlinks``)?"""
        if parsed.owned is None or parsed.written_hash is None:
            return False
        if self._targets is None:
            self._targets = vaultlinks.LinkTargets(
                self.state.notes, self.titles_before, self.state.titles
            )
        names = self.attachment_names
        return vaultlinks.links_followed(parsed.owned, parsed.written_hash, record,
                                         self._targets, names and names.written_name,
                                         self.leads_nowhere, key)  # fmt: skip

    # -- state -------------------------------------------------------------------------

    def land(self) -> list[Change]:
        """Rename the notes written so far into place. One that could not land (its fsync or
        rename failed) is a FAILED change, one saved by someone else meanwhile a
        SAVED_MEANWHILE one (left as they saved it); either way its record and its source's
        are dropped, so
        the next run writes it again instead of skipping an unchanged source. One deleted
        meanwhile stays deleted, as a note deleted between runs does."""
        if self.dry_run:
            return []
        self._batch.commit()
        failed, self._batch.failed = self._batch.failed, []
        changes = []
        for relpath, exc in failed:
            key = self._writer.get(relpath) or next(
                (k for k, r in self.state.notes.items() if r.path == relpath), relpath
            )  # (two records may name one path: a note given another's old name)
            record = self.state.notes.get(key)
            if isinstance(exc, vaultbatch.ChangedMeanwhile) and exc.gone and record is not None:
                changes.append(self._left_deleted(key, record))  # deleted while it was written
                continue
            self.state.notes.pop(key, None)
            for unit, source in list(self.state.sources.items()):
                if key in source.get("notes", ()):
                    del self.state.sources[unit]
            if key.startswith(notefile.INDEX_PREFIX):
                self.state.render = ""  # no source redoes an index: the next run rewrites them
            if isinstance(exc, vaultbatch.ChangedMeanwhile):
                why = f"{exc}: left as saved, updated on the next run"
                changes.append(Change(Action.SAVED_MEANWHILE, key, relpath, why))
            else:
                changes.append(
                    Change(Action.FAILED, key, relpath, f"could not be written: {os_reason(exc)}")
                )
        return changes

    def save_state(self, changed: bool = True) -> list[Change]:
        """Written after the notes, atomically, and only if it changed. Returns the notes
        that could not land (see ``land``). ``changed=False``: the run read no source and
        recorded no change, so only what the vault itself did (a moved note found) or an
        older file format calls for a write: a no-op run of 20,000 notes then skips
        serialising the state to learn that (0.1 s)."""
        late = self.land()
        unchanged = (
            not changed
            and not late
            and not self._moved
            and self.state.version == STATE_VERSION
            and self._state_bytes is self.state.loaded
        )
        data = self._state_bytes if unchanged else self.state.dumps()
        if not self.dry_run:
            vaultbatch.sync_folders(self.root, self._unsynced)  # the notes' renames, durable first
            self._unsynced.clear()
        if not self.dry_run and data != self._state_bytes:
            vaultio.write_file(self.root, f"{STATE_DIR}/{STATE_FILE}", data)
            self._state_bytes = data
        return late
