"""Base64 of a token whose prefix is two characters: Twilio's ``SK`` + 32 hex, an Azure
client secret's ``Q~`` after a digit. The prefix with the token's fixed characters next to
it (a hex digit after ``SK``, a digit before ``Q~``) marks the run at every alignment,
wrapped, on one line or URL-safe; base64 that holds no such token stays byte for byte.
All tokens are synthetic (``test_redact.SAMPLES``)."""

from __future__ import annotations

import base64
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from test_secrets_encoded import no_run_left, token_of
from test_secrets_encoded_short import AROUND, LEADS, TAILS, standard, urlsafe

from exporter.redact import redact_text

TWO_CHAR_RULES = ["twilio-api-key", "azure-ad-client-secret"]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(TWO_CHAR_RULES),
    st.integers(0, 40),
    st.sampled_from(LEADS),
    st.sampled_from(TAILS),
    st.sampled_from(["wrapped", "line", "urlsafe"]),
    st.sampled_from(AROUND),
)
def test_base64_of_a_two_character_prefixed_token_goes(rule_id, n, lead, tail, layout, around):
    """Whatever stands around the token, and so at whichever of the three places in a
    group of bytes its prefix falls, no part of the run survives."""
    token = token_of(rule_id, n)
    plain = lead + token + tail
    run = urlsafe(plain) if layout == "urlsafe" else standard(plain, layout == "wrapped")
    out = redact_text(around.format(run))
    no_run_left(out, run)
    assert f"[REDACTED:{rule_id}]" in out


def test_a_twilio_key_piped_to_base64_goes():
    key = "S" + "K" + "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
    data = base64.b64encode(key.encode()).decode()
    out = redact_text(f"$ echo {data} | base64 -d > sid.txt\n")
    assert data not in out and "[REDACTED:twilio-api-key]" in out


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=12, max_size=3000), st.booleans())
def test_base64_of_other_bytes_stays(data, safe):
    """Random bytes (an image, a hash, encrypted reasoning) hold no such token: the run stays,
    though it may hold a spelling of ``SK`` or ``Q~`` by chance."""
    run = (base64.urlsafe_b64encode if safe else base64.b64encode)(data).decode()
    text = f"blob: {run}\n"
    assert redact_text(text) == text


def test_runs_that_spell_the_prefix_by_chance_stay():
    """Bytes chosen so that their base64 holds ``SK`` and a hex digit (``U0sw``, ``NLM``…)
    decode to no token: the run stays."""
    rng = random.Random(6)
    for _ in range(200):
        noise = bytes(rng.randrange(256) for _ in range(rng.randrange(3, 40)))
        fake = noise + b"SK0" + bytes(rng.randrange(256) for _ in range(30))
        run = base64.b64encode(fake).decode()
        assert redact_text(run) == run
    # Text about the prefix, in base64, stays too.
    prose = base64.b64encode(b"Twilio API keys start with SK and 32 hex digits.").decode()
    assert redact_text(prose) == prose
