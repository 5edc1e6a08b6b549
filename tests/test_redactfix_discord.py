"""Discord bot tokens are found wherever they are (review16's summary: ``MT….….…`` had no
rule unless the text said "discord"). A token is its bot's user id (a snowflake: decimal
digits) in base64, a dot, 6 characters, a dot, 27 to 38 more: the id's base64 has a fixed
shape, and its first four characters are keywords the prefilter finds.

Every token here is made at test time from random ids and characters: none is real.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.redact import redact_text, redactor
from exporter.redact_rules import RULES

URLSAFE = string.ascii_letters + string.digits + "-_"
ALNUM = string.ascii_letters + string.digits
RULE = "discord-bot-token"


def token(rng: random.Random, digits: int = 19, last: int = 38) -> str:
    """A bot token of that shape: ``digits`` in the id, ``last`` in the signature."""
    user_id = str(rng.randrange(10 ** (digits - 1), 10**digits))
    head = base64.b64encode(user_id.encode()).decode().rstrip("=")
    middle = "".join(rng.choice(URLSAFE) for _ in range(6))
    tail = "".join(rng.choice(URLSAFE) for _ in range(last - 1)) + rng.choice(ALNUM)
    return f"{head}.{middle}.{tail}"


def redacted(text: str) -> tuple[str, Counter[str]]:
    counts: Counter[str] = Counter()
    return redact_text(text, counts), counts


@pytest.mark.parametrize("digits", [17, 18, 19, 20])
@pytest.mark.parametrize("last", [27, 38])
def test_a_token_alone_is_redacted_without_the_word_discord(digits, last):
    secret = token(random.Random(digits * last), digits, last)
    out, counts = redacted(f"the bot runs with {secret} now")
    assert out == f"the bot runs with [REDACTED:{RULE}] now"
    assert counts == {RULE: 1}


@pytest.mark.parametrize(
    "template",
    [
        "DISCORD_TOKEN={s}",
        'TOKEN = "{s}"',
        "client.run('{s}')",
        '{{"token": "{s}", "prefix": "!"}}',
        "Authorization: Bot {s}",
        "curl -H 'Authorization: Bot {s}' https://discord.com/api/v10/users/@me",
        "bot.login(`{s}`);",
        "token:{s}",
        "\\n{s}\\n",
    ],
)
def test_a_token_in_code_is_counted_once_as_discords(template):
    secret = token(random.Random(len(template)))
    out, counts = redacted(template.format(s=secret))
    assert secret not in out
    assert counts == {RULE: 1}, (out, counts)
    assert f"[REDACTED:{RULE}]" in out


@settings(max_examples=100, deadline=None)
@given(st.integers(10**16, 2**64 - 1), st.integers(27, 38), st.integers(0, 2**32))
def test_any_snowflake_gives_a_token_that_is_caught(user_id, last, seed):
    rng = random.Random(seed)
    head = base64.b64encode(str(user_id).encode()).decode().rstrip("=")
    middle = "".join(rng.choice(URLSAFE) for _ in range(6))
    tail = "".join(rng.choice(URLSAFE) for _ in range(last - 1)) + rng.choice(ALNUM)
    secret = f"{head}.{middle}.{tail}"
    out, counts = redacted(f"x {secret} y")
    assert out == f"x [REDACTED:{RULE}] y" and counts == {RULE: 1}


def test_the_prefilter_finds_the_rule_by_the_tokens_first_characters():
    """The rule runs only near its keywords (not on the whole of every text that says
    "discord"), and not at all on a text without one."""
    engine = redactor()
    i = next(k for k, rule in enumerate(engine.rules) if rule.id == RULE)
    assert engine.rules[i].near
    secret = token(random.Random(1))
    text = ("lorem ipsum " * 200 + secret + " dolor").encode()
    windows = engine.keywords.spots(text)[i]
    assert windows and all(b - a < 1000 for a, b in windows)
    assert any(a <= text.index(secret.encode()) < b for a, b in windows)
    assert i not in engine.keywords.spots(b"nothing here but plain words")
    named = b"lorem ipsum " * 200 + b"a Discord bot"  # a window there, not the whole text
    assert engine.keywords.spots(named)[i] == [(len(named) - 64 - 11, len(named))]


def test_the_keywords_are_rare_in_text_and_absent_from_base64():
    """The keywords end with the dot after the id: base64 (a file of digits encoded, an
    image) holds none, and a sentence ending in "policy." or "energy." wakes nothing."""
    engine = redactor()
    i = next(k for k, rule in enumerate(engine.rules) if rule.id == RULE)
    digits = "".join(random.Random(5).choice(string.digits) for _ in range(30_000))
    blob = base64.b64encode(digits.encode())
    prose = b"Read the policy. Save energy. Pin the dependency. It is risky. " * 100
    for data in (blob, prose):
        assert i not in engine.keywords.spots(data)


def _jwt(rng: random.Random, claims: dict[str, object]) -> str:
    def part(value: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    signature = "".join(rng.choice(URLSAFE) for _ in range(42)) + "A"
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(claims)}.{signature}"


def test_a_jwt_is_counted_once_as_a_jwt():
    """A JWT whose claims hold digits (a user id, times): their base64 looks like an id's,
    inside the JWT's part, and the token is still one JWT."""
    rng = random.Random(2)
    for claims in (
        {"sub": "123456789012345678", "iat": 1700000000},
        {"id": "987654321098765432", "exp": 1800000000, "n": "1234567890123456789"},
    ):
        jwt = _jwt(rng, claims)
        out, counts = redacted(f"Authorization: Bearer {jwt}")
        assert counts == {"jwt": 1}, (out, counts)
        assert out == "Authorization: Bearer [REDACTED:jwt]"


