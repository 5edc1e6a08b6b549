"""`ccexport doctor` reads each template override: one that cannot be read as a template
fails every note of the next run, and doctor says so, with its file and line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME, ROOT
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()


def _doctor(vault: Path):
    result = runner.invoke(
        app, ["doctor", "--vault", str(vault), "--home", str(EXAMPLES_HOME), "--json"]
    )
    checks = json.loads(result.stdout)["checks"]
    return result.exit_code, [c for c in checks if c["area"] == "Templates"]


def _overrides(vault: Path) -> Path:
    init = runner.invoke(app, ["templates", "init", "--vault", str(vault)])
    assert init.exit_code == 0, init.output
    folder = vault / ".ccexport" / "templates"
    assert (folder / "session.md.j2").is_file()
    return folder


def test_a_template_with_a_syntax_error_needs_attention(tmp_path: Path) -> None:
    folder = _overrides(tmp_path / "v")
    lines = (folder / "session.md.j2").read_text(encoding="utf-8").splitlines(keepends=True)
    end_of_comment = next(i for i, line in enumerate(lines) if "#}" in line)
    lines.insert(end_of_comment + 1, "{% if %}\n")
    (folder / "session.md.j2").write_text("".join(lines), encoding="utf-8")
    code, checks = _doctor(tmp_path / "v")
    assert code == 1
    said = [c for c in checks if c["status"] == "attention"]
    assert len(said) == 1
    where = f"{folder / 'session.md.j2'}:{end_of_comment + 2}: template syntax error"
    assert where in said[0]["message"]
    assert said[0]["message"].endswith(": no session note can be written")
    assert not [c for c in checks if "session.md.j2 overrides" in c["message"]]  # not "ok" too


def test_a_template_that_is_not_text_needs_attention(tmp_path: Path) -> None:
    folder = _overrides(tmp_path / "v")
    (folder / "project_index.md.j2").write_bytes(b"\xff\xfe{{ x }}")
    code, checks = _doctor(tmp_path / "v")
    assert code == 1
    (said,) = [c for c in checks if c["status"] == "attention"]
    assert str(folder / "project_index.md.j2") in said["message"]
    assert said["message"].endswith(": no project's index note can be written")


def test_templates_that_compile_are_ok(tmp_path: Path) -> None:
    _overrides(tmp_path / "v")
    _code, checks = _doctor(tmp_path / "v")
    assert checks and all(c["status"] == "ok" for c in checks), checks


def test_a_file_where_a_source_folder_belongs_is_said(tmp_path: Path) -> None:
    """`sources` and `doctor` said nothing of it: "claude-code 0 0 B <path>", "All good"."""
    home = tmp_path / "h"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "projects").write_text("not a folder\n", encoding="utf-8")
    listed = runner.invoke(app, ["sources", "--home", str(home), "--source", "claude-code"])
    assert f"{home / '.claude' / 'projects'} (a file, not a folder)" in listed.output
    asked = [
        "doctor",
        "--vault",
        str(tmp_path / "v"),
        "--home",
        str(home),
        "--source",
        "claude-code",
    ]
    doctor = runner.invoke(app, [*asked, "--json"])
    checks = json.loads(doctor.stdout)["checks"]
    said = [c["message"] for c in checks if c["area"] == "Sources" and c["status"] == "attention"]
    assert said == [
        f"claude-code: {home / '.claude' / 'projects'} is a file, not a folder: no session is read there"
    ]
    assert doctor.exit_code == 1
    assert not [
        c for c in checks if c["area"] == "Sources" and c["status"] == "ok"
    ]  # no "0 sessions"


def test_a_syntax_error_in_a_template_it_includes_needs_attention(tmp_path: Path) -> None:
    """Jinja reads an include when it renders: doctor said "All good" while every note
    failed (review8 F4)."""
    folder = _overrides(tmp_path / "v")
    session = folder / "session.md.j2"
    session.write_text('{% include "parts/header.md" %}\n' + session.read_text(encoding="utf-8"))
    (folder / "parts").mkdir()
    (folder / "parts" / "header.md").write_text("line one\n{% if %}broken\n", encoding="utf-8")
    code, checks = _doctor(tmp_path / "v")
    assert code == 1
    (said,) = [c for c in checks if c["status"] == "attention"]
    assert f"{folder / 'parts' / 'header.md'}:2: template syntax error" in said["message"]
    (folder / "parts" / "header.md").write_text("fine {{ title | inline }}\n", encoding="utf-8")
    code, checks = _doctor(tmp_path / "v")
    assert all(c["status"] == "ok" for c in checks), checks


def test_an_include_that_is_not_there_needs_attention(tmp_path: Path) -> None:
    folder = _overrides(tmp_path / "v")
    session = folder / "session.md.j2"
    session.write_text('{% include "parts/gone.md" %}\n' + session.read_text(encoding="utf-8"))
    code, checks = _doctor(tmp_path / "v")
    (said,) = [c for c in checks if c["status"] == "attention"]
    assert "template not found: parts/gone.md" in said["message"] and code == 1


def _helpers(folder: Path) -> None:
    (folder / "session.md.j2").write_text(
        '{% import "parts.j2" as parts %}{% extends "default/session.md.j2" %}\n'
        '{% block header %}{{ super() }}{% include "footer.j2" %}{% endblock %}\n'
    )
    (folder / "parts.j2").write_text("{% macro x() %}x{% endmacro %}\n")
    (folder / "footer.j2").write_text("footer\n")


def test_files_a_template_includes_or_imports_are_part_of_it(tmp_path: Path) -> None:
    """They were each "!! not a template ccexport uses", and doctor exited 1 for templates
    that export every note (tplaudit F2)."""
    folder = _overrides(tmp_path / "v")
    _helpers(folder)
    (folder / "old.j2").write_text("a file nothing uses\n")
    code, checks = _doctor(tmp_path / "v")
    assert code == 0, checks
    said = {c["message"]: c["status"] for c in checks}
    assert said[f"{folder / 'footer.j2'} is used by session.md.j2"] == "ok"
    assert said[f"{folder / 'parts.j2'} is used by session.md.j2"] == "ok"
    assert said[f"{folder / 'old.j2'} is used by none of the templates here"] == "info"


def test_a_misspelt_note_template_needs_attention(tmp_path: Path) -> None:
    folder = _overrides(tmp_path / "v")
    (folder / "sesion.md.j2").write_text("# {{ title | inline }}\n")
    code, checks = _doctor(tmp_path / "v")
    assert code == 1
    (said,) = [c for c in checks if c["status"] == "attention"]
    assert said["message"].startswith(f"{folder / 'sesion.md.j2'} is not a template ccexport")


def test_doctor_checks_the_templates_given_with_templates(tmp_path: Path) -> None:
    """The examples' own comments say to export with ``--templates DIR``: doctor refused it
    ("does not apply"), said "the default templates are used", and never read them."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "session.md.j2").write_text("# {{ title | inline }}\n{% if %}\n")
    args = ["doctor", "--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME), "--json"]
    for given in (args + ["--templates", str(folder)], ["--templates", str(folder)] + args):
        result = runner.invoke(app, given)
        assert result.exit_code == 1, result.output
        checks = [c for c in json.loads(result.stdout)["checks"] if c["area"] == "Templates"]
        (said,) = checks
        assert said["status"] == "attention"
        assert said["message"].startswith(f"{folder / 'session.md.j2'}:2: template syntax error")


def test_a_template_that_fails_when_a_note_is_made_needs_attention(tmp_path: Path) -> None:
    """It read well, so doctor said "All good." while the export failed every note (an
    unknown variable, a method the sandbox refuses): tplaudit F4. Tried on a sample."""
    folder = _overrides(tmp_path / "v")
    (folder / "session.md.j2").write_text("# {{ title | inline }}\n{{ nosuch }}\n")
    code, checks = _doctor(tmp_path / "v")
    assert code == 1
    (said,) = [c for c in checks if c["status"] == "attention"]
    assert said["message"] == (
        f"{folder / 'session.md.j2'}:2: template error: 'nosuch' is undefined; met on a sample "
        "session: each session note it fails on is not written"
    )


@pytest.mark.parametrize("example", ["minimal", "no-tools"])
def test_the_example_templates_pass_the_trial(tmp_path: Path, example: str) -> None:
    folder = tmp_path / "v" / ".ccexport" / "templates"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "templates" / example / "session.md.j2", folder)
    code, checks = _doctor(tmp_path / "v")
    assert code == 0 and [c["status"] for c in checks] == ["ok"], checks


