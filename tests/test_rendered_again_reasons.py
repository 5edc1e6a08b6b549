"""The reason a run and ``doctor`` give for notes rendered again is true.

review40 M2: after a run of this very version failed on a broken template (its units kept
no fingerprint), doctor said the notes "were written by another version of ccexport", and
the export that followed said nothing. review40 L1: a --project run with another setting
said the whole vault was rendered again, and made every note look rendered with that
setting, so the next full run blamed a settings change for all of them."""

from __future__ import annotations

import json

from typer.testing import CliRunner
from vault_builder import write_session

from exporter.cli import app
from exporter.config import resolve
from exporter.doctor_render import render_checks

runner = CliRunner()
SIDS = [f"92e00000-0000-4000-8000-00000000000{n}" for n in range(4)]


def _home(tmp_path):
    home = tmp_path / "home-files"
    for n, sid in enumerate(SIDS):
        cwd = "/home/dev/work/rusty" if n == 0 else f"/home/dev/work/app{n}"
        write_session(home, [f"question {n}"], sid=sid, cwd=cwd)
    return home


def run(*args: object) -> dict:
    said = runner.invoke(app, [*(str(a) for a in args), "--timezone", "UTC", "--json"])
    return json.loads(said.stdout)


def _doctor_lines(vault, home) -> list[str]:
    settings = resolve({"vault": str(vault), "timezone": "UTC"})
    return [
        c.message
        for c in render_checks(settings, home)
        if "the next run renders them again" in c.message
    ]


def test_a_failed_run_is_not_blamed_on_another_version(tmp_path):
    home, vault = _home(tmp_path), tmp_path / "v"
    assert run("--vault", vault, "--home", home)["totals"]["created"] == 4
    own = vault / ".ccexport" / "templates"
    own.mkdir(parents=True)
    (own / "session.md.j2").write_text("{{ titel | inline }}\n")
    assert run("--vault", vault, "--home", home)["totals"]["failed"] == 4
    (own / "session.md.j2").unlink()
    (said,) = _doctor_lines(vault, home)
    assert said.startswith("4 notes were left by the last run to be read again (a note failed"), (
        said
    )
    assert "another version" not in said
    again = run("--vault", vault, "--home", home)
    assert again["rendered_again"] == (
        "4 notes rendered again: the last run left them to be read again (a note failed or "
        "came back, the run was stopped, its filters left one out, or another machine's copy "
        "was taken)"
    )
    assert _doctor_lines(vault, home) == []


def test_a_filtered_run_counts_and_marks_only_the_notes_in_scope(tmp_path):
    home, vault = _home(tmp_path), tmp_path / "v"
    run("--vault", vault, "--home", home)
    filtered = run("--vault", vault, "--home", home, "--project", "rusty", "--tools", "summary")
    assert filtered["totals"]["found"] == 1
    assert filtered["rendered_again"].startswith("1 note rendered again: the templates")
    # The other notes are as the configuration renders them: doctor and the next run say so
    (said,) = _doctor_lines(vault, home)
    assert said.startswith("1 note was written with other templates, settings"), said
    full = run("--vault", vault, "--home", home)
    assert full["rendered_again"].startswith("1 note rendered again: the templates"), full
    assert run("--vault", vault, "--home", home)["rendered_again"] is None
