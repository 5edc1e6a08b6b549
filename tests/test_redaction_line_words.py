""" "N secrets redacted" is said only of what was done (review40 L7): a dry run says they
"would be redacted", and a run in which every note failed (nothing written) says nothing."""

from __future__ import annotations

from exporter.outcome import ExportReport, SourceCounts
from exporter.report import print_report


def _said(capsys, report: ExportReport) -> str:
    print_report(report)
    return capsys.readouterr().out


def test_the_redaction_line_says_what_was_done(capsys):
    done = ExportReport(redactions={"generic-secret": 2})
    done.per_source["x"] = SourceCounts(found=1, created=1)
    assert "2 secrets redacted (generic-secret 2)" in _said(capsys, done)
    dry = ExportReport(dry_run=True, redactions={"generic-secret": 2})
    dry.per_source["x"] = SourceCounts(found=1, created=1)
    assert "2 secrets would be redacted (generic-secret 2)" in _said(capsys, dry)
    failed = ExportReport(redactions={"generic-secret": 2})
    failed.per_source["x"] = SourceCounts(found=1, failed=1)
    assert "redacted" not in _said(capsys, failed)
