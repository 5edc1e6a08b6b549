"""A placeholder stays whole (review16 F1): a later rule's match never takes part of an
earlier rule's ``[REDACTED:<rule>]``. A token pasted as a URL's user
(``https://ghp_…@github.com/a/b.git``) or as ``curl -u``'s user came out as
``[REDACTED:[REDACTED:uri-credentials]@…``: the pair rules read ``[REDACTED`` as the user and
``github-pat]`` as the password.

Every token here is generated at test time (``test_redact.SAMPLES``): none is real.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_redact import SAMPLES, Gen

from exporter.redact import Redactor, redact_text
from exporter.redact_rules import RULES, Rule

_IDS = {rule.id for rule in RULES}
# Rules whose sample is the token alone: a secret wherever it stands (not a value that is
# one only after its name, as ``aws_secret_access_key = …``).
STANDALONE = sorted(rid for rid, make in SAMPLES.items() if make(Gen(1))[0] == make(Gen(1))[1])
_PLACEHOLDER = re.compile(r"\[REDACTED:([a-z0-9_.-]+)\]")

# Where a token is pasted: a URL's user part, its password part, both, an assignment,
# quotes, a header, a flag, ``curl -u`` either side of the colon.
CONTEXTS = (
    "git remote set-url origin https://{s}@github.com/a/b.git",
    "https://{s}:x-oauth-basic@github.com/a/b.git",
    "https://{user}:{s}@github.com/a/b.git",
    "https://oauth2:{s}@gitlab.example.com/a/b.git",
    "mongodb+srv://{s}:{s}@cluster0.example.net/db",
    "redis://:{s}@localhost:6379/0",
    "[remote]\n\turl = https://{s}@github.com/a/b.git",
    "token={s}",
    'TOKEN="{s}"',
    "'{s}'",
    '{{"token": "{s}"}}',
    "Authorization: Bearer {s}",
    "Authorization: token {s}",
    "curl -u {s}:x-oauth-basic https://api.github.com/user",
    "curl -u {user}:{s} https://api.github.com/user",
    "tool --token {s} --verbose",
    "password: {s}",
    "export API_KEY={s}",
)


def well_formed(out: str) -> bool:
    """Does every ``[REDACTED:`` in ``out`` open a placeholder of a known rule?"""
    names = _PLACEHOLDER.findall(out)
    return all(n in _IDS for n in names) and "[REDACTED:" not in _PLACEHOLDER.sub("", out)


@pytest.mark.parametrize("rule_id", STANDALONE)
def test_a_token_as_a_urls_user_keeps_its_own_placeholder(rule_id):
    out, counts = _redacted_in(rule_id, len(rule_id), "https://{}@github.com/a/b.git")
    assert out == f"https://[REDACTED:{rule_id}]@github.com/a/b.git"
    assert counts == {rule_id: 1}


def _redacted_in(rule_id: str, seed: int, template: str) -> tuple[str, Counter[str]]:
    """A sample secret of ``rule_id`` put in ``template``, redacted; and what was counted."""
    _, secret = SAMPLES[rule_id](Gen(seed))
    counts: Counter[str] = Counter()
    return redact_text(template.format(secret), counts), counts


def test_the_reviews_url():
    secret = SAMPLES["github-pat"](Gen(16))[1]
    text = f"git remote set-url origin https://{secret}@github.com/a/b.git"
    counts: Counter[str] = Counter()
    out = redact_text(text, counts)
    assert out == "git remote set-url origin https://[REDACTED:github-pat]@github.com/a/b.git"
    assert counts == {"github-pat": 1}


@pytest.mark.parametrize("rule_id", ["github-pat", "anthropic-api-key", "bitbucket-app-password"])
def test_a_token_as_curls_user_keeps_its_own_placeholder(rule_id):
    template = "curl -u {}:x-oauth-basic https://api.github.com/user"
    out, counts = _redacted_in(rule_id, 3, template)
    assert out == f"curl -u [REDACTED:{rule_id}]:x-oauth-basic https://api.github.com/user"
    assert counts == {rule_id: 1}


def test_a_password_after_a_redacted_user_is_still_found():
    """The placeholder is the user: the password after it is the pair's, and is redacted."""
    token = SAMPLES["github-pat"](Gen(4))[1]
    password = Gen(5)("abcdefghjkmnpqrstuvwxyz23456789", 18)
    for text, kept in (
        (f"https://{token}:{password}@example.com/x", "https://[REDACTED:github-pat]:"),
        (f"curl -u {token}:{password} https://api", "curl -u [REDACTED:github-pat]:"),
    ):
        out = redact_text(text)
        assert password not in out and well_formed(out), out
        assert out.startswith(kept), out


def test_a_placeholder_already_in_the_text_is_opaque_too():
    """A text redacted before (a note pasted back into a prompt, another tool's output)."""
    for text in (
        "https://[REDACTED:github-pat]@github.com/a/b.git",
        "https://[REDACTED:some.other_rule]@github.com/a/b.git",
        "curl -u [REDACTED:github-pat]:x-oauth-basic https://api",
        "postgres://app:[REDACTED:uri-credentials]@db/app",
    ):
        assert redact_text(text) == text


def test_a_users_rule_cannot_cut_a_placeholder_either():
    """A rule of the user's that would take a placeholder's tail (``github-pat]…``)."""
    rules = Redactor((Rule("tail", ("pat]",), r"pat\][ a-z]{0,8}"), *RULES))
    secret = SAMPLES["github-pat"](Gen(6))[1]
    out = rules.text(f"see {secret} tail")
    assert out == "see [REDACTED:github-pat] tail"


_USERS = st.text("abcdefghijklmnopqrstuvwxyz0123456789_-.", min_size=1, max_size=12)
_NOISE = st.text(
    st.characters(blacklist_characters="[]", blacklist_categories=("Cs",)), max_size=40
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(STANDALONE),
    st.sampled_from(CONTEXTS),
    _USERS,
    _NOISE,
    _NOISE,
    st.integers(0, 1000),
)
def test_any_token_anywhere_leaves_whole_placeholders_and_no_secret(
    rule_id, context, user, before, after, seed
):
    _, secret = SAMPLES[rule_id](Gen(seed))
    text = f"{before} {context.format(s=secret, user=user)} {after}"
    out = redact_text(text)
    assert secret not in out, out
    assert well_formed(out), out
    assert f"[REDACTED:{rule_id}]" in out, out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(STANDALONE), min_size=2, max_size=4), st.sampled_from(CONTEXTS))
def test_several_tokens_in_one_context(rule_ids, context):
    """Two tokens where one context holds two (a URL's user and password), and more in a
    line: each keeps its own placeholder."""
    secrets = [SAMPLES[r](Gen(i))[1] for i, r in enumerate(rule_ids)]
    text = " ; ".join(
        context.format(s=s, user=u) for s, u in zip(secrets, secrets[1:] + secrets[:1], strict=True)
    )
    out = redact_text(text)
    assert not any(s in out for s in secrets), out
    assert well_formed(out), out
