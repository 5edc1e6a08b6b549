"""A broken template of the user's: one clear line naming the file and line, exit code 1,
the other notes written, the notes already in the vault left as they were, and the next
run with the template fixed writing every note as ours would."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME, note_files
from typer.testing import CliRunner

from exporter import sandbox
from exporter.cli import app
from exporter.render import TemplateError, render

runner = CliRunner()


def export(vault: Path, folder: Path | None = None):
    args = ["--vault", str(vault), "--home", str(EXAMPLES_HOME), "--timezone", "UTC"]
    return runner.invoke(app, args + (["--templates", str(folder)] if folder else []))


def errors(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("error:")]


def test_a_template_printing_an_end_marker_is_refused_and_the_notes_stay_whole(tmp_path):
    """A marker line whose hash matches the text above it (here: none) would end the
    region early on the next read: the generated part below it would become the person's
    text and be kept, a second copy, by every later run."""
    vault, folder = tmp_path / "v", tmp_path / "mine"
    folder.mkdir()
    assert export(vault).exit_code == 0
    before = note_files(vault, index=True)
    (folder / "session.md.j2").write_text(
        'Exported.\n%% ccexport:end e3b0c44298fc1c14 %%\n{% include "default/session.md.j2" %}'
    )
    result = export(vault, folder)
    assert result.exit_code == 1
    assert errors(result) == [
        f"error: {folder / 'session.md.j2'}:2: template error: prints "
        "'%% ccexport:end e3b0c44298fc1c14 %%', which would end ccexport's part of the note "
        "there (the rest would be taken for your text); the note is not written (41 times)"
    ]
    assert note_files(vault, index=True) == before
    (folder / "session.md.j2").unlink()
    assert export(vault, folder).exit_code == 0
    assert note_files(vault, index=True) == before


def test_a_marker_quoted_in_session_code_is_not_a_stray_one(tmp_path):
    """Session code may quote a marker: inside a fence it ends nothing, and the note is
    written (the shipped template through Jinja, as a copy of it is rendered)."""
    from exporter.notefile import stray_end_marker

    quoted = "Look:\n\n```\n%% ccexport:end 0123456789abcdef %%\n```\n"
    assert stray_end_marker(quoted) is None
    assert stray_end_marker("> %% ccexport:end %%\n") is None
    assert stray_end_marker("text\n%% ccexport:end %%\nmore") == "%% ccexport:end %%"
    assert stray_end_marker("```\nunclosed\n%% ccexport:end %%") == "%% ccexport:end %%"


def test_an_index_template_failing_on_one_project_leaves_the_other_index_notes(tmp_path):
    """The other projects' index notes, the index of projects and Sessions.base are
    written; the failing note is written by the next run once the template is fixed."""
    vault, folder = tmp_path / "v", tmp_path / "mine"
    folder.mkdir()
    template = folder / "project_index.md.j2"
    template.write_text(
        '{% if project == "api" %}\n{{ no_such_thing }}\n{% endif %}'
        '{% include "default/project_index.md.j2" %}'
    )
    result = export(vault, folder)
    assert result.exit_code == 1
    assert errors(result) == [f"error: {template}:2: template error: 'no_such_thing' is undefined"]
    projects = vault / "AI Sessions" / "Projects"
    assert not (projects / "api.md").exists() and (projects / "fetcher.md").exists()
    assert (vault / "AI Sessions" / "Projects.md").exists()
    assert (vault / "AI Sessions" / "Sessions.base").exists()
    template.unlink()
    assert export(vault, folder).exit_code == 0
    reference = tmp_path / "reference"
    assert export(reference).exit_code == 0
    assert note_files(vault, index=True) == note_files(reference, index=True)


def test_a_missing_template_is_named_with_the_line_asking_for_it(tmp_path):
    """Included by the user's template: the user's file and line. A file ccexport shipped
    once (a copy of an older session.md.j2 extends it) says how to refresh the copy."""
    vault, folder = tmp_path / "v", tmp_path / "mine"
    folder.mkdir()
    template = folder / "session.md.j2"
    template.write_text('# Mine\n\n{% include "parts/footer.md" %}\n')
    result = export(vault, folder)
    assert result.exit_code == 1 and not note_files(vault)
    assert errors(result) == [
        f"error: {template}:3: template not found: parts/footer.md (41 times)"
    ]
    template.write_text('{#- Ours, weeks ago -#}\n{% extends "base_session.md.j2" %}\n')
    result = export(vault, folder)
    assert errors(result)[0].startswith(
        f"error: {template}:2: template not found: base_session.md.j2; ccexport no longer "
        "ships it: this template is a copy from an older version."
    )


def test_a_template_that_cannot_be_read_is_named_by_its_path(tmp_path):
    vault, folder = tmp_path / "v", tmp_path / "mine"
    folder.mkdir()
    (folder / "session.md.j2").write_bytes(b"# x\ncaf\xe9 {{ title }}\n")  # Latin-1, not UTF-8
    result = export(vault, folder)
    assert result.exit_code == 1
    assert errors(result)[0].startswith(
        f"error: {folder / 'session.md.j2'}:2: template syntax error: not UTF-8 text: byte "
        "0xe9 in column 4 (save the file as UTF-8)"
    )


def test_a_loop_in_a_loop_stops_at_its_line_and_the_notes_stay(tmp_path):
    vault, folder = tmp_path / "v", tmp_path / "mine"
    folder.mkdir()
    assert export(vault).exit_code == 0
    before = note_files(vault, index=True)
    (folder / "session.md.j2").write_text(
        "# {{ title | inline }}\n{% for i in range(100000) %}\n"
        "{% for j in range(100000) %}{% endfor %}\n{% endfor %}\n"
    )
    result = export(vault, folder)
    assert result.exit_code == 1
    assert errors(result) == [
        f"error: {folder / 'session.md.j2'}:3: template error: range() gave more than "
        "1,000,000 numbers for one note (a loop in a loop?) (41 times)"
    ]
    assert note_files(vault, index=True) == before


def test_a_template_printing_without_end_stops_at_the_limit(tmp_path, monkeypatch):
    """Named by the line that printed past the limit (here the include: Jinja runs an
    included template as a loop over its output). The budget of numbers is the note's own:
    each render starts with all of it."""
    monkeypatch.setattr(sandbox, "MAX_NOTE_CHARS", 1000)
    (tmp_path / "part.md.j2").write_text("{% for i in range(200) %}{{ i }} words\n{% endfor %}")
    (tmp_path / "t.md.j2").write_text('Head\n\n{% include "part.md.j2" %}\n')
    with pytest.raises(TemplateError) as caught:
        render("t.md.j2", {}, tmp_path)
    assert caught.value.where == f"{tmp_path / 't.md.j2'}:3"
    assert caught.value.what == (
        "template error: printed more than 0 MB for one note (a loop gone wrong?)"
    )
    (tmp_path / "r.md.j2").write_text(
        "{% for k in range(6) %}{% for i in range(100000) %}{% endfor %}{% endfor %}done"
    )
    assert render("r.md.j2", {}, tmp_path) == "done"
    assert render("r.md.j2", {}, tmp_path) == "done"


def _render_error(tmp_path: Path, source: str, context: dict) -> str:
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    (folder / "t.md.j2").write_text(source)
    with pytest.raises(TemplateError) as caught:
        render("t.md.j2", context, folder)
    return caught.value.what


@pytest.mark.parametrize(
    ("source", "said"),
    [
        # a name the template is given
        ("{{ sesion.title }}", "'sesion' is undefined (did you mean session?)"),
        ("{% if sesion %}x{% endif %}", "'sesion' is undefined (did you mean session?)"),
        # a name the template sets itself: a loop's variable, a {% set %}, a macro's argument
        ("{% for item in items %}{{ itme.kind }}{% endfor %}",
         "'itme' is undefined (did you mean item?)"),
        ("{% set heading = 1 %}{{ heding }}", "'heding' is undefined (did you mean heading?)"),
        ("{% macro m(label) %}{{ lable }}{% endmacro %}{{ m(1) }}",
         "'lable' is undefined (did you mean label?)"),
        # a key of a dict, an attribute of an object, a method of text
        ("{% for item in items %}{{ item.kindd }}{% endfor %}",
         "'dict object' has no attribute 'kindd' (did you mean kind?)"),
        ("{{ session.titel }}", "has no attribute 'titel' (did you mean title?)"),
        ("{{ session.title.uper() }}", "'str object' has no attribute 'uper' (did you mean upper?)"),
        # nothing near: the name alone
        ("{{ zzzz }}", "'zzzz' is undefined"),
        ("{{ session.qqqq }}", "has no attribute 'qqqq'"),
    ],
)  # fmt: skip
def test_an_undefined_name_is_said_with_the_nearest_known_one(tmp_path, source, said):
    from exporter.doctor_templates import sample_session

    context = {"session": sample_session(), "title": "T", "items": [{"kind": "text"}]}
    what = _render_error(tmp_path, source, context)
    assert what.startswith("template error: ") and what.endswith(said), what


@pytest.mark.parametrize(
    ("source", "said"),
    [
        # found when the template is compiled
        ("{{ title | defalt('x') }}", "No filter named 'defalt'. (did you mean default?)"),
        # found when the branch using it runs
        ("{% if title %}{{ title | uper }}{% endif %}",
         "No filter named 'uper' found. (did you mean upper?)"),
        ("{% if 3 is od %}x{% endif %}", "No test named 'od' found. (did you mean odd?)"),
        ("{{ title | zzqqx }}", "No filter named 'zzqqx'."),  # nothing near
        # the time limit's hidden loop filter, "(loop started)", is no name to offer
        ("{{ title | loopstarted }}", "No filter named 'loopstarted'."),
    ],
)  # fmt: skip
def test_a_misspelt_filter_or_test_is_said_with_the_nearest_one(tmp_path, source, said):
    """Jinja's "No filter named 'defalt'." named no filter meant, as a misspelt name did."""
    what = _render_error(tmp_path, source, {"title": "T"})
    assert what.endswith(said), what


def test_a_method_the_sandbox_refuses_is_said_as_before(tmp_path):
    from exporter.doctor_templates import sample_session

    what = _render_error(
        tmp_path, "{{ session.source_path.read_text() }}", {"session": sample_session()}
    )
    assert what == (
        "template error: PosixPath.read_text() cannot be called in a template (only methods "
        "of text, numbers, lists, dicts and dates can)"
    )


def test_the_export_names_the_variable_meant(tmp_path):
    vault, folder = tmp_path / "v", tmp_path / "mine"
    folder.mkdir()
    (folder / "session.md.j2").write_text("# {{ titel }}\n")
    result = export(vault, folder)
    assert result.exit_code == 1
    template = folder / "session.md.j2"
    assert errors(result) == [
        f"error: {template}:1: template error: 'titel' is undefined (did you mean title?) (41 times)"
    ]
