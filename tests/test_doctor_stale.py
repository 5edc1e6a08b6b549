"""``doctor`` counts the notes the next run renders again (written with other templates,
settings or rules) among those it would read: a unit no run reads any more (an Aider run a
new reading joins to another, a transcript gone) keeps its note as it is, and a note the
person deleted stays deleted. It counted both, and said "the next run renders them again"
for ever (review17 F4)."""

from __future__ import annotations

from test_sync import write_sessions
from typer.testing import CliRunner

from exporter.cli import app


def run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_doctor_counts_only_notes_the_next_run_renders_again(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    sources = write_sessions(home, 6)
    assert run("--vault", vault, "--home", home, "--no-redact").exit_code == 0
    notes = sorted((vault / "AI Sessions" / "claude-code").rglob("*.md"))
    assert len(notes) == 6
    shown = run("doctor", "--vault", vault, "--home", home).stdout
    assert "6 notes were written with other templates" in shown, shown
    notes[0].unlink()  # deleted by the person: recorded so by the next run
    assert run("--vault", vault, "--home", home, "--no-redact").exit_code == 0
    gone = next(p for p in sources if p.stem[:8] not in notes[0].name)
    gone.unlink()  # its session's source is gone: its note stays, and is never read again
    shown = run("doctor", "--vault", vault, "--home", home).stdout
    assert "4 notes were written with other templates" in shown, shown
    again = run("--vault", vault, "--home", home)  # redaction on: renders
    assert again.exit_code == 0, again.output
    shown = run("doctor", "--vault", vault, "--home", home).stdout
    assert "were written with other templates" not in shown, shown
