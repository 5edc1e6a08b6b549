"""A note renamed in Obsidian (which rewrites the index's link to it), then deleted or moved
before a run: the index's rewritten link leads to a name no record holds, and the index was
taken for the person's edit (a needless conflict copy). The link's alias, the note's title,
still says whose it was. Found by the state-machine hunt (fault 5 of its report)."""

from __future__ import annotations

import os
import re
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import ClaudeSession

from exporter.export import ExportOptions, run_export

PROJECT = "/home/dev/work/app"


def session(home: Path, n: int, question: str | None = None, more: bool = False) -> str:
    sid = f"{n + 0xA0:08x}-1111-4111-8111-{n:012x}"
    s = ClaudeSession(sid, PROJECT, start=f"2026-03-0{n + 1}T10:00:00Z")
    s.user(question or f"question {n}")
    s.assistant("an answer")
    if more:
        s.user("and then?")
        s.assistant("another answer")
    s.write(home / ".claude/projects/-home-dev-work-app" / f"{sid}.jsonl")
    return sid


def export(vault: Path, home: Path):
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    assert not report.failed, report.problems
    return report


def conflicts(report, vault: Path) -> list:
    found = [c for c in [*report.changes, *report.indexes] if c.action.value == "conflict"]
    return found + list((vault / ".ccexport").glob("conflicts/*"))


def rename_in_obsidian(vault: Path, sid: str, new: str) -> tuple[Path, Path]:
    """The note renamed, and the index's link to it rewritten, as Obsidian does."""
    (note,) = [p for p in vault.rglob("*.md") if sid[:8] in p.name]
    renamed = note.parent / f"{new}.md"
    os.rename(note, renamed)
    index = vault / "AI Sessions/Projects/app.md"
    text = index.read_text(encoding="utf-8")
    link = re.compile(r"\[\[" + re.escape(note.stem) + r"(?=[|\]])")
    assert link.search(text)
    index.write_text(link.sub("[[" + new, text), encoding="utf-8")
    return note, renamed


@pytest.mark.parametrize(
    "then", ["deleted", "moved outside Obsidian", "source pruned, a run, then deleted"]
)
def test_an_index_is_no_edit_after_a_rename_then_a_delete_or_move(
    tmp_path: Path, then: str
) -> None:
    home, vault = tmp_path / "home", tmp_path / "vault"
    sid = session(home, 0)
    session(home, 1)
    export(vault, home)
    note, renamed = rename_in_obsidian(vault, sid, "Parser question")
    if then == "deleted":
        renamed.unlink()
    elif then == "moved outside Obsidian":
        os.rename(renamed, note.parent / "Archive me.md")
    else:  # Claude Code pruned the transcript; a run; then the note deleted
        (source,) = (home / ".claude/projects").rglob(f"{sid}.jsonl")
        source.unlink()
        export(vault, home)
        renamed.unlink()
        session(home, 2)  # a new session of the project: its index is written again
    report = export(vault, home)
    assert not conflicts(report, vault)


