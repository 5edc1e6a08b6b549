"""Rendering on several cores gives the same vault, byte for byte, as rendering on one;
a template error raised in a worker process is reported like any other, and so is any
other failure of one session (an exception, a worker that dies): it fails alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import ROOT, note_files
from corpus_home import build_codex_home, build_corpus_home
from test_sync import write_sessions

from exporter import export as export_module
from exporter import notes, split, workers
from exporter.export import ExportOptions, run_export
from exporter.vault import Vault


def export(vault: Path, home: Path, jobs: int, **kw):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=jobs, **kw))


@pytest.fixture
def pools(monkeypatch):
    """Counts the process pools started, to be sure the parallel path really ran."""
    started: list[int] = []
    original = workers.Renderer._new_pool

    def counting(self, n):
        started.append(n)
        return original(self, n)

    monkeypatch.setattr(workers.Renderer, "_new_pool", counting)
    return started


def test_parallel_and_serial_exports_are_identical(tmp_path, pools):
    home = tmp_path / "home"
    write_sessions(home, workers.PARALLEL_FROM + 16, turns=3)
    one, two = export(tmp_path / "one", home, 1), export(tmp_path / "two", home, 2)
    assert pools == [2]
    assert one.as_dict() == two.as_dict()
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert len(note_files(tmp_path / "two")) == workers.PARALLEL_FROM + 16


def test_a_few_long_sessions_start_the_pool_before_the_24th(tmp_path, pools):
    """A real history has fewer, longer sessions: what was read, not only how many
    sessions, decides when the pool is worth starting. The notes are the same."""
    home = tmp_path / "home"
    reply = "Here is what the test printed:\n\n" + "test result: FAILED. 0 passed\n" * 20_000
    for i in range(8):
        sid = f"{i:08x}-0000-4000-8000-000000000000"
        s = ClaudeSession(sid, "/home/dev/work/long", start=f"2026-05-{1 + i:02d}T10:00:00Z")
        s.user(f"why does run {i} fail?")
        s.assistant(reply)
        s.write(home / ".claude" / "projects" / "-long" / f"{sid}.jsonl")
    assert sum(f.stat().st_size for f in home.rglob("*.jsonl")) > workers.PARALLEL_FROM_BYTES
    one, two = export(tmp_path / "one", home, 1), export(tmp_path / "two", home, 2)
    assert pools == [2]  # eight sessions, far from PARALLEL_FROM
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert one.as_dict() == two.as_dict()


def test_the_parts_of_one_long_session_render_in_the_pool(tmp_path, pools, monkeypatch):
    """A home of one long session: the pool starts before it is read (forked later, every
    worker would copy it), so its part notes render on every core, not all in the main
    process. The notes are the same as rendered on one core."""
    home = tmp_path / "home"
    sid = "0000000a-0000-4000-8000-000000000000"
    s = ClaudeSession(sid, "/home/dev/work/long", start="2026-05-01T10:00:00Z")
    for turn in range(40):
        s.user(f"why does run {turn} fail?")
        s.assistant("Here is what the test printed:\n\n" + f"run {turn}: FAILED\n" * 2_000)
    s.write(home / ".claude" / "projects" / "-long" / f"{sid}.jsonl")
    monkeypatch.setattr(workers, "PARALLEL_FROM_BYTES", 1024 * 1024)  # a smaller home
    assert sum(f.stat().st_size for f in home.rglob("*.jsonl")) > workers.PARALLEL_FROM_BYTES
    sent: list[str] = []  # jobs handed to the pool
    original = workers.Renderer._submit

    def counting(self, pool, job):
        sent.append(job.key)
        return original(self, pool, job)

    monkeypatch.setattr(workers.Renderer, "_submit", counting)
    one = export(tmp_path / "one", home, 1, note_max_bytes=64 * 1024)
    two = export(tmp_path / "two", home, 2, note_max_bytes=64 * 1024)
    assert pools == [2]
    parts = note_files(tmp_path / "two")
    assert len(parts) > 10 and len(sent) == len(set(sent)) == len(parts)  # every part
    assert one.as_dict() == two.as_dict()
    assert parts == note_files(tmp_path / "one")


@pytest.mark.corpus
def test_parallel_export_of_the_corpus_matches_serial(corpus, tmp_path, pools):
    """Real files bring subagents, forks and late links that cross rendering order."""
    home = tmp_path / "home"
    build_corpus_home(corpus, home)
    build_codex_home(corpus, home)
    one, two = export(tmp_path / "one", home, 1), export(tmp_path / "two", home, 2)
    assert pools == [2]
    assert one.as_dict() == two.as_dict()
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    rerun = export(tmp_path / "two", home, 2)
    assert (
        rerun.as_dict()["totals"]["written"] == 0
        and rerun.total("skipped") == one.total("found") > workers.PARALLEL_FROM
    )


def test_a_template_error_in_a_worker_is_reported_and_the_rest_written(tmp_path, pools):
    home, folder = tmp_path / "home", tmp_path / "templates"
    write_sessions(home, workers.PARALLEL_FROM + 6)
    folder.mkdir()
    (folder / "session.md.j2").write_text(
        '{% extends "default/session.md.j2" %}\n{% block header %}\n'
        "{% if 'p1' in session.project %}{{ missing }}{% endif %}{{ title }}\n{% endblock %}\n"
    )
    report = export(tmp_path / "v", home, 2, templates=folder)
    assert pools == [2]
    failed = sum(c.failed for c in report.per_source.values())
    written = len(note_files(tmp_path / "v"))
    assert failed == 10 and written == workers.PARALLEL_FROM + 6 - 10
    assert {(p.path, p.line, p.message, p.severity) for p in report.problems} == {
        (str(folder / "session.md.j2"), 3, "template error: 'missing' is undefined", "error")
    }
    assert {str(p) for p in report.problems} == {
        f"{folder / 'session.md.j2'}:3: template error: 'missing' is undefined"
    }


# The command line, with rendering made to fail for one session: by an exception, or by
# its worker process dying (killed, out of memory), which breaks the whole pool.
FAILING = """
import os, sys
from exporter import notes
real = notes.build_note
def build_note(session, *args):
    if session.session_id.startswith(os.environ["FAIL_FOR"]):
        if os.environ["HOW"] == "exit":
            os._exit(3)
        raise RuntimeError("a value no one expected")
    return real(session, *args)
