"""What the main process holds while notes render in the pool: a part of a long session
makes a note of megabytes, so few of them wait to be written; and a part never starts the
pool (workers forked then would each hold the whole session)."""

from __future__ import annotations

import time
from datetime import UTC
from pathlib import Path

import pytest

from exporter import workers
from exporter.model import Message, Session, TextPart
from exporter.notes import Note, NoteSettings
from exporter.split import Part
from exporter.workers import Renderer, RenderJob

real_render_job = workers.render_job


def slow_render_job(job, settings=None):
    """A note that takes a while: results pile up if the main process does not wait."""
    time.sleep(0.2)
    return real_render_job(job, settings)


def job(number: int, part: bool) -> RenderJob:
    session = Session(
        "claude-code",
        f"0000{number:04d}-0000-4000-8000-000000000000",
        (Message("user", (TextPart(f"question {number}"),)),),
        Path(f"/s/{number}.jsonl"),
    )
    return RenderJob(
        "unit", session, f"AI Sessions/{number}.md", {}, Part(number, None, None) if part else None
    )


@pytest.fixture
def renderer(monkeypatch):
    monkeypatch.setattr(workers, "PARALLEL_FROM", 1)
    monkeypatch.setattr(workers, "render_job", slow_render_job)  # the workers fork with it
    r = Renderer(NoteSettings(timezone=UTC), 2, None)
    yield r
    r.close()


def test_few_part_notes_wait_in_the_queue(renderer):
    renderer.submit(job(0, part=False))  # starts the pool
    longest = 0
    for n in range(1, 13):
        renderer.submit(job(n, part=True))
        done = list(renderer.finished())
        longest = max(longest, len(renderer.queue))
        assert all(isinstance(outcome, Note) for _, outcome in done)
    rest = list(renderer.finished(wait=True))
    assert renderer.pool is not None and not renderer.queue
    assert all(isinstance(outcome, Note) for _, outcome in rest)
    assert longest <= renderer.workers + 1, longest  # before: up to 4 per worker


def test_a_part_never_starts_the_pool(renderer):
    renderer.submit(job(1, part=True))
    renderer.submit(job(2, part=True))
    assert renderer.pool is None  # rendered in the main process, one at a time
    assert [o.key for _, o in renderer.finished()] == [job(1, True).key, job(2, True).key]
    renderer.submit(job(3, part=False))
    assert renderer.pool is not None


def test_the_default_number_of_workers_is_the_cores_but_no_more_than_jobs_takes(monkeypatch):
    """--help says "default: cores, at most 64"; on a 200-core machine the default forked 200
    workers, which --jobs itself refuses."""
    from exporter.cli_options import MAX_JOBS

    monkeypatch.setattr(workers.os, "cpu_count", lambda: 200)
    assert Renderer(NoteSettings(timezone=UTC), None, None).workers == workers.MAX_JOBS == 64
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 2)
    assert Renderer(NoteSettings(timezone=UTC), None, None).workers == 2
    assert MAX_JOBS == workers.MAX_JOBS  # the most --jobs takes


def test_a_family_of_many_subagents_is_written_as_it_renders(tmp_path, monkeypatch):
    """A session and its subagents are one family: every path is chosen first, then each
    note handed over. The notes were written only once the whole family was handed over, so
    the main process held every one rendered (a Cursor family of 50 subagents of 5 MB: 810
    MB at its peak, 344 MB written as they render). Now the queue stays as short as for
    sessions of no family. Synthetic transcripts."""
    from claude_builder import ClaudeSession, tool_use
    from conftest import note_files

    from exporter.export import ExportOptions, run_export

    sid, agents = "0bb0b0b0-1111-4222-8333-444444444444", 30
    folder = tmp_path / ".claude" / "projects" / "-w-proj"
    parent = ClaudeSession(sid, "/w/proj")
    parent.user("Survey every module.")
    for n in range(agents):
        call = f"toolu_{n:03d}"
        task = {"description": f"Survey module {n}", "prompt": f"Read module {n}."}
        parent.assistant([tool_use("Task", task, call)])
        parent.tool_result(call, "Done.", rich={"status": "completed", "agentId": f"a{n:06d}"})
    parent.assistant("All surveyed.")
    parent.write(folder / f"{sid}.jsonl")
    for n in range(agents):
        agent = ClaudeSession(sid, "/w/proj", sidechain=True, agent_id=f"a{n:06d}")
        agent.user(f"Read module {n}.", parent=None)
        agent.assistant(f"Module {n} holds one class.")
        agent.write(folder / sid / "subagents" / f"agent-a{n:06d}.jsonl")
    longest = [0]
    real_submit = Renderer.submit

    def submit(self, job, source_bytes=0):
        real_submit(self, job, source_bytes)
        longest[0] = max(longest[0], len(self.queue))

    monkeypatch.setattr(Renderer, "submit", submit)
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, workers=1))
    assert not report.problems and len(note_files(tmp_path / "v")) == agents + 1
    assert longest[0] <= 4 + 1, longest[0]  # (4 per worker wait at most; before: all 31)
