"""Codex unified exec: the model runs a command with ``exec_command``; when the command
outlives the call's yield time, its output comes back early ("Process running with
session ID N") and the model polls it with ``write_stdin``. The command's own exit code and
duration are only in its ``exec_command_end`` event (same ``call_id``), which comes after
that early output. Its call showed the first chunk's wall time and no exit code, whatever
the command did; held, streamed (the end comes after the message is made) and packed alike.

Everything here is invented: ids, commands, output."""

from __future__ import annotations

import json

from codex_builder import CodexRollout
from conftest import load_sessions
from test_packed import export_both, seen  # noqa: F401 (``seen`` is a fixture)
from test_streamed_sessions import assert_same, same_notes
from test_sync import write_sessions

from exporter.adapters.codex import CodexAdapter
from exporter.model import ToolResultPart

TID = "019a0000-7e7e-7000-8000-000000000001"
LONG = "019a0000-7e7e-7000-8000-000000000002"


def _call(r: CodexRollout, name: str, args: dict, cid: str) -> None:
    r.item({"type": "function_call", "name": name, "arguments": json.dumps(args), "call_id": cid})


def _output(r: CodexRollout, cid: str, out: str) -> None:
    r.item({"type": "function_call_output", "call_id": cid, "output": out})


def _end(r: CodexRollout, cid: str, code, secs, nanos=0, **extra) -> None:
    r.event({"type": "exec_command_end", "call_id": cid, "process_id": "7", "turn_id": "t1",
             "command": ["/bin/bash", "-lc", "make"], "source": "unified_exec_startup",
             "stdout": "", "stderr": "", "aggregated_output": "built\n", "exit_code": code,
             "duration": {"secs": secs, "nanos": nanos},
             "formatted_output": "", "status": "completed" if code == 0 else "failed", **extra})  # fmt: skip


def _running(session: int) -> str:
    return (
        f"Chunk ID: ab12\nWall time: 1.0021 seconds\nProcess running with session ID {session}\n"
        "Original token count: 0\nOutput:\n"
    )


def _exited(code: int, wall: str, text: str) -> str:
    return (
        f"Chunk ID: cd34\nWall time: {wall} seconds\nProcess exited with code {code}\n"
        f"Original token count: 3\nOutput:\n{text}"
    )


def long_command(r: CodexRollout, n: int, code: int = 0, polls: int = 1) -> None:
    """A command that outlives its yield time: early output, its end event, then polls (the
    last one reports the exit)."""
    cid, sid = f"call_exec_{n}", 4000 + n
    _call(r, "exec_command", {"cmd": f"make target{n}", "yield_time_ms": 1000}, cid)
    _output(r, cid, _running(sid))
    _end(r, cid, code, 6, 400_000_000, process_id=str(sid))
    for k in range(polls):
        pid = f"call_poll_{n}_{k}"
        _call(r, "write_stdin", {"session_id": sid, "chars": "", "yield_time_ms": 1000}, pid)
        last = k == polls - 1
        _output(r, pid, _exited(code, "0.0000", f"built {n}\n") if last else _running(sid))


def rollout() -> CodexRollout:
    r = CodexRollout(TID)
    r.user("build it")
    long_command(r, 1, polls=2)
    long_command(r, 2, code=3)
    long_command(r, 3, code=2, polls=0)  # never polled again: its end alone says it failed
    # A short command: its end event comes before its output, which says it exited.
    _call(r, "exec_command", {"cmd": "true"}, "call_short")
    _end(r, "call_short", 0, 0, 300_000_000)
    _output(r, "call_short", _exited(0, "0.2900", ""))
    # An exec_command with no end event (an older Codex): its header as before.
    _call(r, "exec_command", {"cmd": "sleep 9"}, "call_noend")
    _output(r, "call_noend", _running(99))
    # An end event of another tool's call (the shell tool, whose output says it all), one
    # that pairs with no call, and a damaged one: none changes anything.
    cid = r.shell(["bash", "-lc", "ls"], "a.py\n")
    _end(r, cid, 5, 40)
    _end(r, "call_nobody", 1, 1)
    r.event({"type": "exec_command_end", "call_id": ["call_noend"], "exit_code": 9})
    r.assistant("Built, except target2.")
    return r


def results(session) -> dict[str, ToolResultPart]:
    return {p.call_id: p for m in session.messages for p in m.parts if p.kind == "tool_result"}


def test_an_exec_command_shows_its_own_exit_code_and_duration(tmp_path):
    rollout().write(tmp_path / ".codex")
    (session,), problems = load_sessions(CodexAdapter(), tmp_path)
    assert problems == []
    got = {cid: (p.exit_code, p.duration, p.is_error) for cid, p in results(session).items()}
    assert got["call_exec_1"] == (0, 6.4, False)  # not the 1.0 s of its first chunk
    # The command failed: its exit code shows on it, and the failure is marked on the poll
    # that reported it, with the output (the note's errors count it once).
    assert got["call_exec_2"] == (3, 6.4, False)
    assert got["call_exec_3"] == (2, 6.4, True)  # no poll reported it: the command failed
    assert got["call_short"] == (0, 0.3, False)
    assert got["call_noend"] == (None, 1.0021, False)
    # A poll shows what it reported itself: how long it waited, and the exit code only
    # when the process had exited by then.
    assert got["call_poll_1_0"] == (None, 1.0021, False)
    assert got["call_poll_1_1"] == (0, 0.0, False)
    assert got["call_poll_2_0"] == (3, 0.0, True)
    shell = [p for cid, p in results(session).items() if cid.startswith("call_019a")]
    assert [(p.exit_code, p.duration, p.is_error) for p in shell] == [(0, 0.4, False)]
    # The output stays what the model saw (its header says the process still ran).
    assert results(session)["call_exec_1"].output == _running(4001)