def test_a_jwt_and_a_discord_token_each_count_once():
    rng = random.Random(3)
    jwt, secret = _jwt(rng, {"sub": "42"}), token(rng)
    out, counts = redacted(f"{jwt} and {secret}")
    assert out == f"[REDACTED:jwt] and [REDACTED:{RULE}]"
    assert counts == {"jwt": 1, RULE: 1}


@pytest.mark.parametrize(
    "text",
    [
        # versions, dotted names and hashes
        "release 1.24.3 of package MTIz.1.0 (v2024.10.15-rc.1)",
        "npm i lodash@4.17.21 && pip install Django==5.0.6",
        "MD5.d41d8cd98f00b204e9800998ecf8427e.e3b0c44298fc1c149afbf4c8996fb924",
        "sha1." + hashlib.sha1(b"a").hexdigest() + "." + hashlib.sha256(b"b").hexdigest(),
        hashlib.md5(b"c").hexdigest() + ".abcdef." + hashlib.sha1(b"d").hexdigest(),  # noqa: S324
        # base64 of digits, too short to be an id, and an id's shape without its parts
        "MTcwMDAwMDAwMA==.Zm9vYmFy.YmF6",
        "MTIzNDU2Nzg5MDEyMzQ1Njc4",
        "MTIzNDU2Nzg5MDEyMzQ1Njc4.abc.def",
        # a random string of the old loose shape, with no "discord" near it
        "MhazT9XSLxttiqRH6BPY0vaQ.3gzUo2.r8uZIjDI0y4MJ4tijz9rNViH4to",
        # a snowflake itself, in a URL and a mention
        "https://discord.com/channels/123456789012345678/876543210987654321 <@123456789012345678>",
    ],
)
def test_look_alikes_stay(text):
    out, counts = redacted(text)
    assert out == text and not counts


def test_a_base64_blob_of_digits_is_not_a_token():
    """Base64 of a long run of digits (a data file) is full of the id's characters."""
    digits = "".join(random.Random(4).choice(string.digits) for _ in range(30_000))
    blob = base64.b64encode(digits.encode()).decode()
    wrapped = "\n".join(blob[i : i + 76] for i in range(0, len(blob), 76))
    for text in (blob, wrapped, blob[:4000] + "." + blob[4000:4006] + "." + blob[5000:6000]):
        out, counts = redacted(text)
        assert out == text and not counts


def test_the_table_still_has_one_discord_rule():
    assert [rule.id for rule in RULES].count(RULE) == 1


def test_the_keywords_are_the_endings_of_every_id_of_four_to_six_digits():
    """The endings are made from each id's last digits alone (importing the rules made all
    1.1 million, half a second of every start); they are the same set."""
    from base64 import b64encode
    from itertools import product

    from exporter.redact_rules import _DISCORD_ENDS

    every = {
        b64encode("".join(digits).encode()).decode().rstrip("=")[-3:] + "."
        for n in (4, 5, 6)
        for digits in product("0123456789", repeat=n)
    }
    assert set(_DISCORD_ENDS) == every and len(_DISCORD_ENDS) == 599
