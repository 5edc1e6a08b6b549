"""Secrets written in base64, and tokens split across the items of a list of strings
(review27 F8, secrets4). Each layout is first checked to be one by a real parser
(``base64``'s decoder, ``json``): what it reads back holds the token. No piece of the
base64 run, or of either half, survives redaction; base64 and lists that hold no secret
stay byte for byte. All tokens are synthetic (``test_redact.SAMPLES``)."""

from __future__ import annotations

import base64
import json
import random
import re
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from test_redact import SAMPLES, Gen

from exporter.redact import redact_text, redactor
from exporter.redact_base64 import encoded_spellings
from exporter.redact_rules import RULES

# Rules whose sample is the token alone.
TOKEN_RULES = sorted(r.id for r in RULES if (s := SAMPLES[r.id](Gen(5)))[0] == s[1])
# Of those, the rules whose token begins with a prefix of four characters or more: base64
# spells it recognisably at every alignment. (Those of three, ``hf_``, ``sk-``, are spelled
# with their token's first character: ``test_secrets_encoded_short``.)
PREFIXED = sorted(
    r.id
    for r in RULES
    if r.id in TOKEN_RULES
    and not (r.generic or r.fold)
    and any(len(k) >= 4 and SAMPLES[r.id](Gen(5))[1].startswith(k) for k in r.keywords)
)
NAMES = ["token=", "TOKEN=", "export API_TOKEN=", "password: ", "GITHUB_TOKEN=", "secret="]
B64 = re.compile(r"[A-Za-z0-9+/]{12}")


def token_of(rule_id: str, n: int = 0) -> str:
    return SAMPLES[rule_id](Gen(len(rule_id) + n))[1]


def encoded(text: str, wrapped: bool) -> str:
    """``text`` in base64 as ``base64`` prints it (wrapped at 76) or on one line."""
    data = text.encode()
    out = (base64.encodebytes(data) if wrapped else base64.b64encode(data)).decode()
    assert base64.b64decode(out) == data  # the real decoder reads the text back
    return out.rstrip("\n")


def no_run_left(out: str, run: str) -> None:
    """No 12 characters of ``run`` in ``out`` (its placeholders aside)."""
    out = re.sub(r"\[REDACTED:[\w.-]+\]", "#", out)
    for line in run.splitlines():
        for i in range(0, len(line) - 12, 6):
            assert line[i : i + 12] not in out, (line[i : i + 12], out)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(PREFIXED),
    st.sampled_from(["", " ", "  ", "ab ", "x: ", "\n", "token is "]),
    st.sampled_from(["", "\n", " end", "&x=1"]),
    st.booleans(),
    st.sampled_from(["{}", "echo -n secret | base64\n{}\n", 'data:\n  token: "{}"', "auth {}."]),
)
def test_base64_of_a_token_goes_whole_at_every_alignment(rule_id, lead, tail, wrapped, around):
    """``echo -n "… ghp_…" | base64``: the token's prefix, at any of the three places a byte
    can take in a group of three, marks the run; decoded, it holds the token."""
    token = token_of(rule_id)
    run = encoded(lead + token + tail, wrapped)
    assert token in base64.b64decode(run).decode()
    out = redact_text(around.format(run))
    no_run_left(out, run)
    assert f"[REDACTED:{rule_id}]" in out or "[REDACTED:" in out


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TOKEN_RULES), st.sampled_from(NAMES), st.sampled_from(["", "\n"]))
def test_base64_of_a_named_token_goes_whatever_its_format(rule_id, name, tail):
    """A token of any format after its name (``token=…``): the name marks the run."""
    token = token_of(rule_id)
    run = encoded(name + token + tail, wrapped=False)
    out = redact_text(f"$ echo {run} | base64 -d")
    no_run_left(out, run)


def test_base64_of_base64_of_a_token_goes_and_is_counted_once():
    token = token_of("github-pat")
    once = encoded(f"token={token}", wrapped=False)
    twice = encoded(once, wrapped=False)
    counts: Counter[str] = Counter()
    assert redactor().text(f"a {once} b {twice} c", counts) == (
        "a [REDACTED:github-pat] b [REDACTED:github-pat] c"
    )
    assert counts == {"github-pat": 2}


