"""What a Claude Code tool result tells of the person, shown as theirs (claudefix2): text they
sent with a tool's result is a turn of their own (never a rewind, never twice); their
decision on a plan is said in words where they made it; an edit they changed before
accepting it says so and shows what was written; a shell command they stopped is cancelled,
not failed; a compaction says how full the context was. Synthetic transcripts only."""

from __future__ import annotations

import re

import pytest
import yaml
from claude_builder import ClaudeSession, both_readings, tool_use
from conftest import load_sessions, the_exported_note

from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.markdown_code import REFERENCE_ENV
from exporter.model import NoticePart, Session, SummaryPart, TextPart, ToolResultPart

SID = "b6b6b6b6-1111-4222-8333-444444444444"
FOLDER = ("projects", "-w-shop")
PLAN = "1. Add a carts table\n2. Keep carts for a week"
APPROVED = (
    "User has approved your plan. You can now start coding. Start with updating your todo "
    "list if applicable\n\nYour plan has been saved to: /home/dev/.claude/plans/p.md\nYou can "
    "refer back to it if needed during implementation.\n\n## Approved Plan:\n" + PLAN
)
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file). To tell you how to "
    "proceed, the user said:\n"
)


def _session(tmp_path, build) -> ClaudeSession:
    s = ClaudeSession(SID, "/w/shop")
    s.at("09:00")
    s.user("plan the carts")
    build(s)
    s.write(tmp_path.joinpath(".claude", *FOLDER, f"{SID}.jsonl"))
    return s


def _load(tmp_path, build) -> Session:
    _session(tmp_path, build)
    (session,), _ = load_sessions(ClaudeCodeAdapter(), tmp_path)
    return session


def _notices(session: Session) -> list[tuple[str, str]]:
    return [
        (m.role, p.text)
        for m in session.messages
        for p in m.parts
        if isinstance(p, NoticePart) and p.notice == "decision"
    ]


def _front(note: str) -> dict:
    return yaml.safe_load(note.split("---\n")[1])


# -- text sent with a tool's result ----------------------------------------------------------


def _typed_alongside(s: ClaudeSession, result: dict | None = None) -> None:
    s.assistant([tool_use("Bash", {"command": "pytest"}, "toolu_run"),
                 tool_use("Bash", {"command": "ruff check"}, "toolu_lint")])  # fmt: skip
    call = s.last
    s.at("09:05")
    s.tool_result("toolu_run", "3 passed")
    # The second call's result, with what the person typed while it ran: its parent is the
    # call's line, which has another child already (a tool flow's sibling, no rewind).
    block = result or {"type": "tool_result", "tool_use_id": "toolu_lint", "content": "ok"}
    s.user([block, {"type": "text", "text": "also bump the version"}], parent=call)
    s.assistant("Tests and lint pass; bumping the version.")


def test_text_sent_with_a_result_is_the_persons_turn_after_it(tmp_path):
    session = _load(tmp_path, _typed_alongside)
    roles = [m.role for m in session.messages]
    assert roles == ["user", "assistant", "tool", "tool", "user", "assistant"]
    tool, said = session.messages[3], session.messages[4]
    assert [type(p) for p in tool.parts] == [ToolResultPart]
    # Not marked as going back to an earlier point: the line answers the call it follows.
    assert said.parts == (TextPart("also bump the version"),)
    assert f"{said.timestamp:%H:%M}" == "09:05"


def test_the_note_counts_it_as_a_prompt_and_shows_it_once(tmp_path):
    _session(tmp_path, _typed_alongside)
    note = the_exported_note(tmp_path, "claude-code")
    assert _front(note)["prompts"] == 2
    assert note.count("also bump the version") == 1
    assert "went back to an earlier point" not in note
    assert re.findall(r"^### (.*)$", note, re.M) == [
        "User · 09:00", "Assistant · 09:00", "User · 09:05", "Assistant · 09:05"
    ]  # fmt: skip


def test_an_answer_in_a_line_with_text_beside_it_is_the_persons_too(tmp_path):
    def build(s: ClaudeSession) -> None:
        questions = [{"question": "Keep carts how long?", "header": "Carts",
                      "options": [{"label": "A week", "description": ""}],
                      "multiSelect": False}]  # fmt: skip
        s.assistant([tool_use("AskUserQuestion", {"questions": questions}, "toolu_ask")])
        s.at("09:10")
        answered = (
            'User has answered your questions: "Keep carts how long?"="A week". You can now '
            "continue with the user's answers in mind."
        )
        s.user(
            [{"type": "tool_result", "tool_use_id": "toolu_ask", "content": answered},
             {"type": "text", "text": "and log every expiry"}],
            toolUseResult={"answers": {"Keep carts how long?": "A week"}},
        )  # fmt: skip

    session = _load(tmp_path, build)
    said = [[p.text for p in m.parts if isinstance(p, TextPart)]
            for m in session.messages if m.role == "user"]  # fmt: skip
    assert said == [["plan the carts"], ["A week"], ["and log every expiry"]]


