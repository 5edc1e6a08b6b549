"""Export speed, measured: prints figures, asserts nothing (these machines are noisy).

    python tests/bench/bench_export.py                 # 2000 sessions, 5 repeats
    python tests/bench/bench_export.py --sessions 500 --repeat 3

It builds a synthetic home of N Claude Code sessions (prompts, Markdown replies with code,
tool calls with long outputs, thinking), then reports medians of:

- floor: reading every line of every file and parsing it with orjson;
- full export into an empty vault, and its ratio to the floor (target: 8x, 12x in one
  process), with the notes rendered on every core (the default) and in one process
  (``--jobs 1``);
- a no-op re-run over the unchanged home, and its ratio to the full export (target: 5%);
- the command's start-up time (``ccexport --help``), and peak memory of a full export;
- with ``--peer PATH`` (the ``claude-code-log`` command, installed apart: it is not a
  dependency), that tool's Markdown export of the same home, and its ratio to ours
  (target: 12x); with ``--peer2 PATH`` (obsidian-agent-vault's ``agent-vault``), its
  first import of the same home, and its ratio to ours (target: 4x); each peer's ratio is
  also given as the median of its runs' ratios to a full export of ours run beside each
  (the machine's pace drifts within minutes: runs far apart compare the drift too), ours
  then run as a command, start-up included, as the peer is;
- the load time of a vault's state file grown to ``--state-sessions`` notes (20,000 by
  default: the records of this home's state, copied under new keys);
- start-up of an export of an empty home; peak memory (VmHWM) of every process of a full
  export, main and workers, with the default jobs and with ``--jobs 1``;
- the machine's load (``uptime``) before and after, since these figures are only as
  quiet as the machine.

``--big`` builds a home of about 1 GB instead (``--sessions`` sessions of a few turns,
20,000 by default, plus three files of 100 MB+: 927 MB, built in about 30 s on 2 cores);
each export of it takes minutes, so use ``--repeat 1`` there.

The CPU time of a one-process export is also measured through the reference path
(``CCEXPORT_REFERENCE_RENDER=1``, every speed-up of the note builder bypassed).

Every vault is set aside after its run, not deleted, and all are deleted at the end, as in
``bench_big.py``: on this machine's disk an export right after deleting thousands of notes
pays for the deletion (2,000 sessions, three pairs: 3.77, 5.00 and 4.47 s right after one,
3.46, 3.55 and 3.50 s into a new folder; 300 sessions: no difference the noise shows).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from claude_builder import ClaudeSession, tool_use  # noqa: E402
from corpus_home import build_corpus_copies  # noqa: E402

import exporter  # noqa: E402
from exporter.export import ExportOptions, run_export  # noqa: E402
from exporter.render import REFERENCE_ENV  # noqa: E402

REPLY = """Here is what I found in `src/{name}.rs`:

## Cause
The loop compares `a < b` where it should compare `a <= b`, so the last item of a `Vec<Item>`
is skipped.

```rust
for i in 0..items.len() {{
    if items[i].weight < limit {{ keep.push(items[i].clone()); }}
}}
```

