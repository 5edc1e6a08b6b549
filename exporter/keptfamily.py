"""A family whose main note is kept because its source shrank keeps its subagents' notes
as they are too (review37 M5).

A subagent's note takes its title, and what its parent's Task call said of it, from its
parent's transcript. A shorter copy of that transcript (an older backup, another
machine's) no longer holds the call: the subagent's note, written from it, lost its
title while its parent's note was rightly kept, and the run said "1 updated" of a session
whose own source had not changed. So, unless ``--force``, a subagent's note that exists
is left as it is while its parent's note, read in the same unit, is kept; it is counted
with the unchanged notes, and its parent's warning says so. A subagent with no note yet
is written (nothing is lost), and so is one whose own session gives more messages than
its note holds (review38 M2: its new turns never reached the vault while the parent
stayed short), under the title its note has (``titled``: not the poorer one the shorter
parent gives). Once the parent's source is
whole again, its unit is read again (its files changed) and every note is written as
usual.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from .errors import Problem
from .model import Session, session_key
from .notecopies import SIZE_KEY
from .renderkey import Same
from .vault import SHRUNK, Action, Change

if TYPE_CHECKING:
    from .notes import Note
    from .notespec import NoteSettings
    from .notewriter import NoteWriter
    from .state import NoteRecord
    from .vault import Vault
    from .workers import Outcome, RenderJob

# The change of a subagent's note kept with its parent's (listed by a dry run's --verbose).
KEPT_WITH_PARENT = "kept as it is with its parent's note, whose source has fewer turns"


def kept_also(count: int) -> str:
    """What the parent's warning adds for the ``count`` subagents' notes kept with it."""
    if count == 1:
        return "; its subagent's note is kept as it is too (its title comes from this session)"
    return (
        f"; the notes of its {count} subagents are kept as they are too (their titles come "
        "from this session)"
    )


class KeptFamilies:
    """The notes kept this run because their family's source shrank, by unit."""

    def __init__(self, vault: Vault, notes: NoteWriter, force: bool) -> None:
        self._vault = vault
        self._notes = notes
        self._force = force
        # (unit, session key) of each note kept as its source shrank
        self._kept: set[tuple[str, str]] = set()
        # main note's key -> its warning as said now, as first said, and how many
        # subagents' notes were kept with it
        self._said: dict[str, tuple[Problem, str, int]] = {}

    def wrote(self, job: RenderJob) -> None:
        """The note of ``job`` went through the vault: remembered if it was kept shrunk."""
        if job.part is not None and job.part.number != 1:
            return  # (a session is known by its first part)
        change = self._notes.changes.get(job.key)
        if change and change.action is Action.KEPT and change.message.startswith(SHRUNK):
            self._kept.add((job.unit, job.session.key))

    def keeps(self, job: RenderJob, outcome: Outcome) -> bool:
        """Is the note of ``job``, a subagent's whose parent's note this unit kept, left
        as it is (and its change recorded)? Not with ``--force``, nor a note that is not
        there to keep, nor one rendered as it was written (``Same``) or not at all."""
        found = self._with_kept_parent(job, outcome)
        if found is None:
            return False
        record, note = found
        if _grew(note.frontmatter.get(SIZE_KEY), record.meta.get(SIZE_KEY)):
            return False  # its own session went on: written (``titled``)
        self._notes.record(Change(Action.KEPT, job.key, job.relpath, KEPT_WITH_PARENT))
        if job.part is None or job.part.number == 1:
            self._say(main_key(job.session))
        return True

    def titled(self, job: RenderJob, outcome: Outcome, settings: NoteSettings) -> Outcome:
        """The note of a subagent written beside its kept parent (not ``keeps``: its own
        session grew), with the title its note has, as a note kept with its parent keeps
        it: the shorter parent no longer holds the Task call that named it, and the title
        the note would take instead (its first prompt's) is poorer. Rendered again with
        that title where this process holds the session's messages; rendered ahead by a
        worker (this process holds none), the note as rendered gets it in its properties
        and in the shipped template's heading. As it came where the title the note has is
        not ccexport's (the person's), where ``[frontmatter] add`` rewrites the title, and
        for a part note."""
        from .markdown import unlinked
        from .notenames import session_title

        found = self._with_kept_parent(job, outcome)
        if found is None or job.part:
            return outcome
        record, note = found
        had = record.meta.get("title") if "title" in record.keys else None
        title = note.frontmatter.get("title")
        if not isinstance(had, str) or not had.strip() or title in (had, None):
            return outcome
        if title != unlinked(session_title(job.session)):
            return outcome  # (``[frontmatter] add`` made it)
        had = self._vault.scrub(had)  # (the rules of now: one known since is not kept)
        if job.packed is None and not job.session.messages:  # (rendered ahead)
            return _retitled(note, title, had)
        from .workers import render_job  # (rendered once more, in this process)

        again = render_job(replace(job, session=replace(job.session, title=had)), settings)
        if isinstance(again, (Same, Problem)) or again.frontmatter.get("title") != had:
            return outcome
        return again

    def _with_kept_parent(self, job: RenderJob, outcome: Outcome) -> tuple[NoteRecord, Note] | None:
        """The record of the note of ``job``, a subagent's whose parent's note this unit
        kept, where it is there to keep, and the note rendered (None: not so, or with
        ``--force``, or nothing rendered)."""
        session = job.session
        if self._force or not session.parent_id or isinstance(outcome, (Same, Problem)):
            return None
        if (job.unit, main_key(session)) not in self._kept:
            return None
        record = self._vault.state.notes.get(job.key)
        if record is None or record.deleted or record.path != job.relpath:
            return None  # (no note yet, or one moved or deleted: as usual)
        if self._vault.path_of(job.key) != job.relpath:
            return None
        return record, outcome

    def _say(self, main: str) -> None:
        """The main note's warning, extended by one more subagent's note kept with it."""
        problems = self._notes.report.problems
        if main in self._said:
            before, first, count = self._said[main]
        else:
            change = self._notes.changes.get(main)
            said = [p for p in problems if change and p.path == change.relpath
                    and p.message == change.message]  # fmt: skip
            if not said:
                return  # (nothing said of the main note: nothing to add to)
            before, first, count = said[-1], said[-1].message, 0
        at = next((i for i, p in enumerate(problems) if p is before), None)
        if at is None:
            return
        count += 1
        problems[at] = replace(before, message=first + kept_also(count))
        self._said[main] = (problems[at], first, count)


