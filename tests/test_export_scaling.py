"""Work that must not grow with sessions x project folders: looking for other copies of a
Claude Code session lists each project folder once instead of probing it for every session."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession

from exporter.export import ExportOptions, run_export

FOLDERS, PER_FOLDER = 20, 3


def test_copies_are_looked_for_without_probing_every_folder_for_every_session(
    tmp_path, monkeypatch
):
    home, vault = tmp_path / "home", tmp_path / "vault"
    for f in range(FOLDERS):
        for n in range(PER_FOLDER):
            sid = f"{f:04x}{n:04x}-0000-4000-8000-000000000000"
            s = ClaudeSession(sid, f"/home/dev/p{f}", start="2026-11-20T09:00:00Z")
            s.user(f"prompt {f} {n}")
            s.assistant("reply")
            s.write(home / ".claude" / "projects" / f"-home-dev-p{f}" / f"{sid}.jsonl")
    probed = []
    real_is_file = Path.is_file
    monkeypatch.setattr(Path, "is_file", lambda self: probed.append(self) or real_is_file(self))

    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))

    assert not report.failed and len(report.changes) >= FOLDERS * PER_FOLDER
    jsonl = [p for p in probed if p.suffix == ".jsonl"]
    # One probe per session at most (its own file); probing names in every folder: 2400.
    assert len(jsonl) <= FOLDERS * PER_FOLDER, len(jsonl)


def test_a_no_op_run_checks_each_note_with_one_lstat_and_still_sees_a_deletion(
    tmp_path, monkeypatch
):
    from exporter import vaultio

    home, vault = tmp_path / "home", tmp_path / "vault"
    for n in range(5):
        sid = f"0000{n:04x}-0000-4000-8000-000000000000"
        s = ClaudeSession(sid, "/home/dev/p", start="2026-11-20T09:00:00Z")
        s.user(f"prompt {n}")
        s.assistant("reply")
        s.write(home / ".claude" / "projects" / "-home-dev-p" / f"{sid}.jsonl")
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=1)
    run_export(options)
    walks = []
    real_kind = vaultio.kind
    monkeypatch.setattr(
        vaultio,
        "kind",
        lambda root, rel: (rel.endswith(".md") and walks.append(rel)) or real_kind(root, rel),
    )

    report = run_export(options)
    assert not report.failed and walks == []  # five notes there: no folder walked

    gone = next(vault.rglob("*prompt 3*.md"))
    gone.unlink()
    report = run_export(options)
    assert [c.relpath for c in report.changes if c.action.name == "DELETED"] == [
        str(gone.relative_to(vault))
    ]
    # Of the session notes, only the missing one is looked at the safe way.
    assert {w for w in walks if "/claude-code/" in w} == {str(gone.relative_to(vault))}
