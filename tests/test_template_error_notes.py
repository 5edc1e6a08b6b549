"""A template error in the text output names the note it failed on, as ``--json`` does: a
mistake only one session meets is otherwise hard to find."""

from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()
COPILOT_NOTE = "AI Sessions/copilot/unknown-project/2025-11-07 ISO date regex c0b1107a.md"


def export(vault: Path, folder: Path, *more: str):
    args = ["--vault", str(vault), "--home", str(EXAMPLES_HOME), "--timezone", "UTC"]
    return runner.invoke(app, [*args, "--templates", str(folder), *more])


def _template(tmp_path: Path, source: str) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "session.md.j2").write_text(source)
    return folder


def test_an_error_one_session_meets_names_its_note(tmp_path):
    folder = _template(
        tmp_path,
        '{% if session.source == "copilot" and not session.cwd %}{{ nope }}{% endif %}'
        '{% include "default/session.md.j2" %}',
    )
    result = export(tmp_path / "v", folder)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    at = lines.index(f"error: {folder / 'session.md.j2'}:1: template error: 'nope' is undefined")
    assert lines[at + 1] == f"  in note: {COPILOT_NOTE}"


def test_an_error_every_note_meets_names_the_first_and_verbose_every_one(tmp_path):
    folder = _template(tmp_path, "# {{ nope }}\n")
    said = f"error: {folder / 'session.md.j2'}:1: template error: 'nope' is undefined (41 times)"
    lines = export(tmp_path / "v", folder).stderr.splitlines()
    following = lines[lines.index(said) + 1]
    assert following.startswith("  in note: AI Sessions/")
    assert following.endswith(".md and 40 more (--verbose names every one)")
    lines = export(tmp_path / "v", folder, "--verbose").stderr.splitlines()
    at = lines.index(said)
    named = lines[at + 1 : at + 42]
    assert all(line.startswith("  in note: AI Sessions/") for line in named)
    assert len(set(named)) == 41 and f"  in note: {COPILOT_NOTE}" in named
