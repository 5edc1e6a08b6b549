"""Found in the review of 1 December: the render pool under the ``forkserver`` start method
(Python 3.14's default on Linux). A worker's parent is then the fork server, not the main
process, so the worker's parent watch (``workers._start_worker``) takes the main process
for dead and exits at once: every note rendered in the pool fails with "its worker process
died"."""

from __future__ import annotations

import multiprocessing
from datetime import UTC
from pathlib import Path

import pytest

from exporter.model import Message, Session, TextPart
from exporter.notes import Note, NoteSettings
from exporter.workers import PARALLEL_FROM, Renderer, RenderJob


@pytest.fixture
def forkserver():
    if "forkserver" not in multiprocessing.get_all_start_methods():
        pytest.skip("no forkserver start method on this platform")
    before = multiprocessing.get_start_method(allow_none=True)
    multiprocessing.set_start_method("forkserver", force=True)
    yield
    multiprocessing.set_start_method(before, force=True)


def _job(number: int) -> RenderJob:
    session = Session(
        "claude-code",
        f"0000{number:04d}-0000-4000-8000-000000000000",
        (Message("user", (TextPart(f"question {number}"),)),),
        Path(f"/s/{number}.jsonl"),
    )
    return RenderJob("unit", session, f"AI Sessions/{number}.md", {})


def test_notes_render_in_a_pool_of_forkserver_workers(forkserver):
    renderer = Renderer(NoteSettings(timezone=UTC), 2, None)
    try:
        for number in range(PARALLEL_FROM + 4):
            renderer.submit(_job(number))
        assert renderer.pool is not None  # the pool did render some of them
        outcomes = [outcome for _, outcome in renderer.finished(wait=True)]
    finally:
        renderer.close()
    failed = [str(o) for o in outcomes if not isinstance(o, Note)]
    assert not failed, failed[:2]
