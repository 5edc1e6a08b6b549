"""What a run counts of the units it reads, per source: sessions found (each once) and
units without a conversation (one that gave notes before, said; one read by a run stopped
before its summary, counted by the next run)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import Problem
from .notewriter import source_counts
from .outcome import ExportReport, SourceCounts

if TYPE_CHECKING:
    from .model import Session
    from .vault import Vault

NOW_EMPTY = (
    "holds no conversation now (its file emptied?): the note made from it before is kept, "
    "and it is read again when it changes"
)


class Counting:
    """The run's counts (a part of ``export._Run``)."""

    report: ExportReport
    vault: Vault
    _counted: dict[str, bool]  # session key -> counted found (True: as skipped)

    def _counts(self, source: str) -> SourceCounts:
        return source_counts(self.report, source)

    def _count_found(self, source: str, sessions: list[Session]) -> None:
        """Count the sessions read as found, each once in a run, whichever unit holds it:
        a session copied into two project folders (a resume elsewhere) was counted by a
        skipped unit's record and again where it was read (review43 L6)."""
        counts = self._counts(source)
        for session in sessions:
            skipped = self._counted.get(session.key)
            if skipped is None:
                counts.found += 1
            elif skipped:  # counted as not read: it is read here
                counts.skipped -= 1
            self._counted[session.key] = False

    def _count_empty(self, source: str, unit: str) -> None:
        """A unit without a conversation; one that gave notes before is said: emptied (0
        bytes) or cut to its metadata, which the count alone would not tell (review44 L2)."""
        self._counts(source).empty += 1
        self.report.empty_units.append((source, unit))
        if self.vault.state.sources.get(unit, {}).get("notes"):
            self.report.problems.append(Problem(unit, NOW_EMPTY, source=source))

    def empty_unsaid(self) -> None:
        """The run is stopped (Ctrl-C) before its summary: the units it found without a
        conversation are read again by the next run, which counts them. Remembered as done,
        no run's summary counted them: after a Ctrl-C the next said "1 more without a
        conversation" of 4 (cli10 2)."""
        for _source, unit in self.report.empty_units:
            self.vault.state.outdate(unit)
