"""The summary for people is short (review35 10): a line only for the sources that wrote,
kept a note saved meanwhile or failed (every source with ``--verbose``), without the
counts that are zero, and none at all when every note failed (the error says why); the
first line keeps every count, and ``--json`` every source and every count."""

from __future__ import annotations

import json

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app
from exporter.outcome import ExportReport, SourceCounts
from exporter.report import print_report


def _run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _indented(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("  ")]


def test_a_run_that_changed_nothing_prints_one_line(tmp_path):
    args = ("--vault", tmp_path / "v", "--home", EXAMPLES_HOME, "--timezone", "UTC")
    assert _run(*args).exit_code == 0
    again = _run(*args)
    assert again.exit_code == 0, again.output
    assert again.stdout.splitlines()[0].startswith(
        "41 sessions found, 0 created, 0 updated, 41 unchanged in "
    )
    assert _indented(again.stdout) == []
    verbose = _run(*args, "--verbose")
    assert len(_indented(verbose.stdout)) == 15  # every source, its zeros left out
    assert "  codex: 4 found, 4 unchanged" in verbose.stdout.splitlines()
    doc = json.loads(_run(*args, "--json").stdout)  # (for machines: every source, every count)
    assert len(doc["sources"]) == 15
    assert doc["sources"]["codex"] == {
        "found": 4, "skipped": 4, "created": 0, "updated": 0, "unchanged": 4, "conflicts": 0,
        "failed": 0, "empty": 0, "deleted": 0, "saved": 0, "written": 0,
    }  # fmt: skip


def _printed(capsys, report: ExportReport, verbose: bool = False) -> list[str]:
    print_report(report, verbose=verbose)
    return capsys.readouterr().out.splitlines()


def test_only_the_sources_that_wrote_or_failed_get_a_line(capsys):
    report = ExportReport()
    report.per_source["claude-code"] = SourceCounts(found=5, skipped=5, deleted=0)
    report.per_source["codex"] = SourceCounts(found=3, updated=1, skipped=2)
    report.per_source["cursor"] = SourceCounts(found=2, skipped=1, failed=1)
    report.per_source["gemini"] = SourceCounts(found=2, skipped=1, deleted=1)  # (as every run)
    report.per_source["aider"] = SourceCounts()
    assert _printed(capsys, report)[1:] == [
        "  codex: 3 found, 1 updated, 2 unchanged",
        "  cursor: 2 found, 1 unchanged, 1 failed",
    ]
    assert len(_printed(capsys, report, verbose=True)) == 5  # (aider has no count at all)


def test_a_run_whose_every_note_failed_lists_no_source_before_the_error(capsys):
    report = ExportReport()
    for source in ("claude-code", "codex", "cursor"):
        report.per_source[source] = SourceCounts(found=4, failed=4)
    assert _printed(capsys, report) == [
        "12 sessions found, 0 created, 0 updated, 0 unchanged, 12 failed"
    ]
    assert len(_printed(capsys, report, verbose=True)) == 4
    report.per_source["codex"] = SourceCounts(found=4, created=1, failed=3)  # some were written
    assert len(_printed(capsys, report)) == 4
