"""Cases the two-machines state machine (``tests/test_two_machines_stateful.py``) found,
shrunk to their steps: two homes holding one session, two copies of the vault, and a sync
tool's copy of a note (a new file: another inode, its times kept).

A note the person deleted on one machine comes back into its place: the other machine
wrote it again (its state, not synced, knew no deletion), or the sync tool brought the
other machine's edit of it back (a change beats a deletion). The run that finds it back
reads its unit then, so the run right after it writes nothing, not even the state (README:
"a repeated run on either writes nothing, with or without ``.ccexport/`` synced"). It was
read only by the next run, which then wrote the state again (seeds 3 and 4).
"""

from __future__ import annotations

import shutil
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession

from exporter.export import ExportOptions, ExportReport, run_export

SID = "000000c0-3333-4333-8333-000000000000"
PROJECT = "/home/dev/work/app"
RUN_FILES = {".ccexport/lock", ".ccexport/running"}


def machines(tmp_path: Path) -> dict[str, tuple[Path, Path]]:
    """Machines A and B: each a home holding the same session, and a vault of its own."""
    s = ClaudeSession(SID, PROJECT, start="2026-03-01T10:00:00Z")
    s.user("why does the parser fail")
    s.assistant("because of the loop")
    out = {}
    for m in "AB":
        home, vault = tmp_path / f"home-{m}", tmp_path / f"vault-{m}"
        s.write(home / ".claude/projects/-home-dev-work-app" / f"{SID}.jsonl")
        vault.mkdir()
        out[m] = home, vault
    return out


def export(machine: tuple[Path, Path]) -> ExportReport:
    home, vault = machine
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    assert not report.failed, report.problems
    return report


def note_of(vault: Path) -> Path:
    (note,) = [p for p in vault.rglob("*.md") if SID[:8] in p.name]
    return note


def synced(source: Path, vault: Path, target: Path) -> None:
    """The sync tool brings ``source`` to the other vault: a new file, its times kept."""
    there = target / source.relative_to(vault)
    there.unlink(missing_ok=True)
    there.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, there)


def files(vault: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of the vault, the state too, with its bytes and modification time."""
    return {
        p.relative_to(vault).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(vault.rglob("*"))
        if p.is_file() and p.relative_to(vault).as_posix() not in RUN_FILES
    }


def read_back_then_quiet(machine: tuple[Path, Path], note: Path) -> None:
    """The run that finds the note back reads its unit (the note listed again by the index
    notes); the run right after it changes no byte and no time."""
    first = export(machine)
    before = files(machine[1])
    second = export(machine)
    assert not [c for c in second.changes if c.action != "unchanged"], second.changes
    after = files(machine[1])
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"a run right after a run changed {changed}"
    assert [(c.key.endswith(SID), c.action) for c in first.changes] == [(True, "unchanged")]
    project_index = (machine[1] / "AI Sessions/Projects/app.md").read_text(encoding="utf-8")
    assert note.stem in project_index


def test_a_note_deleted_here_and_written_again_by_the_other_machine(tmp_path):
    """Seed 3: A deletes its note and runs (the deletion is left as it is); B, which never
    had that note, writes it; the sync tool brings it to A, at the same path."""
    ma, mb = (m := machines(tmp_path))["A"], m["B"]
    export(ma)
    note_of(ma[1]).unlink()
    deleted = export(ma)
    assert [c.action for c in deleted.changes] == ["deleted"]
    export(mb)
    synced(note_of(mb[1]), mb[1], ma[1])
    read_back_then_quiet(ma, note_of(ma[1]))


def test_a_note_deleted_here_and_edited_on_the_other_machine(tmp_path):
    """Seed 4: both vaults hold the note; B deletes it and runs; A's person writes below
    its end marker, and the sync tool brings that edit back to B (a change beats a
    deletion). Their line is in B's note after both runs."""
    ma, mb = (m := machines(tmp_path))["A"], m["B"]
    export(ma)
    for path in sorted(ma[1].rglob("*.md")):
        synced(path, ma[1], mb[1])
    export(mb)
    note_of(mb[1]).unlink()
    export(mb)
    mine = note_of(ma[1])
    mine.write_text(mine.read_text(encoding="utf-8") + "my note 1 parser\n", encoding="utf-8")
    synced(mine, ma[1], mb[1])
    read_back_then_quiet(mb, note_of(mb[1]))
    assert note_of(mb[1]).read_text(encoding="utf-8").endswith("my note 1 parser\n")
