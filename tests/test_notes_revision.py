"""A change of the code that alters the notes of unchanged sessions reaches them: the notes'
revision is part of the render fingerprint, so the next run reads every session again and
rewrites the notes whose bytes differ. (A vault made by the code before 6 December's
afternoon kept its notes as they were on the next run: every session skipped.)"""

from __future__ import annotations

from datetime import UTC

from conftest import EXAMPLES_HOME

from exporter import render
from exporter.export import ExportOptions, run_export


def test_a_new_notes_revision_reads_every_session_again(tmp_path, monkeypatch):
    options = ExportOptions(vault=tmp_path / "v", home=EXAMPLES_HOME, timezone=UTC,
                            sources=["codex"])  # fmt: skip
    assert run_export(options).per_source["codex"].created == 4
    note = next((tmp_path / "v" / "AI Sessions" / "codex").rglob("*.md"))
    mine = note.read_text(encoding="utf-8") + "\nmine\n"
    note.write_text(mine, encoding="utf-8")
    assert run_export(options).per_source["codex"].skipped == 4  # the same code: none read

    monkeypatch.setattr(render, "NOTES_REVISION", "a later one")
    again = run_export(options).per_source["codex"]
    assert (again.skipped, again.unchanged, again.failed) == (0, 4, 0)  # read, the same bytes
    assert note.read_text(encoding="utf-8") == mine  # the person's text kept
    assert run_export(options).per_source["codex"].skipped == 4  # then stable
