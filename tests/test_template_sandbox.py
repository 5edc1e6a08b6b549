"""The template sandbox: its fast paths read exactly what Jinja's sandbox would, and refuse
exactly what it refuses (private and dunder attributes), on every kind of object a note's
context holds."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from exporter.model import Session
from exporter.render import TemplateError, environment, render


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
