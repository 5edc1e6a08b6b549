"""``ccexport watch``: a changed session reaches the vault within seconds; Ctrl-C ends it."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession
from conftest import EXAMPLES_HOME, note_files
from test_sync import write_sessions

from exporter.export import ExportOptions
from exporter.state import VaultLock
from exporter.watch import WatchEvents, watch


def options(vault: Path, home: Path) -> ExportOptions:
    return ExportOptions(vault=vault, home=home, timezone=UTC, lock_wait=0.0, workers=1)


class Recorder:
    def __init__(self) -> None:
        self.exports: list[int] = []
        self.busy: list[str] = []

    def events(self) -> WatchEvents:
        return WatchEvents(lambda r: self.exports.append(r.total("written")), self.busy.append)


def test_exports_at_once_then_only_after_a_change(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    paths = write_sessions(home, 3)
    seen = Recorder()
    changes = iter([None, None, "append", None, None])

    def sleep(seconds: float) -> None:
        if next(changes, None) == "append":
            with open(paths[0], "a", encoding="utf-8") as f:
                s = ClaudeSession("x", "/home/dev/work/p0")
                s.user("a question typed while watching")
                f.write(s.text())

    watch(options(vault, home), seen.events(), interval=0, debounce=0, sleep=sleep, rounds=5)
    assert seen.exports == [3, 1]  # all at first; then only the session that grew
    assert any("a question typed while watching" in t.decode() for t in note_files(vault).values())


def append_prompt(path: Path, text: str) -> None:
    """A new prompt at the end of a session (its own ids, so it is never taken for a repeat)."""
    s = ClaudeSession(text.replace(" ", "-"), "/home/dev/work/p0", start="2026-05-01T11:00:00Z")
    s.user(text)
    with open(path, "a", encoding="utf-8") as f:
        f.write(s.text())


def test_a_busy_vault_skips_the_round_and_retries_saying_so_once(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    paths = write_sessions(home, 2)
    vault.mkdir()
    seen = Recorder()
    lock = VaultLock(vault.resolve(), wait=0)
    lock.acquire()
    polls = iter(range(100))

    def sleep(seconds: float) -> None:
        step = next(polls)
        if step in (2, 6):
            lock.release()  # the nightly run ends
        if step == 3:
            lock.acquire()  # another nightly run, and a session grows meanwhile
            append_prompt(paths[0], "asked while the vault was busy")

    watch(options(vault, home), seen.events(), interval=0, debounce=0, sleep=sleep, rounds=7)
    # Two busy spells of several rounds each: each told once, not once a round.
    assert len(seen.busy) == 2 and "another ccexport run" in seen.busy[0]
    assert "waited" not in seen.busy[0]  # watch never waits for the lock: it says so
    assert "try again" not in seen.busy[0]  # nor tells the person to: it tries again itself
    assert seen.exports == [2, 1]


def test_a_change_still_being_written_at_the_second_look_is_exported_when_it_stops(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    paths = write_sessions(home, 3)
    seen = Recorder()
    sleeps = iter(range(100))

    def sleep(seconds: float) -> None:
        step = next(sleeps)
        if step == 1:
            append_prompt(paths[0], "the first line of a reply")
        if step == 2:  # the debounce: the reply is still being written, then it stops
            append_prompt(paths[0], "the last line of a reply")

    # The clock stands still: no full look falls due by time, only by what is seen.
    watch(options(vault, home), seen.events(), interval=2, debounce=1, sleep=sleep,
          clock=lambda: 0.0, rounds=6)  # fmt: skip
    assert seen.exports == [3, 1]
    assert any(b"the last line of a reply" in t for t in note_files(vault).values())


def test_a_session_in_a_new_project_folder_is_seen_by_the_quick_look(tmp_path, monkeypatch):
    from exporter import watch as watch_module

    home, vault = tmp_path / "home", tmp_path / "vault"
    write_sessions(home, 2)
    full_looks = []
    real = watch_module.discover
    monkeypatch.setattr(watch_module, "discover", lambda o: full_looks.append(1) or real(o))
    seen = Recorder()
    steps = iter(range(100))

    def sleep(seconds: float) -> None:
        if next(steps) == 2:  # the assistant is started in a project it never saw
            s = ClaudeSession("new-project-session", "/home/dev/work/brand-new")
            s.user("the first question in a new project")
            s.write(home / ".claude" / "projects" / "-brand-new" / "new-project-session.jsonl")

    watch(options(vault, home), seen.events(), interval=2, debounce=0, sleep=sleep,
          clock=lambda: 0.0, rounds=6)  # fmt: skip
    assert seen.exports == [2, 1] and len(full_looks) == 3
    assert any(b"the first question in a new project" in t for t in note_files(vault).values())


def test_a_broken_source_is_reported_once_not_at_every_export(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    paths = write_sessions(home, 2)
    broken = home / ".config" / "Cursor" / "User" / "workspaceStorage" / "broken"
    broken.mkdir(parents=True)
    (broken / "state.vscdb").write_bytes(b"not a database" * 50)
    reports = []
    steps = iter(range(100))

    def sleep(seconds: float) -> None:
        step = next(steps)
        if step in (1, 3):  # a session grows twice while the database stays broken
            append_prompt(paths[0], f"question {step} while watching")
        if step == 5:
            append_prompt(paths[0], "question after it was mended")
            (broken / "state.vscdb").unlink()
        if step == 7:
            append_prompt(paths[0], "question after it broke again")
            (broken / "state.vscdb").write_bytes(b"not a database" * 50)

    watch(options(vault, home), WatchEvents(reports.append), interval=0, debounce=0,
          sleep=sleep, rounds=10)  # fmt: skip
    told = [[str(p) for p in r.problems] for r in reports]
    assert [r.total("written") for r in reports] == [2, 1, 1, 1, 1]
    assert [len(t) for t in told] == [1, 0, 0, 0, 1]  # again once it came back
    assert "state.vscdb: not a readable SQLite database" in told[0][0]


def test_idle_rounds_only_stat_the_active_files_and_folders(tmp_path, monkeypatch):
    from exporter import watch as watch_module

    home = tmp_path / "home"
    paths = write_sessions(home, 4)
    full_looks = []
    real = watch_module.discover
    monkeypatch.setattr(watch_module, "discover", lambda o: full_looks.append(1) or real(o))
    seen = Recorder()
    steps = iter(range(100))

    def sleep(seconds: float) -> None:
        if next(steps) == 5:  # an active session grows: the quick look notices
            with open(paths[2], "a", encoding="utf-8") as f:
                s = ClaudeSession("z", "/home/dev/work/p2")
                s.user("a late question")
                f.write(s.text())

    watch(options(tmp_path / "vault", home), seen.events(), interval=0.01, debounce=0,
          sleep=sleep, clock=lambda: 0.0, rounds=10)  # fmt: skip
    # One full look at the start; then quick looks only, until the append (two full looks:
    # the change and its settling).
    assert len(full_looks) == 3 and seen.exports == [4, 1]


def test_watch_as_a_process_picks_up_an_appended_prompt_and_ctrl_c_exits_0(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    paths = write_sessions(home, 2)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "exporter",
            "watch",
            "--vault",
            vault,
            "--home",
            home,
            "--interval",
            "0.2",
        ],  # fmt: skip
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        deadline = time.monotonic() + 60
        while len(note_files(vault)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(note_files(vault)) == 2
        s = ClaudeSession("y", "/home/dev/work/p0", start="2026-05-01T11:00:00Z")
        s.user("appended while ccexport watch was running")
        with open(paths[0], "a", encoding="utf-8") as f:
            f.write(s.text())
        found = False
        while not found and time.monotonic() < deadline:
            time.sleep(0.2)
            found = any(b"appended while ccexport watch" in t for t in note_files(vault).values())
        assert found, "the appended prompt never reached the vault"
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "Traceback" not in err and "Stopped." in out
    assert re.search(r"^\[\d\d:\d\d:\d\d\] 2 sessions found", out, re.MULTILINE), out


def test_a_session_written_without_a_pause_is_exported_as_it_stands_meanwhile(tmp_path):
    from exporter.watch import SETTLE_MAX

    home, vault = tmp_path / "home", tmp_path / "vault"
    paths = write_sessions(home, 2)
    seen = Recorder()
    now = [0.0]

    def sleep(seconds: float) -> None:  # a long agent run: a new line before every look
        now[0] += seconds
        if now[0] > 2:
            append_prompt(paths[0], f"a tool call at {now[0]:.0f} s")

    watch(options(vault, home), seen.events(), interval=2, debounce=1, sleep=sleep,
          clock=lambda: now[0], rounds=int(SETTLE_MAX) + 5)  # fmt: skip
    assert seen.exports == [2, 1]  # once the writing had gone on for SETTLE_MAX seconds
    assert any(b"a tool call at" in t for t in note_files(vault).values())


def test_right_after_a_full_look_the_quick_look_sees_no_change_in_any_source(tmp_path):
    from exporter.watch import full_look, quick_look_changed

    home = tmp_path / "sources"
    shutil.copytree(EXAMPLES_HOME, home)
    for path in home.rglob("*"):  # all written just now: every file is looked at each round
        os.utime(path)
    look = full_look(options(tmp_path / "vault", home), time.time())
    assert len(look.stamp) > 20 and not quick_look_changed(look)  # else a full look each round
