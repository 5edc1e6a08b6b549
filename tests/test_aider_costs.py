"""An Aider run's cost when Aider's running total restarted within it (another Aider went
on writing in the run): the sum over the restarts, never below what the run's own requests
cost (review21 F3: the corpus's "translate it all to french" run of 2024-08-12 showed
$0.0035 for $0.0116 spent). A total restarted when it does not go on from the one before
by the request's cost (to the rounding of the digits printed): down, or up."""

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


def test_a_running_total_that_restarted_above_the_last_is_added_to(tmp_path):
    """A new Aider's lines in the run, no header before them, its total above the last one
    (review: the corpus's 2024-08-13 06:18:35 run showed the other Aider's $0.0048 alone).
    A total goes on from the last only by this request's cost: 0.03 + 0.05 is not 0.05."""
    session = one_run(tmp_path, ("0.01", "0.01"), ("0.02", "0.03"), ("0.05", "0.05"))
    assert session.cost == pytest.approx(0.03 + 0.05)


def test_a_total_that_went_up_by_more_than_its_request_counts_the_requests(tmp_path):
    """Aider 0.48 counted an ``/ask`` or ``/help`` request twice in its running total (0.49
    fixed it): the total after it went up by more than the request. From there on the run
    counts its requests, as for a total that started above its request."""
    costs = ("0.02", "0.02"), ("0.02", "0.04"), ("0.03", "0.09"), ("0.03", "0.12")
    session = one_run(tmp_path, *costs)
    assert session.cost == pytest.approx(0.04 + 0.03 + 0.03)


def test_a_total_that_goes_on_within_the_rounding_of_its_digits_is_one_total(tmp_path):
    """Aider prints each cost rounded (to the cent; below a cent, to two significant
    digits): 0.21 + 0.09 printed as 0.31 is the same total going on, and so is
    0.00011 + 0.00012 printed as 0.00023."""
    session = one_run(tmp_path, ("0.21", "0.21"), ("0.09", "0.31"), ("0.08", "0.39"))
    assert session.cost == pytest.approx(0.39)
    small = one_run(tmp_path / "small", ("0.00011", "0.00011"), ("0.00012", "0.00023"))
    assert small.cost == pytest.approx(0.00023)


def test_the_corpus_runs_whose_total_went_up_too_far_count_what_was_spent(corpus, tmp_path):
    sessions, _ = load(corpus_home(corpus, BIG, tmp_path / "home", "aider"))
    cost = {s.session_id.split("-", 1)[1]: s.cost for s in sessions}  # (by header's time)
    # thirteen "/ask hi", Aider 0.48.2-dev's total doubling each time up to $0.08: the
    # requests cost $0.000015 … $0.000089
    assert cost["20240809173613"] == pytest.approx(0.000665)
    # "/ask" twice ($0.02 each, total $0.04), then "make that change", $0.03 request,
    # $0.09 session: Aider counted the asks twice; $0.13 spent, not its $0.15
    assert cost["20240808152501"] == pytest.approx(0.13)
    # Its three requests (that build printed its running total as each message's cost:
    # $0.00011, $0.00023, $0.00036, each then reads as a new Aider's first), and another
    # Aider's reply after a Ctrl-C, "$0.0048 message, $0.0048 session": not $0.0048 alone
    assert cost["20240813061835"] == pytest.approx(0.00011 + 0.00023 + 0.00036 + 0.0048)
