"""Claude Code's own ``system`` lines that report something a reader needs: a hook that
failed or stopped the turn, a request to the API that failed (once per retry) or was refused,
a reply another model gave. All were dropped: a session about fixing broken hooks (corpus
9988d754) showed none of the five hook failures its lines hold."""

from __future__ import annotations

import json

import pytest
from claude_builder import ClaudeSession, both_readings
from conftest import CORPUS
from test_claude_adapter import SID, load_all, only, projects

from exporter.model import NoticePart

MISSING = "Failed with non-blocking status code: /bin/sh: ~/.claude/hooks/stop-hook.ts: not found"


def notices(session) -> list[tuple[str, str]]:
    return [(p.notice, p.text) for m in session.messages for p in m.parts
            if isinstance(p, NoticePart)]  # fmt: skip


def overloaded(s: ClaudeSession, attempt: int) -> None:
    error = {"status": 529, "error": {"type": "error", "error": {"type": "overloaded_error",
                                                               "message": "Overloaded"}}}  # fmt: skip
    s.system("api_error", error=error, retryInMs=500, retryAttempt=attempt, maxRetries=10)


def session() -> ClaudeSession:
    s = ClaudeSession(SID)
    s.user("fix the hooks")
    s.assistant("Done.")
    s.system("stop_hook_summary", hookCount=2, hookErrors=[MISSING, "  "], hasOutput=True,
             preventedContinuation=False, stopReason="")  # fmt: skip
    s.system("stop_hook_summary", hookCount=1, hookErrors=[], preventedContinuation=False)
    s.user("again")
    for attempt in (1, 2, 3):
        overloaded(s, attempt)
    s.assistant("Now it works.")
    s.system("error", error={"message": "Rate limited", "status": 429,
                             "rateLimits": {"retryAfterSeconds": 30}})  # fmt: skip
    s.system("stop_hook_summary", hookErrors=[], preventedContinuation=True,
             stopReason="tests are failing")  # fmt: skip
    s.system("api_refusal", apiRefusalCategory="policy",
             apiRefusalExplanation="Refused for policy reasons.")  # fmt: skip
    s.system("model_refusal_fallback", originalModel="claude-opus-4-6",
             fallbackModel="claude-sonnet-4-5")  # fmt: skip
    s.system("turn_duration", durationMs=1200)  # nothing to say
    return s


EXPECTED = [
    ("notification", f"A hook failed: {MISSING}"),
    ("error", "API error (status 529): Overloaded; retrying (attempt 3 of 10)"),
    ("error", "API error (status 429): Rate limited; retry after 30 s"),
    ("notification", "A hook stopped the turn: tests are failing"),
    ("error", "The API refused the request: Refused for policy reasons."),
    ("notification", "claude-opus-4-6 refused; claude-sonnet-4-5 answered instead"),
]


def test_what_claude_codes_own_lines_report_is_a_notice(tmp_path):
    session().write(projects(tmp_path) / f"{SID}.jsonl")
    sessions, problems = load_all(tmp_path)
    s = only(sessions)
    assert problems == [] and notices(s) == EXPECTED
    # in its place: the retries between "again" and the reply they were for
    roles = [(m.role, type(m.parts[0]).__name__) for m in s.messages]
    assert roles.index(("system", "NoticePart")) == 2  # after the first reply
    assert s.messages[4].parts[0].text.endswith("attempt 3 of 10)")


def test_a_streamed_reading_says_the_same(tmp_path):
    """A long session is read line by line and its closed messages let go: the retry notice
    waits until the next message, so it is one notice there too."""
    streamed, held = both_readings(session().write(projects(tmp_path) / f"{SID}.jsonl"))
    assert streamed == held


def test_the_corpus_sessions_hook_failures_are_in_its_note(tmp_path):
    name = next((CORPUS / "claude-code").glob("*9988d754*.jsonl"), None)
    if name is None:
        pytest.skip(f"the corpus is not beside the clone ({CORPUS})")
    lines = name.read_text(encoding="utf-8").splitlines()
    failed = sum(len(json.loads(x).get("hookErrors") or []) for x in lines
                 if '"stop_hook_summary"' in x)  # fmt: skip
    folder = projects(tmp_path)
    folder.mkdir(parents=True)
    (folder / "9988d754-f11d-42d7-9270-24471b6ddb8f.jsonl").write_bytes(name.read_bytes())
    sessions, _ = load_all(tmp_path)
    said = [t for s in sessions for kind, t in notices(s) if kind == "notification"]
    assert failed >= 5 and sum(t.count("A hook failed: ") for t in said) == failed