def _retitled(note: Note, title: str, had: str) -> Note:
    """``note`` (rendered as ``title``) with the title ``had``: its property, its alias
    and the heading the shipped template writes (``# {{ title | inline }}``)."""
    from .filter_args import checked_filters

    inline = checked_filters()["inline"]
    aliases = note.frontmatter.get("aliases")
    properties = {**note.frontmatter, "title": had}
    if isinstance(aliases, list):
        properties["aliases"] = list(dict.fromkeys(had if a == title else a for a in aliases))
    heading, new = f"# {inline(title)}\n", f"# {inline(had)}\n"
    body = note.body
    # The note's first heading only: a person's template may put the title elsewhere, and
    # a line of the conversation may read as it (review41 L-4).
    at = 0 if body.startswith("#") else body.find("\n#") + 1
    if body.startswith(heading, at):
        body = body[:at] + new + body[at + len(heading) :]
    return replace(note, frontmatter=properties, body=body)


def main_key(session: Session) -> str:
    """The key of a subagent's parent session."""
    return session_key(session.source, session.parent_id or "")


def _grew(has: object, had: object) -> bool:
    """Does a subagent's own session give more messages than its note holds (review38 M2:
    kept with its parent's note, its new turns never reached the vault while the parent
    stayed short)?"""
    return type(has) is int and type(had) is int and has > had
