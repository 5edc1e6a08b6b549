"""A template that leaves a block open is named with the line the block opened on: Jinja
notices at the tag that cannot close it, or at the template's end, often many lines below
(review40 L7: an `{% if %}` added on line 45, reported at line 85's `{% endblock %}`)."""

from __future__ import annotations

import json
from pathlib import Path

import jinja2
import pytest
from typer.testing import CliRunner

from exporter.cli import app
from exporter.template_blocks import opened_at

EXAMPLES_HOME = Path(__file__).resolve().parents[1] / "examples" / "home"
runner = CliRunner()


def _hint(source: str) -> str:
    env = jinja2.Environment()
    with pytest.raises(jinja2.TemplateSyntaxError) as caught:
        env.parse(source)
    return opened_at(caught.value, env)


def test_an_if_left_open_inside_a_block_is_named_by_its_line():
    source = "{% block a %}\nx\n{% if y %}\nz\n\n\n{% endblock %}\n"
    assert _hint(source) == " (the 'if' left open is on line 3)"


def test_a_block_left_open_at_the_templates_end_is_named_by_its_line():
    source = "{% for x in y %}{{ x }}{% endfor %}\n{% for a in b %}\n{{ a }}\n"
    assert _hint(source) == " (the 'for' left open is on line 2)"


def test_closed_blocks_and_assignments_before_it_are_not_named():
    source = (
        "{% set n = 1 %}\n{% set body %}b{% endset %}\n{% if p %}{% if q %}{% endif %}\n"
        "{% with w = 2 %}{% endwith %}\n{% block a %}\n{% endblock %}\n"
    )
    assert _hint(source) == " (the 'if' left open is on line 3)"


def test_other_syntax_errors_get_no_such_hint():
    assert _hint("{% if %}\n") == ""  # (a tag without its test)
    assert _hint("{{ x | }}\n") == ""


def test_the_export_and_doctor_name_the_line(tmp_path):
    vault = tmp_path / "v"
    assert runner.invoke(app, ["templates", "init", "--vault", str(vault)]).exit_code == 0
    template = vault / ".ccexport" / "templates" / "session.md.j2"
    lines = template.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("{% block header %}")) + 1
    lines.insert(at, "{% if session.title %}\n")
    template.write_text("".join(lines), encoding="utf-8")
    said = f"(the 'if' left open is on line {at + 1})"
    export = runner.invoke(app, ["--vault", str(vault), "--home", str(EXAMPLES_HOME)])
    assert export.exit_code == 1
    assert said in export.output
    doctor = runner.invoke(
        app, ["doctor", "--vault", str(vault), "--home", str(EXAMPLES_HOME), "--json"]
    )
    messages = [c["message"] for c in json.loads(doctor.stdout)["checks"]]
    assert any(said in m for m in messages), messages
