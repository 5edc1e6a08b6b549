"""What the person decided of the assistant's work (a plan approved, an edit kept or
rejected, a reply voted on) is a ``decision`` notice, titled as the person's ("User's
decision"), not the harness's "Notification" it was. Both renderings agree; a template
written before the kind shows it as the notification it was."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from exporter.markdown_code import REFERENCE_ENV
from exporter.model import Message, NoticePart, Session, TextPart
from exporter.notes import NoteSettings, build_note
from exporter.render import default_templates_dir

WHEN = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
DECIDED = "The user approved the plan."
HARNESS = "Context truncated: messages 1-4 were left out of what the model saw."
DECISION_BRANCH = (
    '{% elif item.kind == "notice" and item.notice == "decision" %}\n'
    '{{ item.text | literal | callout("note", "User\'s decision", folded=False) }}\n'
)


def _session() -> Session:
    return Session(
        source="claude-code",
        session_id="s1",
        source_path=Path("/logs/s1.jsonl"),
        messages=(
            Message("user", (TextPart("Plan the carts table"),), "u1", WHEN),
            Message("assistant", (TextPart("Here is the plan."),), "a1", WHEN),
            Message("system", (NoticePart("decision", DECIDED),), "d1", WHEN),
            Message("system", (NoticePart("notification", HARNESS),), "n1", WHEN),
        ),
        started_at=WHEN,
        ended_at=WHEN,
    )


def _titles(body: str) -> list[tuple[str, str]]:
    return re.findall(r"^> \[!(\w+)\] (.+)$", body, re.MULTILINE)


@pytest.mark.parametrize("reference", [False, True])
def test_a_decision_is_titled_as_the_persons_and_a_notification_stays_one(reference, monkeypatch):
    if reference:  # (Jinja with the shipped template, not its Python rendering)
        monkeypatch.setenv(REFERENCE_ENV, "1")
    body = build_note(_session(), "n.md", NoteSettings(timezone=UTC), lambda k: None).body
    assert _titles(body)[1:] == [("note", "User's decision"), ("info", "Notification")]
    assert f"> [!note] User's decision\n>\n> {DECIDED}\n" in body


def test_a_template_written_before_shows_a_decision_as_a_notification(tmp_path):
    shipped = (default_templates_dir() / "session.md.j2").read_text()
    before = shipped.replace(DECISION_BRANCH, "")
    assert before != shipped
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "session.md.j2").write_text(before)
    settings = NoteSettings(timezone=UTC, templates=folder)
    body = build_note(_session(), "n.md", settings, lambda k: None).body
    assert _titles(body)[1:] == [("info", "Notification")] * 2
    assert f"> [!info] Notification\n>\n> {DECIDED}\n" in body
