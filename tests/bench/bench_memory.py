"""Peak memory of exports of very large Claude Code sessions, measured: prints medians,
asserts nothing (tests/test_bounds.py holds the bounds that are robust enough to test).

    python tests/bench/bench_memory.py                     # both homes, 3 repeats
    python tests/bench/bench_memory.py --sessions 20000    # issue 17's home in full (~1 GB)
    python tests/bench/bench_memory.py --only single --repeat 1
    python tests/bench/bench_memory.py --only cursor --repeat 1 --jobs 1

Three homes:

- ``big``: ``--sessions`` small sessions (2,000 by default; 20,000 makes the ~1 GB home of
  bench_export.py ``--big``) plus three sessions of ~100 MB each (19,000 turns, lines of
  ~2 KB). Peak resident memory (VmHWM, read from /proc every 20 ms) of the main process
  and of every worker, with the default jobs. Target: every process under 300 MB plus the
  longest line.
- ``single``: one session of ``--single-mb`` MB (300 by default) made of lines of 40 KB
  (tests/big_logs.py), exported with the default jobs; the peak of the main
  process (a pool starts only from 24 notes, so its parts may go to workers). Target: about
  twice the longest line plus 200 MB.
- ``cursor``: one Cursor family in the global ``state.vscdb``: a composer whose task calls
  started ``--subagents`` subagent composers (50 by default) of ~5 MB of bubble rows each
  (50 replies of 100 KB of words drawn at random: text that compresses about as prose
  does). Every process's peak; target: under 300 MB.

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
from vscode_builder import cursor_composer, cursor_task, make_db  # noqa: E402


def build_big(home: Path, sessions: int) -> int:
    total = 0
    for i in range(sessions):
        total += _write_session(home, i, turns=2 + i % 9)
    for b in range(3):
        total += _write_session(home, sessions + b, turns=19_000)
    return total


def build_single(home: Path, megabytes: int) -> int:
    return big_log("claude-code", home, megabytes).stat().st_size


def build_cursor(home: Path, subagents: int) -> int:
    """A parent composer and ``subagents`` subagent composers of 50 replies of 100 KB."""
    import random

    draw = random.Random(17)
    words = ["".join(draw.choices("abcdefghijklmnopqrstuvwxyz", k=draw.randint(2, 9)))
             for _ in range(2000)]  # fmt: skip
    disk: dict = {}
    parent = "b0000000-0000-4000-8000-000000000001"
    kids = [f"c{n:07d}-0000-4000-8000-000000000000" for n in range(subagents)]

    calls = [(2, cursor_task(f"call_{n}")) for n in range(subagents)]
    cursor_composer(disk, parent, [(1, {"text": "Look everywhere"}), *calls, (2, {"text": "Done"})],
             workspaceIdentifier={"id": "w1", "uri": {"fsPath": "/home/dev/work/app"}},
             subagentComposerIds=kids)  # fmt: skip
    for n, cid in enumerate(kids):
        replies = [(2, {"text": " ".join(draw.choices(words, k=17_000))[:100_000]})
                   for _ in range(50)]  # fmt: skip
        cursor_composer(disk, cid, [(1, {"text": "Look inside"}), *replies],
                 subagentInfo={"parentComposerId": parent, "toolCallId": f"call_{n}",
                               "subagentTypeName": "explore"})  # fmt: skip
    db = home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    return make_db(db, {}, disk).stat().st_size


def longest_line_mb(home: Path) -> float:
    longest = 0
    for path in home.rglob("*.jsonl"):
        with open(path, "rb") as f:
            longest = max([longest, *(len(line) for line in f)])
    return longest / 1e6


def measure(name: str, home: Path, work: Path, repeat: int, jobs: int | None = None) -> None:
    mains, workers = [], []
    for _ in range(repeat):
        main_mb, worker_mbs = process_peaks_mb(work / "vault", home, jobs)
        mains.append(main_mb)
        workers.append(max(worker_mbs, default=0.0))
    size = sum(p.stat().st_size for p in [*home.rglob("*.jsonl"), *home.rglob("*.vscdb")]) / 1e6
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
    parser.add_argument("--subagents", type=int, default=50, help="subagents of 'cursor'")
    parser.add_argument("--jobs", type=int, help="the export's --jobs (its default if not given)")
    parser.add_argument("--only", choices=("big", "single", "cursor"))
    parser.add_argument("--work", type=Path, help="keep the homes here (reused when present)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="ccexport-memory-"))
    try:
        for name, build, size in (
            ("big", build_big, args.sessions),
            ("single", build_single, args.single_mb),
            ("cursor", build_cursor, args.subagents),
        ):
            if args.only and args.only != name:
                continue
            home = work / f"home-{name}-{size}"
            if not home.is_dir():
                build(home, size)
            measure(name, home, work, args.repeat, args.jobs)
    finally:
        # (the vaults set aside, kept out of the timed exports' way, go once all have run)
        shutil.rmtree(work if args.work is None else work / "set-aside", ignore_errors=True)


if __name__ == "__main__":
    main()
