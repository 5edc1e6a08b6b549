"""Secrets in base64 the prefilter did not point at before secrets5: a token whose prefix is
three characters (``sk-``, ``hf_``, ``r8_``), and URL-safe base64 (``-``, ``_``, no padding)
of any token. Each run is first read back by Python's own decoder; no piece of it survives
redaction, whatever goes before and after. Base64 that holds no secret (random bytes, a
Fernet token like Codex's encrypted reasoning, text that names the prefixes) stays byte
for byte. All tokens are synthetic (``test_redact.SAMPLES``)."""

from __future__ import annotations

import base64
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from test_secrets_encoded import PREFIXED, TOKEN_RULES, no_run_left, token_of

from exporter.redact import redact_text
from exporter.redact_rules import RULES

# The rules whose token begins with a prefix of three characters (``sk-``, ``hf_``, ``eyJ``).
SHORT = sorted(
    r.id
    for r in RULES
    if r.id in TOKEN_RULES
    and r.id not in PREFIXED
    and not (r.generic or r.fold)
    and any(len(k) == 3 and token_of(r.id).startswith(k) for k in r.keywords)
)
# What may go before a token in the encoded text: not a word character (the token would not
# start a word, and so be none).
LEADS = ["", " ", "  ", "a ", "ab ", "x: ", "\n", "key=", "token is ", '{"k": "']
TAILS = ["", "\n", " end", '"}', "&x=1", "\xff\xfe"]
AROUND = ["{}", "echo {} | base64 -d\n", 'data:\n  key: "{}"', "auth {}.", "x={}&y=1"]


def urlsafe(text: str) -> str:
    data = text.encode()
    out = base64.urlsafe_b64encode(data).decode().rstrip("=")
    assert base64.urlsafe_b64decode(out + "=" * (-len(out) % 4)) == data  # the real decoder
    return out


def standard(text: str, wrapped: bool) -> str:
    data = text.encode()
    out = (base64.encodebytes(data) if wrapped else base64.b64encode(data)).decode()
    assert base64.b64decode(out) == data
    return out.rstrip("\n")


def test_the_short_prefixed_rules_are_the_expected_ones():
    assert {"sk-api-key", "huggingface-token", "replicate-api-token", "elevenlabs-api-key"} <= set(
        SHORT
    )


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(SHORT),
    st.sampled_from(LEADS),
    st.sampled_from(TAILS),
    st.sampled_from(["wrapped", "line", "urlsafe"]),
    st.sampled_from(AROUND),
)
def test_base64_of_a_token_with_a_short_prefix_goes_at_every_alignment(
    rule_id, lead, tail, layout, around
):
    """``echo -n "sk-…" | base64``: the prefix and the token's first character, at any of
    the three places a byte can take in a group of three, mark the run."""
    token = token_of(rule_id)
    plain = lead + token + tail
    run = urlsafe(plain) if layout == "urlsafe" else standard(plain, layout == "wrapped")
    out = redact_text(around.format(run))
    no_run_left(out, run)
    assert "[REDACTED:" in out


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(PREFIXED + SHORT),
    st.sampled_from(LEADS),
    st.sampled_from(TAILS),
    st.sampled_from(AROUND),
)
def test_urlsafe_base64_of_a_token_goes_whole(rule_id, lead, tail, around):
    """URL-safe base64 without its padding (``urlsafe_b64encode(…).rstrip("=")``)."""
    run = urlsafe(lead + token_of(rule_id) + tail)
    out = redact_text(around.format(run))
    no_run_left(out, run)


def test_urlsafe_base64_with_its_own_characters_goes_whole():
    """A run with ``-`` and ``_`` in it: the standard alphabet's run would stop at them."""
    for rule_id in ("github-pat", "sk-api-key", "anthropic-api-key"):
        for lead in ("", " ", "ab "):
            run = urlsafe(lead + "\xfb\xff" + " " + token_of(rule_id) + " \xff\xfe\xfb")
            assert "-" in run or "_" in run
            assert redact_text(f"v={run};") == "v=[REDACTED:" + rule_id + "];"


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=800))
def test_urlsafe_base64_that_holds_no_secret_stays(data):
    for run in (urlsafe(data.decode("latin-1")), base64.urlsafe_b64encode(data).decode()):
        text = f"blob: {run}"
        assert redact_text(text) == text


def test_fernet_tokens_and_text_naming_short_prefixes_stay():
    """Codex's ``encrypted_content`` is a Fernet token (``gAAAAA…``, URL-safe): random bytes
    whatever its characters spell; text about ``sk-``, ``hf_``, ``pat`` holds no token."""
    rng = random.Random(5)
    for _ in range(50):
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(100, 3000)))
        fernet = base64.urlsafe_b64encode(b"\x80" + blob).decode()
        text = f'{{"type": "reasoning", "encrypted_content": "{fernet}"}}'
        assert redact_text(text) == text
    for plain in (
        "sk-learn and hf_hub are packages; r8_ and fw_ start keys; the pattern path",
        "OPENAI_API_KEY=sk-...\nHF_TOKEN=hf_xxx\n",
        "sk-" + "a" * 40,  # (one letter over and over: no secret)
    ):
        for run in (standard(plain, False), urlsafe(plain)):
            text = f"config: {run}"
            assert redact_text(text) == text


def test_each_short_spelling_is_one_the_encoder_writes():
    from exporter.redact_base64 import short_spellings

    spelled = short_spellings("sk-")
    for n in range(3):
        for body in ("A", "z", "0", "_"):
            run = base64.b64encode(b"\xfe" * n + b"sk-" + body.encode() + b"xyz").decode()
            assert any(s in run for s in spelled), (n, body, run)
    assert len(spelled) <= 10  # (four characters each: few hits in random base64)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(SHORT + PREFIXED),
    st.text(max_size=80),
    st.text(max_size=80),
    st.sampled_from(LEADS),
    st.booleans(),
)
def test_no_encoded_token_survives_whatever_text_is_around_it(rule_id, before, after, lead, safe):
    """The run stands between any two texts (a blank apart, as a word does)."""
    plain = lead + token_of(rule_id) + "\n"
    run = urlsafe(plain) if safe else standard(plain, False)
    out = redact_text(f"{before} {run} {after}")
    no_run_left(out, run)
