"""An edit inside a note's generated part, written anew, is saved where Obsidian shows it
(``AI Sessions/Conflicts/``), and the note says so below its end marker, with a link that
resolves; ``doctor`` counts the copies still there (review29 F11)."""

from __future__ import annotations

import re
from pathlib import Path

from vault_builder import export, the_note, write_session

from exporter import notefile
from exporter.doctor import vault_checks

LINK = re.compile(r"\[\[([^|\]]+)(?:\|[^\]]*)?\]\]")


def _edited_then_grown(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["one"])
    export(vault, home)
    note = the_note(vault)
    note.write_text(note.read_text().replace("reply to one", "reply to one MY EDIT", 1))
    write_session(home, ["one", "two"])
    return home, vault, note


def _said(note: Path) -> list[str]:
    return [line for line in note.read_text().splitlines() if "Your edit of" in line]


def test_the_edit_is_saved_in_a_visible_folder_and_the_note_links_to_it(tmp_path):
    home, vault, note = _edited_then_grown(tmp_path)
    report = export(vault, home)
    (conflict,) = report.conflicts()
    saved = conflict.message.rpartition("was saved to ")[2]
    assert saved.startswith("AI Sessions/Conflicts/"), saved
    copy = (vault / saved).read_text()
    assert "MY EDIT" in copy
    assert notefile.identity(notefile.parse(copy).metadata) is None  # no second copy of it
    parsed = notefile.parse(note.read_text())
    assert "MY EDIT" not in parsed.owned and "reply to two" in parsed.owned
    (line,) = _said(note)
    assert line in parsed.after  # below the end marker: the person's text, kept
    (target,) = LINK.findall(line)
    assert (vault / f"{target}.md").is_file()  # the link resolves in Obsidian
    assert not (vault / ".ccexport" / "conflicts").exists()
    again = export(vault, home)  # the copy is no note: no "second copy" warning
    assert not [p for p in again.problems if "copy" in p.message], again.problems


def test_a_later_run_keeps_the_line_once_and_respects_its_deletion(tmp_path):
    home, vault, note = _edited_then_grown(tmp_path)
    export(vault, home)
    (line,) = _said(note)
    write_session(home, ["one", "two", "three"])
    export(vault, home)
    assert _said(note) == [line]  # kept where the person left it, not said again
    assert "reply to three" in note.read_text()
    note.write_text(note.read_text().replace(line + "\n", "", 1))
    write_session(home, ["one", "two", "three", "four"])
    export(vault, home)
    assert _said(note) == []  # deleted by the person: not written back


def test_doctor_counts_the_copies_not_dealt_with_old_ones_too(tmp_path):
    home, vault, _ = _edited_then_grown(tmp_path)
    export(vault, home)
    old = vault / ".ccexport" / "conflicts" / "2025-01-02 030405 Old note.md"
    old.parent.mkdir(exist_ok=True)
    old.write_text("an edit saved by an earlier version\n")
    (check,) = [c for c in vault_checks(vault, "AI Sessions") if "saved aside" in c.message]
    assert check.status == "attention"
    assert "2 of your edits" in check.message
    assert "AI Sessions/Conflicts/" in check.message and ".ccexport/conflicts/" in check.message
    assert "Old note.md" in check.message
    for path in (vault / "AI Sessions" / "Conflicts").iterdir():
        path.unlink()  # dealt with
    old.unlink()
    assert not [c for c in vault_checks(vault, "AI Sessions") if "saved aside" in c.message]
