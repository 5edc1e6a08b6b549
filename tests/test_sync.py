"""Sync guarantees across runs: incremental skips, crash safety, one writer, dry runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import ClaudeSession
from conftest import EXAMPLES_HOME, ROOT, note_files, stamps
from typer.testing import CliRunner

from exporter.cli import app
from exporter.errors import VaultLockedError
from exporter.export import ExportOptions, run_export
from exporter.notefile import END_PREFIX
from exporter.state import VaultLock


def write_sessions(home: Path, count: int, turns: int = 2) -> list[Path]:
    paths = []
    for i in range(count):
        sid = f"{i:08x}-0000-4000-8000-000000000000"
        s = ClaudeSession(
            sid, f"/home/dev/work/p{i % 3}", start=f"2026-05-{1 + i % 28:02d}T10:00:00Z"
        )
        for t in range(turns):
            s.user(f"question {t} of session {i}")
            s.assistant(f"answer {t} of session {i} " + "lorem ipsum " * 20)
        paths.append(s.write(home / ".claude" / "projects" / f"-p{i % 3}" / f"{sid}.jsonl"))
    return paths


def export(vault: Path, home: Path, **kw):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, **kw))


def test_unchanged_sources_are_not_read(tmp_path, load_calls):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 5)
    export(vault, home)
    assert len(load_calls) == 5
    state = vault / ".ccexport" / "state.json"
    state_time = state.stat().st_mtime_ns
    load_calls.clear()
    report = export(vault, home)
    assert load_calls == [] and report.total("skipped") == 5
    assert state.stat().st_mtime_ns == state_time  # nothing to remember: not rewritten


OLD = (1_600_000_000_000_000_000, 1_600_000_000_000_000_000)  # (atime, mtime) in ns


def everything(vault: Path) -> dict[str, tuple[bytes, int]]:
    """Every file and folder of the vault, the lock and .ccexport included: bytes, mtime."""
    paths = [vault, *sorted(vault.rglob("*"))]
    return {
        p.relative_to(vault).as_posix(): (p.read_bytes() if p.is_file() else b"",
                                          p.stat().st_mtime_ns)
        for p in paths
    }  # fmt: skip


def test_a_rerun_over_unchanged_sources_changes_nothing_in_the_vault(tmp_path):
    """Not even the lock's time, nor that of .ccexport, where a run's marker comes and goes
    (a sync tool watching the whole vault would see them change every night)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 3)
    export(vault, home)
    for path in (vault / ".ccexport", vault / ".ccexport" / "lock"):
        os.utime(path, ns=OLD)  # (an older time: a change cannot hide in the clock's tick)
    before = everything(vault)
    export(vault, home)
    assert everything(vault) == before
    assert (vault / ".ccexport" / "lock").stat().st_mtime_ns == OLD[1]


def test_a_run_that_records_a_change_leaves_the_state_folder_its_new_time(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 3)
    export(vault, home)
    os.utime(vault / ".ccexport", ns=OLD)
    write_sessions(home, 3, turns=3)  # they grew: the state file is written again
    assert export(vault, home).total("updated") == 3
    assert (vault / ".ccexport").stat().st_mtime_ns != OLD[1]


def test_grown_shrunk_or_replaced_sources_are_read_again_whole(tmp_path, load_calls):
    home, vault = tmp_path / "home", tmp_path / "v"
    grown, shrunk, replaced, same = write_sessions(home, 4)
    export(vault, home)
    load_calls.clear()
    with open(grown, "a") as f:
        f.write(open(grown).readline())  # a repeated line: the note will not change
    shrunk.write_text("".join(open(shrunk).readlines()[:2]))
    st = replaced.stat()
    copy = replaced.with_suffix(".new")
    copy.write_bytes(replaced.read_bytes())
    os.replace(copy, replaced)
    os.utime(replaced, ns=(st.st_atime_ns, st.st_mtime_ns))
    report = export(vault, home)
    assert sorted(load_calls) == sorted([grown.name, shrunk.name, replaced.name])
    # Re-read whole; the shrunk session's richer note is kept (test_shrunk.py has the rest).
    texts = [b.decode() for b in note_files(vault).values()]
    assert sum("answer 1 of session 1" in t for t in texts) == 1
    assert [c.action.value for c in report.changes].count("kept") == 1


