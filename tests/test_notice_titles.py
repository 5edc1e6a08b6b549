"""A notice is titled by what it is: an API error as one, another error an app showed (a
Gemini CLI ``error`` record, a failed subagent, Cline's error messages) as an "Error", a
warning as a "Warning"; they were all "API error", and a Gemini warning an info
"Notification". The shipped template and the note builder's own rendering of it agree; a
template written before shows an app's error as it did, an "API error" (review24 F3)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from exporter.markdown_code import REFERENCE_ENV
from exporter.model import Message, NoticePart, Session, TextPart
from exporter.notes import NoteSettings, build_note

WHEN = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
NOTICES = [
    (NoticePart("error", "API Error: 529 overloaded"), "warning", "API error"),
    (NoticePart("error", "Error executing tool replace: no file", app=True), "warning", "Error"),
    (
        NoticePart("error", "Traceback (most recent call last):\n  boom", app=True),
        "warning",
        "Error",
    ),
    (NoticePart("warning", "Approaching the session token limit"), "warning", "Warning"),
    (NoticePart("notification", "Switched to gemini-2.5-flash"), "info", "Notification"),
]


def _session() -> Session:
    parts = tuple(part for part, _, _ in NOTICES)
    return Session(
        source="gemini",
        session_id="s1",
        source_path=Path("/logs/s1.json"),
        messages=(
            Message("user", (TextPart("Fix the build"),), "u1", WHEN),
            Message("system", parts, "n1", WHEN),
        ),
        started_at=WHEN,
        ended_at=WHEN,
    )


@pytest.mark.parametrize("reference", [False, True])
def test_each_notice_has_its_own_title(reference, monkeypatch):
    if reference:
        monkeypatch.setenv(REFERENCE_ENV, "1")
    body = build_note(_session(), "n.md", NoteSettings(timezone=UTC), lambda k: None).body
    titles = re.findall(r"^> \[!(\w+)\] (.+)$", body, re.MULTILINE)
    assert titles[1:] == [(kind, title) for _, kind, title in NOTICES]
    assert "> ```text\n> Traceback (most recent call last):\n>   boom\n> ```" in body


def test_both_paths_give_the_same_note(monkeypatch):
    fast = build_note(_session(), "n.md", NoteSettings(timezone=UTC), lambda k: None).body
    monkeypatch.setenv(REFERENCE_ENV, "1")
    assert build_note(_session(), "n.md", NoteSettings(timezone=UTC), lambda k: None).body == fast


def test_a_template_written_before_shows_an_apps_error_as_it_did(tmp_path):
    """An app's error is an ``error`` notice with ``app`` (not a kind of its own, which a
    copy of the template made before would show as an info "Notification")."""
    from exporter.render import default_templates_dir

    shipped = (default_templates_dir() / "session.md.j2").read_text()
    before = shipped.replace('"Error" if item.app else "API error"', '"API error"')
    assert before != shipped
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "session.md.j2").write_text(before)
    settings = NoteSettings(timezone=UTC, templates=folder)
    body = build_note(_session(), "n.md", settings, lambda k: None).body
    titles = re.findall(r"^> \[!(\w+)\] (.+)$", body, re.MULTILINE)
    assert titles[1:4] == [("warning", "API error")] * 3
