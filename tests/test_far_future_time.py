"""A time far past the clock (a clock set wrong, 9999-12-31 for "never") is no time the
session was had: it cannot be read, is said as such, and a note an older version dated by
it is no "fuller" note: the repaired source writes over it without --force."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from conftest import note_files
from vault_builder import export, the_note, write_session

from exporter.adapters import _jsonl
from exporter.adapters._jsonl import parse_timestamp
from exporter.adapters._times import Times
from exporter.vault import SHRUNK

FAR = "9999-12-31T23:59:59Z"


@pytest.mark.parametrize("value", [FAR, "2999-01-01T00:00:00+02:00", 253402300799000])
def test_a_time_far_past_the_clock_is_reported_as_unreadable(value):
    times, problems = Times(), []
    assert (parse_timestamp(value) or times.unread(value, 4)) is None
    times.report(problems, "s.jsonl", "claude-code")
    (problem,) = problems
    assert problem.line == 4 and "could not be read and was left out" in problem.message


def test_a_time_within_a_day_of_the_clock_is_read():
    soon = datetime.now(UTC) + timedelta(hours=20)
    assert parse_timestamp(soon.isoformat()) == soon.replace(microsecond=soon.microsecond)
    assert parse_timestamp(soon.timestamp()) is not None


def far_last_line(path) -> None:
    lines = path.read_text().splitlines()
    last = json.loads(lines[-1])
    last["timestamp"] = FAR
    path.write_text("\n".join([*lines[:-1], json.dumps(last)]) + "\n")


def test_the_run_says_so_and_the_note_keeps_its_real_end(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    far_last_line(write_session(home, ["q1", "q2"]))
    report = export(vault, home)
    assert any("could not be read and was left out" in p.message for p in report.problems)
    assert "9999" not in the_note(vault).read_text()


def test_a_note_dated_far_ahead_by_an_older_version_gives_way_to_the_repair(tmp_path, monkeypatch):
    home, vault, clean = tmp_path / "home", tmp_path / "v", tmp_path / "clean"
    source = write_session(home, ["q1", "q2"])
    export(clean, home)
    pristine = source.read_bytes()
    far_last_line(source)
    with monkeypatch.context() as older:  # a version that read any date
        older.setattr(_jsonl, "too_late", lambda when: False)
        export(vault, home)
    assert "9999" in the_note(vault).read_text()
    source.write_bytes(pristine)
    report = export(vault, home)
    assert not [c.message for c in report.changes if c.message and c.message.startswith(SHRUNK)]
    assert list(note_files(vault).values()) == list(note_files(clean).values())