def test_dry_run_lists_the_changes_and_diffs_updates(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    paths = write_sessions(home, 2)
    export(vault, home)
    s = ClaudeSession(
        "00000000-0000-4000-8000-000000000000", "/home/dev/work/p0", start="2026-05-01T10:00:00Z"
    )
    for t in range(3):
        s.user(f"question {t} of session 0")
        s.assistant(f"answer {t} of session 0 " + "lorem ipsum " * 20)
    s.write(paths[0])
    before = stamps(vault), (vault / ".ccexport" / "state.json").read_bytes()
    result = CliRunner().invoke(
        app,
        ["--vault", str(vault), "--home", str(home), "--dry-run", "--diff", "--timezone", "UTC"],
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert (
        "would update: AI Sessions/claude-code/p0/2026-05-01 question 0 of session 0 00000000.md"
        in out
    )
    # A note left alone is counted, not named (a vault of thousands would list them all).
    assert "would leave alone" not in out and "1 updated, 1 unchanged" in out
    assert "+question 2 of session 0" in out and out.count("@@") >= 1
    # The properties the run changes too, and hunks numbered as the file's lines.
    assert all(line in out.split("\n") for line in ("-messages: 4", "+messages: 6", "+prompts: 3"))
    assert "@@ -10,19 +10,19 @@" in out  # (the file's line numbers)
    assert (stamps(vault), (vault / ".ccexport" / "state.json").read_bytes()) == before
    verbose = CliRunner().invoke(
        app, ["--vault", str(vault), "--home", str(home), "--dry-run", "--verbose"]
    )
    assert "would leave alone: AI Sessions/claude-code/p1/" in verbose.output


def test_a_dry_run_with_project_lists_only_that_projects_notes(tmp_path):
    """``--dry-run --project web`` on the demo listed "would leave alone" for all 41 notes
    (a database holds every project's sessions, so its unit is every project's) while its
    summary counted web's three sessions."""
    vault = tmp_path / "v"
    home = str(EXAMPLES_HOME)
    assert CliRunner().invoke(app, ["--vault", str(vault), "--home", home]).exit_code == 0
    result = CliRunner().invoke(
        app, ["--vault", str(vault), "--home", home, "--dry-run", "--verbose", "--project", "web"]
    )
    assert result.exit_code == 0, result.output
    alone = [line.split(": ", 1)[1] for line in result.output.splitlines()
             if line.startswith("would leave alone: AI Sessions/") and "/Projects" not in line]  # fmt: skip
    assert len(alone) == 3 and all(path.split("/")[2] == "web" for path in alone), alone


def test_dry_run_reports_a_conflict_without_saving_it(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    (path,) = write_sessions(home, 1)
    export(vault, home)
    (note,) = [vault / rel for rel in note_files(vault)]
    note.write_text(note.read_text().replace("answer 0", "my correction"))
    with open(path, "a") as f:
        f.write(open(path).readline().replace('"question 0', '"another question'))
    result = CliRunner().invoke(app, ["--vault", str(vault), "--home", str(home), "--dry-run"])
    assert "would update (conflict):" in result.output
    assert not (vault / ".ccexport" / "conflicts").exists()


def test_a_second_run_waits_for_the_lock_then_says_so(tmp_path):
    vault = tmp_path / "v"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import time
            from pathlib import Path
            from exporter.state import VaultLock
            with VaultLock(Path({str(vault)!r})):
                print("locked", flush=True)
                time.sleep(30)
        """)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "locked"
        started, told = time.monotonic(), []
        with pytest.raises(
            VaultLockedError, match=rf"another ccexport run \(pid {holder.pid}\) is writing"
        ) as busy:
            export(vault, tmp_path / "home", lock_wait=0.5, waiting=told.append)
        assert str(busy.value).endswith("still running, try again later")  # (watch: not)
        assert time.monotonic() - started >= 0.5
        # The pause is explained as it begins, once.
        assert [m.split("; ")[1] for m in told] == ["waiting up to 0.5 s for it to finish"]
    finally:
        holder.kill()
        holder.wait()
    # The holder died without releasing anything: its lock is taken over.
    assert export(vault, tmp_path / "home", lock_wait=0.5).failed is False


def test_stale_lock_file_from_a_dead_process_is_taken_over(tmp_path):
    vault = tmp_path / "v"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "lock").write_text("999999 somehost 1\n")
    with VaultLock(vault, wait=0):
        pass


def test_two_concurrent_runs_leave_a_consistent_vault(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 60, turns=4)
    cmd = [
        sys.executable,
        "-m",
        "exporter",
        "--vault",
        str(vault),
        "--home",
        str(home),
        "--timezone",
        "UTC",
    ]
    runs = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outcomes = [(p.wait(), p.stdout.read(), p.stderr.read()) for p in runs]
    for code, out, err in outcomes:
        assert code == 0 or "another ccexport run" in err, (code, out, err)
    assert sum("60 created" in out for _, out, _ in outcomes) == 1
    notes = note_files(vault)
    assert len(notes) == 60 and all(END_PREFIX in b.decode() for b in notes.values())


SLOW_WRITER = """
import os, sys, time
from exporter import vault
from exporter import vaultio
real = vaultio._write_all
count = 0
def slow(fd, data):
    global count
    if data.startswith(b"---"):
        count += 1
    if count == 3:  # the third note: die halfway through writing its temp file
        real(fd, data[: len(data) // 2])
        print("halfway", flush=True)
        time.sleep(60)
    real(fd, data)
vaultio._write_all = slow
from exporter.cli import main
sys.argv = ["ccexport", *sys.argv[1:]]
main()
"""


def test_sigkill_mid_write_leaves_no_partial_note_and_the_next_run_finishes(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 6)
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITER, "--vault", str(vault), "--home", str(home), "--timezone", "UTC"],
        stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    assert proc.stdout.readline().strip() == "halfway"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # Notes are renamed in batches, so the first two may still be temp files: either way
    # the half-written one is a temp file (a dot file, invisible to Obsidian), never a note.
    leftovers = list(vault.rglob(".ccexport-*.tmp"))
    assert 1 <= len(leftovers) <= 3
    assert len(note_files(vault)) + len(leftovers) == 3 and all(
        END_PREFIX in b.decode() for b in note_files(vault).values()
    )

    report = export(vault, home)
    assert not list(vault.rglob(".ccexport-*.tmp"))
    notes = note_files(vault)
    assert len(notes) == 6 and all(b.decode().count(END_PREFIX) == 1 for b in notes.values())
    landed = 3 - len(leftovers)  # notes the killed run renamed into place
    assert report.total("created") == 6 - landed and report.total("unchanged") == landed

    fresh = tmp_path / "fresh"
    export(fresh, home)
    assert note_files(fresh) == notes


def test_a_file_system_that_refuses_to_set_the_lock_s_time_fails_nothing(tmp_path, monkeypatch):
    """A FUSE or CIFS mount may refuse an explicit time: the run still ends well."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 2)
    export(vault, home)
    real = os.utime

    def refuse(path, *args, **kw):
        if isinstance(path, int):
            raise PermissionError(1, "Operation not permitted")
        return real(path, *args, **kw)

    monkeypatch.setattr(os, "utime", refuse)
    monkeypatch.setattr(os, "supports_fd", os.supports_fd | {refuse})
    report = export(vault, home)
    assert not report.failed and report.total("skipped") == 2
