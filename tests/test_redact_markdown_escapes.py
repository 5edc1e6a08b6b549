"""Tokens escaped for Markdown (review47 M3): ``ghp\\_…``, ``sk\\_live\\_…``, ``glpat\\-…``,
``xoxb\\-…`` (text copied from a renderer or an export, a model's escaped underscores) are
read as the token they show as, and redacted where they stand. Escaped names and prose
stay. The tokens are random characters made at test time; none is real."""

from __future__ import annotations

import random
import string
import time

import pytest

from exporter.redact import redact_text

_rng = random.Random(20261212)


def _r(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


GITHUB = "gh" + "p_" + _r(36)
STRIPE = "sk" + "_live_" + _r(24)
GITLAB = "gl" + "pat-" + _r(20)
SLACK = "xo" + "xb-" + _r(13, string.digits) + "-" + _r(13, string.digits) + "-" + _r(24)
ANTHROPIC = "sk-ant-" + "api03-" + _r(93) + "AA"


def _escaped(token: str) -> str:
    return token.replace("_", "\\_").replace("-", "\\-")


@pytest.mark.parametrize("token", [GITHUB, STRIPE, GITLAB, SLACK, ANTHROPIC])
def test_a_token_escaped_for_markdown_is_redacted(token):
    text = f"and the token {_escaped(token)} is in the env"
    out = redact_text(text)
    body = token.split("_")[-1].split("-")[-1]
    assert body not in out and "[REDACTED:" in out
    assert out.startswith("and the token [REDACTED:") and out.endswith(" is in the env")


def test_one_escaped_underscore_inside_a_body_is_read_too():
    token = ANTHROPIC[:40] + "_" + ANTHROPIC[41:]
    escaped = token[:40] + "\\_" + token[41:]
    out = redact_text(f"key: {escaped}")
    assert token[41:60] not in out and token[20:40] not in out


@pytest.mark.parametrize(
    "text",
    [
        "my\\_variable\\_name and some\\-thing \\_private",
        "DB\\_HOST=localhost and PORT\\_NUMBER=5432",
        "see snake\\_case\\_identifier\\_with\\_many\\_parts in the docs",
        "a regex: [\\w\\-]+\\_\\d{3}",
        "9fceb02d0ae598e95dc970b74767f19372d61af8 and 3f2b9c1e\\-8a7d\\-4e6f",
    ],
)
def test_escaped_names_and_prose_stay(text):
    assert redact_text(text) == text


def test_many_escapes_are_read_in_linear_time():
    text = "a\\_b\\-" * 100_000 + _escaped(GITHUB)
    started = time.perf_counter()
    out = redact_text(text)
    assert time.perf_counter() - started < 10
    assert GITHUB[4:] not in out
