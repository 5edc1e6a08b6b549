"""Cursor Agent transcripts: a turn that did not succeed is said where it ended. Cursor
closes a turn with ``{"type": "turn_ended", "status": …}``: ``aborted`` ("User
aborted/interrupted manually.", Escape in the CLI) and ``error`` "User aborted request" (the
IDE's stop button) are the person's interruption; another ``error`` is the turn's failure
(a usage limit, a provider's refusal). They were read as a turn's end only, in silence."""

from __future__ import annotations

from datetime import UTC, datetime

from conftest import note_files
from cursor_agent_builder import AgentChat, tool

from exporter.export import ExportOptions, run_export

CHAT = "3f2a9c1e-7b4d-4e8f-9a6b-0c1d2e3f4a5b"
T0 = datetime(2026, 4, 28, 7, 15, tzinfo=UTC)


def _note(tmp_path, *ended: dict) -> tuple[str, list]:
    chat = AgentChat(tmp_path / "home", "/home/dev/work/api", CHAT)
    chat.user("run the tests", T0, 3)
    chat.reply("Running them.", tool("Shell", command="pytest -q", description="Run tests"))
    for record in ended:
        chat.line(record)
    chat.user("and the linter?", datetime(2026, 4, 28, 7, 20, tzinfo=UTC), 3)
    chat.reply("Lint is clean.")
    chat.line({"type": "turn_ended", "status": "success"})
    chat.write()
    options = ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", sources=["cursor"],
                            timezone=UTC)  # fmt: skip
    report = run_export(options)
    (note,) = note_files(tmp_path / "v").values()
    return note.decode("utf-8"), report.problems


def test_an_aborted_turn_is_an_interruption(tmp_path):
    aborted = {
        "type": "turn_ended",
        "status": "aborted",
        "error": "User aborted/interrupted manually.",
    }
    text, problems = _note(tmp_path, aborted)
    assert problems == []
    assert text.count("*Interrupted by the user.*") == 1
    assert text.index("Running them.") < text.index("*Interrupted") < text.index("and the linter?")
    assert "User aborted" not in text


def test_the_ides_stop_button_is_an_interruption_too(tmp_path):
    stopped = {"type": "turn_ended", "status": "error", "error": "User aborted request"}
    text, problems = _note(tmp_path, stopped)
    assert problems == []
    assert text.count("*Interrupted by the user.*") == 1
    assert "API error" not in text


def test_a_failed_turn_says_why(tmp_path):
    failed = {
        "type": "turn_ended",
        "status": "error",
        "error": "You've reached your monthly usage limit",
    }
    text, problems = _note(tmp_path, failed)
    assert problems == []
    assert "API error" in text and "monthly usage limit" in text
    assert (
        text.index("Running them.")
        < text.index("monthly usage limit")
        < text.index("and the linter?")
    )
    assert "Interrupted" not in text


def test_an_error_whose_text_is_an_object_says_its_message(tmp_path):
    failed = {"type": "turn_ended", "status": "error", "error": {"message": "The provider refused"}}
    text, problems = _note(tmp_path, failed)
    assert problems == [] and "The provider refused" in text


def test_a_successful_turn_says_nothing_and_an_unknown_status_is_reported(tmp_path):
    text, problems = _note(tmp_path, {"type": "turn_ended", "status": "success"})
    assert problems == [] and "Interrupted" not in text and "API error" not in text
    text, problems = _note(tmp_path / "2", {"type": "turn_ended", "status": "paused"})
    assert [p.message for p in problems] == ["unknown turn_ended status 'paused' skipped"]
    assert "Interrupted" not in text and "Lint is clean." in text
