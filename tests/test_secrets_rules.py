"""Common ways a secret is written that the rules missed, and what must stay as it is.

Every value is generated at test time from random characters; none is real.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_redact import ALNUM, SAMPLES, Gen

from exporter.redact import redact_text
from exporter.redact_rules import RULES

_gen = Gen(2027)
PASSWORD = _gen(ALNUM, 14) + "7q"
VALUE = _gen(ALNUM, 40)
# Rules whose sample is the token alone, each token with its rule.
TOKEN_RULES = [r.id for r in RULES if (s := SAMPLES[r.id](Gen(5)))[0] == s[1]]


@settings(max_examples=300, deadline=None)
@given(
    rule_id=st.sampled_from(TOKEN_RULES),
    escape=st.sampled_from(["\\n", "\\r\\n", "\\t", "%3D", "%20", "\\u003c", "\\u0026"]),
)
def test_a_token_right_after_a_json_or_url_escape_is_redacted(rule_id, escape):
    """A tool that prints JSON writes a line break before a token as ``\\n`` (``\\nghp_…``),
    a URL writes ``=`` as ``%3D``: the escape's last letter is not a word's end."""
    _, token = SAMPLES[rule_id](Gen(len(rule_id)))
    counts: Counter[str] = Counter()
    out = redact_text(f'{{"out": "line{escape}{token}{escape}more"}}', counts)
    assert token not in out
    assert f"{escape}[REDACTED:{rule_id}]{escape}more" in out
    assert counts == {rule_id: 1}


@pytest.mark.parametrize(
    ("text", "secret", "rule"),
    [
        # Names in camelCase and in HTTP headers' Title-Case
        (f"const apiKey = '{VALUE}';", VALUE, "generic-secret"),
        (f"X-Api-Key: {VALUE}", VALUE, "generic-secret"),
        (f"accessKey={VALUE}", VALUE, "generic-secret"),
        (f"PrivateKey: {VALUE}", VALUE, "generic-secret"),
        (f'APIKey = "{VALUE}"', VALUE, "generic-secret"),
        # A letter before PASSWORD: PostgreSQL's variable, a lower-case name
        (f"PGPASSWORD={PASSWORD} psql -h db", PASSWORD, "generic-password"),
        (f"dbpassword: {PASSWORD}", PASSWORD, "generic-password"),
        # JSON inside a JSON string: the quotes are escaped
        (f'{{"body": "{{\\"password\\": \\"{PASSWORD}\\"}}"}}', PASSWORD, "generic-password"),
        (f'env: "TOKEN=\\"{VALUE}\\""', VALUE, "generic-secret"),
        # A URL whose user name is empty (Redis)
        (f"redis://:{PASSWORD}@cache:6379/0", PASSWORD, "uri-credentials"),
        # Authorization with another scheme than Basic or Bearer, or none
        (f"Authorization: token {VALUE}", VALUE, "authorization-header"),
        (f'{{"authorization": "{VALUE}"}}', VALUE, "authorization-header"),
        # A secret given as a command's flag
        (f"docker login -u ci --password {PASSWORD} registry", PASSWORD, "secret-flag"),
        (f"gh secret set X --token={VALUE}", VALUE, "secret-flag"),
    ],
)
def test_common_forms_of_a_secret_are_redacted(text, secret, rule):
    out = redact_text(text)
    assert secret not in out
    assert f"[REDACTED:{rule}]" in out


@pytest.mark.parametrize(
    "text",
    [
        "apiKey: process.env.API_KEY",
        "const apiKeyHeader = 'X-Api-Key';",
        "accessKeyId: credentials.accessKeyId,",
        "PGPASSWORD=$PGPASSWORD psql",
        "docker login --password-stdin < token.txt",
        "--password <your-password>",
        "authorization = base64.decodebytes(authorization).decode('ascii')",
        "Authorization: Bearer ${TOKEN}",
        'headers["Authorization"] = f"Bearer {token}"',
        '"KMSMasterKeyArn": "arn:aws:kms:us-west-2:123456789012:key/abcd1234-ab12-cd34"',
        "redis://localhost:6379/0",
        "A line\\nwith escapes\\tand %3D in it",
    ],
)
def test_names_references_and_placeholders_stay(text):
    assert redact_text(text) == text