1. Change the comparison.
2. Add a test for the boundary.
"""


def build_home(home: Path, sessions: int, turns: int = 8) -> int:
    """Write ``sessions`` synthetic sessions; return the total bytes written."""
    total = 0
    for i in range(sessions):
        sid = f"{i:08x}-bench-4000-8000-000000000000"
        s = ClaudeSession(
            sid,
            f"/home/dev/work/project-{i % 25}",
            start=f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T09:00:00Z",
        )
        for t in range(turns):
            s.user(
                f"<system-reminder>context</system-reminder>Why does test {t} in module{i} fail with `<T>`?"
            )
            s.assistant([{"type": "thinking", "thinking": "Let me look at the module first. " * 5},
                         tool_use("Bash", {"command": f"cargo test module{i}::t{t}", "description": "Run the test"}, f"t{i}_{t}")])  # fmt: skip
            s.tool_result(
                f"t{i}_{t}", ("running 1 test\ntest result: FAILED. 0 passed; 1 failed\n" * 40)
            )
            s.assistant(REPLY.format(name=f"module{i}"), usage=(1200, 300))
        path = s.write(
            home / ".claude" / "projects" / f"-home-dev-work-project-{i % 25}" / f"{sid}.jsonl"
        )
        total += path.stat().st_size
    return total


def build_big_home(home: Path, sessions: int, big_files: int = 3, big_turns: int = 19_000) -> int:
    """About 1 GB: ``sessions`` sessions of 2 to 10 turns, plus ``big_files`` sessions of
    100 MB+ each (``big_turns`` turns, long tool outputs)."""
    total = 0
    for i in range(sessions):
        total += _write_session(home, i, turns=2 + i % 9)
    for b in range(big_files):
        total += _write_session(home, sessions + b, turns=big_turns)
    return total


def _write_session(home: Path, i: int, turns: int) -> int:
    sid = f"{i:08x}-bench-4000-8000-000000000000"
    s = ClaudeSession(
        sid,
        f"/home/dev/work/project-{i % 25}",
        start=f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T09:00:00Z",
    )
    for t in range(turns):
        s.user(
            f"<system-reminder>context</system-reminder>Why does test {t} in module{i} fail with `<T>`?"
        )
        s.assistant([{"type": "thinking", "thinking": f"Let me look at module{i} test {t} first. " * 5},
                     tool_use("Bash", {"command": f"cargo test module{i}::t{t}", "description": "Run the test"}, f"t{i}_{t}")])  # fmt: skip
        s.tool_result(
            f"t{i}_{t}",
            f"running 1 test (module{i}, run {t})\n"
            + "test result: FAILED. 0 passed; 1 failed\n" * 40,
        )
        s.assistant(REPLY.format(name=f"module{i}_{t}"), usage=(1200, 300))
    path = s.write(
        home / ".claude" / "projects" / f"-home-dev-work-project-{i % 25}" / f"{sid}.jsonl"
    )
    return path.stat().st_size


def state_load_s(vault: Path, sessions: int, work: Path, repeat: int) -> tuple[float, float]:
    """Median seconds to load a state file of ``sessions`` notes, and its size in MB: this
    vault's records copied under new keys (and new file names) until there are that many."""
    import dataclasses

    from exporter.state import STATE_DIR, STATE_FILE, State

    state = State.load(vault)
    notes, sources = list(state.notes.items()), list(state.sources.items())
    copies = sessions // len(notes) + 1
    state.notes = dict(
        list(
            {
                f"{key}#{n}": dataclasses.replace(
                    record, path=record.path.replace(".md", f" {n}.md")
                )
                for n in range(copies)
                for key, record in notes
            }.items()
        )[:sessions]
    )
    state.sources = {
        f"{unit}#{n}": {**record, "notes": [f"{k}#{n}" for k in record.get("notes", [])]}
        for n in range(copies)
        for unit, record in sources
    }
    big = work / "state-vault"
    (big / STATE_DIR).mkdir(parents=True, exist_ok=True)
    raw = state.dumps()
    (big / STATE_DIR / STATE_FILE).write_bytes(raw)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        loaded = State.load(big)
        times.append(time.perf_counter() - start)
        assert len(loaded.notes) == sessions
    return statistics.median(times), len(raw) / 1e6


def startup_empty(work: Path) -> float:
    """An export of a home with no sessions into a new vault, as a command."""
    empty = work / "empty-home"
    empty.mkdir(exist_ok=True)
    vault = work / "empty-vault"
    elapsed = timed_command(vault, empty)
    set_aside(vault)
    return elapsed


def _peak_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        pass
    return found


