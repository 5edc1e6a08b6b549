"""A run in the person's own vault, beside thousands of their notes: prints medians, asserts
nothing.

    python tests/bench/bench_personal.py                  # 20,000 notes, 5 repeats
    python tests/bench/bench_personal.py --notes 50000 --repeat 3

``ccexport --vault ~/Notes`` exports into a vault that is mostly the person's. Every run
that writes an index note (any run after a session grew) walks the vault for the session
notes other machines wrote, and looks at each note there. It builds a home of one session
and a vault of ``--notes`` notes of the person's (frontmatter with a title, tags, aliases,
a date; 0.5 to 5 kB of text each, in 40 folders), then times a first export into such a
vault, runs after the session grew and with no change (each as a new process would, knowing
nothing of the notes), and ``watch``'s rounds after the session grew (one process, which
remembers the notes that name no session), against the same in a vault without those notes.
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

from exporter import vaultsurvey  # noqa: E402
from exporter.export import ExportOptions, run_export  # noqa: E402


def personal_notes(vault: Path, count: int) -> None:
    rnd = random.Random(1)
    for i in range(count):
        folder = vault / "Personal" / f"area {i % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        head = (f"---\ntitle: Note {i}\ntags:\n  - idea\n  - area/{i % 40}\naliases: [n{i}]\n"
                f"created: 2025-01-{1 + i % 28:02d}\nstatus: draft\n---\n")  # fmt: skip
        (folder / f"Note {i}.md").write_text(head + "Some text. " * rnd.randint(50, 450))


def runs(work: Path, notes: int, repeat: int) -> dict[str, list[float]]:
    """Seconds of each kind of run. Every run but ``watch`` starts as a new process does,
    knowing nothing of the vault's notes; ``watch``'s rounds run in one process, which
    remembers the notes that name no session."""
    home = work / f"home{notes}"
    write_session(home, ["q"])
    times: dict[str, list[float]] = {"first": [], "grown": [], "noop": [], "watch": []}
    vault = work / f"vault{notes}"

    def timed(kind: str, fresh: bool) -> None:
        if fresh:
            vaultsurvey._UNNAMED.clear()
        start = time.perf_counter()
        run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
        times[kind].append(time.perf_counter() - start)

    for k in range(repeat):  # a first export into the vault as the person has it
        vault = work / f"vault{notes}-{k}"
        personal_notes(vault, notes)
        timed("first", fresh=True)
    for k in range(repeat):
        write_session(home, ["q"] + [f"more {k} {j}" for j in range(k + 1)])
        timed("grown", fresh=True)
        timed("noop", fresh=True)
    for k in range(repeat):
        write_session(home, ["q"] + [f"again {k} {j}" for j in range(k + 1)])
        timed("watch", fresh=False)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ccexport-personal-"))
    try:
        for notes in (0, args.notes):
            t = {kind: statistics.median(v) for kind, v in runs(work, notes, args.repeat).items()}
            print(f"{notes:>6} notes of the person's: a first export {t['first']:.3f} s, a run "
                  f"after one session grew {t['grown']:.3f} s, a run with no change "
                  f"{t['noop']:.3f} s, a watch round after a session grew {t['watch']:.3f} s "
                  f"(medians of {args.repeat})")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