def test_the_end_after_the_message_is_made_is_read_streamed_too(tmp_path, monkeypatch):
    """Streamed, the early output's message is made before its end event is read: the
    first reading knows it already."""
    home = tmp_path / "home"
    rollout().write(home / ".codex")
    (session,) = assert_same("codex", home, monkeypatch)
    assert session.is_streamed
    assert results(session)["call_exec_1"].exit_code == 0
    notes, _ = same_notes("codex", home, tmp_path, monkeypatch)
    (body,) = [b for name, b in notes.items() if TID[-8:] in name]
    assert b"`exec_command` \xe2\x80\x94 `make target1` \xc2\xb7 exit 0 \xc2\xb7 6.4 s" in body
    assert b"`exec_command` \xe2\x80\x94 `make target2` \xc2\xb7 exit 3 \xc2\xb7 6.4 s" in body
    assert b"`write_stdin` \xc2\xb7 exit 0 \xc2\xb7 0.0 s" in body


def test_a_packed_rollout_shows_them_too(tmp_path, seen, monkeypatch):  # noqa: F811
    """Read once by a worker (cut into parts as it is read and packed): the notes of two
    readings, with each command's own exit code and duration."""
    home = tmp_path / "home"
    r = CodexRollout(LONG)
    for i in range(40):
        r.user(f"step {i} " + "lorem ipsum " * 60)
        long_command(r, i, code=i % 2)
        r.assistant(f"done {i} " + "dolor sit " * 60)
    r.write(home / ".codex")
    write_sessions(home, 12, turns=2)
    notes, _ = export_both(home, tmp_path, seen, monkeypatch)
    assert LONG in seen["packed"]
    body = b"".join(b for name, b in notes.items() if LONG[-8:] in name)
    assert body.count(b"\xc2\xb7 exit 1 \xc2\xb7 6.4 s") == 20
    assert body.count(b"\xc2\xb7 exit 0 \xc2\xb7 6.4 s") == 20
    assert b"1.0 s" not in body


def test_a_fork_replaying_its_origin_keeps_its_own_ends(tmp_path):
    """A fork whose replay of its origin is left out still pairs its own commands' ends."""
    home = tmp_path
    origin = rollout()
    origin.write(home / ".codex")
    fork = CodexRollout("019a0000-7e7e-7000-8000-00000000f0f0", forked_from=TID)
    fork.lines += [x for x in origin.lines if x["type"] != "session_meta"]
    fork.user("and the docs")
    long_command(fork, 50, code=0)
    fork.write(home / ".codex")
    sessions, _ = load_sessions(CodexAdapter(), home)
    (forked,) = [s for s in sessions if s.forked_from]
    assert set(results(forked)) == {"call_exec_50", "call_poll_50_0"}
    assert results(forked)["call_exec_50"].exit_code == 0
    assert results(forked)["call_exec_50"].duration == 6.4


def test_a_failure_is_counted_once_when_the_end_names_no_process_or_the_output_quotes_one(
    tmp_path,
):
    """An end event without a process id cannot be matched to its polls: the failure stays
    where a poll reported it (it was marked on the command as well: counted twice). A
    program printing "Process exited with code 1" is not a poll reporting the exit."""
    r = CodexRollout(TID)
    r.user("build it")
    _call(r, "exec_command", {"cmd": "make a"}, "call_a")
    _output(r, "call_a", _running(11))
    r.event({"type": "exec_command_end", "call_id": "call_a", "exit_code": 1,
             "duration": {"secs": 3, "nanos": 0}})  # fmt: skip
    _call(r, "write_stdin", {"session_id": 11, "chars": ""}, "call_a_poll")
    _output(r, "call_a_poll", _exited(1, "0.0000", "failed\n"))
    _call(r, "exec_command", {"cmd": "make b"}, "call_b")
    _output(r, "call_b", _running(12))
    _end(r, "call_b", 2, 4, process_id="12")
    _call(r, "write_stdin", {"session_id": 12, "chars": ""}, "call_b_poll")
    _output(r, "call_b_poll", _running(12) + "log: Process exited with code 1\n")
    r.assistant("Both failed.")
    r.write(tmp_path / ".codex")
    (session,), _ = load_sessions(CodexAdapter(), tmp_path)
    got = {cid: (p.exit_code, p.is_error) for cid, p in results(session).items()}
    assert got["call_a"] == (1, False) and got["call_a_poll"] == (1, True)
    assert got["call_b"] == (2, True) and got["call_b_poll"] == (None, False)