def test_text_already_shown_as_a_queued_prompt_is_not_shown_again(tmp_path):
    def build(s: ClaudeSession) -> None:
        s.meta("queue-operation", operation="enqueue", content="also bump the version",
               timestamp="2026-11-20T09:03:00Z", sessionId=SID)  # fmt: skip
        s.meta("queue-operation", operation="remove", content="also bump the version",
               timestamp="2026-11-20T09:04:00Z", sessionId=SID)  # fmt: skip
        _typed_alongside(s)

    session = _load(tmp_path, build)
    texts = [p.text for m in session.messages for p in m.parts if isinstance(p, TextPart)]
    assert texts.count("also bump the version") == 1


def test_text_beside_a_result_read_line_by_line_is_the_same(tmp_path):
    s = ClaudeSession(SID, "/w/shop")
    s.user("plan the carts")
    _typed_alongside(s)
    streamed, whole = both_readings(s.write(tmp_path / "s.jsonl"))
    assert streamed == whole and [m.role for m in whole].count("user") == 2


# -- a plan's decision -----------------------------------------------------------------------


def _planned(result: str, *, rich: dict | None = None, is_error: bool = False):
    def build(s: ClaudeSession) -> None:
        s.assistant([tool_use("ExitPlanMode", {"plan": PLAN}, "toolu_plan")])
        s.at("09:20")
        s.tool_result("toolu_plan", result, is_error=is_error, rich=rich)
        s.assistant("Starting with the carts table.")

    return build


def test_a_plan_approved_is_said_where_the_person_approved_it(tmp_path):
    session = _load(tmp_path, _planned(APPROVED, rich={"plan": PLAN, "isAgent": False}))
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "system",
                                                  "assistant"]  # fmt: skip
    assert _notices(session) == [("system", "The user approved the plan.")]
    assert session.messages[2].parts[0].output == APPROVED  # the result stays as it was


def test_a_plan_approved_with_edits_says_so(tmp_path):
    edited = APPROVED.replace("## Approved Plan:", "## Approved Plan (edited by user):")
    session = _load(tmp_path, _planned(edited))
    ((_, said),) = _notices(session)
    assert said.startswith("The user approved the plan, with their own edits")
    # The newer field says so as well, whatever the text's heading.
    session = _load(tmp_path, _planned(APPROVED, rich={"plan": PLAN, "planWasEdited": True}))
    ((_, said),) = _notices(session)
    assert "with their own edits" in said


def test_leaving_plan_mode_with_no_plan_is_said_too(tmp_path):
    session = _load(tmp_path, _planned("User has approved exiting plan mode. You can now proceed."))
    assert _notices(session) == [("system", "The user approved leaving plan mode.")]


def test_a_plan_rejected_is_said_before_the_persons_feedback(tmp_path):
    session = _load(tmp_path, _planned(REJECTED + "Keep carts for a day.", is_error=True))
    (said,) = [m for m in session.messages if m.role == "user"][1:]
    assert said.parts == (NoticePart("decision", "The user rejected the plan."),
                          TextPart("Keep carts for a day."))  # fmt: skip
    assert f"{said.timestamp:%H:%M}" == "09:20"


def test_the_note_shows_the_decision_at_its_place_and_counts_no_prompt(tmp_path):
    _session(tmp_path, _planned(APPROVED, rich={"plan": PLAN, "isAgent": False}))
    note = the_exported_note(tmp_path, "claude-code")
    assert _front(note)["prompts"] == 1
    call, after = note.split("> [!note] User's decision\n>\n> The user approved the plan.\n")
    assert "`ExitPlanMode`" in call and "User has approved your plan" in call
    assert after.startswith("\n### Assistant · 09:20\n\nStarting with the carts table.")


def test_another_tools_approval_words_are_no_plan_decision(tmp_path):
    def build(s: ClaudeSession) -> None:
        s.assistant([tool_use("Bash", {"command": "echo"}, "toolu_echo")])
        s.tool_result("toolu_echo", "User has approved your plan.")

    assert _notices(_load(tmp_path, build)) == []


# -- an edit the person changed, a command they stopped ----------------------------------------

EDIT = {"file_path": "/w/shop/carts.py", "old_string": "DAYS = 7", "new_string": "DAYS = 14"}
PATCH = [{"oldStart": 3, "oldLines": 1, "newStart": 3, "newLines": 1,
          "lines": ["-DAYS = 7", "+DAYS = 10"]}]  # fmt: skip
