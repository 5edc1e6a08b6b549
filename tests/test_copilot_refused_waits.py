"""Copilot CLI: a question of approval the person (or a rule, a policy, a hook) answered
no, with no result of the call after it, read "no result of this call was recorded": the
log says it was refused (after test_awaiting_approval.py; Copilot Chat's cases:
test_copilot_chat_waits.py)."""

from __future__ import annotations

import pytest
from conftest import UNANSWERED_SAID, said_under
from test_awaiting_approval import AWAITING_SAID, asking_log
from test_unanswered import notes

REJECTED = "(rejected by the user)"
DENIED = "(not permitted)"

# -- Copilot CLI: permission.completed with a denial, and no result after it ------------------


@pytest.mark.parametrize(
    ("kind", "title", "said"),
    [
        ("denied-interactively-by-user", REJECTED, "denied by the user"),
        ("denied-by-rules", DENIED, "not permitted (denied-by-rules)"),
        ("denied-by-permission-request-hook", DENIED, "not permitted (denied-by-perm"),
    ],
)
def test_copilot_cli_a_refused_call_with_no_result_reads_refused(
    tmp_path, monkeypatch, kind, title, said
):
    """Held and streamed readings alike (``notes`` checks they give the same note)."""
    asking_log(tmp_path, answer=kind)
    (note,) = notes(tmp_path, "copilot-cli", monkeypatch).values()
    assert UNANSWERED_SAID not in note and AWAITING_SAID not in note
    at = note.index("rm -rf dist")
    assert title in note[at:] and said in note[at:]
    assert note.count(REJECTED) + note.count(DENIED) == 1


def test_copilot_cli_a_sub_agent_s_refused_call_reads_refused_too(tmp_path, monkeypatch):
    asking_log(tmp_path, agent=True, answer="denied-interactively-by-user")
    made = notes(tmp_path, "copilot-cli", monkeypatch)
    (child,) = [n for k, n in made.items() if "agent" in k]
    assert REJECTED in child and UNANSWERED_SAID not in child


def test_copilot_cli_a_refusal_named_only_by_its_question_reads_refused(tmp_path, monkeypatch):
    """The answer need not name the call (``toolCallId`` is optional): its question does."""
    answer = {"requestId": "p2", "result": {"kind": "denied-interactively-by-user"}}
    asking_log(tmp_path, after=[("permission.completed", answer)])
    (note,) = notes(tmp_path, "copilot-cli", monkeypatch).values()
    assert REJECTED in note and UNANSWERED_SAID not in note and AWAITING_SAID not in note


def test_copilot_cli_a_refusal_the_log_gives_a_result_of_reads_as_that_result(
    tmp_path, monkeypatch
):
    """The CLI's own result of the refused call says what it says; no second result."""
    asking_log(tmp_path, answer="denied-interactively-by-user", ran=True)
    (note,) = notes(tmp_path, "copilot-cli", monkeypatch).values()
    assert note.count("removed") == 1 and REJECTED not in note and DENIED not in note


def test_copilot_cli_a_refusal_the_chat_went_on_from_says_nothing_more(tmp_path, monkeypatch):
    """Only the last reply's calls are read so: a prompt after it, or an abort, says the
    session went on or what happened (as for a question still open)."""
    prompt = ("user.message", {"content": "Leave it", "attachments": []})
    for name, after in (("prompt", prompt), ("abort", ("abort", {"reason": "user initiated"}))):
        asking_log(tmp_path / name, answer="denied-interactively-by-user", after=[after])
        (note,) = notes(tmp_path / name, "copilot-cli", monkeypatch).values()
        assert REJECTED not in note and UNANSWERED_SAID not in note, name


@pytest.mark.parametrize("kind", ["approved", "approved-for-session", "no-result", 7])
def test_copilot_cli_an_answer_that_refused_nothing_keeps_no_result(tmp_path, monkeypatch, kind):
    """Approved (the tool runs, and has not returned), or an answer of no known denial."""
    asking_log(tmp_path, answer=kind)
    (note,) = notes(tmp_path, "copilot-cli", monkeypatch).values()
    said_under(note, "rm -rf dist")
    assert REJECTED not in note and DENIED not in note
