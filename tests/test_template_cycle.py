"""A person's template extending itself (``{% extends "session.md.j2" %}`` in their own
session.md.j2), or two that name each other, said "it calls itself without end" with no
line, where every other template error names its file and line: now the error names the
file and the line that closes the cycle, and the templates on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from exporter.render import TemplateError, render


def _error(folder: Path, files: dict[str, str]) -> TemplateError:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    with pytest.raises(TemplateError) as caught:
        render("session.md.j2", {}, folder)
    return caught.value


def test_a_template_extending_itself_is_named_with_its_line(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    error = _error(folder, {"session.md.j2": '{# my note #}\n\n{% extends "session.md.j2" %}\n'})
    assert (error.path, error.line) == (str(folder / "session.md.j2"), 3)
    assert error.where == f"{folder / 'session.md.j2'}:3"
    assert error.what.startswith("template error: session.md.j2 extends itself"), error.what


def test_a_cycle_of_two_is_named_with_the_line_closing_it(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    error = _error(folder, {
        "session.md.j2": '{% extends "a.j2" %}\n',
        "a.j2": 'first\n\n{% include "b.j2" %}\n',
        "b.j2": 'second\n{% extends "a.j2" %}\n',
    })  # fmt: skip
    assert (error.path, error.line) == (str(folder / "b.j2"), 2)
    assert error.what == (
        "template error: a.j2 includes b.j2, which extends a.j2 again: they call each other "
        "without end"
    )


def test_a_macro_calling_itself_is_still_named_as_one(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    error = _error(folder, {"session.md.j2": "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}\n"})
    assert "the macro m() calls itself without end" in error.what and error.line == 1
