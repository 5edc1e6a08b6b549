"""``--json``'s ``redactions`` agree with the summary's "N secrets redacted" line
(review41 L-6): a run in which every note failed and none was written says no line, and
its document said the secrets it found all the same, though none reached a note."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app
from exporter.outcome import ExportReport, SourceCounts
from exporter.report import print_report

runner = CliRunner()


def _export(vault: Path, *args: str):
    return runner.invoke(app, ["--vault", str(vault), "--home", str(EXAMPLES_HOME), *args])


def test_a_run_whose_every_note_failed_reports_no_redactions(tmp_path: Path) -> None:
    vault, broken = tmp_path / "v", tmp_path / "tpl"
    broken.mkdir()
    (broken / "session.md.j2").write_text("{% if x %}\n")  # (an open block: every note fails)
    result = _export(vault, "--templates", str(broken), "--json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["totals"]["written"] == 0 and document["totals"]["failed"] > 0
    assert document["redactions"] == {}
    assert "redacted" not in _export(vault, "--templates", str(broken), "--force").stdout
    # the same sessions written: their secrets are counted, in both outputs
    written = json.loads(_export(vault, "--json").stdout)
    assert written["totals"]["written"] > 0
    assert sum(written["redactions"].values()) > 0


def _text_and_json(capsys, report: ExportReport) -> tuple[str, dict[str, int]]:
    print_report(report)
    return capsys.readouterr().out, report.as_dict()["redactions"]


def test_the_json_counts_what_the_summary_line_says(capsys) -> None:
    cases = {
        "written": SourceCounts(found=2, created=1, failed=1),
        "unchanged": SourceCounts(found=1, unchanged=1),
        "every note failed": SourceCounts(found=2, failed=2),
    }
    for name, counts in cases.items():
        for dry_run in (False, True):
            report = ExportReport(dry_run=dry_run, redactions={"generic-secret": 2, "aws-key": 1})
            report.per_source["x"] = counts
            text, redactions = _text_and_json(capsys, report)
            said = "3 secrets would be redacted" if dry_run else "3 secrets redacted"
            assert (said in text) == bool(redactions), (name, dry_run, text, redactions)
            assert redactions in ({}, {"aws-key": 1, "generic-secret": 2})
            assert bool(redactions) == (name != "every note failed" or dry_run), name