def test_base64_of_a_private_key_goes():
    """A Kubernetes secret's ``tls.key``: base64 of a PEM key (``LS0tLS1CRUdJTi…``)."""
    pem = SAMPLES["private-key"](Gen(3))[0]
    run = encoded(pem, wrapped=False)
    out = redact_text(f"data:\n  tls.key: {run}\n  tls.crt: LS0tLQ==\n")
    no_run_left(out, run)
    assert out.endswith("tls.crt: LS0tLQ==\n")


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=600), st.booleans())
def test_base64_that_holds_no_secret_stays(data, wrapped):
    run = (base64.encodebytes(data) if wrapped else base64.b64encode(data)).decode()
    text = f"blob: {run}"
    assert redact_text(text) == text


def test_base64_of_text_certificates_and_prefixes_alone_stays():
    """Text, a certificate in base64 (a kubeconfig's ``certificate-authority-data``),
    and a token's prefix with no token after it decode to no secret."""
    rng = random.Random(7)
    cert = "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE" + "".join(
        rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        for _ in range(300)
    )
    for plain in (
        "the ghp_ prefix names a GitHub token; sk-ant- an Anthropic key",
        "token=${GITHUB_TOKEN}\npassword=<your password>\n",
        cert + "\n-----END CERTIFICATE-----\n",
        "AKIA and ASIA start AWS key ids",
    ):
        for wrapped in (False, True):
            text = f"certificate-authority-data: {encoded(plain, wrapped)}"
            assert redact_text(text) == text
    # Each of the three spellings is one the encoder really writes.
    for spelled in encoded_spellings("ghp_"):
        assert any(spelled in base64.b64encode(b"x" * n + b"ghp_xyz").decode() for n in range(3))
    assert len(encoded_spellings("ghp_")) == 3


# -- a token split across the items of a list of strings ------------------------------------


def cuts(token: str) -> list[int]:
    """Where a token may be cut so that its first piece is no token alone."""
    out = []
    for cut in range(len(token) // 3, len(token) - 4, 5):
        head = json.dumps([token[:cut]])
        if redact_text(head) == head:
            out.append(cut)
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(TOKEN_RULES),
    st.data(),
    st.sampled_from([", ", ",", ",\n  "]),
    st.sampled_from([[], ["before"]]),
    st.sampled_from([[], ["after", "more"]]),
    st.booleans(),
)
def test_a_token_split_across_two_items_of_a_list_loses_both_halves(
    rule_id, data, sep, before, after, escaped
):
    token = token_of(rule_id)
    places = cuts(token)
    if not places or any(c in token for c in "\"'\\ "):
        return
    cut = data.draw(st.sampled_from(places))
    items = [*before, token[:cut], token[cut:], *after]
    text = json.dumps(items, separators=(sep, ": "))
    assert "".join(json.loads(text)[len(before) : len(before) + 2]) == token  # the real parser
    if escaped:  # JSON inside a JSON string
        text = json.dumps({"chunks": text})[12:-1]
    out = redact_text(text)
    stripped = re.sub(r"\[REDACTED:[\w.-]+\]", "#", out)
    for piece in (token[:cut][-6:], token[cut:][:6], token[cut:][-6:]):
        assert piece not in stripped, (piece, out)
    for word in (*before, *after):
        assert word in out  # the other items stay


def test_a_list_whose_items_are_no_split_token_stays():
    token = token_of("github-pat")
    for items in (
        [token[:20], "configuration_settings_value"],  # the next item does not continue it
        [token[:20], "x"],
        ["ghp_", "is", "the", "prefix"],
        ["file_path", "old_string", "new_string"],
        [token, "next"],  # a whole token: it goes, the next item stays
    ):
        text = json.dumps(items)
        out = redact_text(text)
        if token in items:
            assert out == json.dumps(["[REDACTED:github-pat]", "next"])
        else:
            assert out == text, out
