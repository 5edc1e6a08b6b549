"""A discovery unit being exported (``export.py``): what reading it found (its sessions,
problems and errors, whether the filters held any of it) and whether every note of it was
written, when the unit is remembered and skipped by the next run."""

from __future__ import annotations

from dataclasses import dataclass, field

from .adapters import SessionRef
from .errors import Problem
from .readvalues import ReadUnit


@dataclass(slots=True)
class UnitProgress:
    """A unit being exported: its notes are written as their rendering finishes."""

    ref: SessionRef
    written: list[str] = field(default_factory=list)
    complete: bool = True
    outstanding: int = 0
    loaded: bool = False
    weighed: bool = False  # its files' size went with its first job
    errors: set[Problem] = field(default_factory=set)  # counted as failures already
    any_session: bool = False
    held: bool = False  # some session of it was held back by the filters
    selected: bool = False  # some session of it was kept by the filters
    filtered: bool = False  # some conversation of it was left out by the filters
    copy: bool = False  # a copy of a session another file holds (not "without a conversation")

    def took(self, read: ReadUnit) -> tuple[list[Problem], int]:
        """Account for a family read from the unit: the problems to report, and how many
        errors are new to the unit (each once a unit: the parts of a database each meet
        it; a database or file that could not be read is a failure of its source)."""
        self.held |= read.held > 0
        self.selected |= read.selected > 0
        # Every session of the family left out by the filters: what was wrong in it is not
        # this run's to report (nor a failure of it). The unit is read again by the next
        # run, which reports it (it would skip an unchanged unit).
        problems = [] if read.left_out else read.problems
        self.copy |= read.copy
        self.complete &= not read.wait  # (not remembered: read again next run)
        self.complete &= not (read.left_out and read.problems)
        new_errors = {p for p in problems if p.severity == "error"} - self.errors
        self.errors |= new_errors
        self.complete &= not any(p.severity == "error" for p in read.problems)
        self.any_session |= bool(read.sessions)
        # A session a filter left out is not done: the unit is read again by a run whose
        # filters could keep it (``unchanged.filter_entry``).
        self.filtered |= len(read.sessions) != read.conversations
        return problems, len(new_errors)

    def empty(self, project_filter: bool) -> bool:
        """Was the unit read whole and found to hold no conversation, and is it one of the
        run's (--project, --since): some session of it kept by the filters, or none read at
        all (its project is not known: none of a --project's; --since took it in by its
        time at discovery)?"""
        ours = self.selected or not (self.held or project_filter)
        return not (self.any_session or self.filtered or self.copy) and self.complete and ours