def process_peaks_mb(vault: Path, home: Path, jobs: int | None) -> tuple[float, list[float]]:
    """Peak resident memory (VmHWM, read from /proc every 20 ms) of the main process and of
    each worker of a full export run as a command: (main MB, [worker MB, ...])."""
    set_aside(vault)  # (a full export: into no vault an earlier run left)
    command = [
        sys.executable,
        "-m",
        "exporter",
        "--vault",
        str(vault),
        "--home",
        str(home),
        "--quiet",
    ]
    if jobs:
        command += ["--jobs", str(jobs)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peaks: dict[int, int] = {}
    while proc.poll() is None:
        for pid in [proc.pid, *_children(proc.pid)]:
            peaks[pid] = max(peaks.get(pid, 0), _peak_kb(pid))
        time.sleep(0.02)
    set_aside(vault)
    main_kb = peaks.pop(proc.pid, 0)
    return main_kb / 1024, sorted((kb / 1024 for kb in peaks.values() if kb), reverse=True)


_ASIDE = itertools.count()


def set_aside(vault: Path) -> None:
    """Move a vault out of the way of the next export instead of deleting it (everything
    under the benchmark's folder is deleted at the end). On an ext4 without a journal, this
    machine's disk, the kernel passes over every inode freed recently each time it makes a
    file, so an export right after deleting the last one's notes pays for that deletion; a
    person's first export follows no such thing (see bench_big.py)."""
    if vault.exists():
        aside = vault.parent / "set-aside"
        aside.mkdir(exist_ok=True)
        target = aside / f"{vault.name}-{next(_ASIDE)}"
        while target.exists():  # (left by an earlier run in a kept folder: ``--work``)
            target = aside / f"{vault.name}-{next(_ASIDE)}"
        vault.rename(target)


def load_average() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def floor(home: Path) -> float:
    start = time.perf_counter()
    for path in home.rglob("*.jsonl"):
        with open(path, "rb") as f:
            for line in f:
                orjson.loads(line)
    return time.perf_counter() - start


def timed_export(vault: Path, home: Path, workers: int | None = None, redact: bool = True) -> float:
    start = time.perf_counter()
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=workers, redact=redact)
    report = run_export(options)
    elapsed = time.perf_counter() - start
    assert not report.failed, report.problems[:3]
    return elapsed


def cache_bytecode(work: Path) -> None:
    """Commands this benchmark starts run as an installed ccexport does, with the bytecode
    of its modules cached. Where PYTHONDONTWRITEBYTECODE is set (these machines set it), a
    checkout's stale or missing caches are never written, and every start compiled the
    modules changed since: up to 0.3 s of CPU a command, which the peers do not pay. The
    cache goes under ``work`` (PYTHONPYCACHEPREFIX), written once here."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    package = Path(exporter.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


def timed_command(vault: Path, home: Path) -> float:
    """An export as the person runs it: ``ccexport --vault V --home H`` in a new
    interpreter, start-up included (into a new vault: a full export; else, a re-run)."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "exporter", "--vault", str(vault), "--home", str(home), "--quiet"],
        check=True, capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - start


def cpu_export(vault: Path, home: Path, redact: bool) -> float:
    """CPU seconds of a full export in this one process: what redaction adds, however busy
    the machine is."""
    start = time.process_time()
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=1, redact=redact)
    report = run_export(options)
    elapsed = time.process_time() - start
    assert not report.failed, report.problems[:3]
    set_aside(vault)
    return elapsed


def synthetic_texts(megabytes: float, seed: int = 7) -> list[str]:
    """Session-like texts for the redaction benchmark: replies with code, test output,
    config files whose keys sound secret (most values are not), ids, hashes, a base64
    image, and a real-format token in one text of ten (random characters, not a real key)."""
    import base64
    import hashlib
    import random
    import uuid

    rng = random.Random(seed)
    alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    texts, size, n = [], 0, 0
    while size < megabytes * 1e6:
        n += 1
        parts = [
            REPLY.format(name=f"module{n}"),
            "test result: FAILED. 0 passed; 1 failed\n" * 20,
            f"DB_HOST=localhost\nDB_PASSWORD=${{DB_PASSWORD}}\nmax_tokens = 4096\ncommit {hashlib.sha1(str(n).encode()).hexdigest()}\n",
            f"session {uuid.UUID(int=rng.getrandbits(128))} token usage: {n * 37}\n",
        ]
        if n % 10 == 0:
            parts.append(
                "export GITHUB_TOKEN=gh" + "p_" + "".join(rng.choice(alnum) for _ in range(36))
            )
        if n % 50 == 0:
            parts.append(base64.b64encode(rng.randbytes(30_000)).decode())
        text = "\n".join(parts)
        texts.append(text)
        size += len(text.encode())
    return texts


