"""``ccexport watch``: a changed session reaches the vault within seconds; Ctrl-C ends it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession
from conftest import note_files
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


def test_a_busy_vault_skips_the_round_and_retries(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    write_sessions(home, 2)
    vault.mkdir()
    seen = Recorder()
    lock = VaultLock(vault.resolve(), wait=0)
    lock.acquire()
    polls = iter(range(10))

    def sleep(seconds: float) -> None:
        if next(polls) == 1:
            lock.release()  # the nightly run ends

    watch(options(vault, home), seen.events(), interval=0, debounce=0, sleep=sleep, rounds=3)
    assert len(seen.busy) == 2 and "another ccexport run" in seen.busy[0]
    assert seen.exports == [2]


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
