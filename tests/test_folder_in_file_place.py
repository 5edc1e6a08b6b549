"""A folder where a session file belongs (Copilot's ``chatSessions/<id>.jsonl``, Cursor's
``globalStorage/state.vscdb``) is named, as Claude Code's and Codex's readers name it, not
skipped without a word; the notes are kept and come back with the file."""

from __future__ import annotations

import os
import shutil
from datetime import UTC
from pathlib import Path

import pytest
from conftest import note_files

from exporter.export import ExportOptions, run_export

EXAMPLE = Path(__file__).parent.parent / "examples" / "home"
PLACES = {
    "copilot": ".config/Code/User/workspaceStorage/a1b2c3/chatSessions/"
    "c0b1107a-5e55-4a0d-9c1e-000000000001.jsonl",
    "cursor": ".config/Cursor/User/globalStorage/state.vscdb",
}


@pytest.mark.parametrize("source", sorted(PLACES))
def test_a_folder_in_a_session_files_place_is_named(tmp_path, source):
    home, vault = tmp_path / "home", tmp_path / "v"
    shutil.copytree(EXAMPLE / ".config", home / ".config", symlinks=True)
    options = ExportOptions(vault=vault, home=home, timezone=UTC, sources=[source])
    run_export(options)
    before = note_files(vault)
    path = home / PLACES[source]
    kept = tmp_path / "kept"
    shutil.move(path, kept)
    os.mkdir(path)
    report = run_export(options)
    said = [p for p in report.problems if p.path == str(path)]
    assert said and "a folder, not a file" in said[0].message
    assert note_files(vault) == before
    os.rmdir(path)
    shutil.move(kept, path)
    os.utime(path)
    assert not run_export(options).failed
    assert note_files(vault) == before
