"""A Gemini chat whose header line is lost (cut, a BOM) keeps its one identity: it is
exported under the full id its subagents' folder gives, said, and the repair leaves the
notes of a clean export (no second note keyed by the file name's 8 characters, no subagent
exported alone); an emptied one waits, said."""

from __future__ import annotations

import os
import shutil
from datetime import UTC
from pathlib import Path

import pytest
import yaml
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


def by_session(vault: Path) -> dict[str, tuple[dict, str]]:
    """Each note's frontmatter and body, by its session's id."""
    out = {}
    for note in note_files(vault).values():
        _, head, body = note.decode().split("---\n", 2)
        meta = yaml.safe_load(head)
        out[meta["session_id"]] = (meta, body)
    return out


FULL_ID = "6a1f0c2e-4b3d-4e5f-8a9b-0c1d2e3f4a5b"  # (its subagents' folder's name)
SAID = (
    "the line naming the session (its first: id and title) could not be read: exported "
    "under the id its subagents' folder gives, titled by its first prompt"
)


def damaged_export(tmp_path: Path, damage, primed: bool):
    """The example home exported clean, then (into a vault that held it, if ``primed``, or
    a new one) with its chat's file ``damage``d: (home, vault, the clean vault, the file as
    it was, the damaged run's report)."""
    home, vault, clean_vault = tmp_path / "home", tmp_path / "vault", tmp_path / "clean"
    shutil.copytree(EXAMPLE, home / ".gemini")
    export(home, clean_vault)
    if primed:
        export(home, vault)
    pristine = (home / CHAT).read_bytes()
    touched(home / CHAT, damage(pristine))
    return home, vault, clean_vault, pristine, export(home, vault)


@pytest.mark.parametrize("damage", [bom, cut_first])
@pytest.mark.parametrize("primed", [True, False])
def test_a_lost_header_costs_the_title_not_the_note(tmp_path, damage, primed):
    """A header damaged for good (adapters11): the rest of the file is exported, under the
    full id its subagents' folder is named by, so the repair leaves the notes of a clean
    export (no second note keyed by the file name's 8 characters, no subagent alone); the
    title is the first prompt's meanwhile, an alias kept after the repair."""
    home, vault, clean_vault, pristine, report = damaged_export(tmp_path, damage, primed)
    clean = by_session(clean_vault)
    said = [p.message for p in report.problems if p.path == str(home / CHAT) and p.line is None]
    assert said == [SAID]
    damaged = by_session(vault)
    assert set(damaged) == set(clean)  # (the full ids, the subagent's with them)
    meta, body = damaged[FULL_ID]
    assert meta["title"].startswith("Könntest du die Suche")
    assert body.count("### ") == clean[FULL_ID][1].count("### ")  # the whole conversation
    assert len(meta["subagents"]) == 1  # (linked, not exported alone)
    touched(home / CHAT, pristine)
    export(home, vault)
    repaired = by_session(vault)
    assert set(repaired) == set(clean)
    for session, (meta, body) in repaired.items():
        if session.endswith("/checkpoint/suche vorher") and not primed:
            continue  # (dated by the run while its session had no id to match)
        assert meta["title"] == clean[session][0]["title"]
        assert set(meta["aliases"]) >= set(clean[session][0]["aliases"])
        # (a note first written while the title was lost keeps its file's name, and the
        # links to it theirs)
        assert body == clean[session][1] or not primed


@pytest.mark.parametrize("primed", [True, False])
def test_an_emptied_chat_waits_then_its_repair_leaves_the_notes_of_a_clean_export(tmp_path, primed):
    home, vault, clean_vault, pristine, report = damaged_export(tmp_path, emptied, primed)
    clean = note_files(clean_vault)
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
