"""Under a locale whose file-system encoding is not UTF-8 (``LC_ALL=C PYTHONUTF8=0
PYTHONCOERCECLOCALE=0``), every note with a name that is not ASCII failed on its own with
``UnicodeEncodeError: 'ascii' codec …``, or a run stopped with it as an unexpected error
(review48 H2). Each command now says first that the locale is not UTF-8, and what to set."""

from __future__ import annotations

import sys

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app


def test_a_locale_that_is_not_utf8_is_said_first(monkeypatch):
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "ascii")
    result = CliRunner().invoke(app, ["sources", "--home", str(EXAMPLES_HOME)])
    said = " ".join(result.stderr.split())
    assert said.startswith("warning: this locale's file-system encoding is ascii, not UTF-8")
    assert "LANG=C.UTF-8" in said and "PYTHONUTF8=1" in said


def test_a_utf8_locale_says_nothing_of_it():
    result = CliRunner().invoke(app, ["sources", "--home", str(EXAMPLES_HOME)])
    assert "locale" not in result.stderr
