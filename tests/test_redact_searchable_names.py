"""What search must still find (review47 M6, M7, L2): a tokenizer's name, a number of
tokens, an AWS resource's name, a Google Cloud secret's place by project number, and the
parameters of a URL's query after a password in it. The secrets beside them are random
characters made at test time; none is real."""

from __future__ import annotations

import random
import string

import pytest

from exporter.redact import redact_text

_rng = random.Random(20261208)
SECRET = "Qz4" + "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(17))


@pytest.mark.parametrize(
    "text",
    [
        "tokenizer: o200k_base",
        "# tokenizer = cl100k_base",
        '"tokenizer": "meta-llama/Llama-3.1-8B-Instruct"',
        "tokenizer_name: Qwen/Qwen2.5-Coder-7B-Instruct",
        "token_budget: 200k_tokens",
        "tokens_per_minute: 40k_tpm",
        "aws secretsmanager get-secret-value --secret-id "
        "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
        "arn: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
        '{"SecretId": "arn:aws:secretsmanager:eu-west-2:123456789012:secret:app/key-Zx9Qw1"}',
        "client_secret: projects/123456789/secrets/oauth/versions/2",
        "secret: projects/123/secrets/db/versions/latest",
        "secret: projects/my-proj/secrets/db/versions/latest",
    ],
)
def test_a_name_or_a_place_stays_searchable(text):
    assert redact_text(text) == text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (f"https://app.example.com/login?password={SECRET}&next=/dashboard&lang=en",
         "&next=/dashboard&lang=en"),
        (f'curl -d "user=me&password={SECRET}&remember=true"', "&remember=true"),
        (f"https://example.com/cb?access_token={SECRET}&state=af0ifjsldkj", "&state=af0ifjsldkj"),
        (f"https://example.com/cb?x=1&client_secret={SECRET}#frag", "#frag"),
    ],
)  # fmt: skip
def test_a_password_in_a_query_ends_at_the_next_parameter(text, kept):
    out = redact_text(text)
    assert SECRET not in out and "[REDACTED:" in out
    assert kept in out


@pytest.mark.parametrize(
    "text",
    [
        f"tokenizer_secret: {SECRET}",
        f"token: {SECRET}",
        f"tokenizerToken = {SECRET}",
        f"secret: {SECRET}",
        f"password: {SECRET}",
        f"PASSWORD={SECRET[:6]}&{SECRET[6:]}",  # (an .env line: the & is the password's)
        f"https://example.com/?password={SECRET}",
    ],
)
def test_secrets_beside_those_names_are_still_redacted(text):
    out = redact_text(text)
    assert SECRET not in out and SECRET[6:] not in out and "[REDACTED:" in out
