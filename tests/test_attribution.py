"""Who said what: the turn builder shows each part as what it is and under whom it was said
(the person, the model, the harness), whatever the source."""

from __future__ import annotations

from datetime import UTC

from hypothesis import given
from hypothesis import strategies as st
from message_builder import msg
from message_builder import session as build_session

from exporter.model import Message, NoticePart, Session, TextPart, ToolCallPart, ToolResultPart
from exporter.notes import NoteSettings, build_note
from exporter.stats import prompt_count
from exporter.turns import build_turns

SID = "7d1e0c2a-4b5f-4c6d-8e9f-0a1b2c3d4e5f"


def session(*messages: Message, **fields) -> Session:
    return build_session(*messages, session_id=SID, **fields)


def turns(s: Session) -> list[dict]:
    return build_turns(s, "attachments", UTC, [], lambda key: None)


def body(s: Session) -> str:
    return build_note(s, "n.md", NoteSettings(), lambda key: None).body


NOTIFICATION = (
    "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n"
    '<summary>Background command "npm test" completed</summary>\n</task-notification>'
)


def test_a_harness_notification_delivered_as_a_user_line_is_not_the_persons_turn():
    """Claude Code delivers a background task's end to the model as a user line (or, while
    the model works, as a queued command): only a notification, which no person wrote. It
    showed under a "User" heading, queued ones as "sent while the assistant was working"."""
    s = session(
        msg("user", TextPart("run the tests in the background"), minute=0),
        msg("assistant", TextPart("Started."), minute=1),
        msg("user", NoticePart("queued"), TextPart(NOTIFICATION), minute=2),
        msg("assistant", TextPart("They passed."), minute=3),
        msg("user", TextPart(NOTIFICATION), minute=4),
        msg("assistant", TextPart("Still passing."), minute=5),
    )
    built = turns(s)
    assert [t["role"] for t in built] == [
        "user", "assistant", "system", "assistant", "system", "assistant"
    ]  # fmt: skip
    assert built[2]["items"][0]["text"] == 'Background command "npm test" completed'
    text = body(s)
    assert text.count("### User") == 1 and "sent while the assistant was working" not in text
    assert text.count("[!info] Notification") == 2
    assert prompt_count(s) == 1


def test_the_person_s_own_turn_keeps_its_heading_with_a_notification_in_it():
    """A prompt that also carries a harness notice, and a steering message, stay the
    person's; an interruption stays theirs too, ending the reply they stopped."""
    s = session(
        msg("user", TextPart(NOTIFICATION + "\nand now fix the failing one"), minute=0),
        msg("assistant", TextPart("On it."), minute=1),
        msg("user", TextPart("[Request interrupted by user]"), minute=2),
        msg("user", NoticePart("queued"), TextPart("also the docs"), minute=3),
    )
    assert [t["role"] for t in turns(s)] == ["user", "assistant", "user"]
    assert turns(s)[1]["items"][-1] == {"kind": "notice", "notice": "interrupted", "text": ""}
    assert "sent while the assistant was working" in body(s)


def test_a_call_id_used_again_pairs_each_call_with_its_own_result():
    """Some models number their calls afresh each turn (``call_0``): each call shows the
    result that answered it, and no result is lost."""
    s = session(
        msg("user", TextPart("look twice"), minute=0),
        msg("assistant", ToolCallPart("Bash", {"command": "ls a"}, "call_0"), minute=1),
        msg("tool", ToolResultPart("first output", "call_0"), minute=2),
        msg("assistant", ToolCallPart("Bash", {"command": "ls b"}, "call_0"), minute=3),
        msg("tool", ToolResultPart("second output", "call_0"), minute=4),
    )
    calls = [i for t in turns(s) for i in t["items"] if i["kind"] == "tool_call"]
    assert [c["output"] for c in calls] == ["first output", "second output"]
    assert not [i for t in turns(s) for i in t["items"] if i["kind"] == "tool_result"]


