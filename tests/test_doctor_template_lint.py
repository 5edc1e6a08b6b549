"""`ccexport doctor` on what a person's template does that renders without an error but
harms the notes: session text printed unescaped, a part ending inside an open code block
or comment, frontmatter of its own; and on templates put where no export reads them."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import EXAMPLES_HOME
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from exporter.cli import app
from exporter.doctor_template_lint import still_open

runner = CliRunner()
EXTENDS = '{% extends "default/session.md.j2" %}\n'


def _said(vault: Path, *more: str) -> list[str]:
    args = ["doctor", "--vault", str(vault), "--home", str(EXAMPLES_HOME), "--json", *more]
    result = runner.invoke(app, args)
    checks = json.loads(result.stdout)["checks"]
    return [c["message"] for c in checks if c["area"] == "Templates" and c["status"] != "ok"]


def _own(vault: Path, source: str, name: str = "session.md.j2") -> Path:
    folder = vault / ".ccexport" / "templates"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(source)
    return folder / name


def test_session_text_printed_unescaped_is_named_by_file_and_line(tmp_path):
    template = _own(
        tmp_path / "v",
        "# {{ title }}\n"
        "{% for turn in turns %}{% for item in turn['items'] %}\n"
        "{{ item.text }}\n"
        "{{ item.text | prose }} {{ item.text | length }} {{ title | inline }}\n"
        "{{ session.title | upper }}\n"
        "{% filter prose %}{{ item.text }}{% endfilter %}\n"
        "{% endfor %}{% endfor %}\n",
    )
    said = [m for m in _said(tmp_path / "v") if "unescaped" in m]
    assert said == [
        f"{template}:1: prints title unescaped: session text becomes live Markdown (an "
        "unclosed <!-- or %% hides your notes below it in reading view); use `| inline`",
        f"{template}:3: prints item.text unescaped: session text becomes live Markdown (an "
        "unclosed <!-- or %% hides your notes below it in reading view); use `| prose`",
        f"{template}:5: prints session.title unescaped: session text becomes live Markdown "
        "(an unclosed <!-- or %% hides your notes below it in reading view); use `| inline`",
    ]


def test_a_copy_of_ours_is_not_said_to_print_text_unescaped(tmp_path):
    assert runner.invoke(app, ["templates", "init", "--vault", str(tmp_path / "v")]).exit_code == 0
    assert _said(tmp_path / "v") == []


def test_a_part_ending_in_an_open_code_block_or_comment_is_said(tmp_path):
    template = _own(tmp_path / "v", EXTENDS + "{% block header %}~~~\n{% endblock %}\n")
    (said,) = _said(tmp_path / "v")
    assert said == (
        f"{template} leaves a code block (~~~) open at the end of a sample note: the end "
        'marker, "## My notes" and your notes below it would show as code in Obsidian'
    )
    template.write_text("# {{ title | inline }}\n<!-- a comment not closed\n")
    (said,) = _said(tmp_path / "v")
    assert "leaves an HTML comment (<!--) open" in said and "nothing (hidden)" in said


def test_a_template_writing_its_own_frontmatter_is_pointed_to_frontmatter_add(tmp_path):
    template = _own(tmp_path / "v", "---\ntags: [mine]\n---\n# {{ title | inline }}\n")
    (said,) = _said(tmp_path / "v")
    assert said.startswith(f"{template} starts its part with ---, as frontmatter would")
    assert said.endswith(
        "put properties in the config's [frontmatter] add (docs/notes.md, Properties)"
    )


@given(st.lists(st.sampled_from(["text", "```", "~~~~", "%%", "<!--", "-->", "`x`"]), max_size=8))
def test_text_whose_openers_are_closed_again_is_not_open(pieces):
    """Whatever ``still_open`` says is open at the end of a text, closing it (and then what
    it says next, each at most once) leaves nothing open."""
    text = "\n".join(pieces)
    closers = {"code block (```)": "```", "code block (~~~~)": "~~~~", "(<!--)": "-->"}
    for _ in range(3):
        opened = still_open(text)
        if opened is None:
            return
        text += "\n" + next((c for k, c in closers.items() if k in opened), "%%")
    assert still_open(text) is None, text


def test_templates_in_a_folder_no_export_reads_are_said(tmp_path):
    vault = tmp_path / "v"
    near = vault / ".ccexport" / "template"
    near.mkdir(parents=True)
    (near / "session.md.j2").write_text("# {{ title | inline }}\n")
    (vault / "Templates").mkdir()
    (vault / "Templates" / "project_index.md.j2").write_text("x\n")
    (vault / "Templates" / "session.md").write_text("an Obsidian template of the person's\n")
    own = vault / ".ccexport" / "templates"
    said = _said(vault)
    assert said == [
        f"{near} holds session.md.j2, which no export reads: ccexport reads templates from "
        f"{own} (or `templates` in the config, or --templates); move them there",
        f"{vault / 'Templates'} holds project_index.md.j2, which no export reads: ccexport "
        f"reads templates from {own} (or `templates` in the config, or --templates); move "
        "them there",
    ]


def test_a_template_named_without_j2_is_said(tmp_path):
    vault = tmp_path / "v"
    _own(vault, "# {{ title | inline }}\n", "session.md")
    said = _said(vault)
    own = vault / ".ccexport" / "templates"
    assert (
        f"{own / 'session.md'} is not read: a template's name ends in .j2; rename it to "
        "session.md.j2" in said
    )


def test_the_vaults_own_templates_not_used_beside_the_configs_are_said(tmp_path):
    vault = tmp_path / "v"
    own = _own(vault, "# {{ project | inline }}\n", "project_index.md.j2").parent
    mine = vault / "Templates" / "cc"
    mine.mkdir(parents=True)
    (mine / "session.md.j2").write_text(EXTENDS)
    (vault / ".ccexport" / "config.toml").write_text('templates = "Templates/cc"\n')
    said = [m for m in _said(vault) if m.startswith(f"{own} is not used")]
    assert len(said) == 1 and f"the templates in {mine} (vault config (" in said[0]
    assert _said(vault, "--templates", str(own)) == []


def test_doctor_agrees_with_the_export_on_an_include_ignore_missing(tmp_path):
    """The export skips ``{% include "…" ignore missing %}`` of a file not there: doctor said
    "template not found … no session note can be written", and, its walk stopped there,
    that a file the template does include is "not a template ccexport uses"."""
    vault = tmp_path / "v"
    template = _own(
        vault,
        '{% include "key.md.j2" %}{% include "../outside/nothing.txt" ignore missing %}'
        '{% include "also-not-there.md" ignore missing %}\n' + EXTENDS,
    )
    (template.parent / "key.md.j2").write_text("{{ project | inline }}\n")
    assert _said(vault) == []
    args = ["doctor", "--vault", str(vault), "--home", str(EXAMPLES_HOME), "--json"]
    checks = json.loads(runner.invoke(app, args).stdout)["checks"]
    used = f"{template.parent / 'key.md.j2'} is used by session.md.j2"
    assert any(c["message"] == used and c["status"] == "ok" for c in checks)
    export = runner.invoke(app, ["--vault", str(vault), "--home", str(EXAMPLES_HOME)])
    assert export.exit_code == 0 and "key.md.j2" not in export.stderr, export.stderr
