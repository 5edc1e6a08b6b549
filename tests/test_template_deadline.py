"""A note's template has a deadline: one that is slow (loops over the turns nested deep, a
big text worked over in a loop) fails that note at its line, saying it took too long, and
the run goes on; a loop's clock check changes nothing a template prints."""

from __future__ import annotations

import json
import time
from pathlib import Path

import jinja2
import pytest
from conftest import EXAMPLES_HOME, note_files
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from exporter import template_deadline
from exporter.cli import app
from exporter.render import TemplateError, fresh_templates, render
from exporter.sandbox import rendered, sandbox

runner = CliRunner()

# Each runs for seconds without a deadline (and ends: a test run without it fails, not
# hangs), and meets none of the sandbox's limits on what is built.
SLOW = {
    "loops-doing-nothing": "{% for a in xs %}{% for b in xs %}{% for c in xs %}"
    "{% endfor %}{% endfor %}{% endfor %}",
    "replace-in-a-loop": "{% set big = 'x' * 20000000 %}{% for i in range(400) %}"
    "{% set t = big.replace('x', 'y') %}{% endfor %}",
    "macro-in-a-loop": "{% macro row(a) %}{% for b in xs %}{% endfor %}{% endmacro %}"
    "{% for a in xs %}{% for b in xs %}{{ row(a) }}{% endfor %}{% endfor %}",
    "printing-loops": "{% for a in xs %}{% for b in xs %}{% for c in xs %}{{ c }}"
    "{% endfor %}{% endfor %}{% endfor %}",
}


def _render_source(folder: Path, source: str, **context) -> str:
    folder.mkdir(exist_ok=True)
    (folder / "t.md.j2").write_text(source, encoding="utf-8")
    fresh_templates()
    return render("t.md.j2", context, folder)


@pytest.mark.parametrize("source", SLOW.values(), ids=SLOW.keys())
def test_a_slow_template_stops_at_its_deadline_naming_its_line(tmp_path, monkeypatch, source):
    monkeypatch.setattr(template_deadline, "RENDER_SECONDS", 0.3)
    began = time.monotonic()
    with pytest.raises(TemplateError) as raised:
        _render_source(tmp_path / "tpl", f"# title\n{source}\n", xs=list(range(500)))
    assert time.monotonic() - began < 5
    assert raised.value.path.endswith("t.md.j2") and raised.value.line == 2
    assert raised.value.what.startswith("template error: took longer than 0.3 s for one note")


def test_a_loop_whose_passes_only_run_filters_stops_at_its_deadline(tmp_path, monkeypatch):
    """Each pass filters a long list and calls nothing (review34 1: ``turns|selectattr(…)``
    in a loop over the turns ran 15 s against a deadline of 1 s): the loop's own passes
    look at the clock."""
    monkeypatch.setattr(template_deadline, "RENDER_SECONDS", 0.3)
    source = "# title\n{% for a in xs %}{{ big|select('odd')|list|length }}{% endfor %}\n"
    began = time.monotonic()
    with pytest.raises(TemplateError) as raised:
        _render_source(tmp_path / "tpl", source, xs=list(range(20)), big=list(range(200_000)))
    assert time.monotonic() - began < 3
    assert raised.value.line == 2 and "took longer than 0.3 s" in raised.value.what


def test_a_loop_s_length_and_its_else_are_as_before(tmp_path):
    source = (
        "{% for a in xs %}{{ loop.index }}/{{ loop.length }}{{ ',' if not loop.last }}"
        "{% else %}none{% endfor %}|{% for a in ys %}x{% else %}none{% endfor %}"
        "|{% for k in d %}{{ k }}{% endfor %}|{% for c in s %}{{ c }}.{% endfor %}"
    )
    text = _render_source(tmp_path / "tpl", source, xs=[7, 8, 9], ys=[], d={"k": 1}, s="ab")
    assert text == "1/3,2/3,3/3|none|k|a.b."


