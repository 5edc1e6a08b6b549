"""A vault opening on an unchanged state does not serialise it, and a no-op run leaves it be.

Opening the vault compares against the state file's bytes as read, not a fresh dump (a
no-op run with 20,000 notes spent up to 0.14 s on that dump)."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import ClaudeSession

from exporter.export import ExportOptions, run_export
from exporter.state import STATE_DIR, STATE_FILE, State
from exporter.vault import Vault

SID = "5b1c0f0e-2a44-4c1e-9d3e-0c1e2f3a4b5c"


def _exported(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-04T10:00:00Z")
    s.user("make the parser faster")
    s.assistant("done: `parse()` now skips emphasis")
    s.write(home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID}.jsonl")
    vault = tmp_path / "vault"
    assert not run_export(ExportOptions(vault=vault, home=home, timezone=UTC)).failed
    return home, vault


def test_opening_a_vault_reads_the_state_without_serialising_it(tmp_path, monkeypatch):
    _home, vault = _exported(tmp_path)
    on_disk = (vault / STATE_DIR / STATE_FILE).read_bytes()

    def refuse(self):
        raise AssertionError("the state was serialised at vault start")

    monkeypatch.setattr(State, "dumps", refuse)
    opened = Vault(vault)
    assert opened.state.loaded == on_disk
    assert opened.state.notes  # the note the export wrote is known


def test_a_state_file_read_back_is_what_this_version_would_write(tmp_path):
    # What makes the saved bytes a fair baseline: an unchanged state dumps to the same bytes.
    _home, vault = _exported(tmp_path)
    state = State.load(vault)
    assert state.loaded is not None and state.dumps() == state.loaded


def test_a_no_op_run_leaves_the_state_file_untouched(tmp_path):
    home, vault = _exported(tmp_path)
    state_file = vault / STATE_DIR / STATE_FILE
    before = state_file.stat().st_mtime_ns, state_file.stat().st_ino
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert not report.failed
    assert (state_file.stat().st_mtime_ns, state_file.stat().st_ino) == before


@pytest.mark.parametrize("content", [None, b"{not json", b'{"version": -1}'])
def test_an_absent_or_unreadable_state_starts_empty_and_is_written_when_notes_are(
    tmp_path, content
):
    home, vault = _exported(tmp_path)
    state_file = vault / STATE_DIR / STATE_FILE
    if content is None:
        state_file.unlink()
    else:
        state_file.write_bytes(content)
    opened = Vault(vault)
    assert opened.state.loaded is None and not opened.state.notes
    assert not run_export(ExportOptions(vault=vault, home=home, timezone=UTC)).failed
    assert State.load(vault).notes  # the run found its note again and recorded it


def test_a_no_op_run_does_not_serialise_the_state(tmp_path, monkeypatch):
    """It read no source and changed nothing: the state is as read, so it is not dumped to
    learn that (0.1 s of a 20,000-note no-op run)."""
    home, vault = _exported(tmp_path)

    def refuse(self):
        raise AssertionError("a no-op run serialised the state")

    monkeypatch.setattr(State, "dumps", refuse)
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert not report.failed and report.total("skipped") == 1


def test_a_note_moved_in_the_vault_is_recorded_by_a_run_that_reads_no_source(tmp_path):
    """The one change a no-op run makes on its own: a note found by identity elsewhere."""
    home, vault = _exported(tmp_path)
    (note,) = [p for p in vault.rglob("*.md") if SID[:8] in p.name]
    moved = vault / "Elsewhere" / note.name
    moved.parent.mkdir()
    note.rename(moved)
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert not report.failed and report.total("skipped") == 1
    record = State.load(vault).notes[f"claude-code:{SID}"]
    assert record.path == f"Elsewhere/{note.name}"


def test_a_deletion_noticed_before_is_no_change_for_later_runs(tmp_path, monkeypatch):
    """The person deleted a note: the run that notices it records that (state written,
    index notes rebuilt without it); later runs know it already, so they write nothing
    (before: every later run dumped the state and rebuilt the index notes)."""
    home, vault = _exported(tmp_path)
    (note,) = [p for p in vault.rglob("*.md") if SID[:8] in p.name]
    note.unlink()
    noticed = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert noticed.total("deleted") == 1
    assert State.load(vault).notes[f"claude-code:{SID}"].deleted
    files = {p: p.stat().st_mtime_ns for p in vault.rglob("*") if p.is_file()}

    def refuse(self):
        raise AssertionError("a run with no news serialised the state")

    monkeypatch.setattr(State, "dumps", refuse)
    again = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert not again.failed and not note.exists()
    after = {p: p.stat().st_mtime_ns for p in vault.rglob("*") if p.is_file()}
    assert {p: t for p, t in after.items() if ".ccexport" not in p.parts} == {
        p: t for p, t in files.items() if ".ccexport" not in p.parts
    }