def corpus_texts(corpus: Path) -> list[str]:
    """Every text in the shared corpus: each file, and each text value of its databases."""
    import sqlite3

    texts = []
    for path in sorted(corpus.rglob("*")):
        if not path.is_file() or "LICENSES" in path.parts or path.suffix in (".tsv",):
            continue
        if path.suffix in (".vscdb", ".db", ".sqlite"):
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            for (table,) in con.execute("select name from sqlite_master where type='table'"):
                for row in con.execute(f'select * from "{table}"'):
                    texts += [v for v in row if isinstance(v, str)]
            con.close()
        else:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return texts


def redaction_mb_per_s(texts: list[str], repeat: int) -> tuple[float, int]:
    """Median MB per CPU-second (so per core, however busy the machine) of redacting
    every text once."""
    from collections import Counter

    from exporter.redact import redactor

    rules = redactor()
    size = sum(len(t.encode()) for t in texts)
    times, counts = [], Counter()
    for _ in range(repeat):
        counts.clear()
        start = time.process_time()
        for text in texts:
            rules.text(text, counts)
        times.append(time.process_time() - start)
    return size / 1e6 / statistics.median(times), sum(counts.values())


def timed_peer(command: str, home: Path, out: Path) -> float:
    """claude-code-log converting every project to Markdown, cache off (a first run)."""
    start = time.perf_counter()
    subprocess.run(
        [command, "--all-projects", "--projects-dir", str(home / ".claude" / "projects"),
         "--format", "md", "--no-cache", "--output", str(out)],
        check=True, capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - start


def timed_second_peer(command: str, home: Path, work: Path, n: int) -> float:
    """obsidian-agent-vault (``agent-vault``): configure a new vault for the home's Claude
    Code projects, then import every session (``audit``), as its README's first run does."""
    config, vault = work / f"agent-vault-{n}.json", work / f"agent-vault-{n}"
    env = {**os.environ, "HOME": str(work)}  # nothing of it lands in the real home
    start = time.perf_counter()
    subprocess.run(
        [command, "init", "--config", str(config), "--vault", str(vault), "--yes",
         "--no-detect", "--source", f"claude={home / '.claude' / 'projects'}"],
        check=True, capture_output=True, env=env,
    )  # fmt: skip
    subprocess.run(
        [command, "audit", "--config", str(config)], check=True, capture_output=True, env=env
    )
    return time.perf_counter() - start


def paired_with_peer(
    home: Path, work: Path, repeat: int, run_peer: Callable[[int], float]
) -> tuple[float, float]:
    """The peer's median time, and the median of its ratios to a full export of ours run
    right beside it, as a command like the peer (start-up included: timed in this process,
    ours would skip it), ours first, then the peer first, in turn. The machine's pace drifts
    by a fifth within minutes, so a ratio of runs far apart is partly the drift's. Each run
    starts once the files of the one before are on disk (``os.sync``)."""
    peers, ratios = [], []
    for i in range(repeat):
        vault = work / f"paired-vault{i}"
        took = {}
        for who in ("ours", "peer") if i % 2 == 0 else ("peer", "ours"):
            os.sync()  # the other run's files written out first, not during this one
            took[who] = timed_command(vault, home) if who == "ours" else run_peer(i)
        set_aside(vault)
        peers.append(took["peer"])
        ratios.append(took["peer"] / took["ours"])
    return statistics.median(peers), statistics.median(ratios)


def startup() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "exporter", "--help"], check=True, capture_output=True)
    return time.perf_counter() - start


