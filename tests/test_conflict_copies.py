"""A conflict copy is never replaced: two edits inside one note's generated part saved
aside in the same second (``watch`` re-renders a growing session while the person types,
and Obsidian saves as they type) are two copies, each holding its edit."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from claude_builder import ClaudeSession

from exporter import editcopies as vault_module
from exporter.export import ExportOptions, run_export

SID = "000000a0-1111-4111-8111-000000000000"


class _SameSecond(datetime):
    @classmethod
    def now(cls, tz=None):
        return datetime(2026, 3, 4, 12, 0, 0, tzinfo=tz)


@pytest.fixture
def frozen_clock(monkeypatch):
    monkeypatch.setattr(vault_module, "datetime", _SameSecond)


def _session(home: Path) -> tuple[ClaudeSession, Path]:
    session = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-04T10:00:00Z")
    return session, home / ".claude/projects/-home-dev-work-app" / f"{SID}.jsonl"


def _edit(vault: Path, line: str) -> None:
    (note,) = [p for p in vault.rglob("*.md") if SID[:8] in p.name and "Conflicts" not in p.parts]
    text = note.read_text()
    assert "\n# q1\n" in text
    note.write_text(text.replace("\n# q1\n", f"\n# q1\n{line}\n", 1))


def test_two_conflicts_in_one_second_keep_both_edits(tmp_path, frozen_clock):
    home, vault = tmp_path / "home", tmp_path / "v"
    session, path = _session(home)
    saved = []
    for turn, edit in enumerate([None, "FIRST EDIT", "SECOND EDIT", "THIRD EDIT"], start=1):
        if edit:
            _edit(vault, edit)
        session.user(f"q{turn}")
        session.assistant(f"reply to q{turn}")
        session.write(path)
        report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
        assert not report.failed
        saved += [c.message.rpartition("was saved to ")[2] for c in report.conflicts()]
    assert len(saved) == 3 and len(set(saved)) == 3, saved
    assert "(2)" in saved[1] and "(3)" in saved[2]
    copies = [(vault / s).read_text() for s in saved]
    for edit, copy in zip(["FIRST EDIT", "SECOND EDIT", "THIRD EDIT"], copies, strict=True):
        assert edit in copy
    assert len(list((vault / "AI Sessions" / "Conflicts").iterdir())) == 3
