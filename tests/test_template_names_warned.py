"""A templates folder holding a note template whose name ccexport does not know
(``sesion.md.j2``): the export used ours in its place without a word, and only ``doctor``
said why (review22 F4). Every run now warns of it as doctor says it; and ``--templates DIR``
says that the vault's own templates are not used in that run."""

from __future__ import annotations

import json
from pathlib import Path

from test_sync import write_sessions
from typer.testing import CliRunner

from exporter.cli import app
from exporter.export import run_export
from exporter.options import ExportOptions

runner = CliRunner()

KNOWN = "those it uses are project_index.md.j2, projects_index.md.j2, session.md.j2"
EXTENDS = '{% extends "default/session.md.j2" %}\n'


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _misnamed(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sesion.md.j2").write_text(EXTENDS)
    return folder / "sesion.md.j2"


def test_the_export_warns_once_of_a_note_template_it_does_not_know(tmp_path: Path) -> None:
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 3)
    typo = _misnamed(tmp_path / "tpl")
    said = f"not a template ccexport uses, so no note is made with it (did you mean session.md.j2?); {KNOWN}"
    result = run("--vault", vault, "--home", home, "--templates", tmp_path / "tpl")
    assert result.exit_code == 0, result.output
    assert result.stderr.count(f"warning: {typo}: {said}\n") == 1, result.stderr
    assert result.stderr.count("sesion.md.j2") == 1  # once a run, not once a note

    # doctor says it in the same words
    doctor = run("doctor", "--vault", vault, "--home", home, "--templates", tmp_path / "tpl")
    assert f"!!  {typo} is {said}" in doctor.stdout, doctor.stdout

    # --json lists it among the warnings (and a dry run says it too)
    again = run("--vault", vault, "--home", home, "--templates", tmp_path / "tpl", "--json")
    warnings = json.loads(again.stdout)["warnings"]
    assert [w for w in warnings if w["path"] == str(typo)] == [
        {"path": str(typo), "line": None, "message": said, "severity": "warning", "source": None}
    ]
    dry = run("--vault", vault, "--home", home, "--templates", tmp_path / "tpl", "--dry-run")
    assert f"warning: {typo}: {said}" in dry.stderr


def test_the_vaults_own_templates_are_checked_too(tmp_path: Path) -> None:
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 1)
    typo = _misnamed(vault / ".ccexport" / "templates")
    (typo.parent / "notes.md.j2").write_text(EXTENDS)  # no name close to it: no guess
    report = run_export(ExportOptions(vault=vault, home=home, templates=typo.parent))
    said = {p.path: p.message for p in report.problems}
    assert "(did you mean session.md.j2?)" in said[str(typo)]
    assert said[str(typo.parent / "notes.md.j2")] == (
        f"not a template ccexport uses, so no note is made with it; {KNOWN}"
    )
    result = run("--vault", vault, "--home", home)  # the folder in effect without --templates
    assert f"warning: {typo}: not a template ccexport uses" in result.stderr, result.stderr


def test_a_note_template_an_override_includes_is_part_of_it_not_warned(tmp_path: Path) -> None:
    """As doctor has it: a ``*.md.j2`` a template of ours that the person overrides includes
    is used, whatever its name."""
    home, folder = tmp_path / "home", tmp_path / "tpl"
    write_sessions(home, 1)
    folder.mkdir()
    (folder / "session.md.j2").write_text(
        EXTENDS + '{% block header %}{{ super() }}{% include "footer.md.j2" %}{% endblock %}\n'
    )
    (folder / "footer.md.j2").write_text("footer\n")
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home, templates=folder))
    assert not report.problems, report.problems


def test_templates_given_say_that_the_vaults_own_are_not_used(tmp_path: Path) -> None:
    home, vault, mine = tmp_path / "home", tmp_path / "v", tmp_path / "tpl"
    write_sessions(home, 1)
    mine.mkdir()
    (mine / "session.md.j2").write_text(EXTENDS)
    line = (
        f"The templates in {mine} are used for this run, not the vault's own in "
        f"{vault / '.ccexport' / 'templates'} (one templates folder is used: --templates, "
        "else the config's, else the vault's)"
    )
    # The vault has none: nothing to say
    assert "vault's own" not in run("--vault", vault, "--home", home, "--templates", mine).output
    (vault / ".ccexport" / "templates").mkdir(parents=True)
    (vault / ".ccexport" / "templates" / "session.md.j2").write_text("# {{ title }}\n")
    result = run("--vault", vault, "--home", home, "--templates", mine)
    assert result.exit_code == 0, result.output
    assert result.stderr.count(line) == 1, result.stderr
    # not with --quiet, nor when --templates names the vault's own folder, nor without it
    quiet = run("--vault", vault, "--home", home, "--templates", mine, "--quiet")
    assert quiet.output == ""
    own = vault / ".ccexport" / "templates"
    assert "vault's own" not in run("--vault", vault, "--home", home, "--templates", own).output
    assert "vault's own" not in run("--vault", vault, "--home", home).output


def test_watch_warns_of_it_once_and_says_which_templates_it_uses(tmp_path, monkeypatch):
    from claude_builder import ClaudeSession

    from exporter import watch as watch_module
    from exporter.watch import WatchEvents, watch

    home, vault = tmp_path / "home", tmp_path / "v"
    paths = write_sessions(home, 2)
    typo = _misnamed(vault / ".ccexport" / "templates")
    warned: list[list[str]] = []
    grown = iter([None, "append", None, None])

    def sleep(seconds: float) -> None:
        if next(grown, None) == "append":
            with open(paths[0], "a", encoding="utf-8") as f:
                s = ClaudeSession("x", "/home/dev/work/p0")
                s.user("a question typed while watching")
                f.write(s.text())

    options = ExportOptions(vault=vault, home=home, templates=typo.parent, lock_wait=0.0)
    record = WatchEvents(lambda r: warned.append([p.path for p in r.problems]))
    watch(options, record, interval=0, debounce=0, sleep=sleep, rounds=4)
    assert warned == [[str(typo)], []]  # the second round wrote the grown session, unsaid

    def one_round(options, events, interval, gone):
        raise KeyboardInterrupt

    monkeypatch.setattr(watch_module, "watch", one_round)
    mine = tmp_path / "tpl"
    mine.mkdir()
    result = run("watch", "--vault", vault, "--home", home, "--templates", mine)
    assert result.exit_code == 0, result.output
    assert f"The templates in {mine} are used for this run, not the vault's own" in result.stderr