def test_a_template_extending_itself_is_said_with_the_name_meant(tmp_path: Path) -> None:
    """``{% extends "session.md.j2" %}`` in session.md.j2 said only "maximum recursion
    depth exceeded in comparison"."""
    from exporter.render import TemplateError, render

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "session.md.j2").write_text('{% extends "session.md.j2" %}\n')
    with pytest.raises(TemplateError) as raised:
        render("session.md.j2", {}, folder)
    assert (raised.value.path, raised.value.line) == (str(folder / "session.md.j2"), 1)
    assert raised.value.what == (
        'template error: session.md.j2 extends itself, so it never ends (ours is {% extends "'
        'default/session.md.j2" %}: a file of yours named as ours is read in its place)'
    )


def test_a_missing_include_is_named_with_the_line_naming_it(tmp_path: Path) -> None:
    """doctor said "…/session.md.j2: template not found: nope.j2", no line, where the run
    says "…/session.md.j2:2: …"; in a file the template includes, that file's line."""
    folder = _overrides(tmp_path / "v")
    (folder / "session.md.j2").write_text('# {{ title | inline }}\n{% include "footer.j2" %}\n')
    (folder / "footer.j2").write_text('footer\n\n{% include "nope.j2" %}\n')
    code, checks = _doctor(tmp_path / "v")
    (said,) = [c for c in checks if c["status"] == "attention"]
    assert code == 1
    assert said["message"].startswith(f"{folder / 'footer.j2'}:3: template not found: nope.j2")