@given(
    st.lists(st.tuples(st.sampled_from(["call_0", "call_1", "t:0"]), st.booleans()), max_size=12)
)
def test_each_call_shows_the_result_that_answered_it(calls):
    """Calls answered in turn, their ids drawn from a few: each call shows the result that
    came right after it (or none, the person having interrupted it), and every result is
    shown exactly once."""
    messages = [msg("user", TextPart("go"))]
    for n, (call_id, answered) in enumerate(calls):
        messages.append(msg("assistant", ToolCallPart("Bash", {"command": f"c{n}"}, call_id)))
        if answered:
            messages.append(msg("tool", ToolResultPart(f"out {n}", call_id)))
        else:
            messages.append(msg("user", TextPart("[Request interrupted by user for tool use]")))
    items = [i for t in turns(session(*messages)) for i in t["items"]]
    shown = [i["output"] for i in items if i["kind"] in ("tool_call", "tool_result")]
    assert shown == [f"out {n}" if answered else None for n, (_, answered) in enumerate(calls)]


def test_calls_of_one_id_in_one_reply_take_their_results_in_order():
    """A model that gave two calls of one batch the same id: the results come in order."""
    s = session(
        msg("user", TextPart("read both"), minute=0),
        msg(
            "assistant",
            ToolCallPart("Read", {"file_path": "a.py"}, "call_0"),
            ToolCallPart("Read", {"file_path": "b.py"}, "call_0"),
            minute=1,
        ),
        msg("tool", ToolResultPart("a", "call_0"), ToolResultPart("b", "call_0"), minute=2),
    )
    calls = [i for t in turns(s) for i in t["items"] if i["kind"] == "tool_call"]
    assert [c["output"] for c in calls] == ["a", "b"]


def subagent(*messages: Message) -> Session:
    return build_session(*messages, session_id=f"{SID}/agent-a1", parent_id=SID)


def test_a_subagent_s_task_is_the_parent_agent_s_not_the_person_s():
    """A subagent's first prompt is the task the agent that started it wrote: it showed
    under "User" and counted among the prompts the person wrote. A later prompt of the
    same subagent (Cline and Roo let the person answer a subtask) stays the person's."""
    s = subagent(
        msg("user", TextPart("<system-reminder>cwd</system-reminder>"), minute=0),
        msg("user", TextPart("Find every caller of retry()."), minute=1),
        msg("assistant", TextPart("Three callers."), minute=2),
        msg("user", TextPart("And the tests?"), minute=3),
        msg("assistant", TextPart("Two tests."), minute=4),
    )
    shown = [(t["role"], t["task"]) for t in turns(s)]
    assert shown == [("user", True), ("assistant", False), ("user", False), ("assistant", False)]
    text = body(s)
    assert "### Parent agent · 09:01\n\nFind every caller of retry()." in text
    assert "### User · 09:03\n\nAnd the tests?" in text
    assert prompt_count(s) == 1
    assert build_note(s, "n.md", NoteSettings(), lambda key: None).frontmatter["prompts"] == 1
    # The session the person started keeps its first prompt as theirs
    parent = session(*s.messages)
    assert not any(t["task"] for t in turns(parent)) and prompt_count(parent) == 2
    assert "### Parent agent" not in body(parent)


def test_a_later_part_of_a_subagent_holds_no_task():
    """Only the note of a subagent's first part holds its task: a later part opens with
    whatever prompt came next, which stays the person's."""
    s = subagent(
        msg("user", TextPart("And the tests?"), minute=3), msg("assistant", TextPart("Two."))
    )
    note = build_note(s, "n.md", NoteSettings(), lambda key: None, part=2)
    assert "### User · 09:03" in note.body and note.frontmatter["prompts"] == 1
    assert build_note(s, "n.md", NoteSettings(), lambda key: None).frontmatter["prompts"] == 0


def test_the_persons_interruption_ends_the_turn_they_stopped():
    """NOTE-EXAMPLE's bar: "*Interrupted by the user.*" closes the reply it cut short (or
    the prompt, when nothing came yet). It was a "### User" turn of its own, which the
    person never wrote (Claude Code's ``[Request interrupted by user]`` line, Codex's
    ``turn_aborted``); a prompt after it still opens a turn."""
    s = session(
        msg("user", TextPart("fix the lexer"), minute=0),
        msg("assistant", TextPart("I'll update the lexer"), minute=1),
        msg("user", NoticePart("interrupted"), minute=2),
        msg("user", TextPart("stop, do the parser first"), minute=3),
        msg("user", NoticePart("interrupted", "replaced"), minute=4),
    )
    got = [(t["role"], [i["kind"] for i in t["items"]]) for t in turns(s)]
    assert got == [
        ("user", ["text"]),
        ("assistant", ["text", "notice"]),
        ("user", ["text", "notice"]),
    ]
    text = body(s)
    assert text.count("### User") == 2 and text.count("*Interrupted by the user.*") == 2
