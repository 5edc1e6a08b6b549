"""The end marker after a generated part that ends in a table: on the next line it was one
more row of that table (GFM ends a table only at a blank line or another block), so a blank
line comes between; a note written before, with none, is not the person's edit."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import EXAMPLES_HOME
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from exporter import notefile
from exporter.cli import app

runner = CliRunner()
TABLE = "## Result\n\n| item | done |\n| --- | --- |\n| backup | no |\n| sync | yes |"
KILO = "2025-11-10 Turn the TODO list in notes.md into a table 7c2d3e4f.md"


def _cells(text: str) -> list[str]:
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    return [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "td_open"]


def test_a_part_ending_in_a_table_has_a_blank_line_before_the_end_marker():
    text = notefile.compose({"title": "x"}, "", TABLE, notefile.NEW_NOTE_TAIL)
    assert "| sync | yes |\n\n%% ccexport:end " in text
    assert _cells(text) == ["backup", "no", "sync", "yes"]  # (the marker is no row)
    parsed = notefile.parse(text)
    assert parsed.edited is False and parsed.after == notefile.NEW_NOTE_TAIL
    assert notefile.recompose(parsed, parsed.yaml, TABLE) == text
    for other in ("text | with a pipe", "| a |", "> | a |\n> | --- |\n> | b |", "plain"):
        assert f"{other}\n%% ccexport:end " in notefile.compose({}, "", other, "")


def test_a_note_written_before_without_the_blank_line_is_not_an_edit():
    text = notefile.compose({"title": "x"}, "", TABLE, notefile.NEW_NOTE_TAIL)
    before = text.replace("| sync | yes |\n\n%%", "| sync | yes |\n%%")
    parsed = notefile.parse(before)
    assert parsed.edited is False
    assert notefile.recompose(parsed, parsed.yaml, TABLE) == text


def test_the_export_updates_such_a_note_without_saving_it_as_an_edit(tmp_path: Path):
    vault = tmp_path / "v"
    args = ["--vault", str(vault), "--home", str(EXAMPLES_HOME), "--json"]
    assert runner.invoke(app, args).exit_code == 0
    (note,) = vault.rglob(KILO)
    written = note.read_text()
    assert "| sync | yes |\n\n%% ccexport:end " in written
    note.write_text(written.replace("| sync | yes |\n\n%%", "| sync | yes |\n%%"))
    result = runner.invoke(app, [*args, "--force"])
    report = json.loads(result.stdout)
    assert report["totals"]["conflicts"] == 0, report
    assert note.read_text() == written
    assert not (vault / "AI Sessions" / "kilo-code" / "kilo-notes" / "edited").exists()
