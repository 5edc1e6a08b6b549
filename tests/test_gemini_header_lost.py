"""A Gemini chat whose header line is lost (cut, a BOM, emptied) keeps its one identity:
it waits, said, and the repair leaves exactly the notes of a clean export (no second note
keyed by the file name's 8 characters, no subagent exported alone)."""

from __future__ import annotations

import os
import shutil
from datetime import UTC
from pathlib import Path

import pytest
from conftest import note_files

from exporter.export import ExportOptions, run_export

EXAMPLE = Path(__file__).parent.parent / "examples" / "home" / ".gemini"
CHATS = Path(".gemini/tmp/notes-app/chats")
CHAT = CHATS / "session-2026-11-21T14-05-6a1f0c2e.jsonl"


def export(home: Path, vault: Path):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, sources=["gemini"]))


def bom(data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


def cut_first(data: bytes) -> bytes:
    first, rest = data.split(b"\n", 1)
    return first[: len(first) // 2] + b"\n" + rest


def emptied(data: bytes) -> bytes:
    return b""


def touched(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))


@pytest.mark.parametrize("damage", [bom, cut_first, emptied])
@pytest.mark.parametrize("primed", [True, False])
def test_damage_then_repair_leaves_the_notes_of_a_clean_export(tmp_path, damage, primed):
    # (On a fresh vault the checkpoint saved from this session is dated by the run while
    # the session cannot be read, and keeps that name: compared without it.)
    home, vault, clean_vault = tmp_path / "home", tmp_path / "vault", tmp_path / "clean"
    shutil.copytree(EXAMPLE, home / ".gemini")
    export(home, clean_vault)
    clean = note_files(clean_vault)
    if primed:
        export(home, vault)
    pristine = (home / CHAT).read_bytes()
    touched(home / CHAT, damage(pristine))
    report = export(home, vault)
    assert [p.path for p in report.problems if "left out" in p.message] == [str(home / CHAT)]
    assert not report.empty_units  # said once: not also "without a conversation"
    damaged = note_files(vault)
    assert not any("6a1f0c2e" in name for name in set(damaged) - set(clean))
    touched(home / CHAT, pristine)
    export(home, vault)
    repaired = note_files(vault)
    if not primed:
        repaired = {k: v for k, v in repaired.items() if "suche vorher" not in k}
        clean = {k: v for k, v in clean.items() if "suche vorher" not in k}
        repaired = {k: v for k, v in repaired.items() if "6a1f0c2e" not in k}
        clean = {k: v for k, v in clean.items() if "6a1f0c2e" not in k}
    assert repaired == clean


def test_a_folder_that_is_no_session_id_lists_no_subagents(tmp_path):
    home, vault, clean_vault = tmp_path / "home", tmp_path / "vault", tmp_path / "clean"
    shutil.copytree(EXAMPLE, home / ".gemini")
    export(home, clean_vault)
    os.symlink(".", home / CHATS / "loop")  # a link back to chats/ itself
    export(home, vault)
    assert note_files(vault) == note_files(clean_vault)
