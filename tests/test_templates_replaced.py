"""What ``--templates`` replaces for a run, named as it is: the config's ``templates`` folder
when the config names one (it was said to be the vault's own), else the vault's own; and
``templates init`` into a folder already holding the files does not say it wrote them."""

from __future__ import annotations

from pathlib import Path

from test_sync import write_sessions
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()
EXTENDS = '{% extends "default/session.md.j2" %}\n'


def _folder(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "session.md.j2").write_text(EXTENDS)
    return path


def test_templates_given_name_the_configs_folder_they_replace(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 1)
    _folder(vault / ".ccexport" / "templates")
    configured = _folder(vault / "Templates" / "cc")
    (vault / ".ccexport" / "config.toml").write_text('templates = "Templates/cc"\n')
    mine = _folder(tmp_path / "mine")
    args = ["--vault", str(vault), "--home", str(home), "--templates", str(mine)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    config = vault / ".ccexport" / "config.toml"
    assert (
        f"The templates in {mine} are used for this run, not those in {configured} "
        f"(`templates` of the vault config ({config})) (one templates folder is used: "
        "--templates, else the config's, else the vault's)"
    ) in result.stderr
    assert "vault's own" not in result.stderr
    same = runner.invoke(app, [*args[:-1], str(configured)])
    assert "used for this run" not in same.stderr


def test_templates_init_over_the_files_already_there_says_it_kept_them(tmp_path):
    vault = tmp_path / "v"
    first = runner.invoke(app, ["templates", "init", "--vault", str(vault)])
    assert first.output.endswith("Edit them; the next export uses them for every note.\n")
    again = runner.invoke(app, ["templates", "init", "--vault", str(vault)])
    assert again.exit_code == 0
    assert "the next export uses them" not in again.output
    assert again.output.splitlines()[-1] == (
        "Nothing copied: every template is there already (--force overwrites them with ours)."
    )
