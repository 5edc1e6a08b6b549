"""Rendering on several cores gives the same vault, byte for byte, as rendering on one;
a template error raised in a worker process is reported like any other."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pytest
from conftest import note_files
from corpus_home import build_codex_home, build_corpus_home
from test_sync import write_sessions

from exporter import workers
from exporter.export import ExportOptions, run_export


def export(vault: Path, home: Path, jobs: int, **kw):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=jobs, **kw))


@pytest.fixture
def pools(monkeypatch):
    """Counts the process pools started, to be sure the parallel path really ran."""
    started: list[int] = []
    original = workers.ProcessPoolExecutor

    def counting(n, **kw):
        started.append(n)
        return original(n, **kw)

    monkeypatch.setattr(workers, "ProcessPoolExecutor", counting)
    return started


def test_parallel_and_serial_exports_are_identical(tmp_path, pools):
    home = tmp_path / "home"
    write_sessions(home, workers.PARALLEL_FROM + 16, turns=3)
    one, two = export(tmp_path / "one", home, 1), export(tmp_path / "two", home, 2)
    assert pools == [2]
    assert one.as_dict() == two.as_dict()
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert len(note_files(tmp_path / "two")) == workers.PARALLEL_FROM + 16


@pytest.mark.corpus
def test_parallel_export_of_the_corpus_matches_serial(corpus, tmp_path, pools):
    """Real files bring subagents, forks and late links that cross rendering order."""
    home = tmp_path / "home"
    build_corpus_home(corpus, home)
    build_codex_home(corpus, home)
    one, two = export(tmp_path / "one", home, 1), export(tmp_path / "two", home, 2)
    assert pools == [2]
    assert one.as_dict() == two.as_dict()
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    rerun = export(tmp_path / "two", home, 2)
    assert (
        rerun.as_dict()["totals"]["written"] == 0
        and rerun.total("skipped") == one.total("found") > workers.PARALLEL_FROM
    )


def test_a_template_error_in_a_worker_is_reported_and_the_rest_written(tmp_path, pools):
    home, folder = tmp_path / "home", tmp_path / "templates"
    write_sessions(home, workers.PARALLEL_FROM + 6)
    folder.mkdir()
    (folder / "session.md.j2").write_text(
        '{% extends "default/session.md.j2" %}\n{% block header %}\n'
        "{% if 'p1' in session.project %}{{ missing }}{% endif %}{{ title }}\n{% endblock %}\n"
    )
    report = export(tmp_path / "v", home, 2, templates=folder)
    assert pools == [2]
    failed = sum(c.failed for c in report.per_source.values())
    written = len(note_files(tmp_path / "v"))
    assert failed == 10 and written == workers.PARALLEL_FROM + 6 - 10
    assert {(p.path, p.message, p.severity) for p in report.problems} == {
        (f"{folder / 'session.md.j2'}:3", "template error: 'missing' is undefined", "error")
    }
