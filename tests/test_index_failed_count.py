"""An index note that cannot be written makes the run exit 1; the summary says so too,
rather than a line of counts that shows no failure."""

from __future__ import annotations

from vault_builder import export, run_cli, write_session

from exporter.report import summary_line


def _index_broken_and_session_grown(tmp_path):
    """A vault whose project index lost its end marker, and a session that grew since."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["one"])
    export(vault, home)
    index = vault / "AI Sessions" / "Projects" / "app.md"
    lines = index.read_text().splitlines(keepends=True)
    index.write_text("".join(line for line in lines if "ccexport:end" not in line))
    write_session(home, ["one", "two"])
    return home, vault


def test_an_index_note_left_unchanged_is_counted_as_failed(tmp_path):
    home, vault = _index_broken_and_session_grown(tmp_path)
    report = export(vault, home)
    assert report.failed and report.index_failed == 1
    assert summary_line(report).endswith("0 unchanged, 1 index note failed")
    assert report.as_dict()["totals"]["index_failed"] == 1
    assert report.as_dict()["totals"]["failed"] == 0  # no session failed


def test_the_command_prints_the_failed_index_note_in_its_summary(tmp_path):
    home, vault = _index_broken_and_session_grown(tmp_path)
    result = run_cli("--vault", str(vault), "--home", str(home))
    assert result.returncode == 1
    assert ", 1 index note failed in " in result.stdout.splitlines()[0]


def test_a_clean_run_counts_no_failed_index_note(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["one"])
    report = export(vault, home)
    assert report.index_failed == 0 and "index note" not in summary_line(report)
