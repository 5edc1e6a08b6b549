"""Small things a person's templates met (review45 L4): an empty text given to ``wikilink``
links to no note named ``_``; ``templates init --to`` into a missing folder does not say to
correct ``--vault``."""

from __future__ import annotations

from typer.testing import CliRunner

from exporter.cli import app
from exporter.filter_args import checked_filters

runner = CliRunner()


def test_an_empty_text_through_wikilink_prints_nothing():
    wikilink = checked_filters()["wikilink"]
    assert wikilink("") == "" and wikilink("  ", "label") == "" and wikilink(None) == ""
    assert wikilink("notes-app") == "[[notes-app]]"


def test_templates_init_into_a_missing_folder_names_to(tmp_path):
    to = tmp_path / "missing" / "sub" / "t"
    result = runner.invoke(app, ["templates", "init", "--to", str(to)])
    assert result.exit_code == 2
    assert "or correct the folder given (--vault, or --to of `templates init`)" in result.stderr


def test_a_list_given_to_a_text_filter_is_pointed_to_an_escaped_json():
    from exporter.filter_args import FilterArgumentError

    try:
        checked_filters()["inline"](["a"])
    except FilterArgumentError as exc:
        assert str(exc).endswith('print it with | to_json | fence("json")')
    else:
        raise AssertionError("a list went through inline")
