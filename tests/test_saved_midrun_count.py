"""A note the person saves while a run updates it is counted as such, not as unchanged.

The run reads the note, makes its new text, and just before renaming it into place finds
the file saved meanwhile (Obsidian saves as you type): the person's version stays, with a
warning. The summary said "N unchanged" for it; it now has a count of its own, shown only
when there is one, and the next run brings the note up to date with the person's text in it.
"""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession
from conftest import note_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from exporter import vaultbatch
from exporter.cli import app
from exporter.export import ExportOptions, run_export
from exporter.report import summary_line

TYPED = "typed during the run\n"
SAVED_PART = "saved during the run (kept as you saved it)"


def sid(n: int) -> str:
    return f"0a1b2c3d-0000-4000-8000-{n:012x}"


def write_sessions(home: Path, count: int, turns: int) -> None:
    for n in range(count):
        s = ClaudeSession(sid(n), "/home/dev/work/app", start=f"2026-03-04T1{n}:00:00Z")
        for t in range(turns):
            s.user(f"question {t} of session {n}")
            s.assistant(f"reply {t} of session {n}")
        s.write(home / ".claude" / "projects" / "-home-dev-work-app" / f"{sid(n)}.jsonl")


def export(vault: Path, home: Path):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))


def note_of(vault: Path, n: int) -> Path:
    (rel,) = [r for r, t in note_files(vault).items() if f"session_id: {sid(n)}".encode() in t]
    return vault / rel


def saving_commit(notes: list[Path]):
    """A batch commit at which each of ``notes`` is saved by the person (a line appended)
    after the run made its new text and before the batch holding it lands: the race."""
    real_commit = vaultbatch.WriteBatch.commit

    def save_first(batch):
        for path in notes:
            if path.relative_to(batch.root).as_posix() in batch._pending:
                with path.open("a") as f:
                    f.write(TYPED)
        real_commit(batch)

    return save_first


def saving_before_landing(monkeypatch, notes: list[Path]) -> None:
    monkeypatch.setattr(vaultbatch.WriteBatch, "commit", saving_commit(notes))


def test_a_note_saved_during_the_run_is_counted_apart_and_updated_next_run(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 1, 1)
    export(vault, home)
    path = note_of(vault, 0)
    write_sessions(home, 1, 2)  # the session grew: its note is to be updated
    saving_before_landing(monkeypatch, [path])
    report = export(vault, home)
    assert path.read_text().endswith(TYPED) and "question 1" not in path.read_text()
    totals = report.as_dict()["totals"]
    assert (totals["saved"], totals["updated"], totals["unchanged"]) == (1, 0, 0)
    line = summary_line(report)
    assert f"1 {SAVED_PART}" in line and "0 unchanged" in line, line
    assert [w["message"] for w in report.as_dict()["warnings"]] == [
        "saved by someone else while this run updated it: left as saved, updated on the next run"
    ]
    assert not report.failed  # a warning: the exit code stays 0
    monkeypatch.undo()
    again = export(vault, home)  # its record was dropped: the source is read again
    text = path.read_text()
    assert (
        "question 1" in text
        and TYPED in text
        and list(note_files(vault)) == [path.relative_to(vault).as_posix()]
    )
    assert again.as_dict()["totals"]["saved"] == 0 and again.total("updated") == 1
    assert "saved during the run" not in summary_line(again)


def test_an_edit_inside_the_generated_part_saved_during_the_run_is_not_lost(tmp_path, monkeypatch):
    # The next run finds the person's edit where ccexport writes: their version is copied
    # aside (a conflict) before the note is brought up to date.
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 1, 1)
    export(vault, home)
    path = note_of(vault, 0)
    write_sessions(home, 1, 2)
    real_commit = vaultbatch.WriteBatch.commit

    def edit_first(batch):
        if path.relative_to(vault).as_posix() in batch._pending:
            path.write_text(path.read_text().replace("reply 0 of", "reply 0, corrected, of"))
        real_commit(batch)

    monkeypatch.setattr(vaultbatch.WriteBatch, "commit", edit_first)
    assert export(vault, home).as_dict()["totals"]["saved"] == 1
    assert "reply 0, corrected, of" in path.read_text()
    monkeypatch.undo()
    again = export(vault, home)
    assert "question 1" in path.read_text() and again.total("conflicts") == 1
    (copy,) = (vault / "AI Sessions" / "Conflicts").iterdir()
    assert "reply 0, corrected, of" in copy.read_text()


def test_the_command_line_summary_and_json_name_it_and_exit_0(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 2, 1)
    runner = CliRunner()
    args = ["--vault", str(vault), "--home", str(home), "--timezone", "UTC"]
    assert runner.invoke(app, args).exit_code == 0
    write_sessions(home, 2, 2)
    saving_before_landing(monkeypatch, [note_of(vault, 1)])
    done = runner.invoke(app, [*args, "--json"])
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["totals"]["saved"] == 1 and doc["sources"]["claude-code"]["saved"] == 1
    assert doc["totals"]["updated"] == 1 and doc["totals"]["unchanged"] == 0
    assert f"1 updated, 0 unchanged, 1 {SAVED_PART}" in done.stderr
    assert f"claude-code: 2 found, 1 updated, 1 {SAVED_PART}" in (
        done.stderr
    )  # (in the first line's order: review15 F5)


@settings(
    max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(data=st.data(), count=st.integers(1, 3))
def test_every_note_is_counted_once_whatever_is_saved_meanwhile(tmp_path_factory, data, count):
    saved = data.draw(st.sets(st.integers(0, count - 1)), label="saved")
    home = tmp_path_factory.mktemp("home")
    vault = home / "v"
    write_sessions(home, count, 1)
    export(vault, home)
    write_sessions(home, count, 2)
    real_commit = vaultbatch.WriteBatch.commit
    vaultbatch.WriteBatch.commit = saving_commit([note_of(vault, n) for n in sorted(saved)])
    try:
        report = export(vault, home)
    finally:
        vaultbatch.WriteBatch.commit = real_commit
    totals = report.as_dict()["totals"]
    assert (totals["saved"], totals["updated"]) == (len(saved), count - len(saved))
    assert totals["unchanged"] == 0 and totals["found"] == count
    assert (SAVED_PART in summary_line(report)) == bool(saved)


def test_a_watch_round_whose_only_news_is_a_save_meanwhile_is_printed(tmp_path, monkeypatch):
    """``watch`` prints a round that wrote or failed; one that only gave way to the person
    typing in the note is printed too, or its warning goes unseen while they type."""
    from exporter.report import worth_a_watch_line

    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 1, 1)
    assert worth_a_watch_line(export(vault, home))  # wrote the note
    assert not worth_a_watch_line(export(vault, home))  # a quiet round: nothing to print
    path = note_of(vault, 0)
    write_sessions(home, 1, 2)
    saving_before_landing(monkeypatch, [path])
    report = export(vault, home)
    assert report.total("written") == 0 and not report.failed
    assert worth_a_watch_line(report)
