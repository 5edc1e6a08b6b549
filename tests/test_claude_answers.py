"""What the person said to Claude Code through a tool (review26 F2): their answers to an
``AskUserQuestion`` call and what they typed when they rejected a call (a plan of
``ExitPlanMode``) are theirs. The call's callout keeps the question and Claude Code's
result; the person's words stand after it as a turn of their own, at the result's time, and
count as prompts. A plan approved is a click, not words: it stays the call's output.
Synthetic transcripts only."""

from __future__ import annotations

import re

import yaml
from claude_builder import ClaudeSession, tool_use
from conftest import load_sessions, the_exported_note

from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.model import Session, TextPart

SID = "a5a5a5a5-1111-4222-8333-444444444444"
FOLDER = ("projects", "-w-shop")
QUESTION = "Which database should the shop use?"
OTHER = "Should the cart survive a restart?"
ANSWERED = (
    f'User has answered your questions: "{QUESTION}"="Postgres, we run it already", '
    f'"{OTHER}"="Yes". You can now continue with the user\'s answers in mind.'
)
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file). To tell you how to "
    "proceed, the user said:\n"
)


def _asked(s: ClaudeSession, rich: dict | None, output: str = ANSWERED) -> None:
    questions = [
        {"question": QUESTION, "header": "Database",
         "options": [{"label": "Postgres", "description": "a server"},
                     {"label": "SQLite", "description": "a file"}], "multiSelect": False},
        {"question": OTHER, "header": "Cart",
         "options": [{"label": "Yes", "description": ""}, {"label": "No", "description": ""}],
         "multiSelect": False},
    ]  # fmt: skip
    s.assistant([tool_use("AskUserQuestion", {"questions": questions}, "toolu_ask")])
    s.at("09:40")
    s.tool_result("toolu_ask", output, rich=rich)
    s.assistant("Postgres it is.")


def _home(tmp_path, build) -> Session:
    s = ClaudeSession(SID, "/w/shop")
    s.at("09:00")
    s.user("plan the shop's storage")
    build(s)
    s.write(tmp_path.joinpath(".claude", *FOLDER, f"{SID}.jsonl"))
    (session,), _ = load_sessions(ClaudeCodeAdapter(), tmp_path)
    return session


def _said(session: Session) -> list[tuple[list[str], str]]:
    """The person's messages: their texts and the time."""
    return [
        ([p.text for p in m.parts if isinstance(p, TextPart)], f"{m.timestamp:%H:%M}")
        for m in session.messages
        if m.role == "user"
    ]


def test_the_answers_are_the_persons_message_at_the_time_they_gave_them(tmp_path):
    answers = {QUESTION: "Postgres, we run it already", OTHER: "Yes"}
    session = _home(tmp_path, lambda s: _asked(s, {"questions": [], "answers": answers}))
    assert _said(session) == [
        (["plan the shop's storage"], "09:00"),
        (["Postgres, we run it already", "Yes"], "09:40"),
    ]
    roles = [m.role for m in session.messages]
    assert roles == ["user", "assistant", "tool", "user", "assistant"]
    # The result itself stays the call's, as Claude Code gave it.
    assert session.messages[2].parts[0].output == ANSWERED


def test_answers_only_in_the_results_text_are_read_by_their_questions(tmp_path):
    session = _home(tmp_path, lambda s: _asked(s, None))
    assert _said(session)[1] == (["Postgres, we run it already", "Yes"], "09:40")


def test_a_note_the_person_added_to_an_answer_is_theirs_too(tmp_path):
    rich = {"answers": {QUESTION: "Postgres"}, "annotations": {QUESTION: {"notes": "v16"}}}
    session = _home(tmp_path, lambda s: _asked(s, rich))
    assert _said(session)[1] == (["Postgres", "v16"], "09:40")


def test_the_note_shows_the_answer_as_a_user_turn_and_counts_it(tmp_path):
    answers = {QUESTION: "Postgres, we run it already", OTHER: "Yes"}
    _home(tmp_path, lambda s: _asked(s, {"answers": answers}))
    note = the_exported_note(tmp_path, "claude-code")
    front = yaml.safe_load(note.split("---\n")[1])
    assert front["prompts"] == 2
    headings = re.findall(r"^### (.*)$", note, re.M)
    assert headings == ["User · 09:00", "Assistant · 09:00", "User · 09:40", "Assistant · 09:40"]
    # The question and Claude Code's result stay in the call's callout, above the answer.
    callout, answer = note.split("### User · 09:40")
    assert QUESTION in callout and "User has answered your questions" in callout
    assert "Postgres, we run it already\n\nYes\n" in answer


def test_what_the_person_said_when_rejecting_a_plan_is_theirs(tmp_path):
    def build(s: ClaudeSession) -> None:
        s.assistant([tool_use("ExitPlanMode", {"plan": "1. Add SQLite"}, "toolu_plan")])
        s.at("09:30")
        s.tool_result("toolu_plan", REJECTED + "No: we run Postgres already.", is_error=True)
        s.assistant("Revising the plan for Postgres.")

    session = _home(tmp_path, build)
    assert _said(session)[1] == (["No: we run Postgres already."], "09:30")
    assert session.messages[2].parts[0].not_run == "rejected"


def test_a_rejection_without_words_and_a_plan_approved_add_no_message(tmp_path):
    def build(s: ClaudeSession) -> None:
        s.assistant([tool_use("ExitPlanMode", {"plan": "1. Add SQLite"}, "toolu_plan")])
        s.tool_result(
            "toolu_plan",
            "The user doesn't want to proceed with this tool use. The tool use was rejected "
            "(eg. if it was a file edit, the new_string was NOT written to the file). STOP "
            "what you are doing and wait for the user to tell you how to proceed.",
            is_error=True,
        )
        s.assistant([tool_use("ExitPlanMode", {"plan": "1. Use Postgres"}, "toolu_plan2")])
        s.tool_result("toolu_plan2", "User has approved your plan. You can now start coding.")
        s.assistant([tool_use("AskUserQuestion", {"questions": []}, "toolu_ask")])
        # "Chat about this": Claude Code's own words, the person's come as their next prompt
        s.tool_result(
            "toolu_ask",
            REJECTED + "The user wants to clarify these questions.\n    This means …",
            is_error=True,
        )

    session = _home(tmp_path, build)
    assert [texts for texts, _ in _said(session)] == [["plan the shop's storage"]]


def test_an_answer_read_line_by_line_is_the_same(tmp_path):
    from claude_builder import both_readings

    s = ClaudeSession(SID, "/w/shop")
    s.user("plan the shop's storage")
    _asked(s, {"answers": {QUESTION: "Postgres", OTHER: "Yes"}})
    path = s.write(tmp_path / "s.jsonl")
    streamed, whole = both_readings(path)
    assert streamed == whole and [m.role for m in whole].count("user") == 2
