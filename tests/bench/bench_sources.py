"""Export speed per source, measured: prints figures, asserts nothing (these machines are
noisy).

    python tests/bench/bench_sources.py                        # 1,000 sessions, 3 repeats
    python tests/bench/bench_sources.py --sessions 300 --only cursor opencode

For each source it builds a home of ``--sessions`` sessions with the same content as
bench_export.py's Claude Code sessions (eight turns: a prompt, thinking, a shell command
with 40 lines of output, a Markdown reply with code), in that source's own format: Claude
Code transcripts, Codex rollouts, Copilot CLI logs, Gemini CLI chats, Copilot Chat
sessions, one Cursor database of that many composers, one OpenCode database. Then it times
``ccexport`` as a command into an empty vault, with the default jobs and with ``--jobs 1``,
and prints medians of the wall time, MB/s of source, and the CPU of the main process and
of all processes: how much of the work the workers took from the main process.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_export import REPLY, build_home, cache_bytecode  # noqa: E402

OUTPUT = "running 1 test\ntest result: FAILED. 0 passed; 1 failed\n" * 40
THINKING = "Let me look at the module first. " * 5
TURNS = 8


def _prompt(i: int, t: int) -> str:
    return f"Why does test {t} in module{i} fail with `<T>`?"


def _command(i: int, t: int) -> str:
    return f"cargo test module{i}::t{t}"


def _started(i: int) -> str:
    return f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T09:00:00Z"


def build_codex(home: Path, sessions: int) -> None:
    from codex_builder import CodexRollout

    for i in range(sessions):
        r = CodexRollout(f"{i:08x}-c0de-4000-8000-000000000000", f"/home/dev/work/project-{i % 25}",
                         start=_started(i))  # fmt: skip
        for t in range(TURNS):
            r.user(_prompt(i, t))
            r.reasoning(THINKING)
            r.shell(["bash", "-lc", _command(i, t)], OUTPUT)
            r.assistant(REPLY.format(name=f"module{i}"))
        r.write(home / ".codex")


def build_copilot_cli(home: Path, sessions: int) -> None:
    from copilot_cli_builder import CopilotCliSession

    for i in range(sessions):
        s = CopilotCliSession(f"{i:08x}-c011-4000-8000-000000000000",
                              f"/home/dev/work/project-{i % 25}", start=_started(i))  # fmt: skip
        for t in range(TURNS):
            s.user(_prompt(i, t))
            call = {"toolCallId": f"c{i}_{t}", "name": "bash",
                    "arguments": {"command": _command(i, t)}}  # fmt: skip
            s.assistant("", [call], reasoningText=THINKING)
            s.tool(f"c{i}_{t}", "bash", {"command": _command(i, t)}, OUTPUT)
            s.assistant(REPLY.format(name=f"module{i}"))
        s.write(home / ".copilot")


def build_gemini(home: Path, sessions: int) -> None:
    from gemini_builder import GeminiChat, project_folder, tool_call

    folders: dict[str, Path] = {}
    for i in range(sessions):
        root = f"/home/dev/work/project-{i % 25}"
        if root not in folders:
            folders[root] = project_folder(home, root, f"project-{i % 25}")
        c = GeminiChat(f"{i:08x}-9e00-4000-8000-000000000000", root, start=_started(i))
        for t in range(TURNS):
            c.user([{"text": _prompt(i, t)}])
            call = tool_call(f"c{i}_{t}", "run_shell_command", {"command": _command(i, t)},
                             output=OUTPUT)  # fmt: skip
            c.gemini("", thoughts=[{"subject": "Look", "description": THINKING}], calls=[call])
            c.gemini(REPLY.format(name=f"module{i}"))
        c.write_json(folders[root] / "chats")


def build_copilot(home: Path, sessions: int) -> None:
    from copilot_builder import markdown, request, session, terminal_tool, write

    user = home / ".config" / "Code" / "User"
    for i in range(sessions):
        sid = f"{i:08x}-c0b1-4a0d-9c1e-000000000000"
        requests = [
            request(
                t,
                _prompt(i, t),
                [
                    terminal_tool(f"c{t}", _command(i, t), OUTPUT),
                    markdown(REPLY.format(name=f"module{i}")),
                ],
            )  # fmt: skip
            for t in range(TURNS)
        ]
        chats = user / "workspaceStorage" / f"ws{i % 25}" / "chatSessions"
        write(chats / f"{sid}.json", session(sid, requests))


def build_cursor(home: Path, sessions: int) -> None:
    from vscode_builder import make_db, workspace

    user = home / ".config" / "Cursor" / "User"
    disk: dict[str, object] = {}
    owned: dict[int, list[dict[str, str]]] = {}
    for i in range(sessions):
        cid = f"{i:08x}-c0c0-4222-8333-444444444444"
        headers = []
        for t in range(TURNS):
            result = json.dumps({"output": OUTPUT})
            for kind, bid, body in (
                (1, f"u{t}", {"text": _prompt(i, t)}),
                (2, f"k{t}", {"thinking": {"text": THINKING}}),
                (2, f"c{t}", {"toolFormerData": {
                    "tool": 15, "toolCallId": f"call_{t}", "name": "run_terminal_cmd",
                    "status": "completed", "rawArgs": json.dumps({"command": _command(i, t)}),
                    "result": result}}),
                (2, f"r{t}", {"text": REPLY.format(name=f"module{i}")}),
            ):  # fmt: skip
                headers.append({"bubbleId": bid, "type": kind})
                disk[f"bubbleId:{cid}:{bid}"] = {"_v": 3, "type": kind, "bubbleId": bid, **body}
        disk[f"composerData:{cid}"] = {
            "_v": 10, "composerId": cid, "name": f"Fix module{i}",
            "createdAt": 1759861723898 + i * 1000, "lastUpdatedAt": 1759863763312 + i * 1000,
            "fullConversationHeadersOnly": headers, "modelConfig": {"modelName": "gpt-5"},
        }  # fmt: skip
        owned.setdefault(i % 25, []).append({"composerId": cid})
    make_db(user / "globalStorage" / "state.vscdb", {}, disk)
    for w, composers in owned.items():
        workspace(user, f"ws{w}", f"file:///home/dev/work/project-{w}",
                  {"composer.composerData": {"allComposers": composers}})  # fmt: skip


def build_opencode(home: Path, sessions: int) -> None:
    from opencode_builder import OpenCodeStore, reasoning, text, tool

    store = OpenCodeStore()
    for i in range(sessions):
        s = store.session(f"Fix module{i}", f"/home/dev/work/project-{i % 25}")
        for t in range(TURNS):
            store.user(s, text(_prompt(i, t)))
            store.assistant(s, reasoning(THINKING),
                            tool("bash", {"command": _command(i, t)}, OUTPUT, call_id=f"c{i}_{t}"))  # fmt: skip
            store.assistant(s, text(REPLY.format(name=f"module{i}")))
    store.write_db(home / ".local" / "share" / "opencode" / "opencode.db")


BUILDERS: dict[str, Callable[[Path, int], object]] = {
    "claude-code": build_home,
    "codex": build_codex,
    "copilot-cli": build_copilot_cli,
    "gemini": build_gemini,
    "copilot": build_copilot,
    "cursor": build_cursor,
    "opencode": build_opencode,
}

# Run as a child: the export through the command's own entry point, then the main
# process's CPU time (its workers' is in the parent's RUSAGE_CHILDREN).
_CHILD = """
import sys, time
import exporter.cli
sys.argv = ["ccexport", *sys.argv[1:]]
try:
    exporter.cli.main()
