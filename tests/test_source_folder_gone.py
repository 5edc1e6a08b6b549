"""Every note of one source's folder gone at once, while the vault's other notes are there,
is a folder lost whole (a sync tool that lost ``AI Sessions/claude-code/``), not the person
deleting each note: the run stops, as for more than half gone (review43 L1: 23 of 73 were
taken as 23 deletions). A few notes deleted stay the person's deletion. And the stop counts
apart the notes of sessions this machine does not have, which a run with --accept-deleted
does not count among its "deleted" (review43 L2: the stop said 57, the run after it 55)."""

from __future__ import annotations

import shutil

import pytest
from conftest import EXAMPLES_HOME
from vault_builder import export, write_session

from exporter.doctor import vault_checks
from exporter.errors import ExporterError
from exporter.state import State

SIDS = [f"90e00000-0000-4000-8000-0000000002{n:02d}" for n in range(12)]


def exported(tmp_path, sids=SIDS):
    """A home of every source (the examples), and ``sids`` more Claude Code sessions."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True, dirs_exist_ok=True)
    for n, sid in enumerate(sids):
        write_session(home, [f"first {n}"], sid=sid, cwd=f"/home/dev/work/p{n % 3}")
    export(vault, home)
    return home, vault


def recorded(vault, source=""):
    return {k: r for k, r in State.load(vault).notes.items()
            if not k.startswith("index") and k.startswith(source)}  # fmt: skip


def test_a_source_folder_lost_whole_stops_the_run(tmp_path):
    home, vault = exported(tmp_path)
    ours = recorded(vault, "claude-code:")
    assert len(ours) >= 12 and len(ours) * 2 < len(recorded(vault))  # (under half)
    shutil.rmtree(vault / "AI Sessions" / "claude-code")
    before = (vault / ".ccexport" / "state.json").read_bytes()
    with pytest.raises(ExporterError) as stopped:
        export(vault, home)
    said = str(stopped.value)
    assert f"the {len(ours)} session notes of claude-code" in said
    assert "AI Sessions/claude-code/ are gone at once, every one" in said
    assert "ccexport --restore" in said and "ccexport --accept-deleted once" in said
    assert (vault / ".ccexport" / "state.json").read_bytes() == before
    doctor = [c for c in vault_checks(vault) if c.status == "attention"]
    assert [c.message for c in doctor] == [said]
    report = export(vault, home, accept_deleted=True)
    assert report.total("deleted") == len(ours)
    assert all(r.deleted for r in recorded(vault, "claude-code:").values())


def test_a_few_notes_of_a_source_deleted_stay_the_persons_deletion(tmp_path):
    """Fewer than ten notes of a source, all deleted, and most of a source's notes deleted
    (one kept), are the person's decision: recorded as deleted, the run goes on."""
    home, vault = exported(tmp_path, SIDS[:1])
    few = recorded(vault, "claude-code:")
    assert len(few) < 10
    shutil.rmtree(vault / "AI Sessions" / "claude-code")
    report = export(vault, home)
    assert report.total("deleted") == len(few) and not report.failed


def test_all_but_one_note_of_a_source_deleted_is_the_persons_deletion(tmp_path):
    home, vault = exported(tmp_path)
    notes = sorted((vault / "AI Sessions" / "claude-code").rglob("*.md"))
    for note in notes[1:]:
        note.unlink()
    report = export(vault, home)
    assert report.total("deleted") == len(notes) - 1 and not report.failed


def test_the_stop_counts_apart_the_notes_of_sessions_not_on_this_machine(tmp_path):
    """Two of the notes gone are of sessions this machine does not have (another machine's,
    synced in; here: their source files gone): the stop counts them apart, and the number
    it gives for this machine is the one --accept-deleted then says."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    for n, sid in enumerate(SIDS):
        write_session(home, [f"first {n}"], sid=sid)
    export(vault, home)
    for sid in SIDS[:2]:  # (only "the other machine" has them now)
        next(home.rglob(f"{sid}.jsonl")).unlink()
    shutil.rmtree(vault / "AI Sessions")
    with pytest.raises(ExporterError) as stopped:
        export(vault, home)
    assert "the 12 session notes ccexport recorded in this vault are all gone (10 of " in str(
        stopped.value
    )
    assert "sessions on this machine, 2 of sessions it does not have" in str(stopped.value)
    report = export(vault, home, accept_deleted=True)
    assert report.total("deleted") == 10


def test_many_notes_of_a_source_deleted_are_said_in_a_few_lines(tmp_path):
    """Past the first five, the notes of one source seen deleted are counted in one line
    (review43 L1: 23 lines, one per note); --verbose names every one."""
    from exporter.report import problem_lines

    home, vault = exported(tmp_path)
    notes = sorted((vault / "AI Sessions" / "claude-code").rglob("*.md"))
    for note in notes[1:]:
        note.unlink()
    report = export(vault, home)
    lines = [line for line in problem_lines(report.problems, False, False) if "deleted" in line]
    assert len(lines) == 6, lines
    assert lines[-1].startswith(f"warning: {len(notes) - 6} more notes of claude-code deleted")
    verbose = problem_lines(report.problems, False, True)
    assert sum("left deleted" in line for line in verbose) == len(notes) - 1
