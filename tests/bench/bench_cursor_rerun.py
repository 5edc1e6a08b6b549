"""A heavy Cursor user's nightly run: prints medians, asserts nothing.

    python tests/bench/bench_cursor_rerun.py                      # 1,500 composers, 3 repeats
    python tests/bench/bench_cursor_rerun.py --composers 3000 --messages 40 --jobs 1

Cursor keeps every composer of a user folder in one ``state.vscdb`` and writes its
interface's state there all day, so the folder is read again on nearly every run. This
builds one synthetic folder (``--composers`` of ``--messages`` each, about 120 KB a
composer), exports it once, then ``--repeat`` times: writes one row of the interface's state
and re-runs the export into the same vault, wall and CPU time (this process and its
workers). Then it changes one composer and runs again: only that note is written.
Before render keys (``exporter/renderkey.py``) every composer was rendered again each time.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import closing
from datetime import UTC
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vscode_builder import TABLE, lexical, workspace  # noqa: E402

from exporter.export import ExportOptions, run_export  # noqa: E402

WORDS = "the client retry backoff cache handler parse request value error module test".split()
DB = Path(".config/Cursor/User/globalStorage/state.vscdb")


def build(home: Path, composers: int, messages: int) -> float:
    """The folder; returns the database's size in MB."""
    user, rnd = home / ".config/Cursor/User", random.Random(1)
    (home / DB).parent.mkdir(parents=True, exist_ok=True)
    ids = []
    with closing(sqlite3.connect(home / DB)) as db:
        for table in ("ItemTable", "cursorDiskKV"):
            db.execute(TABLE.format(table))
        for c in range(composers):
            cid = f"c{c:07d}-1111-4222-8333-444444444444"
            ids.append(cid)
            headers = []
            for i in range(messages):
                kind = 1 if i % 4 == 0 else 2
                text = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(40, 400)))
                bubble = {"_v": 3, "type": kind, "bubbleId": f"b{i}", "text": text,
                          "createdAt": f"2025-10-{1 + c % 28:02d}T{i % 24:02d}:00:00.000Z"}  # fmt: skip
                if kind == 1:
                    bubble["richText"] = lexical(text)
                headers.append({"bubbleId": f"b{i}", "type": kind})
                db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)",
                           (f"bubbleId:{cid}:b{i}", json.dumps(bubble)))  # fmt: skip
            data = {"_v": 10, "composerId": cid, "name": f"Chat {c}",
                    "createdAt": 1759861723898 + c * 3_600_000, "fullConversationHeadersOnly": headers}  # fmt: skip
            db.execute(
                "INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:{cid}", json.dumps(data))
            )
        db.commit()
    listed = {"composer.composerData": {"allComposers": [{"composerId": i} for i in ids]}}
    workspace(user, "ws1", "file:///home/dev/work/app", listed)
    return (home / DB).stat().st_size / 1e6


def write_row(home: Path, key: str, value: object, table: str = "ItemTable") -> None:
    with closing(sqlite3.connect(home / DB)) as db:
        db.execute(f"INSERT INTO {table} VALUES (?, ?)", (key, json.dumps(value)))
        db.commit()


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def export(vault: Path, home: Path, jobs: int | None) -> tuple[float, float, dict]:
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=jobs, sources=["cursor"])
    wall, used = time.perf_counter(), cpu()
    totals = run_export(options).as_dict()["totals"]
    return time.perf_counter() - wall, cpu() - used, totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--composers", type=int, default=1500)
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cursor-") as work:
        home, vault = Path(work) / "home", Path(work) / "vault"
        size = build(home, args.composers, args.messages)
        print(
            f"{args.composers} composers of {args.messages} messages, {size:.1f} MB; jobs {args.jobs or 'default'}"
        )
        wall, used, totals = export(vault, home, args.jobs)
        print(f"first export: {wall:.2f} s wall, {used:.2f} s CPU, {totals['created']} created")
        walls, cpus = [], []
        for n in range(args.repeat + 1):  # (the first: the composer read first gets its key)
            write_row(home, "some.ui.state", {"round": n})
            wall, used, totals = export(vault, home, args.jobs)
            if n:
                walls.append(wall)
                cpus.append(used)
        print(f"after Cursor saved its state, median of {args.repeat}: "
              f"{statistics.median(walls):.2f} s wall, {statistics.median(cpus):.2f} s CPU, "
              f"{totals['unchanged']} unchanged, {totals['written']} written")  # fmt: skip
        cid = "c0000007-1111-4222-8333-444444444444"
        write_row(home, f"bubbleId:{cid}:b0", {"_v": 3, "type": 1, "bubbleId": "b0",
                                               "text": "asked again"}, "cursorDiskKV")  # fmt: skip
        wall, used, totals = export(vault, home, args.jobs)
        print(f"one composer changed: {wall:.2f} s wall, {used:.2f} s CPU, "
              f"{totals['updated']} updated, {totals['unchanged']} unchanged")  # fmt: skip


if __name__ == "__main__":
    main()
