"""A run that made notes says where they are (review35 11): "431 created" named no folder,
and a first-time user had to read the README to find AI Sessions/."""

from __future__ import annotations

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()


def test_new_notes_are_said_with_their_folder_and_only_when_made(tmp_path):
    vault = tmp_path / "Notes"
    args = ["--vault", str(vault), "--home", str(EXAMPLES_HOME), "--source", "codex"]
    dry = runner.invoke(app, [*args, "--dry-run"])
    assert f"4 new notes would be in {vault / 'AI Sessions'}" in dry.stdout
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert f"4 new notes written in {vault / 'AI Sessions'}\n" in first.stdout
    again = runner.invoke(app, args)
    assert "new note" not in again.stdout  # nothing made: nothing to point at
    quiet = runner.invoke(app, [*args[:2], "--home", str(EXAMPLES_HOME), "--quiet"])
    assert quiet.stdout == ""


def test_the_folder_set_is_the_one_named(tmp_path):
    vault = tmp_path / "Notes"
    args = ["--vault", str(vault), "--home", str(EXAMPLES_HOME), "--source", "codex"]
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text('folder = "Chats/AI"\n')
    said = runner.invoke(app, args)
    assert f"4 new notes written in {vault / 'Chats' / 'AI'}\n" in said.stdout, said.output