notes.build_note = build_note  # (each note asks notes for it)
from exporter.cli import main
sys.argv = ["ccexport", *sys.argv[1:]]
main()
"""


def run_cli(vault: Path, home: Path, jobs: int, **env: str):
    proc = subprocess.run(
        [sys.executable, "-c", FAILING, "--vault", str(vault), "--home", str(home),
         "--timezone", "UTC", "--jobs", str(jobs), "--json"],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, **env}, timeout=300,
    )  # fmt: skip
    return proc, json.loads(proc.stdout) if proc.stdout.strip() else None


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_session_that_cannot_be_rendered_fails_alone_in_every_mode(tmp_path, jobs):
    """Before: with a pool, the exception ended the run (traceback, no state, no JSON)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    count, bad = workers.PARALLEL_FROM + 16, workers.PARALLEL_FROM + 6  # rendered in the pool
    paths = write_sessions(home, count)
    proc, report = run_cli(vault, home, jobs, FAIL_FOR=f"{bad:08x}", HOW="raise")
    assert proc.returncode == 1, proc.stderr
    (error,) = report["errors"]
    assert error["path"] == str(paths[bad])
    assert "could not be rendered (RuntimeError: a value no one expected)" in error["message"]
    assert report["totals"]["created"] == count - 1 and report["totals"]["failed"] == 1
    assert len(note_files(vault)) == count - 1 and (vault / ".ccexport" / "state.json").is_file()
    # The sessions written are remembered; only the failed one is read again.
    proc, again = run_cli(vault, home, jobs, FAIL_FOR=f"{bad:08x}", HOW="raise")
    assert proc.returncode == 1 and again["totals"]["skipped"] == count - 1