CHANGED = (
    "The file /w/shop/carts.py has been updated successfully.  The user modified your "
    "proposed changes before accepting them. ."
)


def _edited(rich: dict):
    def build(s: ClaudeSession) -> None:
        s.assistant([tool_use("Edit", EDIT, "toolu_edit")])
        s.tool_result("toolu_edit", CHANGED, rich=rich)
        s.assistant("Carts now last ten days.")

    return build


def test_an_edit_the_person_changed_says_so_and_shows_what_was_written(tmp_path):
    rich = {"filePath": "/w/shop/carts.py", "oldString": "DAYS = 7", "newString": "DAYS = 10",
            "structuredPatch": PATCH, "userModified": True}  # fmt: skip
    session = _load(tmp_path, _edited(rich))
    output = session.messages[2].parts[0].output
    assert output.startswith(CHANGED)
    assert output.endswith(
        "What was written (the user changed the proposed edit before accepting it):\n"
        "@@ -3,1 +3,1 @@\n-DAYS = 7\n+DAYS = 10"
    )
    ((role, said),) = _notices(session)
    assert role == "system" and said.startswith(
        "The user changed the proposed edit of /w/shop/carts.py before accepting it"
    )


def test_without_a_patch_the_new_text_is_what_was_written(tmp_path):
    rich = {"filePath": "/w/shop/carts.py", "newString": "DAYS = 10", "userModified": True}
    output = _load(tmp_path, _edited(rich)).messages[2].parts[0].output
    assert output.endswith("accepting it):\nDAYS = 10")


def test_an_edit_not_changed_is_left_as_it_was(tmp_path):
    rich = {"filePath": "/w/shop/carts.py", "newString": "DAYS = 14", "structuredPatch": PATCH,
            "userModified": False}  # fmt: skip
    session = _load(tmp_path, _edited(rich))
    assert session.messages[2].parts[0].output == CHANGED and _notices(session) == []


def test_a_command_the_person_stopped_is_cancelled_not_failed(tmp_path):
    def build(s: ClaudeSession) -> None:
        s.assistant([tool_use("Bash", {"command": "sleep 600"}, "toolu_sleep")])
        aborted = "<error>Command was aborted before completion</error>"
        s.tool_result("toolu_sleep", aborted, is_error=True,
                      rich={"stdout": "", "stderr": "", "interrupted": True, "isImage": False})  # fmt: skip

    session = _load(tmp_path, build)
    (result,) = session.messages[2].parts
    assert (result.not_run, result.is_error) == ("cancelled", False)
    note = the_exported_note(tmp_path, "claude-code")
    assert _front(note)["errors"] == 0
    assert "(cancelled)" in note


# -- a compaction's size -----------------------------------------------------------------------


def _compacted(meta: dict):
    def build(s: ClaudeSession) -> None:
        s.assistant("Done.")
        s.system("compact_boundary", parent=None, content="Conversation compacted",
                 compactMetadata=meta, logicalParentUuid=s.last)  # fmt: skip
        s.user("This session is being continued … Summary: carts.", isCompactSummary=True)
        s.user("go on")

    return build


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "jinja"])
def test_a_compaction_says_how_many_tokens_the_context_held(tmp_path, monkeypatch, reference):
    # The count is a field of its own: ``trigger`` stays ``auto`` / ``manual``, which a
    # person's template may compare; the shipped template and its fast path say both.
    if reference:
        monkeypatch.setenv(REFERENCE_ENV, "1")
    else:
        monkeypatch.delenv(REFERENCE_ENV, raising=False)
    session = _load(tmp_path, _compacted({"trigger": "auto", "preTokens": 155979}))
    (summary,) = [p for m in session.messages for p in m.parts if isinstance(p, SummaryPart)]
    assert (summary.trigger, summary.tokens) == ("auto", 155979)
    note = the_exported_note(tmp_path, "claude-code")
    assert "> [!summary]- Conversation compacted (auto, at 155,979 tokens)" in note


def test_a_compaction_without_a_count_keeps_its_trigger_alone(tmp_path):
    for meta, said in (({"trigger": "manual", "preTokens": 0}, ("manual", None)),
                       ({"trigger": "auto", "preTokens": True}, ("auto", None)),
                       ({"preTokens": 1200}, (None, 1200))):  # fmt: skip
        session = _load(tmp_path, _compacted(meta))
        (summary,) = [p for m in session.messages for p in m.parts if isinstance(p, SummaryPart)]
        assert (summary.trigger, summary.tokens) == said
