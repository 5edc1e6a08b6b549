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
stayed short); the title it had stays among its aliases. Once the parent's source is
whole again, its unit is read again (its files changed) and every note is written as
usual.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from .errors import Problem
from .model import session_key
from .notecopies import SIZE_KEY
from .renderkey import Same
from .vault import SHRUNK, Action, Change

if TYPE_CHECKING:
    from .notewriter import NoteWriter
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
        session = job.session
        if self._force or not session.parent_id or isinstance(outcome, (Same, Problem)):
            return False
        main = session_key(session.source, session.parent_id)
        if (job.unit, main) not in self._kept:
            return False
        record = self._vault.state.notes.get(job.key)
        if record is None or record.deleted or record.path != job.relpath:
            return False  # (no note yet, or one moved or deleted: as usual)
        if self._vault.path_of(job.key) != job.relpath:
            return False
        if _grew(outcome.frontmatter.get(SIZE_KEY), record.meta.get(SIZE_KEY)):
            return False  # its own session went on: written (its old title stays an alias)
        self._notes.record(Change(Action.KEPT, job.key, job.relpath, KEPT_WITH_PARENT))
        if job.part is None or job.part.number == 1:
            self._say(main)
        return True

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


def _grew(has: object, had: object) -> bool:
    """Does a subagent's own session give more messages than its note holds (review38 M2:
    kept with its parent's note, its new turns never reached the vault while the parent
    stayed short)?"""
    return type(has) is int and type(had) is int and has > had
