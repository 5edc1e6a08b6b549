"""A template is given its own copy of every list and dict: the properties, links and
sessions a note's frontmatter and the index notes are made from stay as ccexport made them
whatever the template calls on its copies (``update``, ``append``, ``pop``, ``clear``), and
a template may build its own lists with ``append``, as Jinja templates commonly do."""

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


def _session_note(tmp_path: Path, source: str) -> str:
    """The legacy session's note, exported with ``source`` as the session template."""
    result = _export(tmp_path, "session.md.j2", source)
    assert result.exit_code == 0, result.stderr
    return (tmp_path / "v" / LEGACY).read_text()


def test_a_session_template_cannot_rewrite_the_notes_properties(tmp_path):
    note = _session_note(
        tmp_path,
        '{% set _ = properties.update({"model": "HACKED", "prompts": 999}) %}\n'
        '{% set _ = subagent_links.append("[[evil]]") %}\n'
        '{% set _ = fork_links.all.append("[[evilfork]]") %}\n'
        "# {{ title | inline }} {{ properties.model }}\n",
    )
    head, body = note.split("\n---\n", 1)
    assert "HACKED" not in head and "999" not in head and "evil" not in head
    assert "HACKED" in body  # (the template's own copy, changed: what it printed)


def test_an_index_template_cannot_change_the_sessions_the_index_notes_count(tmp_path):
    result = _export(
        tmp_path,
        "project_index.md.j2",
        "{% set _ = sessions.clear() %}{% for s in sessions %}{% endfor %}"
        "# {{ project | inline }}\n",
    )
    assert result.exit_code == 0, result.stderr
    projects = (tmp_path / "v" / "AI Sessions" / "Projects.md").read_text()
    assert "[[AI Sessions/Projects/legacy-tool|legacy-tool]] · 2 sessions" in projects
    index = (tmp_path / "v" / "AI Sessions" / "Projects" / "legacy-tool.md").read_text()
    assert "sessions: 2" in index


def test_a_template_builds_its_own_values(tmp_path):
    note = _session_note(
        tmp_path,
        '{% set mine = dict(properties, model="mine") %}{% set xs = subagent_links + ["x"] %}'
        "{% set ns = namespace(n=0) %}{% for t in turns %}{% set ns.n = ns.n + 1 %}{% endfor %}"
        "{% set roles = [] %}{% for t in turns %}{% set _ = roles.append(t.role) %}{% endfor %}"
        "{{ mine.model | inline }} {{ xs | length }} {{ ns.n }} {{ roles | length }}\n",
    )
    assert "\nmine 1 " in note and "model: mine" not in note
    shown = note.split("\nmine 1 ", 1)[1].split("\n", 1)[0].split()
    assert shown[0] == shown[1] != "0"  # every turn counted, by a list of its own too
