"""Copilot CLI: a resumed session's premium requests and tokens. Each run's
``session.shutdown`` holds the session's running totals (adapters11): the last one counts
the runs before it."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import load_sessions
from copilot_cli_builder import CopilotCliSession

from exporter.adapters.copilot_cli import CopilotCliAdapter

TID = "0199a0c1-7e57-7a11-b0b0-5e55101d0001"


def resumed(tmp_path, runs: list, ended) -> Any:
    """The session read back, run once per item of ``runs``: each a resume (but the first),
    a prompt and a reply, then ``ended(session, item)`` (its checkpoints, its shutdown)."""
    s = CopilotCliSession(TID)
    for n, run in enumerate(runs):
        if n:
            s.event("session.resume", {"resumeTime": s.stamp(60), "eventCount": 0})
        s.user(f"Step {n}")
        s.assistant("Done.", model="claude-sonnet-4.5")
        ended(s, run)
    s.write(tmp_path / ".copilot")
    (read,), _ = load_sessions(CopilotCliAdapter(), tmp_path)
    return read


def counted(tmp_path, runs: list[list[tuple[str, float]]]):
    """The premium requests of a session run once per item of ``runs``: its checkpoints
    and shutdown, in order, each (the event's type, its running total)."""

    def ended(s, events):
        for kind, premium in events:
            s.event(kind, {"shutdownType": "routine", "totalPremiumRequests": premium})

    return resumed(tmp_path, runs, ended).extra.get("premium_requests")


SHUT, CHECK = "session.shutdown", "session.usage_checkpoint"


@pytest.mark.parametrize(
    ("runs", "total"),
    [
        # Three runs, each shutdown the running total: 7, not 2 + 5 + 7.
        ([[(SHUT, 2)], [(SHUT, 5)], [(SHUT, 7)]], 7),
        # A resumed run that asked nothing billed: its shutdown repeats the total.
        ([[(SHUT, 2)], [(SHUT, 2)]], 2),
        ([[(CHECK, 1), (SHUT, 1.33)], [(CHECK, 2.33), (SHUT, 3)]], 3),
        # A count below the one before: the counter started over (a CLI counting each run
        # alone, a compaction): the counts before it are kept.
        ([[(SHUT, 3)], [(SHUT, 5)], [(SHUT, 2)], [(SHUT, 4)]], 9),
        ([[(SHUT, 2)], [(SHUT, 1.5)]], 3.5),
        # The last run killed: its checkpoint, the newer running total, counts...
        ([[(SHUT, 3)], [(CHECK, 4.5)]], 4.5),
        # ...never below the shutdown before it (a checkpoint may lag what was billed).
        ([[(SHUT, 3)], [(CHECK, 2)]], 3),
        ([[(CHECK, 1), (CHECK, 2.33)]], 2.33),
    ],
    ids=[
        "running",
        "nothing-more",
        "with-checkpoints",
        "reset",
        "fell",
        "killed-after",
        "lagging-checkpoint",
        "never-shut",
    ],  # fmt: skip
)
def test_a_resumed_sessions_premium_requests_are_its_last_running_total(tmp_path, runs, total):
    assert counted(tmp_path, runs) == total


def tokens(input_tokens: int, output: int, read: int = 0, write: int = 0) -> dict[str, int]:
    return {"inputTokens": input_tokens, "outputTokens": output, "cacheReadTokens": read,
            "cacheWriteTokens": write}  # fmt: skip


def session_tokens(tmp_path, shutdowns: list[dict[str, dict[str, int]]]):
    read = resumed(tmp_path, shutdowns, lambda s, metrics: s.shutdown(metrics))
    u = read.usage
    per_model = {m: (x.input_tokens, x.output_tokens) for m, x in read.model_usage}
    return (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens), per_model


def test_a_resumed_sessions_tokens_are_its_last_shutdowns_running_totals(tmp_path):
    """Each shutdown's modelMetrics hold the session's tokens so far: the last one's, not
    the sum (which counted the first run's tokens twice)."""
    first = {"claude-sonnet-4.5": tokens(1000, 80, read=600, write=10)}
    second = {"claude-sonnet-4.5": tokens(1500, 120, read=900, write=10),
              "gpt-5": tokens(200, 20)}  # fmt: skip
    totals, per_model = session_tokens(tmp_path, [first, second])
    assert totals == (1500 - 900 - 10 + 200, 140, 900, 10)  # (input without the cached part)
    assert per_model == {"claude-sonnet-4.5": (590, 120), "gpt-5": (200, 20)}


def test_tokens_that_started_over_are_added_to_those_before(tmp_path):
    """A count below the one before (a CLI counting each run alone): both runs count."""
    first = {"claude-sonnet-4.5": tokens(1000, 80)}
    second = {"claude-sonnet-4.5": tokens(300, 30)}
    totals, _ = session_tokens(tmp_path, [first, second])
    assert totals == (1300, 110, 0, 0)
