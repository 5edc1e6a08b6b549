"""When a Codex rollout whose lines carry no time ended (FORMATS.md §2.10: the early-Rust
JSONL and the TypeScript CLI's document hold the start alone): at its thread's last prompt
in ``history.jsonl`` (§2.1), else not known. Invented rollouts and histories."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from codex_builder import CodexRollout, write_generation
from conftest import load_sessions

from exporter.adapters.codex import CodexAdapter
from exporter.export import ExportOptions, run_export

TID = "019a0000-1111-7222-8333-444455556666"
OTHER = "019a0000-1111-7222-8333-777788889999"
START = datetime(2026, 3, 10, 8, 0, 1, tzinfo=UTC)  # the builder's session_meta time


def rollout(thread: str = TID) -> CodexRollout:
    r = CodexRollout(thread)
    r.context()
    r.user("Add a health endpoint")
    r.assistant("Added it.")
    r.user("Now a test for it")
    r.assistant("Test added.")
    return r


def write(home: Path, generation: str, thread: str = TID) -> Path:
    return write_generation(rollout(thread), home / ".codex" / "sessions", generation)


def history(home: Path, *entries: tuple[str, float] | str) -> Path:
    """``history.jsonl`` of (thread, seconds after START) prompts, or raw lines."""
    lines = [
        e if isinstance(e, str)
        else json.dumps({"session_id": e[0], "ts": int(START.timestamp() + e[1]), "text": "…"})
        for e in entries
    ]  # fmt: skip
    path = home / ".codex" / "history.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return path


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(int(START.timestamp() + seconds), UTC)


def load(home: Path):
    return load_sessions(CodexAdapter(), home)


@pytest.mark.parametrize("generation", ["bare", "document"])
def test_a_rollout_without_times_ends_at_its_threads_last_prompt(tmp_path, generation):
    write(tmp_path, generation)
    # Prompts of this thread (one in capitals: ids are matched as the rollouts' are) and a
    # later one of another thread, out of order as two Codex windows would append them.
    history(tmp_path, (TID, 30), (OTHER, 9000), (TID.upper(), 600), (TID, 300))
    (session,), problems = load(tmp_path)
    assert problems == []
    assert (session.started_at, session.ended_at) == (START, at(600))


@pytest.mark.parametrize("generation", ["bare", "document"])
def test_without_a_history_only_the_start_is_known(tmp_path, generation):
    path = write(tmp_path, generation)
    later = START.timestamp() + 86400  # the file's time is no witness (a copy gets a new one)
    os.utime(path, (later, later))
    history(tmp_path, (OTHER, 600))
    (session,), problems = load(tmp_path)
    assert (session.started_at, session.ended_at, problems) == (START, None, [])


def test_a_last_prompt_no_later_than_the_start_gives_no_end(tmp_path):
    """A prompt logged within the header's second (the history keeps whole seconds) says no
    more than the start: never a span of no length."""
    write(tmp_path, "bare")
    history(tmp_path, (TID, -1), (TID, 0))
    (session,), _ = load(tmp_path)
    assert session.ended_at is None


def test_a_rollout_with_times_keeps_its_last_lines(tmp_path):
    r = rollout()
    r.write(tmp_path / ".codex")
    history(tmp_path, (TID, 9000))
    (session,), _ = load(tmp_path)
    assert session.ended_at == r.clock  # the last line's time, not the history's


def test_a_damaged_history_is_said_once_and_its_good_lines_count(tmp_path):
    write(tmp_path, "bare")
    write(tmp_path, "bare", OTHER)
    path = history(
        tmp_path,
        (TID, 120),
        "not json",
        json.dumps({"session_id": TID, "ts": "yesterday", "text": "…"}),
        json.dumps({"ts": 1, "text": "…"}),
        (OTHER, 240),
    )
    with path.open("a") as f:
        f.write('{"session_id": "half wri')  # being appended: no newline yet, not said
    sessions, problems = load(tmp_path)
    assert sorted(s.ended_at for s in sessions) == [at(120), at(240)]
    (problem,) = problems
    assert (problem.path, problem.line) == (str(path), 2)
    assert problem.message.startswith("a line that is not JSON (3 damaged lines, the first here)")
    assert "left out" in problem.message


def test_an_unreadable_history_is_said_and_the_start_stays(tmp_path):
    write(tmp_path, "bare")
    (tmp_path / ".codex" / "history.jsonl").mkdir(parents=True)
    (session,), (problem,) = load(tmp_path)
    assert session.ended_at is None
    assert problem.message.startswith("could not be read") and problem.line is None


def test_the_note_has_updated_from_the_history(tmp_path):
    write(tmp_path, "bare")
    history(tmp_path, (TID, 30), (TID, 754))
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    (note,) = (tmp_path / "v").rglob("codex/**/*.md")
    front = note.read_text().split("\n---\n", 1)[0]
    assert "\ncreated: 2026-03-10T08:00:01\n" in front
    assert "\nupdated: 2026-03-10T08:12:35\n" in front
