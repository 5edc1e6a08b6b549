"""``doctor``'s lint follows session text one step through a name: a ``{% set %}`` or
``{% with %}`` value, and a macro's argument given it by a call in the same file, printed
with no escaping filter, is said as ``{{ item.text }}`` is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()
LOOP = "{% for turn in turns %}{% for item in turn['items'] %}\n"
END = "{% endfor %}{% endfor %}\n"


def _unescaped(tmp_path: Path, body: str) -> list[str]:
    folder = tmp_path / "v" / ".ccexport" / "templates"
    folder.mkdir(parents=True)
    (folder / "session.md.j2").write_text(f"# {{{{ title | inline }}}}\n{LOOP}{body}\n{END}")
    args = ["doctor", "--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME), "--json"]
    checks = json.loads(runner.invoke(app, args).stdout)["checks"]
    return [c["message"] for c in checks if "unescaped" in c["message"]]


FOLLOWED = {
    "set": (
        "{% set t = item.text %}{{ t }}",
        "prints t, which holds item.text, unescaped",
        "prose",
    ),
    "set-method": (
        "{% set t = item.text.strip() %}{{ t | upper }}",
        "prints t, which holds item.text, unescaped",
        "prose",
    ),
    "with": (
        "{% with c = item.command %}{{ c }}{% endwith %}",
        "prints c, which holds item.command, unescaped",
        "code",
    ),
    "macro": (
        "{% macro show(x) %}{{ x }}{% endmacro %}{{ show(item.summary) }}",
        "prints x, which holds item.summary (given by show() at line 3), unescaped",
        "inline",
    ),
    "macro-keyword": (
        "{% macro show(a, x='') %}{{ a }}{{ x }}{% endmacro %}{{ show(1, x=item.text) }}",
        "prints x, which holds item.text (given by show() at line 3), unescaped",
        "prose",
    ),
}


@pytest.mark.parametrize(("body", "said", "use"), FOLLOWED.values(), ids=FOLLOWED.keys())
def test_session_text_held_by_a_name_is_said_at_the_line_printing_it(tmp_path, body, said, use):
    found = _unescaped(tmp_path, body)
    assert len(found) == 1, found
    assert f"session.md.j2:3: {said}" in found[0] and found[0].endswith(f"use `| {use}`")


ESCAPED = {
    "set-escaped": "{% set t = item.text | prose %}{{ t }}",
    "printed-escaped": "{% set t = item.text %}{{ t | prose }}",
    "with-a-number": "{% with n = item.text | length %}{{ n }}{% endwith %}",
    "macro-escaped": "{% macro show(x) %}{{ x }}{% endmacro %}{{ show(item.text | prose) }}",
    "macro-prints-escaped": "{% macro show(x) %}{{ x | inline }}{% endmacro %}"
    "{{ show(item.summary) }}",
}


@pytest.mark.parametrize("body", ESCAPED.values(), ids=ESCAPED.keys())
def test_a_name_holding_escaped_text_or_printed_escaped_is_not_said(tmp_path, body):
    assert _unescaped(tmp_path, body) == []
