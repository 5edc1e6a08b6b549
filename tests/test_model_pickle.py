"""Sessions travel to the worker processes pickled as their fields (rebuilt by their
constructors), and the run's settings travel once per worker, not with every session."""

from __future__ import annotations

import dataclasses
import pickle
from datetime import UTC, datetime
from pathlib import Path

import pytest

from exporter import model, workers
from exporter.notes import Note, NoteSettings
from exporter.workers import Renderer, RenderJob

WHEN = datetime(2026, 11, 30, 9, 5, tzinfo=UTC)
PARTS = (
    model.TextPart("a `b` c"),
    model.ThinkingPart("why", redacted=True),
    model.ToolCallPart("Bash", {"command": "ls", "n": [1, 2]}, "c1", subagent_id="ag"),
    model.ToolResultPart("out", "c1", is_error=True, exit_code=2, duration=0.5),
    model.AttachmentPart("image/png", b"\x89PNG", "shot.png"),
    model.CommandPart("/clear", shell=True),
    model.CommandOutputPart("done", is_error=False),
    model.SummaryPart("summary", "auto"),
    model.NoticePart("error", "overloaded"),
)


def session() -> model.Session:
    message = model.Message("assistant", PARTS, "u1", WHEN, model="m")
    return model.Session(
        "claude-code", "s1", (message, model.Message("user", (PARTS[0],))), Path("/s/s1.jsonl"),
        title="T", started_at=WHEN, models=("m",), subagent_ids=("ag",), extra={"k": [1]},
        usage=model.Usage(1, 2, 3, 4), model_usage=(("m", model.Usage(1, 2, 3, 4)),),
    )  # fmt: skip


@pytest.mark.parametrize("value", [*PARTS, model.Usage(1, 2, 3, 4), session()],
                         ids=lambda v: type(v).__name__)  # fmt: skip
def test_every_model_value_is_pickled_as_its_fields_and_comes_back_equal(value):
    constructor, arguments = value.__reduce__()
    assert constructor is type(value)
    assert arguments == tuple(getattr(value, f.name) for f in dataclasses.fields(value))
    assert pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)) == value


def test_a_job_goes_to_the_pool_without_the_settings(monkeypatch):
    sent = []

    class Pool:
        def submit(self, *args):
            sent.append(args)

    renderer = Renderer(NoteSettings(timezone=UTC), 2, None)
    job = RenderJob("unit", session(), "AI Sessions/s1.md", {})
    renderer._submit(Pool(), job)  # type: ignore[arg-type]
    assert sent == [(workers.render_job, job)]
    # A worker gets them once, when it starts, and renders every job with them.
    monkeypatch.setattr(workers, "_worker_settings", [])
    monkeypatch.setattr(
        workers.threading, "Thread", lambda **kw: type("T", (), {"start": lambda self: None})()
    )
    monkeypatch.setattr(workers.signal, "signal", lambda *a: None)
    workers._start_worker(None, 1, renderer.settings)
    assert workers._worker_settings == [(renderer.settings, None)]
    note = workers.render_job(job)
    assert isinstance(note, Note) and note.relpath == "AI Sessions/s1.md"