def test_the_deadline_is_per_note_and_a_fast_render_after_a_slow_one_is_not_stopped(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(template_deadline, "RENDER_SECONDS", 0.3)
    with pytest.raises(TemplateError):
        _render_source(tmp_path / "a", SLOW["loops-doing-nothing"], xs=list(range(500)))
    time.sleep(0.4)  # (the clock of the note that failed is not running any more)
    assert _render_source(tmp_path / "b", "{% for a in xs %}{{ a }}{% endfor %}", xs=[1, 2]) == "12"


def test_a_slow_template_fails_its_note_and_the_run_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(template_deadline, "RENDER_SECONDS", 0.5)
    folder = tmp_path / "tpl"
    folder.mkdir()
    # (slow on the longer of the demo home's two Aider sessions only)
    slow = "{% for a in xs %}{% for b in xs %}{% for c in xs %}{% endfor %}{% endfor %}{% endfor %}"
    (folder / "session.md.j2").write_text(
        "# {{ title | inline }}\n{% set xs = [0] * 1000 %}"
        f"{{% if turns | length > 5 %}}\n{slow}{{% endif %}}\n",
        encoding="utf-8",
    )
    fresh_templates()
    began = time.monotonic()
    result = runner.invoke(
        app,
        ["--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME), "--source", "aider",
         "--templates", str(folder), "--timezone", "UTC", "--jobs", "1"],
    )  # fmt: skip
    assert time.monotonic() - began < 30
    assert result.exit_code == 1, result.output + result.stderr
    lines = result.stderr.splitlines()
    said = (
        f"error: {folder / 'session.md.j2'}:3: template error: took longer than 0.5 s for one note"
    )
    at = next(i for i, line in enumerate(lines) if line.startswith(said))
    assert lines[at + 1].startswith("  in note: AI Sessions/aider/")
    notes = [n for n in note_files(tmp_path / "v") if "/aider/" in n]
    assert len(notes) == 1  # (the other session's note is written)


LOOPS = (
    "{% for x in xs %}{{ loop.index }}/{{ loop.length }}:{{ x }}{% if not loop.last %},"
    "{% endif %}{% else %}none{% endfor %}",
    "{% for x in xs if x % 2 %}{{ x }}{% endfor %}",
    "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}",
    "{% for x in xs | reverse %}{{ loop.revindex }}{{ loop.previtem }}{% endfor %}",
    "{% for n in tree recursive %}[{{ n.name }}{{ loop(n.kids) }}]{% endfor %}",
    "{% for c in text %}{{ c }}{% endfor %}{% for x in range(n) %}{{ x }}{% endfor %}",
)


def _tree(depth: int) -> list[dict]:
    return [] if depth == 0 else [{"name": str(depth), "kids": _tree(depth - 1)}]


def _outcome(env: jinja2.Environment, source: str, context: dict) -> str:
    try:
        return rendered(env.from_string(source), context)
    except Exception as exc:  # noqa: BLE001 (an error is an outcome to compare too)
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=60, deadline=None)
@given(
    source=st.sampled_from(LOOPS),
    xs=st.lists(st.integers(-5, 50), max_size=12),
    d=st.dictionaries(st.text("ab", max_size=3), st.integers(0, 9), max_size=4),
    text=st.text(max_size=8),
    depth=st.integers(0, 4),
)
def test_a_loops_clock_check_changes_nothing_it_prints(source, xs, d, text, depth):
    """Every loop is compiled with a check on its sequence: what it prints (or the error it
    meets) is what the same sandbox prints without the checks."""
    checked = sandbox()

    class Unchecked(checked):  # type: ignore[misc, valid-type]
        def _generate(self, tree, *args, **kwargs):
            return jinja2.Environment._generate(self, tree, *args, **kwargs)

    options = {"trim_blocks": True, "lstrip_blocks": True, "keep_trailing_newline": True}
    context = {"xs": xs, "d": d, "text": text, "tree": _tree(depth), "n": len(xs)}
    with_checks = checked(undefined=checked.strict_undefined, **options)
    without = Unchecked(undefined=checked.strict_undefined, **options)
    assert "(loop started)" in with_checks.compile(source, raw=True)
    assert _outcome(with_checks, source, context) == _outcome(without, source, context)


def _slow_template(folder: Path, when: str = "true") -> Path:
    folder.mkdir()
    (folder / "session.md.j2").write_text(
        "# {{ title | inline }}\n{% set xs = [0] * 1000 %}\n"
        f"{{% if {when} %}}{SLOW['loops-doing-nothing']}{{% endif %}}\n",
        encoding="utf-8",
    )
    fresh_templates()
    return folder


