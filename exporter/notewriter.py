"""Writing a run's finished notes and its index notes, and recording what each write did.

Kept apart from the pipeline so ``export`` reads as discover, skip, load, plan, render,
while the bookkeeping of the vault's answers lives here: one change per note and run,
counts per source, and a problem for every note that could not be written.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from . import notefile
from .bases import write_bases_file
from .errors import Problem, disk_full, disk_full_message
from .index import note_meta, write_index_notes
from .index_secrets import unsecret_indexes
from .notespec import is_later_part
from .outcome import ExportReport, SourceCounts
from .renderkey import Same
from .runstart import renamed_again
from .session_secrets import KnownSecrets
from .vault import Action, Change, Vault
from .vaultattach import embed_renamed
from .vaultio import LINKED_FOLDER

if TYPE_CHECKING:
    from .notes import Note
    from .notespec import NoteSettings
    from .workers import Outcome, RenderJob

# What a session in parts did, its parts' changes taken together: the first of these.
_WEIGHT = {action: n for n, action in enumerate((
    Action.FAILED, Action.CONFLICT, Action.SAVED_MEANWHILE, Action.CREATED, Action.RENAMED,
    Action.UPDATED, Action.DELETED, Action.KEPT, Action.UNCHANGED,
))}  # fmt: skip
_FULL = os.strerror(errno.ENOSPC)  # (a note that could not land: its message ends so)
_AS_RENDERED = (Action.CREATED, Action.RENAMED, Action.UPDATED, Action.UNCHANGED)

# An index note an older version left for a project whose name held a secret, beside the
# one of the project as now named (``index_secrets``): it held nothing of the person's.
STALE_INDEX = (
    "removed: an older index note of a project whose name held a secret (it held nothing of "
    "yours; the project's index note is the one beside it)"
)
STALE_INDEX_DRY = "would be removed: an older index note of a project whose name holds a secret"
COPY = (
    "a second copy of {chosen} (a sync tool's conflict copy?): left as it is, and only that "
    "note is updated; keep what you want of this one there, then delete it"
)

# A folder of copies (a backup of the notes' folder kept in the vault): said once for it.
COPIES = (
    "holds second copies of {n} notes in {chosen} (a backup, or a sync tool's copy of the "
    "folder?): left as they are, and only those notes are updated; keep what you want of "
    "them there, then delete this folder"
)


def copy_problems(copies: Iterable[tuple[str, list[str]]]) -> list[Problem]:
    """The second copies of notes (each note chosen, the other files naming its session), one
    warning each; but those of one folder copied whole (the same name below a folder as the
    note below another, ``Backup/AI Sessions/…`` of ``AI Sessions/…``), one for the folder:
    a backup kept in the vault said 55 lines (review48 L4)."""
    folders: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for chosen, others in copies:
        for path in others:
            mine, theirs = path.split("/"), chosen.split("/")
            same = 0
            while same < min(len(mine), len(theirs)) - 1 and mine[-1 - same] == theirs[-1 - same]:
                same += 1
            key = ("/".join(mine[: len(mine) - same]), "/".join(theirs[: len(theirs) - same]))
            folders.setdefault(key if same else (path, ""), []).append((path, chosen))
    said = []
    for (folder, of), found in folders.items():
        if len(found) > 1:
            said.append(Problem(folder, COPIES.format(n=len(found), chosen=of)))
        else:
            said += [Problem(path, COPY.format(chosen=chosen)) for path, chosen in found]
    return said


def source_counts(report: ExportReport, source: str) -> SourceCounts:
    """The counts of one source in the report, made the first time it is asked for."""
    counts = report.per_source.get(source)  # twice per unit: made once per source
    if counts is None:
        counts = report.per_source[source] = SourceCounts()
    return counts


class NoteWriter:
    """Writes notes into the vault and keeps the one change of each note for the report."""

    def __init__(
        self,
        vault: Vault,
        report: ExportReport,
        secrets: dict[str, tuple[tuple[str, str], ...]] | None = None,
    ) -> None:
        self.vault = vault
        self.report = report
        # Note key -> its session's secrets (``LinkPlan.secrets_by_key``), which the note's
        # old text may hold: in its aliases, in what a conflict copy or a diff quotes.
        self.secrets = secrets if secrets is not None else {}
        self.changes: dict[str, Change] = {}
        self.full: Problem | None = None  # the disk is full: the one line that says so
        self._left_unwritten = 0  # notes the full disk kept from being written
        self._later: dict[str, set[str]] = {}  # a session's key -> its later parts' keys
        self._links: dict[str, tuple[Problem, int]] = {}  # a linked folder: its problem, notes

    def written(self) -> int:
        """Notes created or updated so far in this run."""
        done = (Action.CREATED, Action.RENAMED, Action.UPDATED, Action.CONFLICT)
        return sum(1 for c in self.changes.values() if c.action in done)

    def report_deleted(self, change: Change, source: str) -> None:
        if change.message:  # the first run that sees it; later runs stay quiet
            self.report.problems.append(Problem(change.relpath, change.message, source=source))

    def write_indexes(
        self, settings: NoteSettings, dataview: bool, secrets: KnownSecrets | None = None
    ) -> bool:
        """``secrets``: those of the sessions the run read, which a project's name, and
        what its index note's conflict copy or diff quotes, may hold."""
        self.vault.notes_folder = settings.folder  # (an edit saved aside goes below it)
        if self.full is not None:
            return False  # the disk is full (said once): the next run writes them
        found = self.vault.notes(note_meta)  # every note in the vault, walked once for both
        # (said on every run that walks the vault, until resolved)
        self.report.problems += copy_problems(self.vault.copies.values())
        rules = self.vault.scrub
        redact = secrets.after(rules) if secrets else rules
        if redact is not str:
            moved, removed = unsecret_indexes(self.vault, found, redact)
            renamed_again(self.report.problems, self.vault, moved)
            why = STALE_INDEX_DRY if self.vault.dry_run else STALE_INDEX
            self.report.problems += [Problem(path, why) for path in removed]
        self.vault.scrub = redact
        try:
            changes, failures = write_index_notes(self.vault, settings, dataview, found)
        finally:
            self.vault.scrub = rules
        changes.append(write_bases_file(self.vault, settings, found))  # Sessions.base
        for exc in failures:  # (one line each in the report: the same error, counted)
            self.report.problems.append(exc.problem(severity="error"))
        self.report.indexes = changes
        failed = [change for change in changes if change.action is Action.FAILED]
        for change in failed:
            self.report.problems.append(Problem(change.relpath, change.message, severity="error"))
        for change in changes:  # its name was another file's (the person's, a FIFO's)
            if change.action is Action.RENAMED and change.message:
                self.report.problems.append(Problem(change.relpath, change.message))
        self.report.index_failed = len(failures) + len(failed)
        return not self.report.index_failed

    def count(self, change: Change) -> None:
        """Count a session once, as "found" does: a note in parts by its first part, with
        the weightiest of what its parts' changes did (review29 F8: a run that wrote a
        session's 7 parts said "7 created" of "1 session found")."""
        if is_later_part(change.key):
            return  # (counted with the first part)
        counts = source_counts(self.report, change.key.partition(":")[0])
        later = self._later.get(change.key)
        if later:
            parts = [change, *(self.changes[k] for k in later if k in self.changes)]
            change = min(parts, key=lambda c: _WEIGHT.get(c.action, len(_WEIGHT)))
            new = (Action.CREATED, Action.RENAMED)
            if change.action in new and parts[0].action not in new:
                change = replace(change, action=Action.UPDATED)  # (a new part of a note)
        if change.action is Action.FAILED:
            counts.failed += 1
        elif change.action in (Action.CREATED, Action.RENAMED):
            counts.created += 1
        elif change.action is Action.UPDATED:
            counts.updated += 1
        elif change.action is Action.CONFLICT:
            counts.conflicts += 1
        elif change.action is Action.DELETED:
            counts.deleted += 1
        elif change.action is Action.SAVED_MEANWHILE:
            counts.saved += 1  # not "unchanged": the person's version, not the run's, is there
        else:
            counts.unchanged += 1

    def failed(self, job: RenderJob, problem: Problem) -> None:
        self.report.problems.append(problem)
        self.record(Change(Action.FAILED, job.key, job.relpath, str(problem)))

    def write(
        self, job: RenderJob, outcome: Outcome, settings: NoteSettings, made_otherwise: int
    ) -> bool:
        """What rendering a job gave: its note written, or why there is none said; its note
        left as it is (``Same``), or rendered here after all if its file is not as written.
        ``made_otherwise``: its unit's notes were last rendered by another version."""
        self.vault.notes_folder = settings.folder  # (an edit saved aside goes below it)
        if self.full is not None:  # (the disk is full: said once, not tried again)
            self._disk_full(Change(Action.FAILED, job.key, job.relpath), job.session.source)
            return False
        if isinstance(outcome, Same) and not self.left_as_written(job, outcome):
            from .workers import render_job

            outcome = render_job(replace(job, known=""), settings)  # (a key made anew)
        if isinstance(outcome, Problem):
            self.failed(job, outcome)
            return False
        return isinstance(outcome, Same) or self.write_note(
            outcome, job.session.source, made_otherwise, self.secrets.get(job.session.key, ())
        )

    def write_note(
        self,
        note: Note,
        source: str,
        made_otherwise: int = 0,
        secrets: tuple[tuple[str, str], ...] = (),
    ) -> bool:
        """``secrets``: its session's (``session_secrets``), which the note's old text may
        hold (in its aliases, in what a conflict copy or a diff quotes)."""
        self.report.problems.extend(replace(p, source=source) for p in note.problems)
        meta = note_meta(note.frontmatter)  # index notes list a session's first part alone
        try:
            body = note.body
            for attachment in note.attachments:
                # (A file the person renamed is embedded under their name, not copied again.)
                renamed = self._renamed(attachment.relpath)
                kept = renamed and embed_renamed(body, attachment.relpath, renamed)
                if kept is not None:
                    body = kept
                    continue
                self.vault.write_attachment(attachment.relpath, attachment.data)
            known = KnownSecrets(secrets).text if secrets else None
            change = self.vault.write_note(note.key, note.relpath, note.frontmatter, body,
                                           meta, note.seeded, made_otherwise, known)  # fmt: skip
        except OSError as exc:
            if disk_full(exc):
                self._disk_full(Change(Action.FAILED, note.key, note.relpath), source)
                return False
            change = Change(Action.FAILED, note.key, note.relpath, str(exc))
        if change.action is Action.FAILED and change.message.endswith(_FULL):
            self._disk_full(change, source)  # (said once for every note it keeps out)
            return False
        self.record(change)
        # A render key lets the next reading of the unit leave the note as it is. Not one
        # with attachments: they are in no key nor record, and one the person deleted or
        # renamed is written back or followed only where the note is written. Nor one kept,
        # in conflict or failed.
        record = self.vault.state.notes.get(note.key)
        keyed = note.render_key and not note.attachments and change.action in _AS_RENDERED
        if keyed and record is not None:
            record.render_key = note.render_key
        if change.action is Action.DELETED:
            self.report_deleted(change, source)
        if change.action is Action.KEPT or (
            change.action in (Action.UPDATED, Action.RENAMED, Action.UNCHANGED) and change.message
        ):  # (kept: the source shrank; renamed with a word: its name was the person's file's,
            # a folder's or a FIFO's; updated with a word: the note was found empty; any of
            # these or unchanged with a word: part notes past its end removed or kept)
            self.report.problems.append(Problem(change.relpath, change.message, source=source))
        if change.action is Action.FAILED:
            if not self._below_a_link(change, source):
                self.report.problems.append(
                    Problem(change.relpath, change.message, severity="error", source=source)
                )
            return False
        return True

    def _below_a_link(self, change: Change, source: str) -> bool:
        """Is the note one of those a linked folder fails? Said once for them all, with
        what to do and how many notes it kept from being written: not a line per note."""
        said, found, _ = change.message.partition(f" {LINKED_FOLDER}")
        if not found:
            return False
        link = said.split(": ", 1)[-1]
        before, count = self._links.get(link, (None, 0))
        count += 1
        notes = "1 note" if count == 1 else f"{count} notes"
        why = f"this folder {LINKED_FOLDER} ({notes} not written)"
        problem = Problem(link, why, severity="error", source=source)
        self._said_again(before, problem)
        self._links[link] = (problem, count)
        return True

    def _said_again(self, before: Problem | None, problem: Problem) -> None:
        """``problem`` in the report where ``before`` (its earlier count) stood, or last."""
        problems = self.report.problems
        at = next((i for i, p in enumerate(problems) if p is before), None)
        if at is None:
            problems.append(problem)
        else:
            problems[at] = problem

    def left_as_written(self, job: RenderJob, same: Same) -> bool:
        """A job whose render key is its note's as last written (``renderkey``): its note
        is left as it is while its file is as this machine wrote it (or last found it);
        one the person deleted stays deleted (said once), one they moved is found where it
        is. Any other (edited, an older copy put back, a sync tool's) is rendered and
        written, and the vault compares it."""
        record = self.vault.state.notes.get(job.key)
        if record is None or record.render_key != same.key:
            return False
        change = self.vault.note_deleted(job.key)  # one stat; a search if it is gone
        if change is not None:
            self.record(change)
            self.report_deleted(change, job.session.source)
            return True
        record = self.vault.state.notes[job.key]  # (where a moved note was found)
        if record.path != job.relpath or not self.vault.as_written(record):
            return False  # (the vault compares the file: the person's, a sync tool's, older)
        self.record(Change(Action.UNCHANGED, job.key, job.relpath))
        return True

    def _renamed(self, relpath: str) -> str | None:
        names = self.vault.attachment_names
        if names is None or not self.vault.is_missing(relpath):
            return None
        return names.renamed(relpath)

    def _disk_full(self, change: Change, source: str | None) -> None:
        """A note the full disk kept from being written: failed, and counted in the one
        line that says so; no note is tried after it (each would fail alike)."""
        self.record(change)
        self._say_full(source)

    def _say_full(self, source: str | None) -> None:
        self._left_unwritten += 1
        problem = Problem(str(self.vault.root), disk_full_message(self.written(),
                          self._left_unwritten), severity="error", source=source)  # fmt: skip
        self._said_again(self.full, problem)
        self.full = problem

    def full_also(self, said: str) -> None:
        """Add ``said`` to the one line of a full disk (what the run then left unread)."""
        if self.full is not None:
            problem = replace(self.full, message=f"{self.full.message}; {said}")
            self._said_again(self.full, problem)
            self.full = problem

    def late_failures(self, changes: list[Change]) -> list[Change]:
        """Notes whose fsync or rename failed when the vault landed them (failed after all),
        or which the person saved meanwhile (kept as they saved them: a warning)."""
        for change in changes:
            if change.key.startswith(notefile.INDEX_PREFIX):
                self.report.indexes = [
                    change if c.key == change.key else c for c in self.report.indexes
                ]
            else:
                self.changes[change.key] = change
            source = change.key.partition(":")[0]
            if change.action is Action.FAILED and change.message.endswith(_FULL):
                self._say_full(source)
                continue
            severity = "error" if change.action is Action.FAILED else "warning"
            self.report.problems.append(
                Problem(change.relpath, change.message, severity=severity, source=source)
            )
        return changes

    def record(self, change: Change) -> None:
        """One change per note and run: a second pass does not turn "created" into two."""
        if is_later_part(change.key):
            self._later.setdefault(change.key.partition("#part")[0], set()).add(change.key)
        first = self.changes.get(change.key)
        if first is None or first.action in (Action.UNCHANGED, Action.FAILED):
            self.changes[change.key] = change
        elif change.diff and first.action in (Action.CREATED, Action.UPDATED):
            first.diff = change.diff
