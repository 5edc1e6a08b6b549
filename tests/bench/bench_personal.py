"""A run in the person's own vault, beside thousands of their notes: prints medians, asserts
nothing.

    python tests/bench/bench_personal.py                  # 20,000 notes, 5 repeats
    python tests/bench/bench_personal.py --notes 50000 --repeat 3

``ccexport --vault ~/Notes`` exports into a vault that is mostly the person's. Every run
that writes an index note (any run after a session grew) walks the vault for the session
notes other machines wrote, and looks at each note there. It builds a home of one session
and a vault of ``--notes`` notes of the person's (frontmatter with a title, tags, aliases,
a date; 0.5 to 5 kB of text each, in 40 folders), then times a first export into such a
vault, runs after the session grew and with no change, against the same in a vault
without those notes.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from vault_builder import write_session  # noqa: E402

from exporter.export import ExportOptions, run_export  # noqa: E402


def personal_notes(vault: Path, count: int) -> None:
    rnd = random.Random(1)
    for i in range(count):
        folder = vault / "Personal" / f"area {i % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        head = (f"---\ntitle: Note {i}\ntags:\n  - idea\n  - area/{i % 40}\naliases: [n{i}]\n"
                f"created: 2025-01-{1 + i % 28:02d}\nstatus: draft\n---\n")  # fmt: skip
        (folder / f"Note {i}.md").write_text(head + "Some text. " * rnd.randint(50, 450))


def runs(work: Path, notes: int, repeat: int) -> tuple[list[float], list[float], list[float]]:
    home = work / f"home{notes}"
    write_session(home, ["q"])
    first = []
    for k in range(repeat):  # a first export into the vault as the person has it
        vault = work / f"vault{notes}-{k}"
        personal_notes(vault, notes)
        start = time.perf_counter()
        run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
        first.append(time.perf_counter() - start)
    export = lambda: run_export(ExportOptions(vault=vault, home=home, timezone=UTC))  # noqa: E731
    grown, noop = [], []
    for k in range(repeat):
        write_session(home, ["q"] + [f"more {k} {j}" for j in range(k + 1)])
        start = time.perf_counter()
        export()
        grown.append(time.perf_counter() - start)
        start = time.perf_counter()
        export()
        noop.append(time.perf_counter() - start)
    return first, grown, noop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ccexport-personal-"))
    try:
        for notes in (0, args.notes):
            first, grown, noop = runs(work, notes, args.repeat)
            print(f"{notes:>6} notes of the person's: a first export "
                  f"{statistics.median(first):.3f} s, a run after one session grew "
                  f"{statistics.median(grown):.3f} s, a run with no change "
                  f"{statistics.median(noop):.3f} s (medians of {args.repeat})")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
