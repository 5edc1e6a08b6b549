"""Render workers under every start method: under ``forkserver`` (Python 3.14's default on
Linux) a worker's parent is the fork server, not the main process. The worker's parent
watch took that for the main process's death and exited at once, so every note rendered in
the pool failed with "its worker process died"; it now watches the main process too."""

from __future__ import annotations

import multiprocessing
import os
from datetime import UTC
from pathlib import Path

import pytest

from exporter import workers
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


class _Exited(Exception):
    pass


def _watch(monkeypatch, parent: int, parent_now: int, started_under: int) -> str:
    """Run a worker's parent watch once, in this thread: "exited" or "watching"."""
    parents = iter([started_under, parent_now, parent_now])
    monkeypatch.setattr(workers.os, "getppid", lambda: next(parents))
    monkeypatch.setattr(workers.signal, "signal", lambda *a: None)
    monkeypatch.setattr(workers.threading, "Thread",
                        lambda target, **kw: type("T", (), {"start": lambda self: target()})())  # fmt: skip

    def leave(code):
        raise _Exited

    def slept(seconds):
        raise StopIteration  # it went on watching

    monkeypatch.setattr(workers.os, "_exit", leave)
    monkeypatch.setattr(workers.time, "sleep", slept)
    try:
        workers._start_worker(None, parent)
    except _Exited:
        return "exited"
    except StopIteration:
        return "watching"
    return "returned"


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_forked_worker_watches_its_parent(monkeypatch):
    main = os.getpid()
    assert _watch(monkeypatch, main, parent_now=main, started_under=main) == "watching"
    assert _watch(monkeypatch, main, parent_now=1, started_under=main) == "exited"


def test_a_worker_of_a_fork_server_watches_the_main_process(monkeypatch):
    server, main = 4242, os.getpid()
    assert _watch(monkeypatch, main, parent_now=server, started_under=server) == "watching"
    dead = _dead_pid()  # the main process is gone, the server not yet
    assert _watch(monkeypatch, dead, parent_now=server, started_under=server) == "exited"
    assert _watch(monkeypatch, main, parent_now=1, started_under=server) == "exited"