def _export(tmp_path: Path, folder: Path, *more: str):
    result = runner.invoke(
        app,
        ["--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME), "--templates",
         str(folder), "--timezone", "UTC", "--json", *more],
    )  # fmt: skip
    assert result.exit_code == 1, result.output + result.stderr
    return [e["message"] for e in json.loads(result.stdout.splitlines()[-1])["errors"]]


def test_a_template_slow_on_every_note_gives_each_a_second_after_a_few(tmp_path, monkeypatch):
    """A nightly run of thousands of sessions through a template slow on every note would
    cost its deadline on each (hours): once it has run past it on the last few notes, a
    note has a second, not the whole deadline; the notes it fails are kept as they were."""
    monkeypatch.setattr(template_deadline, "RENDER_SECONDS", 0.6)
    monkeypatch.setattr(template_deadline, "HURRIED_SECONDS", 0.05, raising=False)
    monkeypatch.setattr(template_deadline, "GIVE_UP_AFTER", 2, raising=False)
    folder = _slow_template(tmp_path / "tpl")
    began = time.monotonic()
    errors = _export(tmp_path, folder, "--source", "claude-code", "--jobs", "1")
    took = time.monotonic() - began
    late = [e for e in errors if "took longer than 0.6 s for one note" in e]
    hurried = [
        e for e in errors
        if "took longer than 0.05 s for one note, the time a note has after the template "
        "took longer than 0.6 s for each of the 2 notes before it" in e
    ]  # fmt: skip
    assert len(late) == 2 and len(hurried) >= 3, errors
    assert len(late) + len(hurried) == len(errors)
    assert took < 0.6 * len(errors)  # (not the whole deadline on every note)
    assert not [n for n in note_files(tmp_path / "v") if "/claude-code/" in n]


@pytest.mark.parametrize("jobs", [["--jobs", "1"], []])
def test_a_template_slow_on_some_notes_fails_those_alone(tmp_path, monkeypatch, jobs):
    """review38 H1: slow on the Claude Code notes only, rendered first, the template was
    given up after five and every other note failed with it (and fewer with two
    workers). A note that renders in time is written, whatever came before it."""
    monkeypatch.setattr(template_deadline, "RENDER_SECONDS", 0.3)
    monkeypatch.setattr(template_deadline, "HURRIED_SECONDS", 0.1, raising=False)
    monkeypatch.setattr(template_deadline, "GIVE_UP_AFTER", 2, raising=False)
    folder = _slow_template(tmp_path / "tpl", "session.source == 'claude-code'")
    errors = _export(tmp_path, folder, *jobs)
    assert errors and all("took longer than" in e for e in errors)
    notes = note_files(tmp_path / "v")
    assert not [n for n in notes if "/claude-code/" in n]
    written = {n.split("/")[1] for n in notes if n.startswith("AI Sessions/") and n.count("/") > 2}
    assert written >= {"codex", "aider", "cursor", "gemini"}, written


def test_a_fast_note_gives_the_next_the_whole_deadline_again(monkeypatch):
    monkeypatch.setattr(template_deadline, "RENDER_SECONDS", 0.3)
    monkeypatch.setattr(template_deadline, "HURRIED_SECONDS", 0.05, raising=False)
    monkeypatch.setattr(template_deadline, "GIVE_UP_AFTER", 1, raising=False)
    template_deadline.forget_late_templates()
    env = sandbox()()
    source = "{% if n %}" + SLOW["loops-doing-nothing"] + "{% endif %}ok"
    slow = env.from_string(source)
    with pytest.raises(template_deadline.TooSlow, match="0.3 s for one note"):
        rendered(slow, {"n": 1, "xs": list(range(500))})
    with pytest.raises(template_deadline.TooSlow, match="0.05 s for one note, the time"):
        rendered(slow, {"n": 1, "xs": list(range(500))})
    assert rendered(slow, {"n": 0, "xs": []}) == "ok"
    with pytest.raises(template_deadline.TooSlow, match="0.3 s for one note"):
        rendered(slow, {"n": 1, "xs": list(range(500))})
    template_deadline.forget_late_templates()
