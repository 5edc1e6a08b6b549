"""Note paths made from session data hold on every file system a vault may live on or be
synced to: no two notes of a run differ by case alone, and long names keep what tells
them apart."""

from __future__ import annotations

from pathlib import Path

from conftest import note_files
from vault_builder import export, write_session

SID2 = "0a1b2c3d-0000-4000-8000-00000000000b"


def test_notes_whose_paths_differ_by_case_alone_get_two_names(tmp_path: Path):
    """``C:\\w\\MyApp`` and ``C:\\w\\myapp`` (PowerShell keeps the case typed) are one
    folder on Windows, but two projects here: their index notes ``Projects/MyApp.md`` and
    ``Projects/myapp.md`` would be one file on macOS or Windows, the second overwriting the
    first. So would their session notes, of the same day, title and id prefix."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"], cwd="/w/MyApp")
    write_session(home, ["q"], sid=SID2, cwd="/w/myapp")
    report = export(vault, home)
    assert not report.failed
    paths = list(note_files(vault, index=True))
    folded = {p.casefold() for p in paths}
    assert len(folded) == len(paths)
    projects = [p for p in paths if "/Projects/" in p]
    assert len(projects) == 2
    texts = [(vault / p).read_text() for p in projects]
    assert any("project: MyApp" in t for t in texts) and any("project: myapp" in t for t in texts)
