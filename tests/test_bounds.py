"""Bad and oversized lines cost only themselves, and memory stays bounded by the longest
line kept, whatever a file holds or decompresses to. Memory is measured in a child process
(its peak resident size), never assumed."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC
from pathlib import Path

import pytest
import zstandard
from claude_builder import ClaudeSession, tool_use
from codex_builder import CodexRollout
from conftest import ROOT, note_files

from exporter.adapters import _jsonl, claude_code, claude_mainfile, codex, copilot_cli, gemini
from exporter.adapters._jsonl import LongLine, iter_json_objects, iter_jsonl, split_lines
from exporter.errors import Problem
from exporter.export import ExportOptions, run_export
from exporter.workers import PARALLEL_FROM

MB = 1024 * 1024


def read(path: Path) -> tuple[list[tuple[int, object]], list[Problem]]:
    problems: list[Problem] = []
    return list(iter_jsonl(path, problems, "test")), problems


def test_lines_are_split_across_chunks_and_a_long_line_is_read_through_not_kept():
    chunks = [b'{"a":1}\n{"b"', b":2}\n" + b"x" * 40, b"y" * 40, b"z\n", b'{"c":3}\n{"d"']
    lines = list(split_lines(chunks, limit=50))
    assert lines == [b'{"a":1}', b'{"b":2}', LongLine(81), b'{"c":3}', b'{"d"']
    assert isinstance(lines[2], LongLine) and type(lines[-1]).__name__ == "LastLine"


def test_lines_holding_other_json_values_are_reported_and_skipped_up_to_stop(tmp_path):
    """The readers of Claude Code, Codex, Gemini, Copilot Chat and Cursor transcripts share
    this: an array, a string or a number where a record belongs costs only its line."""
    path = tmp_path / "s.jsonl"
    path.write_text('{"n":1}\n[1, 2]\n"text"\n{"n":4}\n7\n{"n":6}\nnull\n')
    problems: list[Problem] = []
    found = list(iter_json_objects(path, problems, "test"))
    assert found == [(1, {"n": 1}), (4, {"n": 4}), (6, {"n": 6})]
    assert [(p.line, p.message) for p in problems] == [
        (n, "not a JSON object, line skipped") for n in (2, 3, 5, 7)
    ]
    problems.clear()  # with stop, nothing past that line is read or reported
    assert list(iter_json_objects(path, problems, "test", stop=4)) == found[:2]
    assert [p.line for p in problems] == [2, 3]


def test_a_line_over_the_limit_is_skipped_and_reported_with_its_number(tmp_path, monkeypatch):
    monkeypatch.setattr(_jsonl, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "s.jsonl"
    path.write_text('{"n":1}\n' + json.dumps({"n": 2, "text": "x" * 5000}) + '\n{"n":3}\n')
    objects, problems = read(path)
    assert [o["n"] for _, o in objects] == [1, 3]
    assert [(p.line, p.severity) for p in problems] == [(2, "warning")]
    assert "5,020 bytes long, over the limit of 1,000 bytes" in problems[0].message


def test_a_line_nested_past_the_parsers_limit_is_skipped_like_any_malformed_line(tmp_path):
    path = tmp_path / "s.jsonl"
    deep = "[" * 5000 + "]" * 5000  # orjson refuses it; Python's json recurses too deep
    path.write_text(f'{{"n":1}}\n{deep}\n{{"n":3}}\n')
    objects, problems = read(path)
    assert [o["n"] for _, o in objects] == [1, 3]
    assert [(p.line, p.severity) for p in problems] == [(2, "warning")]
    assert "not valid JSON" in problems[0].message


@pytest.mark.parametrize(("depth", "read_too"), [(2000, False), (950, False), (850, True)])
def test_a_damaged_value_is_read_as_deep_on_every_python(tmp_path, depth, read_too):
    """The second chance (here taken for the invalid UTF-8 at the end) is Python's parser:
    3.11's stops at about 990 levels, 3.13's reads far deeper. Every Python reads a damaged
    line up to ``MAX_DEPTH`` (900) levels and skips a deeper one."""
    path = tmp_path / "s.jsonl"
    deep = b"[" * depth + b"]" * depth
    path.write_bytes(b'{"n":1}\n{"n":2,"x":' + deep + b',"s":"\xff"}\n{"n":3}\n')
    objects, problems = read(path)
    assert [o["n"] for _, o in objects] == ([1, 2, 3] if read_too else [1, 3])
    # (read: its invalid UTF-8 is said, and the line kept; too deep: skipped)
    assert [(p.line, p.left_out) for p in problems] == [(2, not read_too)]


def test_a_document_nested_past_orjsons_limit_is_refused_on_any_python():
    value: list = []
    for _ in range(_jsonl.MAX_DEPTH - 1):
        value = [value]  # MAX_DEPTH lists nested: read
    assert isinstance(_jsonl.without_surrogates(value), list)
    with pytest.raises(RecursionError):
        _jsonl.without_surrogates([value])
    with pytest.raises(RecursionError):
        _jsonl.json_document(b'{"a":' + b"[" * 1500 + b"]" * 1500 + b', "b": "\xff"}')


def test_invalid_utf8_deeply_nested_is_read_without_recursion(tmp_path):
    """The lenient second pass (invalid UTF-8) walks the value without recursing."""
    path = tmp_path / "s.jsonl"
    depth = 900
    path.write_bytes(b'{"a":' * depth + b'"\xff"' + b"}" * depth + b"\n")
    ((number, obj),) = read(path)[0]
    for _ in range(depth):
        obj = obj["a"]
    assert number == 1 and obj == "\ufffd"


def rollout_lines(n: int, thread: str = "019a0000-0000-7000-8000-0000000000aa") -> list[bytes]:
    r = CodexRollout(thread).turn().user("first question").assistant("first answer")
    for i in range(n):
        r.user(f"question {i}").assistant(f"answer {i}")
    return [line.encode() + b"\n" for line in r.text().splitlines()]


def zst_path(home: Path, thread: str) -> Path:
    folder = home / ".codex" / "sessions" / "2026" / "03" / "10"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"rollout-2026-03-10T08-00-01-{thread}.jsonl.zst"


def test_a_damaged_zst_is_an_error_and_the_frames_before_it_are_exported(tmp_path):
    thread = "019a0000-0000-7000-8000-0000000000ab"
    lines = rollout_lines(20, thread)
    c = zstandard.ZstdCompressor(write_checksum=True)
    first, second = b"".join(lines[:40]), b"".join(lines[40:])
    good, damaged = c.compress(first), bytearray(c.compress(second))
    damaged[len(damaged) // 2] ^= 0xFF
    path = zst_path(tmp_path / "home", thread)
    path.write_bytes(good + bytes(damaged))
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", timezone=UTC))
    errors = [p for p in report.problems if p.severity == "error"]
    assert report.failed and len(errors) == 1 and errors[0].path == str(path)
    assert "the lines before were kept" in errors[0].message
    (note,) = note_files(tmp_path / "v").values()
    text = note.decode()
    last = max(i for i in range(20) if f'question {i}"'.encode() in first)
    assert "first question" in text and f"question {last}\n" in text  # the whole first frame
    # Still an error next time (the file is read again, not remembered): exit 1.
    proc, _ = run_measured("--vault", str(tmp_path / "v"), "--home", str(tmp_path / "home"))
    assert proc.returncode == 1 and "the lines before were kept" in proc.stderr


def test_a_zst_cut_off_inside_a_frame_is_an_error(tmp_path):
    thread = "019a0000-0000-7000-8000-0000000000ac"
    data = zstandard.ZstdCompressor().compress(b"".join(rollout_lines(5, thread)))
    path = zst_path(tmp_path / "home", thread)
    path.write_bytes(data[: len(data) - 20])
    objects, problems = read(path)
    assert [p.severity for p in problems] == ["error"]
    assert "ends in the middle of a frame" in problems[0].message


def write_bomb(path: Path, line_bytes: int, thread: str) -> None:
    """A rollout whose third line decompresses to ``line_bytes`` bytes of one string."""
    head, tail = rollout_lines(2, thread)[:2], rollout_lines(2, thread)[2:]
    compressor = zstandard.ZstdCompressor(level=19).compressobj()
    out = [compressor.compress(b"".join(head) + b'{"type":"event_msg","payload":"')]
    block = b"a" * (16 * MB)
    for _ in range(line_bytes // len(block)):
        out.append(compressor.compress(block))
    out.append(compressor.compress(b'"}\n' + b"".join(tail)))
    out.append(compressor.flush())
    path.write_bytes(b"".join(out))


# The child's own peak is VmHWM: getrusage's ru_maxrss also keeps the peak of the process
# that started it (Linux carries it across exec), here the test runner's, which grows over
# a full run of the suite.
PEAK = """
import resource, sys
from pathlib import Path
from exporter.cli import main
sys.argv = ["ccexport", *sys.argv[1:]]

