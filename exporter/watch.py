"""``ccexport watch``: keep the vault current while you work.

It polls, on purpose. Every source is already discovered with stat calls alone (that is
what makes a no-op run cheap), so a round of polling is one discovery: the same code on
Linux, macOS and Windows, for files that are appended to (Claude Code, Codex), rewritten
(Gemini) or SQLite databases with a write-ahead log (Cursor, OpenCode), which file-event
APIs report unevenly. The pause between rounds grows with the cost of a round (at least
``interval``, at least ``IDLE_FACTOR`` times the last discovery), so a huge history costs
no more than about 2% of one core while idle; ``tests/bench/bench_watch.py`` measures it.

A change is exported once it has settled (``debounce``: two discoveries that agree), by
the same incremental pipeline and under the same vault lock as any run: a round that finds
the vault busy (the nightly run) is skipped and tried again, never waited on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from .errors import VaultLockedError
from .export import ExportReport, discover, run_export
from .options import ExportOptions

IDLE_FACTOR = 50  # pause >= 50x the cost of a discovery: idle CPU stays under ~2%


@dataclass(slots=True)
class WatchEvents:
    """What the loop tells its caller (the CLI prints; tests record)."""

    exported: Callable[[ExportReport], None] = lambda report: None
    busy: Callable[[str], None] = lambda message: None


def source_stamp(options: ExportOptions) -> frozenset[tuple[str, str]]:
    """Everything that would make an export do work, from stat calls alone."""
    return frozenset(
        (str(ref.main.path), repr(ref.fingerprint())) for _adapter, ref in discover(options)
    )


def watch(
    options: ExportOptions,
    events: WatchEvents | None = None,
    *,
    interval: float = 2.0,
    debounce: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    rounds: int | None = None,
) -> None:
    """Export now, then again after each settled change; runs until interrupted (or for
    ``rounds`` polls, for tests)."""
    events = events or WatchEvents()
    exported: frozenset[tuple[str, str]] | None = None
    polls = 0
    while rounds is None or polls < rounds:
        polls += 1
        started = clock()
        stamp = source_stamp(options)
        cost = clock() - started
        if stamp != exported and exported is not None:
            sleep(debounce)  # a session being written: wait until two looks agree
            settled = source_stamp(options)
            if settled != stamp:
                continue
        if stamp != exported:
            try:
                report = run_export(options)
            except VaultLockedError as exc:
                events.busy(str(exc))  # the nightly run holds the vault: next round
            else:
                exported = stamp
                events.exported(report)
        sleep(max(interval, cost * IDLE_FACTOR))
