"""Golden notes for two "Notes to taste" settings: the demo home exported with each,
compared byte for byte with tests/golden/settings-*/ (session notes only: the settings do
not touch index notes).

Refresh after an intended change, then review the diff:

    pytest tests/test_golden_settings.py --update-golden && git diff tests/golden
"""

from __future__ import annotations

import shutil
from datetime import UTC

import pytest
from conftest import EXAMPLES_HOME, TESTS, note_files

from exporter.export import ExportOptions, run_export
from exporter.turns import TurnView

SETTINGS = {
    # A quick read: every call one line, no reasoning.
    "settings-summary": TurnView(tools="summary", thinking="hidden"),
    # Outputs cut to two lines, reasoning open, plans as checklists.
    "settings-head": TurnView(
        tool_output="head", tool_output_lines=2, thinking="shown", todo_as_checklist=True
    ),
}


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_demo_notes_with_settings_match_the_golden_files(tmp_path, update_golden, name):
    golden = TESTS / "golden" / name
    vault = tmp_path / "vault"
    options = ExportOptions(vault=vault, home=EXAMPLES_HOME, timezone=UTC, view=SETTINGS[name])
    report = run_export(options)
    assert not report.failed, report.problems
    produced = note_files(vault)
    if update_golden:
        shutil.rmtree(golden, ignore_errors=True)
        for rel, data in produced.items():
            (golden / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden / rel).write_bytes(data)
    expected = note_files(golden)
    assert sorted(produced) == sorted(expected), "notes were added or removed"
    for rel, data in produced.items():
        assert data.decode() == expected[rel].decode(), f"{rel} differs from its golden file"


def test_the_golden_settings_differ_from_the_defaults_where_the_demo_has_the_data():
    """Each golden folder shows its settings at work (not a copy of the default notes)."""
    summary = "\n".join(
        d.decode() for d in note_files(TESTS / "golden" / "settings-summary").values()
    )
    head = "\n".join(d.decode() for d in note_files(TESTS / "golden" / "settings-head").values())
    assert "\n- `Bash` — " in summary and "[!quote]" not in summary
    assert "more line" in head and "> [!quote] Thinking" in head
