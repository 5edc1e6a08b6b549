"""Every key an export's ``--json`` document holds is named in docs/usage.md's "JSON for
scripts" (review40 L3: ``written``, ``empty``, ``index_failed``, ``rendered_again`` …
were left for a script writer to guess), and ``rendered_again_notes`` counts the notes the
``rendered_again`` sentence speaks of."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from conftest import EXAMPLES_HOME, ROOT
from typer.testing import CliRunner

from exporter.change import Action, Change
from exporter.cli import app
from exporter.errors import Problem
from exporter.outcome import ExportReport, SourceCounts

runner = CliRunner()
# Keys whose names are data, not the document's own: a source's name, a rule's id.
NAMED_BY_DATA = ("sources", "redactions")


def _run(*args: object) -> Any:
    result = runner.invoke(app, [str(a) for a in args])
    return json.loads(result.stdout)


def _keys(doc: Any, into: set[str]) -> set[str]:
    if isinstance(doc, dict):
        for key, value in doc.items():
            into.add(key)
            if key in NAMED_BY_DATA:
                for named in value.values():
                    _keys(named, into)
            else:
                _keys(value, into)
    elif isinstance(doc, list):
        for item in doc:
            _keys(item, into)
    return into


def _documented() -> set[str]:
    text = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    start = text.index("### JSON for scripts")
    end = text.index("\n#", start + 1)
    return set(re.findall(r"`(\w+)`", text[start:end])) | set(
        re.findall(r'"(\w+)":', text[start:end])  # (in an example: {"error": …})
    )


def _broken_templates(tmp_path: Path) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "session.md.j2").write_text("{{ titel | inline }}\n", encoding="utf-8")
    return folder


def test_every_key_of_an_exports_json_is_documented(tmp_path, monkeypatch):
    vault = tmp_path / "v"
    docs: list[Any] = [
        _run("--vault", tmp_path / "dry", "--home", EXAMPLES_HOME, "--dry-run", "--json"),
        _run("--vault", vault, "--home", EXAMPLES_HOME, "--json"),
        # settings changed: rendered again, with its count
        _run("--vault", vault, "--home", EXAMPLES_HOME, "--thinking", "hidden", "--json"),
        # every note failed on a template: errors naming their notes
        _run(
            "--vault",
            tmp_path / "bad",
            "--home",
            EXAMPLES_HOME,
            "--templates",
            _broken_templates(tmp_path),
            "--json",
        ),  # fmt: skip
        # stopped before exporting
        _run("--vault", tmp_path / "x", "--home", EXAMPLES_HOME, "--jobs", "0", "--json"),
    ]
    from exporter import export

    def interrupted(*args: object, **kwargs: object) -> None:
        raise export.Interrupted(3)

    monkeypatch.setattr(export, "run_export", interrupted)
    docs.append(_run("--vault", tmp_path / "y", "--home", EXAMPLES_HOME, "--json"))
    assert docs[3]["errors"] and docs[3]["errors"][0]["note"]  # (the runs did what was meant)
    assert docs[2]["rendered_again"] and docs[-1]["written"] == 3
    # a conflict's keys, which no run above meets
    report = ExportReport(per_source={"codex": SourceCounts(conflicts=1)})
    report.changes.append(Change(Action.CONFLICT, "codex:a", "AI Sessions/a.md", "saved as …"))
    report.problems.append(Problem("/x.jsonl", "a warning", 3))
    docs.append(report.as_dict())
    found = set().union(*(_keys(doc, set()) for doc in docs))
    assert {"written", "empty", "index_failed", "rendered_again_notes", "note"} <= found
    assert not found - _documented(), "keys --json holds that the section does not name"


def test_rendered_again_notes_counts_the_notes_rendered_again(tmp_path):
    vault = tmp_path / "v"
    first = _run("--vault", vault, "--home", EXAMPLES_HOME, "--json")
    assert first["rendered_again"] is None and first["rendered_again_notes"] == 0
    again = _run("--vault", vault, "--home", EXAMPLES_HOME, "--thinking", "hidden", "--json")
    n = int(again["rendered_again"].split()[0])  # "41 notes rendered again: …"
    assert n == again["totals"]["found"] and again["rendered_again_notes"] == n
    # every note failed and none was written: the sentence is not said, nor counted
    failed = ExportReport(rendered_again="2 notes rendered again: …", rendered_again_notes=2)
    failed.changes.append(Change(Action.FAILED, "codex:a", "AI Sessions/a.md", "broken"))
    assert failed.as_dict()["rendered_again_notes"] == 0
    failed.changes[0] = Change(Action.UPDATED, "codex:a", "AI Sessions/a.md")
    failed.per_source["codex"] = SourceCounts(updated=1)
    assert failed.as_dict()["rendered_again_notes"] == 2
