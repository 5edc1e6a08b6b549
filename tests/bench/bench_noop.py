"""No-op re-run speed, measured: prints medians, asserts nothing (these machines are noisy).

    python tests/bench/bench_noop.py                          # 20,000 sessions, 3 repeats
    python tests/bench/bench_noop.py --sessions 2000 --repeat 5
    python tests/bench/bench_noop.py --work /tmp/noop --keep  # reuse the home and vault
    python tests/bench/bench_noop.py --profile                # and cProfile one no-op run

It builds a home of N small Claude Code sessions (2 to 10 turns each), exports it once, then
reports medians of: a no-op re-run in this process (``run_export``), the same as a command
(``python -m exporter --vault V --home H --quiet --timezone UTC``, start-up included, its
bytecode cached as an installed copy has it), and the load of the vault's state file (its
size too), and of that state grown to 5,000, 20,000 and 80,000 notes. Also the machine's load (``uptime``) before and after.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, tzinfo
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_export import _write_session, load_average  # noqa: E402

from exporter.export import ExportOptions, run_export  # noqa: E402
from exporter.state import STATE_DIR, STATE_FILE, State  # noqa: E402


def build(home: Path, sessions: int) -> None:
    for i in range(sessions):
        _write_session(home, i, turns=2 + i % 9)


ZONE: tzinfo | None = UTC  # --timezone local: None, as the command's default


def prepared_home(home: Path, sessions: int, keep: bool) -> None:
    """The home of ``sessions`` sessions, built anew unless ``keep`` and it is there; says
    the machine's load first (the figures depend on it)."""
    print(f"load average before: {load_average()}")
    if not (keep and home.is_dir()):
        shutil.rmtree(home, ignore_errors=True)
        start = time.perf_counter()
        build(home, sessions)
        print(f"home of {sessions} sessions built in {time.perf_counter() - start:.1f} s")


def noop_in_process(vault: Path, home: Path) -> float:
    start = time.perf_counter()
    report = run_export(ExportOptions(vault=vault, home=home, timezone=ZONE))
    elapsed = time.perf_counter() - start
    written = report.total("written")
    if written or report.failed:
        print(f"  (not a no-op: {written} written, failed: {report.failed})")
    return elapsed


def noop_command(vault: Path, home: Path, pycache: Path) -> float:
    # Bytecode cached, as an installed ccexport has it: compiling every module again would
    # add 0.3 s or more to each start (PYTHONDONTWRITEBYTECODE is set on some machines).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "exporter", "--vault", str(vault), "--home", str(home), "--quiet",
         *(["--timezone", "UTC"] if ZONE else [])],  # another zone would render every note again
        check=True, capture_output=True, env=env,
    )  # fmt: skip
    return time.perf_counter() - start


def state_load(vault: Path) -> float:
    start = time.perf_counter()
    State.load(vault)
    return time.perf_counter() - start


def state_load_scaling(vault: Path, work: Path, sizes: tuple[int, ...]) -> list[str]:
    """Load time of this vault's state grown to each size (its notes and sources copied
    under new keys): how the load grows with the number of notes."""
    from exporter.state import NoteRecord

    base = State.load(vault)
    notes, sources = list(base.notes.items()), list(base.sources.items())
    lines = []
    for size in sizes:
        grown = State(render=base.render)
        for n in range(size):
            key, r = notes[n % len(notes)]
            grown.notes[f"{key}#{n}"] = NoteRecord(
                r.path.replace(".md", f" {n}.md"), r.hash, r.lines, r.tags, r.keys, r.meta, r.stat
            )
            unit, record = sources[n % len(sources)]
            copy = unit.replace(".jsonl", f"-{n}.jsonl")  # its own file, as a real source
            grown.sources[copy] = {
                "fingerprint": [
                    [copy, *f[1:]] if f[0] == unit else f for f in record["fingerprint"]
                ],
                "notes": [f"{key}#{n}"],
            }
        folder = work / f"state-{size}"
        (folder / STATE_DIR).mkdir(parents=True, exist_ok=True)
        (folder / STATE_DIR / STATE_FILE).write_bytes(grown.dumps())
        seconds = statistics.median(state_load(folder) for _ in range(3))
        lines.append(f"{size} notes: {seconds:.3f} s")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path, help="folder for the home and vault (kept)")
    parser.add_argument("--keep", action="store_true", help="reuse a home and vault in --work")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one no-op")
    parser.add_argument(
        "--timezone", choices=("UTC", "local"), default="UTC",
        help="the notes' zone (a kept vault written with the other one is rendered again once)",
    )  # fmt: skip
    args = parser.parse_args()
    global ZONE
    ZONE = UTC if args.timezone == "UTC" else None

    work = args.work or Path(tempfile.mkdtemp(prefix="ccexport-noop-"))
    home, vault = work / "home", work / "vault"
    try:
        prepared_home(home, args.sessions, args.keep)
        if not (args.keep and vault.is_dir()):
            shutil.rmtree(vault, ignore_errors=True)
            start = time.perf_counter()
            run_export(ExportOptions(vault=vault, home=home, timezone=ZONE))
            print(f"first export in {time.perf_counter() - start:.1f} s")
        noop_in_process(vault, home)  # warm the page cache alike for every figure
        inproc = statistics.median(noop_in_process(vault, home) for _ in range(args.repeat))
        noop_command(vault, home, work / "pycache")  # writes the bytecode cache
        command = statistics.median(
            noop_command(vault, home, work / "pycache") for _ in range(args.repeat)
        )
        loads = statistics.median(state_load(vault) for _ in range(max(3, args.repeat)))
        state_file = vault / STATE_DIR / STATE_FILE
        notes = len(State.load(vault).notes)
        size = state_file.stat().st_size
        print(f"no-op re-run, in process:  {inproc:.3f} s (median of {args.repeat})")
        print(f"no-op re-run, as command:  {command:.3f} s (median of {args.repeat})")
        print(
            f"state file load:           {loads:.4f} s, {notes} notes, {size / 1e6:.1f} MB"
            f" ({size / max(notes, 1):.0f} bytes a note)"
        )
        scaling = state_load_scaling(vault, work, (5_000, 20_000, 80_000))
        print(f"state load by notes:       {', '.join(scaling)}")
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            noop_in_process(vault, home)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)
        print(f"load average after: {load_average()}")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
