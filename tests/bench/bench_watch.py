"""What ``ccexport watch`` costs while nothing changes: prints figures, asserts nothing.

    python tests/bench/bench_watch.py                       # 200, 2000 and 20000 sessions
    python tests/bench/bench_watch.py --sessions 500 --seconds 10

For each home size (all sessions but five last written two days ago, as in a real history)
it reports the median time of a quick look (stat of the active files and the session
folders) and of a full look (a discovery of every source), the CPU share they give at the
default pace, the CPU seconds per idle hour, and, measured rather than computed, the CPU
time a real ``ccexport watch`` process spends over ``--seconds`` of idling after its first
export.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from claude_builder import ClaudeSession  # noqa: E402

from exporter.export import ExportOptions  # noqa: E402
from exporter.watch import FULL_EVERY, IDLE_FACTOR, full_look, quick_look_changed  # noqa: E402


def build_home(home: Path, sessions: int) -> None:
    old = time.time() - 2 * 86400
    for i in range(sessions):
        sid = f"{i:08x}-0000-4000-8000-000000000000"
        s = ClaudeSession(sid, f"/home/dev/work/p{i % 40}")
        s.user(f"question {i}")
        s.assistant(f"answer {i}")
        path = s.write(home / ".claude" / "projects" / f"-p{i % 40}" / f"{sid}.jsonl")
        if i >= 5:
            os.utime(path, (old, old))


def median_seconds(action, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def idle_cpu_seconds(home: Path, vault: Path, seconds: float, interval: float) -> float:
    """CPU time (user + system) of a watch process over ``seconds`` after its first export."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "exporter",
            "watch",
            "--vault",
            str(vault),
            "--home",
            str(home),
            "--interval",
            str(interval),
            "--quiet",
        ],  # fmt: skip
    )
    try:
        deadline = time.monotonic() + 600
        while not (vault / ".ccexport" / "state.json").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)  # let the first export finish writing
        before = _cpu(process.pid)
        time.sleep(seconds)
        return _cpu(process.pid) - before
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, nargs="*", default=[200, 2000, 20000])
    parser.add_argument("--seconds", type=float, default=30.0, help="idle time measured")
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    rows = []
    for count in args.sessions:
        with tempfile.TemporaryDirectory() as tmp:
            home, vault = Path(tmp) / "home", Path(tmp) / "vault"
            build_home(home, count)
            options = ExportOptions(vault=vault, home=home)
            full = median_seconds(lambda o=options: full_look(o, time.time()))
            look = full_look(options, time.time())
            quick = median_seconds(lambda lk=look: quick_look_changed(lk))
            every = max(FULL_EVERY, full * IDLE_FACTOR)
            share = quick / args.interval + full / every
            measured = (
                idle_cpu_seconds(home, vault, args.seconds, args.interval)
                if Path("/proc").is_dir()
                else float("nan")
            )
            rows.append(
                {
                    "sessions": count,
                    "quick_look_ms": round(quick * 1000, 3),
                    "paths_per_quick_look": len(look.quick),
                    "full_look_ms": round(full * 1000, 2),
                    "full_every_s": round(every, 1),
                    "idle_cpu_share": round(share, 5),
                    "cpu_s_per_idle_hour": round(3600 * share, 1),
                    "measured_cpu_s_per_idle_hour": round(measured * 3600 / args.seconds, 1),
                }
            )
    if args.json:
        print(json.dumps(rows))
        return
    print(
        f"{'sessions':>9} {'quick':>9} {'paths':>6} {'full':>10} {'every':>7} "
        f"{'idle CPU':>9} {'CPU s/h':>8} {'measured':>9}"
    )
    for r in rows:
        print(
            f"{r['sessions']:>9} {r['quick_look_ms']:>7.2f}ms {r['paths_per_quick_look']:>6} "
            f"{r['full_look_ms']:>8.1f}ms {r['full_every_s']:>6.0f}s "
            f"{100 * r['idle_cpu_share']:>8.2f}% {r['cpu_s_per_idle_hour']:>8.1f} "
            f"{r['measured_cpu_s_per_idle_hour']:>9.1f}"
        )


if __name__ == "__main__":
    main()
