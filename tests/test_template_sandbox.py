"""The template sandbox: its fast paths read exactly what Jinja's sandbox would, and refuse
exactly what it refuses (private and dunder attributes), on every kind of object a note's
context holds."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from exporter.model import Session
from exporter.render import TemplateError, environment, fresh_templates, render


def _session() -> Session:
    return Session(
        source="claude-code",
        session_id="s1",
        messages=(),
        source_path=Path("s1.jsonl"),
        git_branch="main",
        title="T",
    )


CONTEXT = {
    "session": _session(),
    "started": datetime(2026, 11, 30, 9, 5, tzinfo=UTC),
    "turns": [{"role": "user", "items": [{"kind": "text"}, {"kind": "text"}]}],
}

READS = (
    "{{ session.git_branch }}|{{ session.title }}|{{ session.source }}",
    "{{ started.year }}-{{ started.strftime('%H:%M') }}|{{ started.date().isoformat() }}",
    "{% for t in turns %}{% for i in t['items'] %}{{ loop.index }}{{ loop.first }}"
    "{{ '' if loop.first else loop.previtem.kind }}{% endfor %}{% endfor %}",
    "{{ session.no_such_thing is defined }}|{{ loop is defined }}",
)


@pytest.mark.parametrize("source", READS)
def test_reads_match_jinjas_own_sandbox(tmp_path: Path, source: str) -> None:
    (tmp_path / "t.md.j2").write_text(source)
    reference = (
        SandboxedEnvironment(undefined=StrictUndefined).from_string(source).render(**CONTEXT)
    )
    assert render("t.md.j2", CONTEXT, tmp_path) == reference


REFUSED = (
    "{{ session.__class__ }}",
    "{{ session._private }}",
    "{{ started.__class__.__mro__ }}",
    "{% for t in turns %}{{ loop.__class__ }}{% endfor %}",
    "{% for t in turns %}{{ loop._after }}{% endfor %}",
    "{{ session.__dataclass_fields__ }}",
)


@pytest.mark.parametrize("source", REFUSED)
def test_private_attributes_stay_refused(tmp_path: Path, source: str) -> None:
    (tmp_path / "t.md.j2").write_text(source)
    with pytest.raises(TemplateError):
        render("t.md.j2", CONTEXT, tmp_path)


def test_a_template_cannot_reach_the_files_a_session_names(tmp_path: Path) -> None:
    """The session holds the Path of its transcript: reading it would put the unredacted
    source in the note, and its methods could write or delete files."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    transcript = folder / "s1.jsonl"
    transcript.write_text('{"token": "ghp_not-redacted"}')
    context = {**CONTEXT, "session": replace(_session(), source_path=transcript)}
    for call in ("read_text()", "with_name('planted.txt').write_text('x')", "unlink()",
                 "parent.iterdir() | list", "stat().st_size", "exists()"):  # fmt: skip
        (tmp_path / "t.md.j2").write_text(f"{{{{ session.source_path.{call} }}}}")
        fresh_templates()  # (read once per run otherwise)
        with pytest.raises(TemplateError, match=r"PosixPath\.\w+\(\) cannot be called"):
            render("t.md.j2", context, tmp_path)
    assert [p.name for p in folder.iterdir()] == ["s1.jsonl"]
    (tmp_path / "t.md.j2").write_text("{{ session.source_path.name }}")
    fresh_templates()
    assert render("t.md.j2", context, tmp_path) == "s1.jsonl"  # its name is still there


HELPERS = (
    ("{{ started.strftime('%H:%M') }} {{ started.date().isoformat() }} {{ 'a-b'.split('-') }}",
     "09:05 2026-11-30 ['a', 'b']"),
    ("{{ {'k': 1}.get('k') }} {{ [3, 1] | sort | join }} {{ started.replace(hour=1).hour }}",
     "1 13 1"),
    ("{% for t in turns %}{{ loop.cycle('x', 'y') }}{{ loop.changed(t) }}{% endfor %}",
     "xTrue"),
    ("{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}{% set j = joiner('+') %}"
     "{{ j() }}1{{ j() }}2{% set ns = namespace(n=1) %}{% set ns.n = 2 %}{{ ns.n }}",
     "ab1+22"),
    ("{% macro m(x) %}<{{ x }}{{ caller() }}>{% endmacro %}{% call m(1) %}!{% endcall %}"
     "{{ range(3) | list | length }}{{ dict(a=1).a }}", "<1!>31"),
)  # fmt: skip


@pytest.mark.parametrize(("source", "expected"), HELPERS)
def test_methods_of_plain_values_and_jinjas_helpers_stay_callable(tmp_path, source, expected):
    (tmp_path / "t.md.j2").write_text(source)
    assert render("t.md.j2", CONTEXT, tmp_path) == expected


def test_fast_path_covers_the_objects_notes_hold() -> None:
    """Sessions, loops and dates take the shortcut (a new kind of context object would go
    through the full checks, correct but slower)."""
    env = environment(None)
    calls = []
    original = SandboxedEnvironment.getattr

    def counting(self, obj, attribute):
        calls.append(type(obj).__name__)
        return original(self, obj, attribute)

    SandboxedEnvironment.getattr = counting  # type: ignore[method-assign]
    try:
        env.from_string(READS[0] + READS[1] + READS[2]).render(**CONTEXT)
    finally:
        SandboxedEnvironment.getattr = original  # type: ignore[method-assign]
    assert calls == []
