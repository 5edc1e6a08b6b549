"""The 1 GB home of issue 17, measured in one go: prints figures, asserts nothing.

    python tests/bench/bench_big.py                  # 20,000 sessions + three of ~100 MB
    python tests/bench/bench_big.py --sessions 2000 --repeat 3

It builds bench_export.py's ``--big`` home once (about 30 s), then reports: the floor (read
and orjson-parse every line), a full export with the default jobs into a new vault (wall
time, MB/s; target >= 20 MB/s), the no-op re-run over it, in this process and as a command
(target < 1 s), and the peak resident memory of every process of a full export (VmHWM from
/proc; target: under 300 MB plus the longest line). Full exports are medians of
``--repeat`` runs (1 by default: each takes minutes); no-op runs of at least 3.

Each full export goes into a new vault; the one before is moved aside, and deleted only at
the end. On an ext4 without a journal (this machine's disk) the kernel passes over every
inode freed in the last minutes each time it allocates one, so an export right after
deleting the last one's 20,000 notes paid for that deletion: a person's first export does
not follow one. (Four exports of 2,000 short sessions, each after deleting the vault
before: 0.6, 0.7, 1.1 and 1.6 s of system time.)
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_export import (  # noqa: E402
    build_big_home,
    cache_bytecode,
    floor,
    load_average,
    process_peaks_mb,
    timed_command,
    timed_export,
)
from bench_memory import longest_line_mb  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--big-turns", type=int, default=19_000, help="turns of each large session (~100 MB)"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ccexport-big-"))
    cache_bytecode(work)
    try:
        home = work / "home"
        before = load_average()
        built = time.perf_counter()
        size = build_big_home(home, args.sessions, big_turns=args.big_turns)
        built = time.perf_counter() - built
        floor_s = floor(home)
        fulls, vault = [], work / "vault"
        for i in range(args.repeat):
            if i:  # moved aside, not deleted: see the module's docstring
                vault.rename(work / f"vault-before-{i}")
            fulls.append(timed_export(vault, home))
        noops = [timed_export(vault, home) for _ in range(3)]
        commands = [timed_command(vault, home) for _ in range(3)]
        main_mb, workers_mb = process_peaks_mb(work / "vault-peaks", home, None)
        full = statistics.median(fulls)
        print(
            f"1 GB home: {args.sessions} sessions + 3 large, {size / 1e6:.0f} MB, built in {built:.0f} s"
        )
        print(f"  load average before / after:   {before} / {load_average()}")
        print(f"  floor (read + orjson):         {floor_s:.1f} s")
        print(
            f"  full export, default jobs:     {full:.1f} s = {size / 1e6 / full:.1f} MB/s (target 20 MB/s), {full / floor_s:.1f}x the floor"
        )
        if len(fulls) > 1:
            print(f"  each full export:              {', '.join(f'{t:.1f}' for t in fulls)} s")
        print(
            f"  no-op re-run:                  {statistics.median(noops):.2f} s in process, {statistics.median(commands):.2f} s as a command (target 1 s)"
        )
        print(
            f"  peak memory:                   main {main_mb:.0f} MB, workers {[round(w) for w in workers_mb]} MB; longest line {longest_line_mb(home):.3f} MB (target 300 MB + it)"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
