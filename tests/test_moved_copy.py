"""A note moved by writing it anew elsewhere (a sync tool bringing another machine's move,
``cp`` then ``rm``, a person's edit saved with it): the run that finds it moved compares
the file it finds (its generated part: the one written), so the run after it writes nothing,
not even the state."""

from __future__ import annotations

import shutil
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession

from exporter.export import ExportOptions, run_export

SID = "000000b0-2222-4222-8222-000000000000"


def export(vault: Path, home: Path):
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    assert not report.failed, report.problems
    return report


def files(vault: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(vault).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(vault.rglob("*"))
        if p.is_file() and p.name not in ("lock", "running")
    }


def test_a_note_moved_as_a_new_file_is_compared_by_the_run_that_finds_it(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-04T10:00:00Z")
    s.user("why does it fail")
    s.assistant("because of the loop")
    s.write(home / ".claude/projects/-home-dev-work-app" / f"{SID}.jsonl")
    export(vault, home)
    (note,) = [p for p in vault.rglob("*.md") if SID[:8] in p.name]
    moved = vault / "Archive" / note.name
    moved.parent.mkdir()
    shutil.copy2(note, moved)  # a new file (another inode), then edited: another size
    moved.write_text(moved.read_text() + "my own line\n")
    note.unlink()
    state = (vault / ".ccexport/state.json").read_bytes()
    first = export(vault, home)
    # Its generated part is the one written: no re-read of the session, the move recorded.
    assert not first.changes
    assert (vault / ".ccexport/state.json").read_bytes() != state
    before = files(vault)
    second = export(vault, home)
    assert not [c for c in second.changes if c.action != "unchanged"]
    assert files(vault) == before  # the state too: the first run recorded the file it found
    assert moved.read_text().endswith("my own line\n")