except SystemExit:
    pass
print("main-cpu", time.process_time(), file=sys.stderr)
"""


def _export(home: Path, vault: Path, jobs: int | None) -> tuple[float, float, float]:
    """One export as a command into a new vault: (wall, CPU of the main process, CPU of
    all processes)."""
    args = ["--vault", str(vault), "--home", str(home), "--quiet"]
    if jobs:
        args += ["--jobs", str(jobs)]
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)  # fmt: skip
    wall = time.perf_counter() - started
    after = os.times()
    main = float(done.stderr.rsplit("main-cpu", 1)[1].split()[0])
    every = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, main, every


def measure(source: str, sessions: int, repeat: int, work: Path) -> dict[str, float]:
    home = work / source
    BUILDERS[source](home, sessions)
    size = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
    figures: dict[str, float] = {"megabytes": size / 1e6}
    vaults = work / "vaults"
    for label, jobs in (("", None), ("one_process_", 1)):
        # A new vault each time, all deleted at the end: on a file system without a journal
        # creating files right after deleting thousands costs the kernel up to 1 ms each
        # (README, Speed), which a person's first export does not pay.
        runs = [_export(home, vaults / f"{label}{k}", jobs) for k in range(repeat)]
        wall = statistics.median(r[0] for r in runs)
        figures[f"{label}wall_s"] = wall
        figures[f"{label}mb_per_s"] = size / 1e6 / wall
        figures[f"{label}main_cpu_s"] = statistics.median(r[1] for r in runs)
        figures[f"{label}all_cpu_s"] = statistics.median(r[2] for r in runs)
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(vaults, ignore_errors=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="*", choices=sorted(BUILDERS), default=None)
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    options = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="ccexport-bench-sources-") as tmp:
        cache_bytecode(Path(tmp))
        for source in options.only or BUILDERS:
            f = results[source] = measure(source, options.sessions, options.repeat, Path(tmp))
            print(
                f"{source:12s} {options.sessions} sessions, {f['megabytes']:.1f} MB: "
                f"{f['wall_s']:.2f} s = {f['mb_per_s']:.1f} MB/s, CPU main {f['main_cpu_s']:.2f} s"
                f" / all {f['all_cpu_s']:.2f} s; --jobs 1: {f['one_process_wall_s']:.2f} s"
                f" (medians of {options.repeat})",
                flush=True,
            )
    print(f"load average after: {os.getloadavg()}")
    if options.json:
        print(json.dumps({"sessions": options.sessions, "sources": results}))


if __name__ == "__main__":
    main()
