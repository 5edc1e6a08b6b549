"""How the Cline family's tool calls read in a note: a search titled by what it looked for.
Fixtures follow the schemas of tests/cline_builder.py."""

from __future__ import annotations

from datetime import UTC

import cline_builder as cb
from conftest import note_files

from exporter.export import ExportOptions, run_export


def _note(home, vault, source: str = "cline") -> str:
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, sources=[source]))
    assert not report.failed
    notes = note_files(vault)
    return next(v.decode() for k, v in notes.items() if "agent" not in k.rsplit("/", 1)[-1])


def _parts(session, kind):
    return [p for m in session.messages for p in m.parts if isinstance(p, kind)]


# --- titles ---------------------------------------------------------------------------------


def test_a_search_is_titled_by_what_it_looked_for(tmp_path):
    """``searchFiles`` (``{path: ".", regex}``) was titled by its folder, ``.``; now by its
    regex."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000010", ui=[
        cb.say(0, "task", "Where is apply_changes used?"),
        cb.tool(1, "searchFiles", path=".", regex="apply_changes", content="sync.py:3"),
    ])  # fmt: skip
    note = _note(home, vault)
    assert "> [!example]- `searchFiles` — `apply_changes`\n" in note
    assert '>   "path": ".",\n' in note  # (its input still shows the folder searched)
