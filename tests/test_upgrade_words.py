"""The run after an upgrade says what happened (review17 F3): every note rendered again
because this version writes them otherwise (or because templates or settings changed), and
the notes of a source kept as "fewer turns" folded into one line per source past the first
five, with the command that brings them up to date. The upgrade of the corpus printed 155
such lines one by one, and nothing said why 476 notes were updated."""

from __future__ import annotations

import json

from test_sync import write_sessions
from typer.testing import CliRunner

from exporter import render
from exporter.cli import app
from exporter.errors import Problem
from exporter.report import WARNINGS_PER_FILE, problem_lines
from exporter.vault import SHRUNK

runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _kept(source: str, n: int) -> list[Problem]:
    why = f"{SHRUNK} (the note holds 9 messages, the source now gives 4: it shrank, …)"
    return [Problem(f"AI Sessions/{source}/p/note {i}.md", why, source=source) for i in range(n)]


def test_kept_notes_fold_into_one_line_per_source_past_the_first_five():
    problems = [*_kept("aider", 153), *_kept("copilot-cli", 2)]
    lines = problem_lines(problems, quiet=False, verbose=False)
    aider = [line for line in lines if "/aider/" in line]
    assert len(aider) == WARNINGS_PER_FILE
    (folded,) = [line for line in lines if line.startswith("warning: 148 more notes of aider")]
    assert "kept: source has fewer turns than the note" in folded
    assert "if an upgrade reads aider otherwise, `ccexport --force --source aider` once" in folded
    assert "overwrites as well any note whose source did shrink" in folded
    assert len([line for line in lines if "/copilot-cli/" in line]) == 2
    assert len(lines) == WARNINGS_PER_FILE + 1 + 2
    assert len(problem_lines(problems, quiet=False, verbose=True)) == 155  # every one


def _export(vault, home, *extra):
    result = run("--vault", vault, "--home", home, "--timezone", "UTC", *extra)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_run_after_an_upgrade_says_every_note_was_rendered_again_and_why(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 3)
    assert "rendered again" not in _export(vault, home)  # a first export: nothing to say
    assert "rendered again" not in _export(vault, home)  # nothing changed
    before = render.notes_made_by()
    monkeypatch.setattr(render, "NOTES_REVISION", "a later one")
    said = _export(vault, home, "--dry-run")
    assert (
        "3 notes rendered again: this version of ccexport writes notes otherwise than the one "
        f"that last wrote them ({before}); only those whose text changed would be written." in said
    ), said
    said = _export(vault, home, "--source", "codex")  # (none: nothing rendered again)
    assert "rendered again" not in said, said
    said = _export(vault, home)  # each unit knows which version rendered it
    assert (
        "3 notes rendered again: this version of ccexport writes notes otherwise than the one "
        f"that last wrote them ({before}); only those whose text changed were written." in said
    ), said
    assert "rendered again" not in _export(vault, home)  # said once
    said = _export(vault, home, "--tools", "summary", "--json")
    doc = json.loads(said)  # (--json's stdout stays one document)
    assert doc["rendered_again"] == (
        "3 notes rendered again: the templates, settings or redaction rules changed"
    )


def test_doctor_names_an_upgrade_as_the_reason(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 2)
    assert run("--vault", vault, "--home", home).exit_code == 0
    monkeypatch.setattr(render, "NOTES_REVISION", "a later one")
    shown = run("doctor", "--vault", vault, "--home", home).stdout
    assert "2 notes were written by another version of ccexport" in shown, shown


def test_a_note_the_person_deleted_is_not_counted_as_rendered_again(tmp_path, monkeypatch):
    """review24 F5: the run said 42 where doctor, which leaves deleted notes out, said 41."""
    from conftest import note_files

    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 3)
    _export(vault, home)
    (vault / next(p for p in sorted(note_files(vault)) if "/claude-code/" in p)).unlink()
    _export(vault, home)  # (it stays deleted)
    monkeypatch.setattr(render, "NOTES_REVISION", "a later one")
    assert "2 notes were written by another version" in run("doctor", "--vault", vault,
                                                             "--home", home).stdout  # fmt: skip
    said = _export(vault, home)
    assert "2 notes rendered again: " in said and "3 notes" not in said, said
