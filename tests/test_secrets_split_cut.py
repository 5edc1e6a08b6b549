"""A secret's keyword or a token's prefix cut between the items of a list of strings
(secrets7): ``["gh", "p_…"]``, ``["api_", "key=…"]``, and a Stripe key's short last piece.
No piece of the secret survives; lists of words stay. All secrets are synthetic."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from test_secrets_encoded import TOKEN_RULES, token_of

from exporter.redact import redact_text
from exporter.redact_rules import RULES
from exporter.redact_split import prefix_rule

_RULES = {r.id: r for r in RULES}
# Tokens that begin with one of their own rule's keywords (a prefix a list may cut).
PREFIXED = sorted(
    i
    for i in TOKEN_RULES
    if prefix_rule(_RULES[i])
    and any(token_of(i).startswith(k) and len(k) >= 2 for k in _RULES[i].keywords)
    and not any(c in token_of(i) for c in "\"'\\ ")
)
VALUE = "A1b2C3d4" + "E5f6G7h8" + "J9k0"  # (random-looking: the generic rules' value)


def _placeholders_out(out: str) -> str:
    return re.sub(r"\[REDACTED:[\w.-]+\]", "#", out)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(PREFIXED),
    st.data(),
    st.sampled_from([", ", ",", ",\n  "]),
    st.sampled_from([[], ["before"], ["x", "configuration"]]),
    st.sampled_from([[], ["after"], ["README.md"]]),
)
def test_a_token_cut_inside_its_prefix_loses_every_piece(rule_id, data, sep, before, after):
    token = token_of(rule_id)
    prefix = max((k for k in _RULES[rule_id].keywords if token.startswith(k)), key=len)
    cut = data.draw(st.integers(1, len(prefix) - 1))
    pieces = [token[:cut], token[cut:]]
    if len(token) - cut >= 16 and data.draw(st.booleans()):  # three items
        at = data.draw(st.integers(cut + 8, len(token) - 8))
        pieces = [token[:cut], token[cut:at], token[at:]]
    text = json.dumps([*before, *pieces, *after], separators=(sep, ": "))
    out = redact_text(text)
    stripped = _placeholders_out(out)
    for piece in pieces:
        assert piece[-8:] not in stripped or len(piece) < 6, (piece, out)
    assert token[:cut] + token[cut:] not in stripped
    for word in (*before, *after):
        assert word in out  # the other items stay


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(["api_key", "API_KEY", "secret", "password", "PASSWORD", "apiKey"]),
    st.data(),
    st.sampled_from(["=", ": ", "="]),
)
def test_a_name_cut_between_items_loses_its_value(name, data, assign):
    cut = data.draw(st.integers(1, len(name) - 1))
    items = [name[:cut], name[cut:] + assign + VALUE]
    if data.draw(st.booleans()):  # the value an item of its own
        items = [name[:cut], name[cut:] + assign.strip(), VALUE]
    assert redact_text(name + assign + VALUE) != name + assign + VALUE  # its rules' secret
    out = redact_text(json.dumps(items))
    assert VALUE[:8] not in out and VALUE[-8:] not in out, out
    assert json.loads(out)[0] == name[:cut]  # the name stays


def test_a_token_cut_in_its_prefix_and_a_name_cut_by_examples():
    github = token_of("github-pat")
    out = redact_text(json.dumps(["gh", github[2:]]))
    assert json.loads(out) == ["[REDACTED:github-pat]"] * 2
    out = redact_text(json.dumps(["api_", "key=" + VALUE]))
    assert json.loads(out) == ["api_", "key=[REDACTED:generic-secret]"]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["8vXc", "r8Tz", "q3Zk9", "x7Yq2W", "P8qLm3a", "k2Q"]), st.booleans())
def test_a_stripe_keys_short_last_piece_goes_with_it(last, after):
    key = token_of("stripe-key")
    items = ["before", key, last, *(["after"] if after else [])]
    out = json.loads(redact_text(json.dumps(items)))
    assert out == ["before", "[REDACTED:stripe-key]", "[REDACTED:stripe-key]", *out[3:]]
    assert out[3:] == (["after"] if after else [])


_WORDS = [
    "pass", "word", "api_", "key", "gh", "p_", "sk_live_", "configuration", "README.md",
    "secret", "token", "v2", "x64", "utf8", "Win32", "the", "Stripe", "sk_", "live_", "next",
    "ghp", "_", "password", "=", "key=value", "api_key", "start", "TypeError", "2FA", "id",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=2, max_size=8), st.sampled_from([", ", ","]))
def test_lists_of_words_stay(words, sep):
    text = json.dumps(words, separators=(sep, ": "))
    assert redact_text(text) == text


def test_a_whole_stripe_key_keeps_a_version_or_a_word_after_it():
    key = token_of("stripe-key")
    for word in ("v2", "x64", "utf8", "Win32", "2FA", "id", "next", "Zq3", "md5"):
        assert json.loads(redact_text(json.dumps([key, word]))) == ["[REDACTED:stripe-key]", word]