def peak_memory_mb(vault: Path, home: Path) -> float:
    code = (
        "import resource, sys; from exporter.cli import main; sys.argv=['ccexport','--vault',"
        f"{str(vault)!r},'--home',{str(home)!r},'--quiet']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
        " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    main_kb, worker_kb = out.strip().splitlines()[-1].split()
    return int(main_kb) / 1024, int(worker_kb) / 1024


def real_home_figures(args: argparse.Namespace, work: Path) -> dict[str, object]:
    """The same ratios on real sessions: the corpus's Claude Code transcripts (long tool
    outputs, file reads, compactions, subagents), copied under new ids to a size worth
    timing. Synthetic sessions are many small texts; real ones are fewer and longer."""
    home = work / "real-home"
    size = build_corpus_copies(args.corpus, home, args.real_copies)
    floors, fulls, serials, peers, peers2 = [], [], [], [], []
    for i in range(args.repeat):
        floors.append(floor(home))
        for workers, times in ((None, fulls), (1, serials)):
            vault = work / f"real-vault{i}"
            times.append(timed_export(vault, home, workers=workers))
            set_aside(vault)
        if args.peer:
            peers.append(timed_peer(args.peer, home, work / f"real-peer{i}"))
        if args.peer2:
            peers2.append(timed_second_peer(args.peer2, home, work, 100 + i))
    real: dict[str, object] = {
        "real_copies": args.real_copies,
        "real_megabytes": round(size / 1e6, 1),
        "real_floor_s": round(statistics.median(floors), 3),
        "real_full_s": round(statistics.median(fulls), 3),
        "real_one_process_s": round(statistics.median(serials), 3),
    }
    full, floor_s = statistics.median(fulls), statistics.median(floors)
    real["real_full_over_floor"] = round(full / floor_s, 2)
    real["real_one_process_over_floor"] = round(statistics.median(serials) / floor_s, 2)
    real["real_full_mb_per_s"] = round(size / 1e6 / full, 1)
    if peers:
        real["real_peer_s"] = round(statistics.median(peers), 3)
        real["real_peer_over_full"] = round(statistics.median(peers) / full, 2)
    if peers2:
        real["real_peer2_s"] = round(statistics.median(peers2), 3)
        real["real_peer2_over_full"] = round(statistics.median(peers2) / full, 2)
    return real


def print_real_home(figures: dict[str, object]) -> None:
    f = figures
    print(
        f"corpus home: the corpus's Claude Code sessions x{f['real_copies']}, {f['real_megabytes']} MB"
    )
    print(f"  floor (read + orjson every line): {f['real_floor_s']:.3f} s")
    print(
        f"  full export:                      {f['real_full_s']:.3f} s  = {f['real_full_over_floor']}x the floor, {f['real_full_mb_per_s']} MB/s"
    )
    print(
        f"  full export, one process:         {f['real_one_process_s']:.3f} s  = {f['real_one_process_over_floor']}x the floor"
    )
    if "real_peer_s" in f:
        print(
            f"  claude-code-log, Markdown:        {f['real_peer_s']:.3f} s  = {f['real_peer_over_full']}x our full export"
        )
    if "real_peer2_s" in f:
        print(
            f"  obsidian-agent-vault, audit:      {f['real_peer2_s']:.3f} s  = {f['real_peer2_over_full']}x our full export"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--peer", help="path of a claude-code-log command to time as well")
    parser.add_argument(
        "--peer2", help="path of an obsidian-agent-vault command (agent-vault) to time as well"
    )
    parser.add_argument(
        "--big", action="store_true", help="a home of about 1 GB (--sessions default: 20000)"
    )
    parser.add_argument(
        "--state-sessions", type=int, default=20_000, help="notes in the state-file load test"
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path(__file__).resolve().parents[3] / "shared" / "corpus",
        help="the shared corpus, for the redaction throughput on real sessions",
    )
    parser.add_argument(
        "--real-copies",
        type=int,
        default=8,
        help="also time a home of the corpus's real Claude Code sessions, this many copies "
        "under new ids (8: about 100 MB; 0: skip it)",
    )
    args = parser.parse_args()
    if args.sessions is None:
        args.sessions = 20_000 if args.big else 2000

    work = Path(tempfile.mkdtemp(prefix="ccexport-bench-"))
    cache_bytecode(work)
    try:
        home = work / "home"
        load_before = load_average()
        built = time.perf_counter()
        size = (build_big_home if args.big else build_home)(home, args.sessions)
        built = time.perf_counter() - built
        floors, fulls, serials, noops, unredacted = [], [], [], [], []
        cpu_on, cpu_off, cpu_reference = [], [], []
        for i in range(args.repeat):
            floors.append(floor(home))
            vault = work / f"vault{i}"
            fulls.append(timed_export(vault, home))
            noops.append(timed_export(vault, home))
            set_aside(vault)
            serials.append(timed_export(vault, home, workers=1))
            set_aside(vault)
            unredacted.append(timed_export(vault, home, redact=False))
            set_aside(vault)
            for redact in (True, False) if i % 2 == 0 else (False, True):  # neither always first
                (cpu_on if redact else cpu_off).append(cpu_export(vault, home, redact))
            # The plain path (every speed-up of the note builder bypassed), same home, same run.
            os.environ[REFERENCE_ENV] = "1"
            try:
                cpu_reference.append(cpu_export(vault, home, True))
            finally:
                del os.environ[REFERENCE_ENV]
        main_mb, worker_mb = peak_memory_mb(work / "vault-mem", home)
        # Every process, read from /proc while it runs (Linux): default jobs, then one.
        peaks = {jobs: process_peaks_mb(work / "vault-peaks", home, jobs) for jobs in (None, 1)}
        vault = work / "vault-state"
        timed_export(vault, home)
        state_s, state_mb = state_load_s(vault, args.state_sessions, work, max(3, args.repeat))
        figures = {
            "sessions": args.sessions,
            "megabytes": round(size / 1e6, 1),
            "floor_s": round(statistics.median(floors), 3),
            "full_s": round(statistics.median(fulls), 3),
            "one_process_s": round(statistics.median(serials), 3),
            "noop_s": round(statistics.median(noops), 4),
            "startup_s": round(statistics.median(startup() for _ in range(3)), 3),
            "peak_rss_mb": round(main_mb, 1),
            "worker_peak_rss_mb": round(worker_mb, 1),
            "peak_main_mb": round(peaks[None][0], 1),
            "peak_workers_mb": [round(mb, 1) for mb in peaks[None][1]],
            "peak_one_process_mb": round(peaks[1][0], 1),
            "startup_empty_s": round(statistics.median(startup_empty(work) for _ in range(3)), 3),
            "state_sessions": args.state_sessions,
            "state_mb": round(state_mb, 1),
            "state_load_s": round(state_s, 4),
            "build_s": round(built, 1),
            "load_before": load_before,
        }
        figures["no_redact_s"] = round(statistics.median(unredacted), 3)
        figures["redaction_overhead_pct"] = round(
            100 * (figures["full_s"] / figures["no_redact_s"] - 1), 1
        )
        figures["cpu_s"] = round(statistics.median(cpu_on), 3)
        figures["cpu_no_redact_s"] = round(statistics.median(cpu_off), 3)
        figures["cpu_reference_s"] = round(statistics.median(cpu_reference), 3)
        figures["redaction_cpu_overhead_pct"] = round(
            100 * (figures["cpu_s"] / figures["cpu_no_redact_s"] - 1), 1
        )
        synthetic = synthetic_texts(20)
        mbps, found = redaction_mb_per_s(synthetic, args.repeat)
        figures["redact_synthetic_mb_per_s"], figures["redact_synthetic_hits"] = (
            round(mbps, 1),
            found,
        )
        if args.corpus.is_dir():
            texts = corpus_texts(args.corpus)
            figures["corpus_mb"] = round(sum(len(t.encode()) for t in texts) / 1e6, 1)
            mbps, found = redaction_mb_per_s(texts, args.repeat)
            figures["redact_corpus_mb_per_s"], figures["redact_corpus_hits"] = round(mbps, 1), found
        figures["full_over_floor"] = round(figures["full_s"] / figures["floor_s"], 2)
        figures["one_process_over_floor"] = round(figures["one_process_s"] / figures["floor_s"], 2)
        if args.peer:
            peer, paired = paired_with_peer(
                home, work, args.repeat, lambda i: timed_peer(args.peer, home, work / f"peer{i}")
            )
            figures["peer_s"] = round(peer, 3)
            figures["peer_over_full"] = round(peer / figures["full_s"], 2)
            figures["peer_paired_over_full"] = round(paired, 2)
        if args.peer2:
            peer, paired = paired_with_peer(
                home, work, args.repeat, lambda i: timed_second_peer(args.peer2, home, work, i)
            )
            figures["peer2_s"] = round(peer, 3)
            figures["peer2_over_full"] = round(peer / figures["full_s"], 2)
            figures["peer2_paired_over_full"] = round(paired, 2)
        if args.real_copies and (args.corpus / "claude-code").is_dir():
            figures.update(real_home_figures(args, work))
        figures["noop_over_full"] = round(figures["noop_s"] / figures["full_s"], 4)
        figures["full_mb_per_s"] = round(figures["megabytes"] / figures["full_s"], 1)
        figures["load_after"] = load_average()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(figures))
        return
    print(
        f"synthetic home: {figures['sessions']} sessions, {figures['megabytes']} MB (median of {args.repeat}), built in {figures['build_s']} s"
    )
    print(f"  load average before / after:      {figures['load_before']} / {figures['load_after']}")
    print(f"  floor (read + orjson every line): {figures['floor_s']:.3f} s")
    print(
        f"  full export:                      {figures['full_s']:.3f} s  = {figures['full_over_floor']}x the floor (target 8x), {figures['full_mb_per_s']} MB/s"
    )
    print(
        f"  full export, one process:         {figures['one_process_s']:.3f} s  = {figures['one_process_over_floor']}x the floor (target 12x)"
    )
    print(
        f"  no-op re-run:                     {figures['noop_s']:.4f} s  = {figures['noop_over_full'] * 100:.2f}% of a full export"
    )
    if "peer_s" in figures:
        print(
            f"  claude-code-log, Markdown:        {figures['peer_s']:.3f} s  = {figures['peer_over_full']}x our full export in process; {figures['peer_paired_over_full']}x ours as a command, run beside it (target 12x)"
        )
    if "peer2_s" in figures:
        print(
            f"  obsidian-agent-vault, audit:      {figures['peer2_s']:.3f} s  = {figures['peer2_over_full']}x our full export in process; {figures['peer2_paired_over_full']}x ours as a command, run beside it (target 4x)"
        )
    print(
        f"  full export, --no-redact:         {figures['no_redact_s']:.3f} s  (redaction costs {figures['redaction_overhead_pct']}%)"
    )
    print(
        f"  CPU of one-process export:        {figures['cpu_s']:.3f} s, {figures['cpu_no_redact_s']:.3f} s with --no-redact (redaction costs {figures['redaction_cpu_overhead_pct']}%)"
    )
    print(
        f"  CPU, reference path:              {figures['cpu_reference_s']:.3f} s (CCEXPORT_REFERENCE_RENDER=1: the speed-ups bypassed)"
    )
    print(
        f"  redaction, one core:              {figures['redact_synthetic_mb_per_s']} MB/s on 20 MB of synthetic session text ({figures['redact_synthetic_hits']} secrets)"
        + (
            f", {figures['redact_corpus_mb_per_s']} MB/s on ../shared/corpus ({figures['corpus_mb']} MB, {figures['redact_corpus_hits']} hits)"
            if "redact_corpus_mb_per_s" in figures
            else ""
        )
    )
    if "real_floor_s" in figures:
        print_real_home(figures)
    print(f"  start-up (ccexport --help):       {figures['startup_s']:.3f} s (target 0.3 s)")
    print(f"  start-up, export of an empty home: {figures['startup_empty_s']:.3f} s (target 0.3 s)")
    print(
        f"  state file, {figures['state_sessions']} notes:      {figures['state_load_s']:.4f} s to load ({figures['state_mb']} MB)"
    )
    print(
        f"  peak memory, every process:       main {figures['peak_main_mb']} MB, workers {figures['peak_workers_mb']} MB; --jobs 1: {figures['peak_one_process_mb']} MB"
    )
    print(
        f"  peak memory, full export:         {figures['peak_rss_mb']} MB main process, {figures['worker_peak_rss_mb']} MB largest worker"
    )


if __name__ == "__main__":
    main()
