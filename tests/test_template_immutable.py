"""A template sees values it cannot change: the properties, links and sessions a note's
frontmatter and the index notes are made from are the same values, so a template calling
``update``, ``append``, ``pop`` or ``clear`` on them would rewrite those too. Such a call
is refused with one line; building a new value works."""

from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()
LEGACY = "AI Sessions/claude-code/legacy-tool/2025-06-09 push to github 7d2f9e10.md"


def _export(tmp_path: Path, name: str, source: str):
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(source)
    args = ["--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME)]
    return runner.invoke(app, [*args, "--templates", str(folder)])


def test_a_session_template_cannot_rewrite_the_notes_properties(tmp_path):
    result = _export(
        tmp_path,
        "session.md.j2",
        '{% set _ = properties.update({"model": "HACKED", "prompts": 999}) %}\n'
        '{% set _ = subagent_links.append("[[evil]]") %}\n'
        "# {{ title | inline }}\n",
    )
    assert result.exit_code == 1
    assert (
        "session.md.j2:1: template error: dict.update() cannot be called in a template: it "
        "changes the dict, and a template sees values it cannot change; build a new one "
        "instead (xs + [x], dict(d, key=value), or a namespace) (41 times)"
    ) in result.stderr
    assert not any("HACKED" in n.read_text() for n in (tmp_path / "v").rglob("*.md"))


def test_an_index_template_cannot_change_the_sessions_the_index_notes_count(tmp_path):
    result = _export(
        tmp_path,
        "project_index.md.j2",
        "{% set _ = sessions.clear() %}# {{ project | inline }}\n",
    )
    assert "list.clear() cannot be called in a template" in result.stderr
    projects = (tmp_path / "v" / "AI Sessions" / "Projects.md").read_text()
    assert "[[AI Sessions/Projects/legacy-tool|legacy-tool]] · 2 sessions" in projects


def test_a_template_builds_new_values_instead(tmp_path):
    result = _export(
        tmp_path,
        "session.md.j2",
        '{% set mine = dict(properties, model="mine") %}{% set xs = subagent_links + ["x"] %}'
        "{% set ns = namespace(n=0) %}{% for t in turns %}{% set ns.n = ns.n + 1 %}{% endfor %}"
        "{{ mine.model | inline }} {{ xs | length }} {{ ns.n }}\n",
    )
    assert result.exit_code == 0, result.stderr
    note = (tmp_path / "v" / LEGACY).read_text()
    assert "\nmine 1 " in note and "model: mine" not in note
