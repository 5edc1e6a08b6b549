"""Tokens split across the items of a list of strings beyond two (secrets5): a token in three
or more items, and a token of no fixed length (``sk_live_…``) whose first item is long
enough to match alone. Each list is first read back by ``json``: its items joined hold the
token. No piece of the token survives redaction; the other items stay. All tokens are
synthetic (``test_redact.SAMPLES``)."""

from __future__ import annotations

import json
import re
from itertools import accumulate

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_secrets_encoded import TOKEN_RULES, token_of

from exporter.redact import redact_text
from exporter.redact_rules import RULES

_KEYWORDS = {r.id: r.keywords for r in RULES}
WORDS = ["before", "after", "more", "x", "configuration", "README.md"]


def kept_whole(rule_id: str, token: str, cuts: list[int]) -> bool:
    """Does no cut fall inside a keyword of the token (``…-us14``, ``:AA``, ``T3BlbkFJ``)?
    (A keyword cut in two is not looked for.)"""
    for word in _KEYWORDS[rule_id]:
        at = token.find(word)
        while at != -1:
            if any(at < c < at + len(word) for c in cuts):
                return False
            at = token.find(word, at + 1)
    return True


def pieces_gone(out: str, pieces: list[str]) -> None:
    stripped = re.sub(r"\[REDACTED:[\w.-]+\]", "#", out)
    for piece in pieces:
        assert piece not in stripped or len(piece) < 6, (piece, out)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(TOKEN_RULES),
    st.data(),
    st.integers(3, 6),
    st.sampled_from([", ", ",", ",\n  "]),
    st.sampled_from([[], ["before"], ["x", "configuration"]]),
    st.sampled_from([[], ["after", "more"], ["README.md"]]),
    st.booleans(),
)
def test_a_token_split_across_three_or_more_items_loses_every_piece(
    rule_id, data, count, sep, before, after, escaped
):
    token = token_of(rule_id)
    assume(not any(c in token for c in "\"'\\ ") and len(token) >= 8 * count)
    # Pieces of 8 characters or more: a token's chunk, told from a word by its mix.
    lengths = data.draw(st.lists(st.integers(8, 40), min_size=count - 1, max_size=count - 1))
    cuts = list(accumulate(lengths))
    assume(cuts[-1] <= len(token) - 8 and kept_whole(rule_id, token, cuts))
    pieces = [token[a:b] for a, b in zip([0, *cuts], [*cuts, len(token)], strict=True)]
    items = [*before, *pieces, *after]
    text = json.dumps(items, separators=(sep, ": "))
    assert "".join(json.loads(text)[len(before) : len(before) + count]) == token  # the parser
    if escaped:  # JSON inside a JSON string
        text = json.dumps({"chunks": text})[12:-1]
    out = redact_text(text)
    pieces_gone(out, [p[-6:] for p in pieces] + [p[:6] for p in pieces])
    for word in (*before, *after):
        assert word in out  # the other items stay


def test_a_github_token_in_four_items_and_a_mailchimp_key_in_three_lose_every_piece():
    github = token_of("github-pat")
    text = json.dumps(["x", github[:10], github[10:20], github[20:30], github[30:], "after"])
    assert redact_text(text) == json.dumps(["x", *["[REDACTED:github-pat]"] * 4, "after"])
    mailchimp = token_of("mailchimp-api-key")  # (its keyword, ``-us…``, at its end)
    text = json.dumps(["x", mailchimp[:10], mailchimp[10:20], mailchimp[20:]])
    assert redact_text(text) == json.dumps(["x", *["[REDACTED:mailchimp-api-key]"] * 3])


@settings(max_examples=200, deadline=None)
@given(
    st.integers(10, 20),
    st.sampled_from([[], ["after"], ["next", "word"], ["README.md"]]),
    st.booleans(),
    st.data(),
)
def test_a_stripe_key_whose_first_item_matches_alone_loses_the_rest(cut, after, three, data):
    """``sk_live_`` and ten characters are a key by its rule: the next items, chunks of its
    body (8 characters or more, letters and digits mixed: no word), go on with it."""
    key = token_of("stripe-key", 3) + "Zq3Xw9Lm2Pk7"  # (a body of 36)
    first, rest = key[: len("sk_live_") + cut], key[len("sk_live_") + cut :]
    if three:
        at = data.draw(st.integers(8, len(rest) - 8))
        rest = [rest[:at], rest[at:]]
    else:
        rest = [rest]
    assume(all(any(c.isdigit() for c in p) and any(c.isalpha() for c in p) for p in rest))
    assert redact_text(first) == "[REDACTED:stripe-key]"  # the first item alone is a key
    items = ["before", first, *rest, *after]
    out = redact_text(json.dumps(items))
    assert json.loads(out) == ["before", *["[REDACTED:stripe-key]"] * (1 + len(rest)), *after]


def test_a_whole_stripe_key_leaves_the_word_after_it():
    key = token_of("stripe-key")
    for word in ("next", "README", "value", "x", "configuration", "README.md", "TypeError"):
        assert json.loads(redact_text(json.dumps([key, word]))) == ["[REDACTED:stripe-key]", word]


def test_lists_of_words_after_a_prefix_stay():
    for items in (
        ["ghp_", "is", "the", "prefix", "of", "a", "GitHub", "token", "as", "documented"],
        ["sk_live_", "and", "sk_test_", "start", "Stripe", "keys"],
        ["mailchimp", "keys", "end", "in", "-us14"],
        ["sk_live_", "configuration", "README.md", "file_path", "Value"],
    ):
        text = json.dumps(items)
        assert redact_text(text) == text
