"""``--tool-output-lines N`` without ``--tool-output head`` changed nothing in the notes, yet
rendered every note again, and again on the next plain run (review50 L3): refused, exit 2,
as other options that mean nothing alone are. With templates of your own (which may read
``tool_output_lines``), or with ``head`` from the config, it is taken."""

from __future__ import annotations

from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()


def _run(tmp_path, *args, config=""):
    vault = tmp_path / "v"
    (vault / ".ccexport").mkdir(parents=True, exist_ok=True)
    (vault / ".ccexport" / "config.toml").write_text(config, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return runner.invoke(app, ["--vault", str(vault), "--home", str(home), "--dry-run", *args])


def test_tool_output_lines_alone_is_refused_naming_what_it_needs(tmp_path):
    result = _run(tmp_path, "--tool-output-lines", "2")
    assert result.exit_code == 2, result.output
    assert "--tool-output-lines keeps lines only with --tool-output head" in result.stderr
    assert "'full'" in result.stderr


def test_tool_output_lines_with_head_from_the_flag_or_the_config_is_taken(tmp_path):
    assert _run(tmp_path, "--tool-output-lines", "2", "--tool-output", "head").exit_code == 0
    taken = _run(tmp_path, "--tool-output-lines", "2", config='tool_output = "head"\n')
    assert taken.exit_code == 0, taken.output


def test_with_templates_of_your_own_it_is_yours_to_give(tmp_path):
    templates = tmp_path / "tpl"
    templates.mkdir()
    result = _run(tmp_path, "--tool-output-lines", "2", "--templates", str(templates))
    assert result.exit_code == 0, result.output
