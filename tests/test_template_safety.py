"""A person's own template can neither leak a secret nor hang a run: a secret written in a
template, a file it includes or an ``[frontmatter] add`` value is redacted (and said once
per run, with its file and line); what a template builds in one step or in a loop that
prints nothing has limits; a byte-order mark is dropped; a macro calling itself is named.

Every token here is built at test time by concatenation (none is real)."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME, note_files
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_redact import SAMPLES, Gen
from typer.testing import CliRunner

from exporter.cli import app
from exporter.redact import redactor
from exporter.redact_rules import RULES
from exporter.render import TemplateError, fresh_templates, render

runner = CliRunner()
TOKEN = "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
KEY_BODY = "MIIEow" + "IBAAKCAQEA" + "x" * 60
PRIVATE_KEY = (
    "-----BEGIN " + f"RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END " + "RSA PRIVATE KEY-----"
)


def _export(vault: Path, templates: Path, *extra: str):
    fresh_templates()
    return runner.invoke(
        app,
        ["--vault", str(vault), "--home", str(EXAMPLES_HOME), "--source", "aider",
         "--templates", str(templates), "--timezone", "UTC", *extra],
    )  # fmt: skip


def _template_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "tpl"
    folder.mkdir()
    (folder / "session.md.j2").write_text(
        f"# {{{{ title }}}}\nAPI: {TOKEN}\n{{% include 'parts/key.md' %}}\n", encoding="utf-8"
    )
    (folder / "parts").mkdir()
    (folder / "parts" / "key.md").write_text(f"before\n{PRIVATE_KEY}\n", encoding="utf-8")
    return folder


def test_a_secret_in_a_template_or_what_it_includes_reaches_no_note(tmp_path):
    folder = _template_folder(tmp_path)
    vault = tmp_path / "v"
    result = _export(vault, folder)
    assert result.exit_code == 0, result.output
    notes = note_files(vault)
    assert notes
    for body in notes.values():
        text = body.decode()
        assert TOKEN not in text and KEY_BODY not in text
        assert "API: [REDACTED:github-pat]" in text and "[REDACTED:private-key]" in text
    said = result.output
    # one warning per template file and line, not one per note
    assert said.count("holds a github-pat") == 1
    assert f"{folder / 'session.md.j2'}:2: holds a github-pat: written as " in said
    assert "[REDACTED:github-pat]; take it out of the template" in said
    assert f"{folder / 'parts' / 'key.md'}:2: holds a private-key" in said
    assert TOKEN not in said


def test_no_redact_leaves_a_templates_text_as_it_is(tmp_path):
    folder = _template_folder(tmp_path)
    vault = tmp_path / "v"
    result = _export(vault, folder, "--no-redact")
    assert result.exit_code == 0, result.output
    assert all(TOKEN in body.decode() for body in note_files(vault).values())
    assert "holds a github-pat" not in result.output


def test_a_secret_in_an_added_property_reaches_no_note(tmp_path):
    folder = tmp_path / "tpl"
    folder.mkdir()
    vault = tmp_path / "v"
    config = vault / ".ccexport" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[frontmatter]\nadd = {{ api = "{TOKEN}", shown = "{{{{ title }}}} {TOKEN}" }}\n'
    )
    result = _export(vault, folder)
    assert result.exit_code == 0, result.output
    for body in note_files(vault).values():
        text = body.decode()
        assert TOKEN not in text and "api: '[REDACTED:github-pat]'" in text
    assert "frontmatter.add.api: holds a github-pat" in result.output
    assert "frontmatter.add.shown: holds a github-pat" in result.output


# Rules whose sample is text a template can hold as it is (no Jinja syntax in it).
PLAIN_SAMPLES = [
    rule.id
    for rule in RULES
    if not any(mark in SAMPLES[rule.id](Gen(3))[0] for mark in ("{", "}", "#"))
]


@settings(max_examples=60, deadline=None)
@given(rule=st.sampled_from(PLAIN_SAMPLES), seed=st.integers(0, 10_000),
       before=st.sampled_from(["", "token: ", "see "]))  # fmt: skip
def test_any_planted_secret_of_the_rules_shapes_leaves_the_template(
    tmp_path_factory, rule, seed, before
):
    text, secret = SAMPLES[rule](Gen(seed))
    # What the rules find in a session's text, and only that (a password of letters alone
    # after ``curl -u user:`` is kept there too: one in 15 draws of two rules' samples)
    assume(secret not in redactor().text(f"{before}{text}"))
    folder = tmp_path_factory.mktemp("tpl")
    (folder / "t.md.j2").write_text(f"# {{{{ title }}}}\n{before}{text}\n", encoding="utf-8")
    fresh_templates()
    out = render("t.md.j2", {"title": "T"}, folder)
    assert secret not in out
    assert "[REDACTED:" in out


def test_a_template_saved_with_a_byte_order_mark_keeps_the_notes_heading(tmp_path):
    folder = tmp_path / "tpl"
    folder.mkdir()
    (folder / "session.md.j2").write_bytes(b"\xef\xbb\xbf# {{ title }}\r\n\r\nbody\r\n")
    vault = tmp_path / "v"
    assert _export(vault, folder).exit_code == 0
    notes = note_files(vault)
    assert notes
    for body in notes.values():
        assert "\ufeff".encode() not in body
        assert b"\n# " in body


def _render_source(tmp_path: Path, source: str, **context) -> str:
    (tmp_path / "t.md.j2").write_text(source, encoding="utf-8")
    fresh_templates()
    return render("t.md.j2", context, tmp_path)


def test_a_loop_in_a_loop_that_prints_nothing_stops_in_seconds(tmp_path):
    loops = "{% for x in [0] * 100000 %}{% for y in [0] * 100000 %}{% endfor %}{% endfor %}"
    began = time.monotonic()
    with pytest.raises(TemplateError) as raised:
        _render_source(tmp_path, f"# title\n{loops}\n")
    assert time.monotonic() - began < 10
    assert raised.value.line == 2 and raised.value.path.endswith("t.md.j2")
    assert "lists built with *" in raised.value.what and "loop in a loop" in raised.value.what


BUILT_TOO_BIG = (
    '{{ ("x" * 3000000000) | length }}',
    "{{ 3000000000 * 'x' }}",
    "{{ 'x'.ljust(3000000000) }}",
    "{{ 'x' | center(3000000000) }}",
    "{{ '%3000000000d' % 1 }}",
    "{{ 2 ** 3000000000 }}",
    "{{ lipsum(3000000) }}",
    "{% set ns = namespace(s='x' * 1000000) %}{% for i in range(80) %}"
    "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
    # (review31: widths a format takes; 300 MB each, built in a second without the check)
    "{{ '%*d' % (300000000, 1) }}",
    "{{ '%300000000d' | format(1) }}",
    "{{ '%(n)300000000d' | format(n=1) }}",
    "{{ '{:300000000}'.format(1) }}",
    "{{ '{:{w}}'.format(1, w=300000000) }}",
    "{{ '{:.300000000f}'.format(1.5) }}",
    "{{ '{x:>300000000}'.format_map({'x': 1}) }}",
)


BUILT_NAMES = ("text-times", "times-text", "ljust", "center", "percent", "power", "lipsum",
               "namespace-doubled", "percent-star", "format-filter", "format-filter-named",
               "str-format", "str-format-nested", "str-format-precision",
               "format-map")  # fmt: skip


@pytest.mark.parametrize("source", BUILT_TOO_BIG, ids=BUILT_NAMES)
def test_what_one_step_would_build_too_big_is_refused_before_it_is_built(tmp_path, source):
    began = time.monotonic()
    tracemalloc.start()
    try:
        with pytest.raises(TemplateError) as raised:
            _render_source(tmp_path, f"# title\n{source}\n")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - began < 10
    if "namespace" not in source:  # (a doubled value is counted once it is made)
        assert peak < 64 * 1024 * 1024, f"{peak:,} bytes built before it was refused"
    assert raised.value.line == 2, raised.value
    assert "built more than" in raised.value.what or "too large" in raised.value.what


def test_small_builds_still_work(tmp_path):
    source = (
        "{{ '-' * 3 }}{{ [1] * 2 }}{{ 2 ** 10 }}{{ '%3d' % 7 }}{{ 'a' | center(3) }}{{ 7 % 3 }}"
        "{{ '%*d' % (3, 7) }}{{ '%2s' | format('b') }}{{ '{:>3}'.format('c') }}"
        "{{ '{:.2f}'.format(1.5) }}{{ '{:{w}}'.format('d', w=2) }}{{ '%d items' % 5000000000 }}"
    )
    expected = "---[1, 1]1024  7 a 1  7 b  c1.50d 5000000000 items"
    assert _render_source(tmp_path, source) == expected


def test_running_out_of_memory_says_so_with_the_line(tmp_path):
    def exhausting() -> str:
        raise MemoryError

    with pytest.raises(TemplateError) as raised:
        _render_source(tmp_path, "# title\n{{ grow() }}\n", grow=exhausting)
    assert raised.value.line == 2
    assert "ran out of memory at line 2" in raised.value.what


def test_a_macro_calling_itself_is_named_with_its_line(tmp_path):
    source = "# title\n{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}\n{{ f(1) }}\n"
    with pytest.raises(TemplateError) as raised:
        _render_source(tmp_path, source)
    assert raised.value.line == 2
    assert "the macro f() calls itself without end" in raised.value.what
    assert "extend or include" not in raised.value.what


def test_a_template_extending_itself_is_still_said_so(tmp_path):
    with pytest.raises(TemplateError) as raised:
        _render_source(tmp_path, '{% extends "t.md.j2" %}')
    assert raised.value.what == "template error: t.md.j2 extends itself, so it never ends"
    assert raised.value.line == 1


def test_a_secret_is_named_with_its_article():
    """review50 L7: "holds a openai-api-key"."""
    from exporter.template_secrets import secret_said

    assert secret_said("openai-api-key").startswith("holds an openai-api-key: written as ")
    assert secret_said("github-pat", of="configuration").startswith("holds a github-pat:")
    assert secret_said("aws-access-key").startswith("holds an aws-access-key")