@pytest.mark.parametrize("title", ["%%", "🚀", "[[x]] | #tag ^b", "[[", "] ^"])
def test_a_title_of_no_letters_still_names_the_note(tmp_path: Path, title: str) -> None:
    """The alias is the title less what an alias cannot hold (``[ ] |``): a title of
    signs or emoji alone was compared by its letters and digits, none, and the index saved
    as the person's edit (found by the state machine with Obsidian's renames). A title of
    those characters alone is linked without an alias (it was an empty one, ``[[x|]]``,
    which Obsidian shows as nothing)."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    sid = session(home, 0, title)
    session(home, 1)
    export(vault, home)
    (note,) = [p for p in vault.rglob("*.md") if sid[:8] in p.name]
    index = (vault / "AI Sessions/Projects/app.md").read_text(encoding="utf-8")
    assert "|]]" not in index and (f"[[{note.stem}]]" in index) == (title == "[[")
    _, renamed = rename_in_obsidian(vault, sid, "Parser question")
    renamed.unlink()
    assert not conflicts(export(vault, home), vault)


@pytest.mark.parametrize("other", ["listed beside it", "new since"])
def test_two_notes_of_one_title_the_hash_tells_which_the_link_was(
    tmp_path: Path, other: str
) -> None:
    """The link's alias is the title two notes share: another note of it listed in the index
    as well, or one new since the index was written (found by the state machine with
    Obsidian's renames). Each is tried: the one whose link, put back, gives the text the
    end marker's hash was made from is the one (a conflict copy was saved before)."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    sid = session(home, 0, "why does it fail")
    if other == "listed beside it":
        session(home, 1, "why does it fail")
    export(vault, home)
    _, renamed = rename_in_obsidian(vault, sid, "Parser question")
    renamed.unlink()
    if other == "new since":
        session(home, 1, "why does it fail")
    report = export(vault, home)
    assert not conflicts(report, vault)
    index = (vault / "AI Sessions/Projects/app.md").read_text(encoding="utf-8")
    (kept,) = [p for p in vault.rglob("*.md") if "000000a1" in p.name]
    assert f"[[{kept.stem}|why does it fail]]" in index and "Parser question" not in index


def test_a_link_the_person_pointed_at_their_own_note_stays_their_edit(tmp_path: Path) -> None:
    """A link the person pointed at a note of their own (that exists) is their edit, its
    alias the session's title or not."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    sid = session(home, 0)
    session(home, 1)
    export(vault, home)
    (note,) = [p for p in vault.rglob("*.md") if sid[:8] in p.name]
    (vault / "My parser notes.md").write_text("mine\n", encoding="utf-8")
    index = vault / "AI Sessions/Projects/app.md"
    text = index.read_text(encoding="utf-8")
    index.write_text(text.replace(f"[[{note.stem}|", "[[My parser notes|"), encoding="utf-8")
    note.unlink()  # (the note gone too: the index is written again)
    report = export(vault, home)
    assert conflicts(report, vault)


def test_a_link_whose_name_another_note_took_by_hand_is_read_as_written(tmp_path: Path) -> None:
    """One note renamed in Obsidian (the index rewritten), another moved away by hand and a
    third moved by hand onto its old name: the index's link to that name still reads as
    written (it was the second note's then), not as Obsidian's link to the third, which
    took it for the person's edit (a needless conflict copy). Found by the state machine."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    sids = [session(home, n) for n in range(3)]
    export(vault, home)
    rename_in_obsidian(vault, sids[0], "Renamed zero")
    one, two = ([p for p in vault.rglob("*.md") if sid[:8] in p.name][0] for sid in sids[1:])
    os.rename(one, one.parent / "One moved.md")
    os.rename(two, one)
    session(home, 1, "question 1", more=True)  # it grew: its note is followed, then updated
    report = export(vault, home)
    assert not conflicts(report, vault)
    index = (vault / "AI Sessions/Projects/app.md").read_text(encoding="utf-8")
    assert "[[One moved|question 1]]" in index and f"[[{one.stem}|question 2]]" in index


def test_a_renamed_notes_name_taken_by_hand_after_it_was_deleted(tmp_path: Path) -> None:
    """A note renamed in Obsidian (the index's link rewritten to its new name), deleted,
    and another note moved by hand onto that name: the index's link leads to the other
    note, but its alias still names the deleted one, whose link Obsidian rewrote. Found by
    the state machine."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    sids = [session(home, n) for n in range(3)]
    export(vault, home)
    _, renamed = rename_in_obsidian(vault, sids[0], "Renamed zero")
    renamed.unlink()
    (one,) = [p for p in vault.rglob("*.md") if sids[1][:8] in p.name]
    os.rename(one, renamed)
    session(home, 2, "question 2", more=True)  # the index is written again
    report = export(vault, home)
    assert not conflicts(report, vault)
    index = (vault / "AI Sessions/Projects/app.md").read_text(encoding="utf-8")
    assert "question 0" not in index and "[[Renamed zero|question 1]]" in index


def test_a_note_of_the_same_title_that_took_a_deleted_notes_name_then_was_renamed(
    tmp_path: Path,
) -> None:
    """Two notes of one title: the first renamed in Obsidian, then deleted; the second moved
    by hand onto its name, then renamed in Obsidian, which rewrote the first one's link in
    the index to the second's new name. That link leads to the second note, and its alias
    is both notes' title: the first is tried too, and the hash says the link was its.
    Found by the state machine."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    sids = [session(home, n, "__init__") for n in range(2)]
    export(vault, home)
    _, renamed = rename_in_obsidian(vault, sids[0], "Renamed zero")
    export(vault, home)
    renamed.unlink()
    (one,) = [p for p in vault.rglob("*.md") if sids[1][:8] in p.name]
    os.rename(one, renamed)  # by hand onto the deleted note's name
    index = vault / "AI Sessions/Projects/app.md"
    os.rename(renamed, renamed.with_name("Renamed one.md"))  # in Obsidian: every link follows
    index.write_text(index.read_text().replace("[[Renamed zero|", "[[Renamed one|"))
    report = export(vault, home)
    assert not conflicts(report, vault)
    assert "[[Renamed one|__init__]]" in index.read_text()
