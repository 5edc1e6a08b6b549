"""A re-render of every note beside a first export: prints medians, asserts nothing.

    python tests/bench/bench_rerender.py                       # 3,000 sessions, 3 repeats
    python tests/bench/bench_rerender.py --sessions 2000 --repeat 5 --jobs 1
    python tests/bench/bench_rerender.py --work /tmp/rr --keep # reuse the home in --work
    python tests/bench/bench_rerender.py --profile             # and cProfile one re-render

A run whose render settings differ from the last one's (every upgrade of ccexport: its
version is in the render fingerprint) renders every note again and merges each into the
note on disk: its frontmatter read, the person's keys and text kept. It builds a home of N
small Claude Code sessions (2 to 10 turns each, as bench_noop.py), then, ``--repeat`` times:
a first export into a new vault (``timezone=UTC``), and two re-renders of it, the zone
given as the command's default (None) and then as UTC again (each is a change of the
fingerprint; the notes' text is the same on a machine whose zone is UTC). It prints the
medians, wall and CPU time (of this process and its workers: steadier when other work
runs), and the ratio of a re-render to a first export. ``--profile``: one more re-render
in one process (``--jobs 1``) under cProfile, its top functions by own time (the
stats are written to ``rerender.pstats`` in ``--work``).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, tzinfo
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_export import load_average  # noqa: E402
from bench_noop import prepared_home  # noqa: E402

from exporter.export import ExportOptions, run_export  # noqa: E402


def timed(
    vault: Path, home: Path, zone: tzinfo | None, jobs: int | None
) -> tuple[float, float, int]:
    """Seconds of one export, wall and CPU (this process and its workers, user and system:
    steadier than the wall time on a loaded machine), and the notes it rendered."""
    start, cpu = time.perf_counter(), _cpu()
    report = run_export(ExportOptions(vault=vault, home=home, timezone=zone, workers=jobs))
    elapsed, cpu = time.perf_counter() - start, _cpu() - cpu
    assert not report.failed, report.problems[:3]
    return elapsed, cpu, report.total("written") + report.total("unchanged")


def _cpu() -> float:
    own, workers = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=3_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, help="worker processes (default: as the command)")
    parser.add_argument("--work", type=Path, help="folder for the home and vaults (kept)")
    parser.add_argument("--keep", action="store_true", help="reuse a home in --work")
    parser.add_argument("--profile", action="store_true", help="cProfile one re-render")
    parser.add_argument("--top", type=int, default=30, help="functions the profile prints")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="ccexport-rerender-"))
    home, vault = work / "home", work / "vault"
    try:
        prepared_home(home, args.sessions, args.keep)
        firsts, rerenders, notes = [], [], 0
        for _ in range(args.repeat):
            if vault.exists():  # a new vault each time, the last one moved aside
                vault.rename(work / f"vault-{time.time_ns()}")  # (see bench_export.set_aside)
            *first, notes = timed(vault, home, UTC, args.jobs)
            firsts.append(first)
            rerenders += [timed(vault, home, zone, args.jobs)[:2] for zone in (None, UTC)]
        if firsts:  # (--repeat 0 --keep: only the profile, of the vault kept)
            jobs = f"--jobs {args.jobs}" if args.jobs else "default jobs"
            print(f"{notes} notes, {jobs}; medians, wall (CPU) seconds")
            first, again = _median(firsts), _median(rerenders)
            print(f"first export:  {first[0]:.2f} ({first[1]:.2f}); each: {_each(firsts)}")
            print(f"re-render:     {again[0]:.2f} ({again[1]:.2f}); each: {_each(rerenders)}")
            print(
                f"re-render / first export: {again[0] / first[0]:.2f} ({again[1] / first[1]:.2f})"
            )
        if args.profile:
            timed(vault, home, UTC, args.jobs)  # (its notes in UTC, if not already)
            profiler = cProfile.Profile()
            profiler.enable()
            timed(vault, home, None, 1)
            profiler.disable()
            profiler.dump_stats(work / "rerender.pstats")  # (kept with --work)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(args.top)
        print(f"load average after: {load_average()}")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


def _median(runs: list[list[float]] | list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def _each(runs: list[list[float]] | list[tuple[float, float]]) -> str:
    return ", ".join(f"{wall:.2f} ({cpu:.2f})" for wall, cpu in runs)


if __name__ == "__main__":
    main()