@pytest.mark.parametrize(
    ("name", "fails"),
    [
        ("project_index.md.j2", "each project's index note it fails on is not written"),
        ("projects_index.md.j2", "the index of projects is not written"),
    ],
)
def test_an_index_template_that_fails_on_a_sample_needs_attention(
    tmp_path: Path, name: str, fails: str
) -> None:
    """doctor tried the session template only: an index template with an unknown variable
    got "All good." while every export said "1 index note failed" (review9 F2)."""
    folder = _overrides(tmp_path / "v")
    (folder / name).write_text("# index\n{{ nosuch }}\n")
    code, checks = _doctor(tmp_path / "v")
    (said,) = [c for c in checks if c["status"] == "attention"]
    assert code == 1 and said["message"] == (
        f"{folder / name}:2: template error: 'nosuch' is undefined; met on a sample session: "
        + fails
    )


def test_the_shipped_index_templates_pass_the_trial_as_copies(tmp_path: Path) -> None:
    """``templates init`` copies them: each overrides ours, reads well and renders."""
    _overrides(tmp_path / "v")
    code, checks = _doctor(tmp_path / "v")
    assert code == 0 and {c["status"] for c in checks} == {"ok"} and len(checks) == 3


def test_a_helper_of_a_template_that_fails_is_said_with_it_only(tmp_path: Path) -> None:
    """It got "!!" for the template and "ok … is used by" for the helper (review9)."""
    folder = _overrides(tmp_path / "v")
    (folder / "session.md.j2").write_text('{% include "footer.j2" %}\n')
    (folder / "footer.j2").write_text("{{ nosuch }}\n")
    code, checks = _doctor(tmp_path / "v")
    assert code == 1
    assert not [c for c in checks if "footer.j2 is used by" in c["message"]]
    (said,) = [c for c in checks if c["status"] == "attention"]
    assert said["message"].startswith(f"{folder / 'footer.j2'}:1: template error")


