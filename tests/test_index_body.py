"""The index notes written without Jinja (``index_body``) are the bytes Jinja renders from the
shipped templates, for every context of the kinds the exporter builds; other values are
left to Jinja; and a run with the shipped templates never imports Jinja for its indexes."""

from __future__ import annotations

import hashlib

from conftest import EXAMPLES_HOME
from hypothesis import given, settings
from hypothesis import strategies as st
from test_startup import _imported_after

from exporter.index import PROJECT_TEMPLATE, PROJECTS_TEMPLATE
from exporter.index_body import (
    PROJECT_TEMPLATE_SHA256,
    PROJECTS_TEMPLATE_SHA256,
    project_index_body,
    projects_index_body,
)
from exporter.render import default_templates_dir, render

# Text as a person or a model names things: Markdown, quotes, backslashes, CJK, emoji.
TEXT = st.text(
    st.sampled_from([*'ab _*`#[]|"\\<>&$%=~^:/-.', "é", "字", "🙂", "\n", "\r"]), max_size=24
)
DATE = st.one_of(st.none(), st.just(""), st.sampled_from(["2026-04-09", "2026-04-09T10:00:00"]))
SESSION = st.fixed_dictionaries({
    "created": DATE,
    "link": TEXT,
    "source_label": TEXT,
    "model": st.one_of(st.just(""), TEXT, st.just("claude-sonnet-4-5-20250929")),
    "messages": st.one_of(st.none(), st.integers(0, 5000)),
})  # fmt: skip
PROJECT = st.fixed_dictionaries({
    "project": TEXT,
    "sessions": st.lists(SESSION, max_size=5),
    "dataview": st.booleans(),
    "folder": TEXT,
})  # fmt: skip
SUMMARY = st.fixed_dictionaries({
    "link": TEXT,
    "sessions": st.integers(0, 3000),
    "sources": st.lists(TEXT, max_size=3),
    "latest": st.one_of(st.just(""), TEXT),
})  # fmt: skip
PROJECTS = st.fixed_dictionaries({
    "projects": st.lists(SUMMARY, max_size=5),
    "dataview": st.booleans(),
    "folder": TEXT,
})  # fmt: skip


@settings(max_examples=300)
@given(PROJECT)
def test_a_project_index_is_what_jinja_renders(context):
    assert project_index_body(context) == render(PROJECT_TEMPLATE, context)


@settings(max_examples=300)
@given(PROJECTS)
def test_the_index_of_projects_is_what_jinja_renders(context):
    assert projects_index_body(context) == render(PROJECTS_TEMPLATE, context)


def test_a_projects_name_cannot_end_its_dataview_block():
    """The name comes from the session (its folder's): a line of backticks in it closed the
    block and made the rest live Markdown; a backslash before the closing quote left the
    string open. Both ways write the same bytes."""
    project = 'api\\"\n```\n# Heading [[note]]\r\n'
    context = {"project": project, "sessions": [], "dataview": True, "folder": "AI"}
    body = project_index_body(context)
    assert body == render(PROJECT_TEMPLATE, context)
    block = body.split("```dataview\n", 1)[1].split("\n")
    where = 'WHERE project = "api\\\\\\" ``` # Heading [[note]]  " AND !ccexport_index'
    assert block[2] == f"{where} AND !parent"
    assert block[5] == "```" and "```" not in block[:2]


def test_values_of_another_kind_are_left_to_jinja():
    session = {"created": None, "link": "[[a]]", "source_label": "Codex", "model": "",
               "messages": 3}  # fmt: skip
    project = {"project": "p", "sessions": [session], "dataview": False, "folder": "AI"}
    assert project_index_body(project) is not None
    for key, odd in (("messages", "3"), ("messages", True), ("model", ["a"]), ("link", None)):
        assert project_index_body({**project, "sessions": [{**session, key: odd}]}) is None
    summary = {"link": "[[P/p|p]]", "sessions": 1, "sources": ["Codex"], "latest": ""}
    projects = {"projects": [summary], "dataview": False, "folder": "AI"}
    assert projects_index_body(projects) is not None
    for key, odd in (("sessions", "1"), ("sources", [None]), ("latest", None)):
        assert projects_index_body({**projects, "projects": [{**summary, key: odd}]}) is None


def test_the_shipped_templates_are_the_ones_it_follows():
    """Edit a shipped index template and this fails until ``index_body`` follows the edit
    and its digest is updated (until then the index is rendered by Jinja: correct, slower)."""
    for name, digest in ((PROJECT_TEMPLATE, PROJECT_TEMPLATE_SHA256),
                         (PROJECTS_TEMPLATE, PROJECTS_TEMPLATE_SHA256)):  # fmt: skip
        data = (default_templates_dir() / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest


def test_an_export_with_the_shipped_templates_writes_its_indexes_without_jinja(tmp_path):
    code = f"""
from datetime import UTC
from pathlib import Path
from exporter.export import ExportOptions, run_export
report = run_export(ExportOptions(vault=Path({str(tmp_path / "v")!r}),
                                  home=Path({str(EXAMPLES_HOME)!r}), timezone=UTC))
assert len(report.indexes) > 3, report.indexes
"""
    assert "jinja2" not in _imported_after(code)  # (it runs in a process of its own)


def test_each_model_is_escaped_once_per_index(monkeypatch):
    # A project of 800 sessions names two or three models: escaping each on every line was
    # a fifth of the index notes' time.
    from exporter import index_body

    escaped = []
    real = index_body.escape_inline
    monkeypatch.setattr(index_body, "escape_inline", lambda t: escaped.append(t) or real(t))
    sessions = [
        {"created": "2026-04-09", "link": f"[[n{i}]]", "source_label": "Claude Code",
         "model": ("claude-sonnet-4-5-20250929", "gpt-5-codex")[i % 2], "messages": i}
        for i in range(40)
    ]  # fmt: skip
    context = {"project": "shop", "sessions": sessions, "dataview": False, "folder": "AI"}
    body = project_index_body(context)
    assert body == render(PROJECT_TEMPLATE, context)
    assert sorted(escaped) == ["claude-sonnet-4-5", "gpt-5-codex", "shop"]


@settings(max_examples=500)
@given(st.lists(st.sampled_from(["/", ".", "md", "a", " ", "é"]), max_size=12).map("".join))
def test_a_notes_link_target_is_its_paths_stem(path):
    from pathlib import PurePosixPath

    from exporter.index import note_stem

    assert note_stem(path) == PurePosixPath(path).stem
