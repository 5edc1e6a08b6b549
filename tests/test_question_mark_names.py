"""A question mark that ends a word is left out of a new note's file name ("…written offline
9f8e7d6c.md", not "…offline- 9f8e7d6c.md"); one inside a word still becomes "-", names stay
safe everywhere, and a note already written keeps its name."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from claude_builder import ClaudeSession
from conftest import note_files
from hypothesis import given
from hypothesis import strategies as st

from exporter import export as export_module
from exporter.export import ExportOptions, run_export
from exporter.model import Session
from exporter.notes import NoteSettings, default_relpath
from exporter.vaultpaths import safe_component, safe_relpath

SESSION = Session(
    "gemini", "9f8e7d6c-0000-4000-8000-000000000000", (), Path(),
    title="Why does the sync lose notes written offline?", project="notes-app",
    started_at=datetime(2026, 10, 2, tzinfo=UTC),
)  # fmt: skip


def name_of(title: str) -> str:
    """The new note's name, as the vault places it (``safe_relpath``)."""
    path = default_relpath(replace(SESSION, title=title), NoteSettings(), None)
    return safe_relpath(path).rpartition("/")[2]


def test_a_question_mark_that_ends_a_word_is_left_out_of_the_name():
    assert name_of(SESSION.title) == (
        "2026-10-02 Why does the sync lose notes written offline 9f8e7d6c.md"
    )
    assert name_of("what?! it broke") == "2026-10-02 what! it broke 9f8e7d6c.md"
    assert name_of("is it (really??) slow") == "2026-10-02 is it (really) slow 9f8e7d6c.md"
    assert name_of("是吗?") == "2026-10-02 是吗 9f8e7d6c.md"


def test_a_question_mark_inside_a_word_still_becomes_a_hyphen():
    assert name_of("open page.php?id=3 now") == "2026-10-02 open page.php-id=3 now 9f8e7d6c.md"
    assert name_of("a ? b") == "2026-10-02 a - b 9f8e7d6c.md"  # (no word before it)


# Words without a character a file name cannot hold (nor "-", nor ":", which becomes " -").
_WORD = st.text(st.characters(categories=("L", "N"), exclude_characters="-"), min_size=1)
_ASKED = st.tuples(_WORD, st.sampled_from(["", "?", "??", "?!", "?)", "?."]))


@given(st.lists(_ASKED, min_size=1, max_size=12))
def test_no_name_gains_a_hyphen_from_a_question_mark_that_ends_a_word(words):
    title = " ".join(word + mark for word, mark in words)
    name = name_of(title)
    assert "?" not in name
    # The date's two hyphens are the name's only ones.
    assert name.count("-") == 2, (title, name)


@given(st.text(max_size=200))
def test_every_name_is_still_safe(title):
    path = safe_relpath(default_relpath(replace(SESSION, title=title), NoteSettings(), None))
    assert safe_relpath(path) == path and path.count("/") == 3
    name = path.rpartition("/")[2]
    assert safe_component(name) == name and name.endswith(" 9f8e7d6c.md") and "?" not in name
    assert len(name.encode()) <= 200


def test_a_note_written_before_keeps_its_name(tmp_path, monkeypatch):
    """A note named as before (the "?" made "-") stays where it is when its session grows,
    also once the state is lost: only new notes take the new names."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    sid = "44444444-4444-4444-8444-444444444444"
    log = home / ".claude" / "projects" / "-home-dev-work-project" / f"{sid}.jsonl"
    s = ClaudeSession(sid, start="2026-11-20T09:00:00Z")
    s.user("Why does the sync lose notes?")
    s.assistant("Because of the cache.")
    s.write(log)

    def as_before(session, settings, parent_path):  # the name an older version gave
        path = default_relpath(session, settings, parent_path)
        return path.replace(" notes 44444444.md", " notes- 44444444.md")

    monkeypatch.setattr(export_module, "default_relpath", as_before)
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    monkeypatch.undo()
    (old,) = note_files(vault)
    assert old.endswith("Why does the sync lose notes- 44444444.md"), old

    s.user("And how do I clear it?")
    s.assistant("Delete the folder.")
    s.write(log)
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert report.total("updated") == 1 and list(note_files(vault)) == [old]

    state = vault / ".ccexport" / "state.json"
    assert json.loads(state.read_text(encoding="utf-8"))  # (the state the run wrote)
    state.unlink()
    s.user("Thanks?")
    s.write(log)
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert not report.failed and list(note_files(vault)) == [old]
    assert "Thanks" in (vault / old).read_text(encoding="utf-8")
