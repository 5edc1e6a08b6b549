"""``ccexport watch``: keep the vault current while you work.

It polls, on purpose. Every source is already discovered with stat calls alone (that is
what makes a no-op run cheap), so polling is the same code on Linux, macOS and Windows, for
files that are appended to (Claude Code, Codex), rewritten (Gemini) or SQLite databases with
a write-ahead log (Cursor, OpenCode), which file-event APIs report unevenly.

Two kinds of look keep it cheap on a large history:
- a quick look, every ``interval``: ``stat`` of the files active in the last hour, of the
  folders that hold sessions (a new session file changes its folder) and of their parents (a
  new project's or day's folder changes its parent); on a change, a full look follows at once;
- a full look (a discovery of every source) at least every ``FULL_EVERY`` seconds, and at
  least ``IDLE_FACTOR`` times its own cost apart, for an old session resumed in place.
``tests/bench/bench_watch.py`` measures the idle cost.

A change is exported once it has settled (``debounce``: two full looks that agree), by the
same incremental pipeline and under the same vault lock as any run: a round that finds the
vault busy (the nightly run) is skipped and tried again, never waited on. A problem (a
broken database, a busy vault) is told once, not again every round while it lasts.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from .errors import Problem, VaultLockedError
from .export import ExportReport, discover, run_export
from .interrupts import check_ctrl_c, ctrl_c_noted
from .options import ExportOptions

IDLE_FACTOR = 50  # full looks >= 50x their own cost apart: idle CPU stays under ~2%
FULL_EVERY = 60.0  # seconds between full looks when nothing seems to change
HOT_WINDOW = 3600.0  # files written within this many seconds are looked at every round
SETTLE_MAX = 30.0  # a session written without a pause this long is exported as it stands

Stamp = frozenset[tuple[str, str]]


@dataclass(slots=True)
class WatchEvents:
    """What the loop tells its caller (the CLI prints; tests record)."""

    exported: Callable[[ExportReport], None] = lambda report: None
    busy: Callable[[str], None] = lambda message: None


@dataclass(slots=True)
class Look:
    """One full look: the stamp of every unit, and the few paths a quick look re-checks."""

    stamp: Stamp
    quick: dict[str, tuple[int, int]]  # path -> (size, mtime_ns) at the full look


def full_look(options: ExportOptions, now: float) -> Look:
    stamp: set[tuple[str, str]] = set()
    quick: dict[str, tuple[int, int]] = {}
    for _adapter, ref in discover(options):
        stamp.add((str(ref.main.path), repr(ref.fingerprint())))
        for f in ref.files:
            if now - f.mtime_ns / 1e9 < HOT_WINDOW:
                quick[str(f.path)] = (f.size, f.mtime_ns)
            for folder in (f.path.parent, f.path.parent.parent):
                if str(folder) not in quick:
                    quick[str(folder)] = _stat(str(folder))
    return Look(frozenset(stamp), quick)


def quick_look_changed(look: Look) -> bool:
    return any(_stat(path) != seen for path, seen in look.quick.items())


def _stat(path: str) -> tuple[int, int]:
    # As discovery stamps it (a folder too, OpenCode's session tree): a quick look that
    # read a folder's size differently would see a change every round.
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)


def watch(
    options: ExportOptions,
    events: WatchEvents | None = None,
    *,
    interval: float = 2.0,
    debounce: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    rounds: int | None = None,
    gone: Callable[[], bool] = lambda: False,
) -> None:
    """Export now, then again after each settled change; runs until interrupted, or the
    reader of its output went away (``gone``: ``watch | head -3``), or for ``rounds`` polls
    (for tests)."""
    events = events or WatchEvents()
    exported: Stamp | None = None
    look: Look | None = None
    unsettled = False  # the last look saw a change still being written: look again
    changing_since: float | None = None  # when the change not yet exported was first seen
    busy = False
    told: set[Problem] = set()  # the problems of the last export, already reported
    next_full = 0.0
    polls = 0
    # Ctrl-C stops it wherever it lands, even where Python drops it (``ctrl_c_noted``).
    with ctrl_c_noted():
        while (rounds is None or polls < rounds) and not gone():
            polls += 1
            now = clock()
            if look is None or unsettled or now >= next_full or quick_look_changed(look):
                look = full_look(options, time.time())
                cost = clock() - now
                next_full = clock() + max(FULL_EVERY, cost * IDLE_FACTOR)
                unsettled = False
                if look.stamp == exported:
                    changing_since = None  # whatever was seen changing is back as exported
                elif exported is not None:
                    changing_since = now if changing_since is None else changing_since
                    sleep(debounce)  # a session being written: wait until two looks agree
                    settled = full_look(options, time.time())
                    if settled.stamp != look.stamp:
                        look = settled
                        # The quick look compares with this look, so once the writing stops it
                        # sees nothing new: without a full look next round the change would
                        # wait for the next full look, a minute or more away. A session that
                        # never pauses (a long agent run) is exported as it stands meanwhile.
                        if clock() - changing_since < SETTLE_MAX:
                            unsettled = True
                            continue
                if look.stamp != exported:
                    try:
                        report = run_export(options)
                    except VaultLockedError as exc:
                        if not busy:  # told once while the nightly run lasts, not every round
                            events.busy(exc.busy)
                        busy = True
                        next_full = 0.0
                    else:
                        busy, changing_since = False, None
                        exported = look.stamp
                        # Each export reads a broken source again: tell only what is new.
                        fresh = [p for p in report.problems if p not in told]
                        told = set(report.problems)
                        report.problems = fresh
                        events.exported(report)
            check_ctrl_c()  # one Python dropped (in a finalizer) stops it here
            if not gone():
                sleep(interval)