def test_a_configured_property_that_fails_is_not_laid_at_a_template_s_door(tmp_path: Path) -> None:
    """The trial renders the sample's note without the configured properties: one whose
    expression fails is the configuration's (the run names it so), not the template's."""
    _overrides(tmp_path / "v")
    config = tmp_path / "v" / ".ccexport" / "config.toml"
    config.write_text('[frontmatter]\nadd = { week = "{{ nosuch.attr }}" }\n', encoding="utf-8")
    code, checks = _doctor(tmp_path / "v")
    assert {c["status"] for c in checks} == {"ok"}, checks


def test_files_in_a_subfolder_are_said_as_those_beside_the_templates(tmp_path: Path) -> None:
    """An include from a subfolder (``parts/header.md``) is part of the template that uses
    it, and a ``*.j2`` there that nothing uses is said; doctor listed neither (only the
    folder's own ``*.j2`` files), nor a helper not named ``*.j2``. A hidden folder is not
    looked into."""
    folder = _overrides(tmp_path / "v")
    session = folder / "session.md.j2"
    session.write_text('{% include "parts/header.md" %}\n' + session.read_text(encoding="utf-8"))
    (folder / "parts").mkdir()
    (folder / "parts" / "header.md").write_text("from {{ title | inline }}\n", encoding="utf-8")
    (folder / "parts" / "old.j2").write_text("a file nothing uses\n", encoding="utf-8")
    (folder / "parts" / "session.md.j2").write_text("# {{ title | inline }}\n", encoding="utf-8")
    (folder / ".git").mkdir()
    (folder / ".git" / "x.j2").write_text("{% if %}\n", encoding="utf-8")
    code, checks = _doctor(tmp_path / "v")
    said = {c["message"]: c["status"] for c in checks}
    assert code == 0, checks
    assert said[f"{folder / 'parts' / 'header.md'} is used by session.md.j2"] == "ok"
    assert said[f"{folder / 'parts' / 'old.j2'} is used by none of the templates here"] == "info"
    none = f"{folder / 'parts' / 'session.md.j2'} is used by none of the templates here"
    assert said[none] == "info"  # (not a misspelt note template: no override is in a folder)
    assert not any(".git" in message for message in said)


def test_a_misspelt_variable_is_said_with_the_name_meant(tmp_path: Path) -> None:
    """A typo of a name the note is given, or of a field of the session, is said with the
    nearest known name (difflib), as the export says it."""
    for n, (line, said) in enumerate(
        (
            ("{{ sesion.title | inline }}", "'sesion' is undefined (did you mean session?)"),
            ("{{ session.titel | inline }}", "has no attribute 'titel' (did you mean title?)"),
        )
    ):
        folder = _overrides(tmp_path / f"v{n}")
        (folder / "session.md.j2").write_text(f"# {{{{ title | inline }}}}\n{line}\n")
        code, checks = _doctor(tmp_path / f"v{n}")
        assert code == 1
        (check,) = [c for c in checks if c["status"] == "attention"]
        assert check["message"].startswith(f"{folder / 'session.md.j2'}:2: template error: ")
        assert f"{said}; met on a sample session" in check["message"]


def test_doctor_run_twice_in_one_process_reads_the_template_as_edited(tmp_path: Path) -> None:
    """Tests and ``watch`` run doctor more than once in a process: the second run tried the
    first run's template on the sample (cached), so a template mended in between still
    failed, and one broken in between read as good."""
    folder = _overrides(tmp_path / "v")
    (folder / "session.md.j2").write_text("# {{ title | inline }}\n")
    code, checks = _doctor(tmp_path / "v")
    assert {c["status"] for c in checks} == {"ok"}
    (folder / "session.md.j2").write_text("# {{ title | inline }}\n{{ nosuch }}\n")
    code, checks = _doctor(tmp_path / "v")
    assert code == 1
    (said,) = [c for c in checks if c["status"] == "attention"]
    assert "'nosuch' is undefined; met on a sample session" in said["message"]
    (folder / "session.md.j2").write_text("# {{ title | inline }}\n")
    code, checks = _doctor(tmp_path / "v")
    assert {c["status"] for c in checks} == {"ok"}
