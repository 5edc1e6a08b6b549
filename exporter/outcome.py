"""What an export run reports: counts per source, problems, and the changes it made.

Kept apart from the pipeline so the report, the watcher and the CLI can read a run's
outcome without the code that produced it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import Problem
from .vault import Action, Change

# The counts a report gives per source and in total (``written`` is derived from them).
COUNTS = (
    "found",
    "skipped",
    "created",
    "updated",
    "unchanged",
    "conflicts",
    "failed",
    "empty",
    "deleted",
    "saved",
)


@dataclass(slots=True)
class SourceCounts:
    found: int = 0  # sessions found (those of unchanged sources as recorded last time)
    skipped: int = 0  # sessions whose sources were unchanged, so not even read
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    conflicts: int = 0
    failed: int = 0
    empty: int = 0  # source files (or databases) read that hold nothing worth a note
    deleted: int = 0  # notes the person deleted in the vault, left deleted
    saved: int = 0  # notes the person saved while the run updated them: kept as saved

    @property
    def written(self) -> int:
        return self.created + self.updated + self.conflicts

    def as_dict(self) -> dict[str, int]:
        out = {name: getattr(self, name) for name in COUNTS}
        # As the printed summary counts them: a note not changed, whether its source was
        # read or not; ``skipped`` says how many of those were not even read.
        out["unchanged"] = self.unchanged + self.skipped
        out["written"] = self.written
        return out


@dataclass(slots=True)
class ExportReport:
    per_source: dict[str, SourceCounts] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    indexes: list[Change] = field(default_factory=list)
    dry_run: bool = False
    # (source, path) of each file or database read that held nothing worth a note.
    empty_units: list[tuple[str, str]] = field(default_factory=list)
    # Secrets redacted, per rule, in the notes written (``RedactionTally``).
    redactions: dict[str, int] = field(default_factory=dict)
    # Index notes (a project's, Projects.md, Sessions.base) that could not be written: no
    # source's count holds them, yet they make the run exit 1.
    index_failed: int = 0
    # How many notes of the units read were rendered again because they were last rendered
    # otherwise, and why ("": none).
    rendered_again: str = ""
    rendered_again_notes: int = 0  # how many notes that sentence speaks of
    # A run given --timezone: the zone a run without it uses, and how to keep the flag's
    # ("": nothing to say; ``zoneadvice``).
    timezone_advice: str = ""

    def total(self, name: str) -> int:
        if name == "conflicts":  # an index note's too: its copy was saved aside all the same
            return len(self.conflicts())
        return sum(getattr(c, name) for c in self.per_source.values())

    def conflicts(self) -> list[Change]:
        """The notes updated over an edit of the person's, whose version was saved aside."""
        return [c for c in [*self.changes, *self.indexes] if c.action is Action.CONFLICT]

    @property
    def failed(self) -> bool:
        return any(p.severity == "error" for p in self.problems)

    def rendered_again_said(self) -> str:
        """``rendered_again`` as the summary and ``--json`` say it: "" when no note was
        written and notes failed (a broken template fails them all), where "41 notes
        rendered again" would not be true; the errors say what happened."""
        failed = any(c.action is Action.FAILED for c in self.changes)
        return "" if failed and not self.total("written") else self.rendered_again

    def redactions_said(self) -> dict[str, int]:
        """``redactions`` as the summary and ``--json`` say them: none when notes failed and
        none was written (a broken template fails them all), where "2 secrets redacted"
        would speak of secrets that reached no note (review41 L-6); a dry run's are those
        it would redact."""
        if self.dry_run or self.total("written") or not self.total("failed"):
            return self.redactions
        return {}

    def as_dict(self) -> dict[str, Any]:
        names = (*COUNTS, "written")
        return {
            "dry_run": self.dry_run,
            "totals": {
                n: self.total(n) + (self.total("skipped") if n == "unchanged" else 0) for n in names
            }
            | {"index_failed": self.index_failed},
            "sources": {s: c.as_dict() for s, c in self.per_source.items()},
            "errors": self._errors(),
            "warnings": [p.as_dict() for p in self.problems if p.severity == "warning"],
            "conflicts": [{"path": c.relpath, "message": c.message} for c in self.conflicts()],
            "redactions": dict(sorted(self.redactions_said().items())),
            "rendered_again": self.rendered_again_said() or None,
            # (a script's count: 0 where the sentence is not said)
            "rendered_again_notes": self.rendered_again_notes if self.rendered_again_said() else 0,
            "timezone_advice": self.timezone_advice or None,
        }

    def _errors(self) -> list[dict[str, Any]]:
        """The errors, each a note failed on naming that note (``note``, else None): a
        template error met by every note was 41 objects alike, none naming its note.
        (The text output folds them, "(41 times)": the notes are here, one each.)"""
        failed: dict[tuple[str, str], list[str]] = {}  # (source, message) -> those notes
        for change in self.changes:
            if change.action is Action.FAILED:
                said = (change.key.partition(":")[0], change.message)
                failed.setdefault(said, []).append(change.relpath)
        errors = []
        for problem in (p for p in self.problems if p.severity == "error"):
            # (a note's change says its problem whole; one that names its file alone, a
            # source that could not be read, names no note)
            notes = failed.get((problem.source or "", str(problem)))
            errors.append({**problem.as_dict(), "note": notes.pop(0) if notes else None})
        return errors


def add_unreadable(report: ExportReport, problems: list[Problem]) -> ExportReport:
    """Folders of the sources that could not be listed: errors of their sources (and what
    was skipped in them, a link that loops, say: warnings). The last step of a run: a
    warning repeating an error of the same file is folded into it (``problemfold``)."""
    from .problemfold import folded

    for problem in problems:
        report.problems.append(problem)
        counts = report.per_source.setdefault(problem.source or "", SourceCounts())
        counts.failed += problem.severity == "error"
    report.problems[:] = folded(report.problems)
    return report


class Interrupted(Exception):
    """The run was stopped by Ctrl-C after ``written`` notes were written."""

    def __init__(self, written: int) -> None:
        super().__init__(f"interrupted after {written} notes were written")
        self.written = written
