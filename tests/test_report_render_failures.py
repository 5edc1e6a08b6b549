"""A template every note fails on (review22 F7): the summary said "3 notes rendered again:
… only those whose text changed were written" though none was, and ``--json`` listed the
same error once a note, none naming its note."""

from __future__ import annotations

import json
from pathlib import Path

from test_sync import write_sessions
from typer.testing import CliRunner

from exporter.cli import app
from exporter.errors import Problem
from exporter.outcome import ExportReport, SourceCounts
from exporter.report import print_report
from exporter.state import State
from exporter.vault import Action, Change

runner = CliRunner()
AGAIN = "rendered again: the templates, settings or redaction rules changed"


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _broken(tmp_path: Path) -> tuple[Path, Path, set[str]]:
    """A vault of three notes, then a session template with a syntax error."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 3)
    assert run("--vault", vault, "--home", home).exit_code == 0
    notes = {r.path for k, r in State.load(vault).notes.items() if not k.startswith("index:")}
    assert len(notes) == 3
    folder = vault / ".ccexport" / "templates"
    folder.mkdir(parents=True)
    (folder / "session.md.j2").write_text("# {{ title }\n")
    return home, vault, notes


def test_no_rendered_again_line_when_every_note_failed(tmp_path: Path) -> None:
    home, vault, _ = _broken(tmp_path)
    result = run("--vault", vault, "--home", home)
    assert result.exit_code == 1, result.output
    assert "3 sessions found, 0 created, 0 updated, 0 unchanged, 3 failed" in result.stdout
    assert "rendered again" not in result.stdout, result.stdout
    # the text output still folds the one mistake into one line
    said = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    template = vault / ".ccexport" / "templates" / "session.md.j2"
    assert said == [f"error: {template}:1: template syntax error: unexpected '}}' (3 times)"]


def test_json_names_the_note_each_render_failure_was_met_on(tmp_path: Path) -> None:
    home, vault, notes = _broken(tmp_path)
    result = run("--vault", vault, "--home", home, "--json")
    assert result.exit_code == 1
    errors = json.loads(result.stdout)["errors"]
    assert len(errors) == 3
    assert {e["note"] for e in errors} == notes  # one each, every note
    assert {e["message"] for e in errors} == {"template syntax error: unexpected '}'"}
    # as the text output does, it does not say the notes were rendered again (none was)
    assert json.loads(result.stdout)["rendered_again"] is None


def _report(*changes: Change) -> ExportReport:
    report = ExportReport(rendered_again=f"2 notes {AGAIN}")
    counts = report.per_source.setdefault("codex", SourceCounts(found=2))
    for change in changes:
        if change.action is Action.FAILED:
            counts.failed += 1
            report.problems.append(Problem("t.md.j2", "template error: x", 3, "error", "codex"))
        else:
            counts.updated += 1
    report.changes = list(changes)
    return report


def test_the_line_stays_when_a_note_was_written_or_none_failed(capsys) -> None:
    failed = Change(Action.FAILED, "codex:a", "a.md", "t.md.j2:3: template error: x")
    updated = Change(Action.UPDATED, "codex:b", "b.md")
    unchanged = Change(Action.UNCHANGED, "codex:b", "b.md")
    for changes, said in (((failed, updated), True), ((unchanged,), True), ((failed,), False)):
        print_report(_report(*changes))
        out = capsys.readouterr().out
        assert (f"2 notes {AGAIN}; only those whose text changed were written." in out) is said
        # --json says what the text does
        again = _report(*changes).as_dict()["rendered_again"]
        assert again == (f"2 notes {AGAIN}" if said else None)
    # a source that failed names no note: its error has no "note"
    report = _report(failed)
    report.problems.append(Problem("x.jsonl", "could not be read", None, "error", "codex"))
    assert [e["note"] for e in report.as_dict()["errors"]] == ["a.md", None]