def test_a_worker_process_that_dies_fails_only_its_session(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    count, bad = workers.PARALLEL_FROM + 16, workers.PARALLEL_FROM + 4
    paths = write_sessions(home, count)
    proc, report = run_cli(vault, home, 2, FAIL_FOR=f"{bad:08x}", HOW="exit")
    assert proc.returncode == 1, proc.stderr
    (error,) = report["errors"]
    assert error["path"] == str(paths[bad]) and "worker process died" in error["message"]
    # The jobs in flight when the pool broke were rendered again in a fresh pool.
    assert len(note_files(vault)) == count - 1


def test_an_error_writing_one_note_fails_that_note_alone(tmp_path, monkeypatch):
    home = tmp_path / "home"
    write_sessions(home, 5)
    real = Vault.write_note

    def write_note(self, key, *args, **kw):
        if key.startswith("claude-code:00000002"):
            raise ValueError("a value the vault cannot write")
        return real(self, key, *args, **kw)

    monkeypatch.setattr(Vault, "write_note", write_note)
    report = export(tmp_path / "v", home, 1)
    (error,) = [p for p in report.problems if p.severity == "error"]
    assert "could not be written (ValueError: a value the vault cannot write)" in error.message
    assert len(note_files(tmp_path / "v")) == 4


def test_one_failure_on_the_first_run_does_not_re_render_everything_later(tmp_path, monkeypatch):
    """The render fingerprint is kept per unit: the units that succeeded stay skipped."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 6)
    real = notes.build_note

    def build_note(session, *args):
        if session.session_id.startswith("00000003"):
            raise RuntimeError("fails this time")
        return real(session, *args)

    monkeypatch.setattr(notes, "build_note", build_note)
    first = export(vault, home, 1)
    assert first.failed and first.total("created") == 5
    monkeypatch.setattr(notes, "build_note", real)
    second = export(vault, home, 1)
    assert second.total("skipped") == 5 and second.total("created") == 1
    # A template change still re-renders every note.
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "session.md.j2").write_text('{% extends "default/session.md.j2" %}\n')
    third = export(vault, home, 1, templates=folder)
    assert third.total("skipped") == 0 and third.total("unchanged") == 6


# Where the run looks each step up: the path on the pipeline's module (given to the plan as
# the run starts), the parts on split's (imported with the first note planned).
@pytest.mark.parametrize("where, step", [(export_module, "default_relpath"), (split, "iter_parts")])
def test_a_session_that_cannot_be_planned_fails_alone_in_its_family(
    tmp_path, monkeypatch, where, step
):
    """A parent and its subagent come from one unit: the subagent failing keeps the parent."""
    sid = "11111111-2222-4333-8444-555555555555"
    folder = tmp_path / "home" / ".claude" / "projects" / "-w-proj"
    s = ClaudeSession(sid)
    s.user("survey the tests")
    s.assistant([tool_use("Task", {"description": "Survey", "prompt": "List tests."}, "t1")])
    s.tool_result("t1", "Found 3.")
    s.write(folder / f"{sid}.jsonl")
    agent = ClaudeSession(sid, sidechain=True, agent_id="a1b2c3d")
    agent.user("List tests.", parent=None)
    agent.assistant("Found 3.")
    agent.write(folder / sid / "subagents" / "agent-a1b2c3d.jsonl")
    real = getattr(where, step)

    def failing(session, *args):
        if session.parent_id and session.messages:  # the subagent (not a link's stand-in)
            raise RuntimeError("cannot place this one")
        return real(session, *args)

    monkeypatch.setattr(where, step, failing)
    report = export(tmp_path / "v", tmp_path / "home", 1)
    (error,) = [p for p in report.problems if p.severity == "error"]
    assert f"{sid}/agent-a1b2c3d could not be exported (RuntimeError" in error.message
    (note,) = note_files(tmp_path / "v").values()
    assert b"survey the tests" in note
