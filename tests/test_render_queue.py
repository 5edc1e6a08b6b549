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
