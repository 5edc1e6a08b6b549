"""Copilot Chat (VS Code), a response waiting for the person (``modelState`` NeedsInput), after
test_awaiting_approval.py:

- a call whose result waited for the person's approval (it ran) read "rejected by the
  user": VS Code saves a call in ``WaitingForPostApproval`` as skipped (``isConfirmed``
  ``{type: 5}``, its result details left out), as it saves a call the person skipped;
- of several calls of the last round asked at once (VS Code starts a round's MCP calls
  together), only the last was said to wait.
"""

from __future__ import annotations

import copilot_builder as cp
import pytest
from conftest import UNANSWERED_SAID, said_under
from test_awaiting_approval import AWAITING_SAID
from test_unanswered_more import chat, invocation, running, the_note

# -- Copilot Chat: a call whose result waited for the person's approval -----------------------

RESULT_SAID = "The tool ran; its result was waiting for the user's approval when the session"
SKIPPED = "skipped by the user"


def skipped(call_id: str, command: str, **extra) -> dict:
    """As VS Code saves a call it skipped, and one whose result waits for approval."""
    return invocation(call_id, command, isConfirmed={"type": 5}, **extra)


def mcp(call_id: str, name: str, **extra) -> dict:
    """An MCP tool's call (VS Code starts a round's MCP calls at once)."""
    return {"kind": "toolInvocationSerialized", "toolId": f"mcp_docs_{name}", "toolCallId": call_id,
            "invocationMessage": {"value": f"Running {name}"}, "isConfirmed": {"type": 1},
            "isComplete": True, "source": {"type": "mcp", "label": "docs", "collectionId": "c",
            "definitionId": "d"}, "toolSpecificData": {"kind": "input", "rawInput": {"q": name}},
            **extra}  # fmt: skip


def unconfirmed(made: dict) -> dict:
    del made["isConfirmed"]
    return made


def test_copilot_chat_a_result_waiting_for_approval_says_so(tmp_path):
    """NeedsInput, its last call saved as skipped, nothing else that could wait: the call ran
    and its result waits. In the log and the whole file alike."""
    for log in (False, True):
        home = tmp_path / str(log) / "home"
        chat(home, running(4, skipped("t2", "npm test")), log=log)
        note = the_note(home, "copilot")
        assert RESULT_SAID in note and SKIPPED not in note, log
        assert note.index("npm test") < note.index(RESULT_SAID)
        assert UNANSWERED_SAID not in note and AWAITING_SAID not in note


def test_copilot_chat_a_waiting_result_shows_what_was_recorded_of_it(tmp_path):
    """What the call recorded (here its terminal output) is shown, then the notice."""
    made = skipped("t2", "npm test", resultDetails={"output": [{"value": "3 passed"}]})
    chat(tmp_path / "home", running(4, made))
    note = the_note(tmp_path / "home", "copilot")
    assert "3 passed" in note and RESULT_SAID in note and SKIPPED not in note
    assert note.index("3 passed") < note.index(RESULT_SAID)


@pytest.mark.parametrize(
    "case",
    [
        "complete",
        "pending",
        "words after",
        "asked too",
        "two skipped",
        "question",
        "mcp running",
        "call after",
    ],  # fmt: skip
)
def test_copilot_chat_a_skip_the_file_cannot_tell_from_a_waiting_result_stays_skipped(
    tmp_path, case
):
    """A real skip reads as before wherever something else may be what the response waits
    on, or it did not wait: a finished request, a Pending one (the model goes on after a
    skip), a skip before the model's words, a call still asked, two skipped (either may be
    the one), a question left open, an MCP call started at once and not returned, or a call
    after it (run once the skipped one was done with)."""
    tail = {
        "complete": (1, [skipped("t2", "npm test")]),
        "pending": (0, [skipped("t2", "npm test")]),
        "words after": (4, [skipped("t2", "npm test"), cp.markdown("Skipped. "),
                            unconfirmed(invocation("t3", "npm run lint"))]),
        "asked too": (4, [unconfirmed(invocation("t3", "npm run lint")), skipped("t2", "npm test")]),
        "two skipped": (4, [skipped("t3", "npm run lint"), skipped("t2", "npm test")]),
        "question": (4, [{"kind": "confirmation", "title": "Continue?", "message": "?",
                          "data": {}, "isUsed": False}, skipped("t2", "npm test")]),
        "mcp running": (4, [mcp("m1", "search"), skipped("t2", "npm test")]),
        "call after": (4, [skipped("t2", "npm test"), invocation("t3", "npm run lint")]),
    }[case]  # fmt: skip
    state, tools = tail
    last = running(state, *tools)
    if case == "complete":
        last["result"] = {"timings": {"totalElapsed": 1_000}}
    chat(tmp_path / "home", last)
    note = the_note(tmp_path / "home", "copilot")
    assert RESULT_SAID not in note
    assert note.count(SKIPPED) == (2 if case == "two skipped" else 1)


def test_copilot_chat_an_approved_answered_call_says_nothing(tmp_path):
    """NeedsInput on something else (a call still asked): an approved call with its output
    before it gets no notice."""
    made = invocation("t2", "npm test", resultDetails={"output": [{"value": "3 passed"}]})
    chat(tmp_path / "home", running(4, made, unconfirmed(invocation("t3", "npm run lint"))))
    note = the_note(tmp_path / "home", "copilot")
    said_under(note, "npm run lint", words=AWAITING_SAID)
    assert RESULT_SAID not in note and UNANSWERED_SAID not in note


# -- Copilot Chat: calls of the last round asked at once ---------------------------------------


def test_copilot_chat_mcp_calls_asked_at_once_each_say_so(tmp_path):
    """Two MCP calls of the last round still asked (started together), one approved and
    answered, one approved and running: only the asked ones say they waited; the running
    one says no result; the answered one nothing."""
    answered = mcp("m0", "lookup", resultDetails={"input": "{}", "output": [{"value": "found"}]})
    tools = [
        answered,
        unconfirmed(mcp("m1", "search")),
        mcp("m2", "fetch"),
        unconfirmed(mcp("m3", "index")),
    ]
    for log in (False, True):
        home = tmp_path / str(log) / "home"
        chat(home, running(4, *tools), log=log)
        note = the_note(home, "copilot")
        said_under(note, "Running search", "Running index", words=AWAITING_SAID)
        said_under(note, "Running fetch")
        assert "found" in note and note.count(AWAITING_SAID) == 2


def test_copilot_chat_calls_run_one_after_another_are_not_all_said_to_wait(tmp_path):
    """VS Code runs a round's other tools one after another: of two such calls with no
    confirmation, one may not have been asked yet (its arguments streamed), so neither is
    said to wait; each says no result, true of both. One alone waits."""
    home = tmp_path / "two" / "home"
    tools = [
        unconfirmed(invocation("t2", "npm run lint")),
        unconfirmed(invocation("t3", "npm test")),
    ]
    chat(home, running(4, *tools))
    note = the_note(home, "copilot")
    said_under(note, "npm run lint", "npm test")
    assert AWAITING_SAID not in note
    home = tmp_path / "mixed" / "home"
    chat(
        home,
        running(4, unconfirmed(mcp("m1", "search")), unconfirmed(invocation("t3", "npm test"))),
    )
    note = the_note(home, "copilot")
    said_under(note, "Running search", words=AWAITING_SAID)
    said_under(note, "npm test")
