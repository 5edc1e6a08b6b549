"""An Aider run's cost when Aider's running total restarted within it (another Aider went
on writing in the run): the sum over the restarts, never below what the run's own requests
cost (review21 F3: the corpus's "translate it all to french" run of 2024-08-12 showed
$0.0035 for $0.0116 spent)."""

from __future__ import annotations

from datetime import datetime

import pytest
from aider_builder import CORPUS_BIG as BIG
from aider_builder import AiderLog, corpus_home
from test_aider_adapter import load, utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)


def one_run(tmp_path, *costs: tuple[str, str]):
    log = AiderLog().run("2024-08-12 20:56:40")
    for n, (request, session) in enumerate(costs):
        log.prompt(f"question {n}").reply(f"answer {n}")
        log.tokens("15,218", "3,458", request, session)
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    return session


def test_a_running_total_that_went_down_is_added_to_not_replaced(tmp_path):
    session = one_run(tmp_path, ("0.0081", "0.0081"), ("0.0035", "0.0035"))
    assert session.cost == pytest.approx(0.0116)


def test_a_restarted_total_that_starts_above_its_request_counts_the_requests(tmp_path):
    """The Aider whose total came in next had spent before the run: of its total, only
    its request is this run's (as for a run whose first total is above its request)."""
    session = one_run(tmp_path, ("0.04", "0.04"), ("0.01", "0.02"), ("0.0075", "0.0275"))
    assert session.cost == pytest.approx(0.04 + 0.01 + 0.0075)


def test_the_corpus_french_translation_run_costs_what_both_requests_did(corpus, tmp_path):
    sessions, _ = load(corpus_home(corpus, BIG, tmp_path / "home", "aider"))
    started = datetime(2024, 8, 12, 20, 56, 40).astimezone()
    (run,) = [s for s in sessions if s.started_at == started]
    # "$0.0081 request, $0.0081 session", then "$0.0035 request, $0.0035 session"
    assert run.cost == pytest.approx(0.0116)