def peak_kb():
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(next(l.split()[1] for l in status.splitlines() if l.startswith("VmHWM:")))

try:
    main()
finally:
    print("PEAK_KB", peak_kb(), file=sys.stderr)
    print("WORKERS_KB", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
"""


def run_measured(*args: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run the command line in a child process; its output and peak memory in MB."""
    proc, peak, _ = run_measured_with_workers(*args)
    return proc, peak


def run_measured_with_workers(*args: str) -> tuple[subprocess.CompletedProcess[str], int, int]:
    """Run the command line in a child process; its output, its peak memory and the largest
    peak of its worker processes, in MB."""
    proc = subprocess.run(
        [sys.executable, "-c", PEAK, *args], capture_output=True, text=True, cwd=ROOT, timeout=600
    )

    def figure(name: str) -> int:
        lines = [line for line in proc.stderr.splitlines() if line.startswith(name)]
        return int(lines[-1].split()[1]) // 1024

    return proc, figure("PEAK_KB"), figure("WORKERS_KB")


def test_a_small_zst_that_expands_to_gigabytes_takes_little_memory(tmp_path):
    thread = "019a0000-0000-7000-8000-0000000000ad"
    path = zst_path(tmp_path / "home", thread)
    write_bomb(path, 2048 * MB, thread)
    assert path.stat().st_size < 200_000
    proc, peak = run_measured(
        "--vault", str(tmp_path / "v"), "--home", str(tmp_path / "home"), "--json"
    )
    assert proc.returncode == 0, proc.stderr  # a skipped line is a warning
    report = json.loads(proc.stdout[proc.stdout.index("{") :])
    (warning,) = report["warnings"]
    assert warning["line"] == 3 and "over the limit" in warning["message"]
    assert report["totals"]["created"] == 1
    # The line limit (64 MB) plus the interpreter; before: more than 2 GB.
    print(f"peak {peak} MB for a {path.stat().st_size:,}-byte zst holding a 2 GB line")
    assert peak < 2 * 64 + 200, peak


def big_log(kind: str, home: Path, megabytes: int) -> Path:
    """A log of ``megabytes`` of the ``kind`` of tests/big_logs.py, written by a process
    of its own (so the writer's memory is not the one measured)."""
    out = subprocess.run(
        [sys.executable, "tests/big_logs.py", kind, str(home), str(megabytes)],
        check=True, cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    return Path(out.stdout.strip())


def test_a_large_session_takes_memory_for_its_longest_line_not_for_its_size(tmp_path):
    """A session file this large is streamed: the first reading keeps what describes the
    whole session, the second hands it over part by part to the worker pool, which starts
    before the file is read (a pool forked while a session is held would copy it into every
    worker). Before: a 300 MB session took 2.4 GB; then about 1.5 times its size; then
    about its size (a 200 MB session: about 290 MB); then about 100 MB whatever its size,
    rendered on one core; now about 170 MB with a few parts in flight, on every core."""
    megabytes = 200
    path = big_log("claude-code", tmp_path / "home", megabytes)
    assert path.stat().st_size >= claude_code.STREAM_FROM
    proc, peak, workers = run_measured_with_workers(
        "--vault", str(tmp_path / "v"), "--home", str(tmp_path / "home"), "--jobs", "2"
    )
    assert proc.returncode == 0, proc.stderr
    notes = note_files(tmp_path / "v")
    # Part notes, more than enough to start a pool.
    assert len(notes) > PARALLEL_FROM and max(len(b) for b in notes.values()) < 5 * MB
    print(f"peak {peak} MB for a {megabytes} MB session, workers {workers} MB")
    # Issue 12's bound: twice the longest line (40 KB here) plus 200 MB. Usually about
    # 170 MB; holding the session's messages (about its size) would pass it.
    assert peak < 2 * 0.04 + 200, peak
    # Forked from a main process holding the session: 200+. Measured 70-101 MB on 2
    # December (27 runs; it depends on how many parts are in flight when the peak is read),
    # once 143 MB on a machine under load: the bound sits between that and the 200+.
    assert workers < 170, workers


@pytest.mark.parametrize(
    ("kind", "megabytes", "module"),
    [("codex", 120, codex), ("copilot-cli", 140, copilot_cli), ("gemini", 140, gemini)],
)
def test_a_large_log_of_other_sources_takes_memory_for_its_longest_line(
    tmp_path, kind, megabytes, module
):
    """A Codex rollout, Copilot CLI log or Gemini JSONL chat this large is streamed like a
    Claude Code transcript. Before, all of it held at once: a 120 MB rollout took about
    310 MB, a 140 MB Copilot CLI log or Gemini chat about 220 MB."""
    home = tmp_path / "home"
    path = big_log(kind, home, megabytes)
    assert path.stat().st_size >= module.STREAM_FROM
    proc, peak = run_measured("--vault", str(tmp_path / "v"), "--home", str(home))
    assert proc.returncode == 0, proc.stderr
    notes = note_files(tmp_path / "v")
    assert len(notes) > 10 and max(len(b) for b in notes.values()) < 5 * MB
    print(f"peak {peak} MB for a {megabytes} MB {path.name}")
    assert peak < 2 * 0.04 + 200, peak  # twice the longest line (40 KB) plus 200 MB


def test_claude_keeps_only_the_agent_id_of_a_structured_tool_result(tmp_path):
    """Claude Code repeats a tool's output in ``toolUseResult`` (about half of a real
    transcript's bytes); only its agentId is read, so only that is held in memory."""
    s = ClaudeSession("0000cccc-0000-4000-8000-000000000000", "/home/dev/work/p")
    s.user("read it")
    s.assistant([tool_use("Read", {"file_path": "/a.py"}, "c1")])
    s.tool_result("c1", "x" * 1000, rich={"file": {"content": "x" * 1000}, "agentId": "a1"})
    s.assistant([tool_use("Read", {"file_path": "/b.py"}, "c2")])
    s.tool_result("c2", "y" * 1000, rich={"file": {"content": "y" * 1000}})
    path = s.write(tmp_path / "s.jsonl")
    records = list(claude_mainfile.read_records(path, [], claude_mainfile.FileMeta()))
    kept = [r["toolUseResult"] for r in records if "toolUseResult" in r]
    assert kept == [{"agentId": "a1"}, None]


def test_a_zst_damaged_from_its_first_byte_says_nothing_was_read(tmp_path):
    thread = "019a0000-0000-7000-8000-0000000000ac"
    path = zst_path(tmp_path / "home", thread)
    path.write_bytes(b"(\xb5/\xfd" + b"\xff" * 64)  # a zstd frame's magic, then garbage
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", timezone=UTC))
    (error,) = [p for p in report.problems if p.severity == "error"]
    assert error.path == str(path) and error.line == 1
    assert "nothing of it was read" in error.message and "after line 0" not in error.message
