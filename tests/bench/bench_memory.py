"""Peak memory of exports of very large Claude Code sessions, measured: prints medians,
asserts nothing (tests/test_bounds.py holds the bounds that are robust enough to test).

    python tests/bench/bench_memory.py                     # both homes, 3 repeats
    python tests/bench/bench_memory.py --sessions 20000    # issue 17's home in full (~1 GB)
    python tests/bench/bench_memory.py --only single --repeat 1

Two homes:

- ``big``: ``--sessions`` small sessions (2,000 by default; 20,000 makes the ~1 GB home of
  bench_export.py ``--big``) plus three sessions of ~100 MB each (19,000 turns, lines of
  ~2 KB). Peak resident memory (VmHWM, read from /proc every 20 ms) of the main process
  and of every worker, with the default jobs. Target: every process under 300 MB plus the
  longest line.
- ``single``: one session of ``--single-mb`` MB (300 by default) made of lines of 40 KB
  (tests/big_logs.py), exported with the default jobs; the peak of the main
  process (a pool starts only from 24 notes, so its parts may go to workers). Target: about
  twice the longest line plus 200 MB.

Homes are built once in ``--work`` (a temporary folder by default, removed at the end).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_export import _write_session, process_peaks_mb  # noqa: E402
from test_bounds import big_log  # noqa: E402


def build_big(home: Path, sessions: int) -> int:
    total = 0
    for i in range(sessions):
        total += _write_session(home, i, turns=2 + i % 9)
    for b in range(3):
        total += _write_session(home, sessions + b, turns=19_000)
    return total


def build_single(home: Path, megabytes: int) -> int:
    return big_log("claude-code", home, megabytes).stat().st_size


def longest_line_mb(home: Path) -> float:
    longest = 0
    for path in home.rglob("*.jsonl"):
        with open(path, "rb") as f:
            longest = max([longest, *(len(line) for line in f)])
    return longest / 1e6


def measure(name: str, home: Path, work: Path, repeat: int) -> None:
    mains, workers = [], []
    for _ in range(repeat):
        main_mb, worker_mbs = process_peaks_mb(work / "vault", home, None)
        mains.append(main_mb)
        workers.append(max(worker_mbs, default=0.0))
    size = sum(p.stat().st_size for p in home.rglob("*.jsonl")) / 1e6
    print(
        f"{name}: {size:,.0f} MB of sessions, longest line {longest_line_mb(home):.3f} MB; "
        f"median peak of the main process {statistics.median(mains):.0f} MB, "
        f"of the largest worker {statistics.median(workers):.0f} MB "
        f"(main {[round(m) for m in mains]}, workers {[round(w) for w in workers]})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=2000, help="small sessions of 'big'")
    parser.add_argument("--single-mb", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("big", "single"))
    parser.add_argument("--work", type=Path, help="keep the homes here (reused when present)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="ccexport-memory-"))
    try:
        for name, build, size in (
            ("big", build_big, args.sessions),
            ("single", build_single, args.single_mb),
        ):
            if args.only and args.only != name:
                continue
            home = work / f"home-{name}-{size}"
            if not home.is_dir():
                build(home, size)
            measure(name, home, work, args.repeat)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
