"""What the person asked a Codex review to look at (``entered_review_mode``) is their
request, before the review (``exited_review_mode``) that answers it: the note showed the
review's findings with no word of what was reviewed (uncommitted changes, a branch, a
commit, custom instructions)."""

from __future__ import annotations

from datetime import UTC

import pytest
from codex_builder import CodexRollout
from conftest import load_sessions, note_files

from exporter.adapters.codex import CodexAdapter
from exporter.export import ExportOptions, run_export
from exporter.model import CommandPart, TextPart

TID = "019a0000-0000-7000-8000-00000000beef"
REVIEW = {"overall_explanation": "One problem.", "findings": [{"title": "Off by one", "body": "x"}]}


def _rollout(entered: dict) -> CodexRollout:
    r = CodexRollout(TID)
    r.turn()
    r.event({"type": "entered_review_mode", **entered})
    r.event({"type": "exited_review_mode", "review_output": REVIEW})
    return r


@pytest.mark.parametrize(
    ("entered", "asked"),
    [
        ({"target": {"type": "uncommittedChanges"}, "user_facing_hint": "current changes"},
         "Review the uncommitted changes"),
        ({"target": {"type": "baseBranch", "branch": "main"}, "user_facing_hint": "x"},
         "Review the changes against the base branch main"),
        ({"target": {"type": "commit", "sha": "1a2b3c4", "title": "Fix the parser"}},
         "Review commit 1a2b3c4: Fix the parser"),
        ({"target": {"type": "commit", "sha": "1a2b3c4"}}, "Review commit 1a2b3c4"),
        ({"target": {"type": "custom", "instructions": "Check the SQL for injections"}},
         "Check the SQL for injections"),
        ({"target": {"type": "base_branch", "branch": "dev"}},
         "Review the changes against the base branch dev"),  # (snake case, as Rust may)
        ({"prompt": "Review the code changes against main …", "user_facing_hint": "against main"},
         "against main"),  # older builds: the words the UI showed
        ({"prompt": "Review the staged changes."}, "Review the staged changes."),
        ({"target": {"type": "pullRequest", "number": 7}, "user_facing_hint": "PR #7"},
         "PR #7"),  # a target not known: the UI's words
        ({"target": {"type": "baseBranch"}}, ""),  # no branch, nothing else: the command alone
    ],
    ids=["uncommitted", "branch", "commit", "commit untitled", "custom", "snake case",
         "older hint", "older prompt", "unknown target", "nothing said"],
)  # fmt: skip
def test_a_review_request_is_the_persons_message(tmp_path, entered, asked):
    _rollout(entered).write(tmp_path / ".codex")
    (session,), problems = load_sessions(CodexAdapter(), tmp_path)
    request, answer = session.messages
    assert request.role == "user" and request.parts[0] == CommandPart("/review", asks=True)
    assert [p.text for p in request.parts[1:] if isinstance(p, TextPart)] == [asked] * bool(asked)
    assert answer.role == "assistant" and answer.parts[0].text.startswith("One problem.")
    assert problems == []


def test_the_note_shows_what_was_reviewed_before_the_review(tmp_path):
    _rollout({"target": {"type": "baseBranch", "branch": "main"}}).write(tmp_path / ".codex")
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path, timezone=UTC))
    (note,) = (b.decode() for b in note_files(vault).values())
    body = note.split("ccexport:begin")[1]
    asked = body.index("`/review`\n\nReview the changes against the base branch main")
    assert body.index("### User") < asked < body.index("### Assistant") < body.index("One problem.")
