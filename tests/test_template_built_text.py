"""Text built with ``~``, ``+`` or ``join`` (or any filter) is held to the note's 64 MB of
text built, as ``*`` and a method's result are: a macro doubling its argument on each call
to itself built 128 MB per note, gigabytes a few calls later, with no error."""

from __future__ import annotations

from pathlib import Path

import pytest

from exporter.render import TemplateError, fresh_templates, render

DOUBLED = {
    "~": '{% macro f(s, n) %}{{ f(s ~ s, n - 1) if n else s | length }}{% endmacro %}{{ f("x", 27) }}',
    "+": '{% macro f(s, n) %}{{ f(s + s, n - 1) if n else s | length }}{% endmacro %}{{ f("x", 27) }}',
    "join": (
        "{% macro f(s, n) %}{{ f([s, s] | join, n - 1) if n else s | length }}{% endmacro %}"
        '{{ f("x", 27) }}'
    ),
    "replace": (
        '{% macro f(s, n) %}{{ f(s | replace("x", "xx"), n - 1) if n else s | length }}'
        '{% endmacro %}{{ f("x", 27) }}'
    ),
    "list +": (
        "{% macro f(s, n) %}{{ f(s + s, n - 1) if n else s | length }}{% endmacro %}"
        "{{ f([0], 22) }}"
    ),
}


def _render(tmp_path: Path, source: str) -> str:
    (tmp_path / "session.md.j2").write_text(source)
    fresh_templates()
    return render("session.md.j2", {}, tmp_path)


@pytest.mark.parametrize("how", DOUBLED)
def test_text_doubled_past_the_limit_is_refused(tmp_path, how):
    with pytest.raises(TemplateError) as raised:
        _render(tmp_path, DOUBLED[how])
    what = raised.value.what
    assert "built more than 64 MB of text for one note" in what or "1,000,000 items" in what
    assert raised.value.line == 1


def test_text_built_under_the_limit_is_as_before(tmp_path):
    source = (
        '{% set ns = namespace(s="") %}{% for i in range(3000) %}{% set ns.s = ns.s ~ "ab" %}'
        '{% endfor %}{{ ns.s | length }} {{ ["a", "b"] | join("-") }} {{ "a" ~ 1 ~ none }} '
        '{{ "x" + "y" }} {{ [1] + [2] }} {{ 1 + 2 }}{% filter upper %}z{% endfilter %}\n'
    )
    assert _render(tmp_path, source) == "6000 a-b a1None xy [1, 2] 3Z"
