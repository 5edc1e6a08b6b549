"""``--restore`` writes again a note deleted at the freed name of another deleted note
(found by the vault state machine, shrunk from 27 steps).

Session B's note is deleted (a run records it). The person gives B's freed name to session
C's note (README: "If you give its old name to another note ..."), a run sees it, and then
deletes C's note too. ``ccexport --restore`` writes B's note again, but not C's: C's
deletion was first seen in that run, after B's restored note took the path C's record names,
and was recorded silently (no "deleted in the vault" line for C, ever). Only a second
``--restore`` brings C back. README: "``ccexport --restore`` writes such notes again."
"""

from __future__ import annotations

import os
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession

from exporter.export import ExportOptions, ExportReport, run_export

PROJECT = "/home/dev/work/app"


def session(home: Path, n: int) -> str:
    sid = f"{n + 0xA0:08x}-1111-4111-8111-{n:012x}"
    s = ClaudeSession(sid, PROJECT, start=f"2026-03-0{n + 1}T10:00:00Z")
    s.user(f"question {n}")
    s.assistant("an answer")
    s.write(home / ".claude/projects/-home-dev-work-app" / f"{sid}.jsonl")
    return sid


def note_of(vault: Path, sid: str) -> list[Path]:
    return [p for p in vault.rglob("*.md") if f"session_id: {sid}\n" in p.read_text("utf-8")]


def test_restore_brings_back_a_note_deleted_at_the_name_of_another_deleted_note(
    tmp_path: Path,
) -> None:
    home, vault = tmp_path / "home", tmp_path / "vault"
    b, c = session(home, 1), session(home, 2)

    def export(**kw) -> ExportReport:
        report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1, **kw))
        assert not report.failed, report.problems
        return report

    export()
    (pb,), (pc,) = note_of(vault, b), note_of(vault, c)
    pb.unlink()
    export()  # "deleted in the vault; left deleted"
    os.rename(pc, pb)  # C's note takes B's freed name
    export()
    pb.unlink()  # and is deleted too
    export(restore=True)
    assert len(note_of(vault, b)) == 1
    assert len(note_of(vault, c)) == 1, "--restore did not write C's note again"
