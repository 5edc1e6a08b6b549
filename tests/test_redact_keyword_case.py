"""A rule's name keywords reach it in any mix of case (review47 H2): ``X-API-Key``,
``x-API-key`` and ``OpenAI-API-Key`` (an acronym, then a capitalised word) were no form
the keyword prefilter listed, so the rule never ran on them. A token's prefix (``ghp_``,
``AKIA``) still counts only as it is spelled. The values are random characters made at
test time; none is real."""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.redact import redact_text
from exporter.redact_keywords import KeywordIndex
from exporter.redact_rules import RULES

_rng = random.Random(20261207)
VALUE = "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(40))
INDEX = KeywordIndex(RULES)
_FOLDED = [(i, k) for i, r in enumerate(RULES) if r.fold for k in r.keywords if k.isascii()]


@pytest.mark.parametrize(
    "text",
    [
        f"X-API-Key: {VALUE}",
        f"curl -H 'X-API-Key: {VALUE}' https://api.example.com",
        f'{{"X-API-Key": "{VALUE}"}}',
        f"x-API-key: {VALUE}",
        f"OpenAI-API-Key: {VALUE}",
        f"X-Auth-TOKEN: {VALUE}",
        f"Client_Secret = {VALUE}",
    ],
)
def test_a_name_in_an_acronyms_case_is_redacted(text):
    out = redact_text(text)
    assert VALUE not in out and "[REDACTED:" in out


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_FOLDED), st.randoms(use_true_random=False))
def test_any_mix_of_case_of_a_fold_keyword_reaches_its_rule(pick, rnd):
    i, keyword = pick
    mixed = "".join(c.upper() if rnd.random() < 0.5 else c.lower() for c in keyword)
    spots = INDEX.spots(f"some text {mixed} more text".encode())
    assert i in spots, (RULES[i].id, mixed)


def test_a_tokens_prefix_counts_only_as_it_is_spelled():
    github = next(i for i, r in enumerate(RULES) if r.id == "github-pat")
    assert github in INDEX.spots(b"a ghp_ here")
    assert github not in INDEX.spots(b"a GHP_ here")
    assert redact_text("GHP_" + VALUE[:36]) == "GHP_" + VALUE[:36]


@pytest.mark.parametrize(
    "text",
    ["the X-API-Key header", "API-Key rotation is due", "OpenAI-API-Key: ${OPENAI_KEY}"],
)
def test_a_name_without_a_secret_stays(text):
    assert redact_text(text) == text


def test_a_name_in_any_case_is_found_in_a_long_text_too():
    # (past the length where one search for any keyword first finds the stretches)
    text = "plain words of a long log line " * 40 + f"\nX-API-Key: {VALUE}\n" + "more " * 80
    out = redact_text(text)
    assert VALUE not in out and "X-API-Key: [REDACTED:" in out
