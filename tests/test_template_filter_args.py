"""A template's text filters given what is not text: a misspelt name keeps its "did you
mean", a none prints nothing (and links nowhere), a number prints as its text, and a list
is an error naming the filter."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from exporter.cli import app
from exporter.render import TemplateError, render

runner = CliRunner()


def _rendered(tmp_path: Path, source: str, context: dict) -> str:
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    name = f"t{abs(hash(source))}.md.j2"  # (a folder's templates are read once a run)
    (folder / name).write_text(source)
    return render(name, context, folder)


def _render_error(tmp_path: Path, source: str, context: dict) -> str:
    with pytest.raises(TemplateError) as caught:
        _rendered(tmp_path, source, context)
    return caught.value.what


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("{{ titel | inline }}", "'titel' is undefined (did you mean title?)"),
        ("{{ titel | prose }}", "'titel' is undefined (did you mean title?)"),
        ("{{ titel | literal }}", "'titel' is undefined (did you mean title?)"),
        ("{{ titel | code }}", "'titel' is undefined (did you mean title?)"),
        ("{{ titel | fence('text') }}", "'titel' is undefined (did you mean title?)"),
        ("{{ titel | short_model }}", "'titel' is undefined (did you mean title?)"),
        ("{{ titel | wikilink }}", "'titel' is undefined (did you mean title?)"),
        ("{{ 'x' | callout('note', titel) }}", "'titel' is undefined (did you mean title?)"),
        ("{{ 'x' | fence(lnag) }}", "'lnag' is undefined"),
        ("{% for item in items %}{{ item.txt | prose }}{% endfor %}",
         "'dict object' has no attribute 'txt' (did you mean text?)"),
    ],
)  # fmt: skip
def test_a_misspelt_name_through_a_filter_keeps_its_did_you_mean(tmp_path, source, said):
    what = _render_error(tmp_path, source, {"title": "T", "items": [{"text": "hi"}]})
    assert what == f"template error: {said}", what


@pytest.mark.parametrize("name", ["prose", "literal", "inline", "code", "fence", "short_model"])
def test_none_through_a_text_filter_prints_nothing(tmp_path, name):
    """(``session.cwd | code`` on a session without a cwd; ``item.summary | inline`` on a
    call without a summary): the note is written, the field left empty."""
    shown = _rendered(tmp_path, "[{{ nothing | " + name + " }}]", {"nothing": None})
    assert shown == "[]", shown


def test_none_through_wikilink_links_no_note_named_none(tmp_path):
    assert _rendered(tmp_path, "[{{ nothing | wikilink }}]", {"nothing": None}) == "[]"
    assert _rendered(tmp_path, "{{ 'api' | wikilink(nothing) }}", {"nothing": None}) == "[[api]]"


@given(st.integers() | st.floats(allow_nan=False))
def test_a_number_prints_as_its_text(number):
    from exporter.render import filters

    assert filters()["inline"](number) == filters()["inline"](str(number))
    assert filters()["code"](number) == filters()["code"](str(number))


def test_a_list_through_a_text_filter_names_the_filter(tmp_path):
    what = _render_error(tmp_path, "{{ items | prose }}", {"items": [1, 2]})
    assert what.startswith("template error: the prose filter takes text, and was given a list")


def test_the_export_names_a_misspelt_name_through_a_filter(tmp_path):
    vault, folder = tmp_path / "v", tmp_path / "mine"
    folder.mkdir()
    template = folder / "session.md.j2"
    template.write_text("# {{ titel | inline }}\n")
    args = ["--vault", str(vault), "--home", str(EXAMPLES_HOME), "--timezone", "UTC"]
    result = runner.invoke(app, [*args, "--templates", str(folder)])
    assert result.exit_code == 1
    said = f"error: {template}:1: template error: 'titel' is undefined (did you mean title?)"
    assert [line for line in result.stderr.splitlines() if line.startswith("error:")][0].startswith(
        said
    )
