"""A folder ccexport writes below that is a symbolic link (the notes folder kept elsewhere
and linked in): ``doctor`` names it and says what to do, and the export says so once, not
once per note (review29 F1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from vault_builder import export, write_session

from exporter.doctor import vault_checks

SIDS = [f"0a1b2c3d-0000-4000-8000-00000000000{n}" for n in range(3)]


def _linked(tmp_path: Path, folder: str) -> tuple[Path, Path]:
    home, real, vault = tmp_path / "home", tmp_path / "real", tmp_path / "v"
    for n, sid in enumerate(SIDS):
        write_session(home, [f"q{n}"], sid=sid)
    export(real, home)
    vault.mkdir()
    target = tmp_path / "elsewhere"
    if (real / folder).exists():
        (real / folder).rename(target)
    else:  # (no attachments in these sessions)
        target.mkdir()
    (vault / folder).parent.mkdir(parents=True, exist_ok=True)
    (vault / folder).symlink_to(target, target_is_directory=True)
    return home, vault


@pytest.mark.parametrize("folder", ["AI Sessions", "attachments", ".ccexport"])
def test_doctor_names_a_linked_folder_and_what_to_do(tmp_path, folder):
    _, vault = _linked(tmp_path, folder)
    said = [c for c in vault_checks(vault) if "symbolic link" in c.message]
    assert [c.status for c in said] == ["attention"], said
    assert str(vault / folder) in said[0].message
    assert "point --vault at the vault that holds the real folder" in said[0].message


def test_the_export_says_it_once_for_every_note_below_the_link(tmp_path):
    home, vault = _linked(tmp_path, "AI Sessions")
    report = export(vault, home)
    assert report.total("failed") == 3
    linked = [p for p in report.problems if str(vault / "AI Sessions") == p.path]
    assert len(linked) == 1 and "(3 notes not written)" in linked[0].message, report.problems
    assert "point --vault" in linked[0].message
    per_note = [p for p in report.problems if p.path.endswith("0a1b2c3d.md")]
    assert per_note == [], per_note
