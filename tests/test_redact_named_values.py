"""Values named as text names them that were kept (review47 M1, M2, M8): a key under a
name the secret words miss (``APP_KEY``, ``AZURE_STORAGE_KEY``, ``fernet_key``, WordPress's
``NONCE_KEY`` and ``AUTH_SALT``), a secret in a Markdown table's row after its name, and a
random password of letters only. What must stay beside them stays: a public key, a
lookup's key, a GPG fingerprint, ids, names in camelCase, words. Every value is random
characters made at test time; none is real."""

from __future__ import annotations

import random
import string

import pytest

from exporter.redact import redact_text

_rng = random.Random(20261209)


def _random(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


B64 = _random(43) + "="
AZURE = _random(86, string.ascii_letters + string.digits + "+/") + "=="
SALT = "".join(_rng.choice(string.ascii_letters + string.digits + "!@#%^*_-+") for _ in range(48))
LETTERS = "YdsGcvdgHVVTmGzk"
WORD_B64 = "SzlzdUxPUmpmOVRjZUZTTw=="


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"APP_KEY=base64:{B64}", B64),
        (f"AZURE_STORAGE_KEY={AZURE}", AZURE),
        (f"AZURE_STORAGE_ACCOUNT_KEY: {AZURE}", AZURE),
        (f"az storage blob list --account-name acct accountKey={AZURE}", AZURE),
        (f"FERNET_KEY={B64}", B64),
        (f"fernet_key = {B64}", B64),
        (f"SERVICE_KEY={B64}", B64),
        (f"WEBHOOK_KEY={B64}", B64),
        (f"define('NONCE_KEY', '{SALT}');", SALT),
        (f"define( 'AUTH_SALT', '{SALT}' );", SALT),
        (f"HASH_SALT={B64}", B64),
        (f"| Variable | Value |\n|---|---|\n| `DB_PASSWORD` | `{_random(16)}` |", None),
        (f"| API_TOKEN | {B64} |", B64),
        (f"| APP_KEY | base64:{B64} |", B64),
        (f"ANSIBLE_VAULT_PASSWORD={LETTERS}", LETTERS),
        (f"password: {WORD_B64}", WORD_B64),
        (f'"client_secret": "{LETTERS}AbQx"', LETTERS),
    ],
)
def test_a_named_value_is_redacted(text, secret):
    out = redact_text(text)
    assert "[REDACTED:" in out
    if secret is not None:
        assert secret not in out


@pytest.mark.parametrize(
    "text",
    [
        "ENV GPG_KEY=A035C8C19219BA821ECEA86B64E628F8D684696D",
        f"VAPID_PUBLIC_KEY={B64}",
        f"STRIPE_PUBLISHABLE_KEY={B64}",
        f"RECAPTCHA_SITE_KEY={B64}",
        'CACHE_KEY = "user:123:profile"',
        f'primary_key = "{_random(22)}"',
        'hash_key = "pk"',
        "SORT_KEY=createdAt",
        "IDEMPOTENCY_KEY=3f2b9c1e-8a7d-4e6f-9b0c-1d2e3f4a5b6c",
        "API_KEY_ID=AKID1234",
        "PRIMARY_KEY=id",
        "KEY=value",
        "the salt is stored next to the hash",
        "salt = os.urandom(16)",
        "OBJECT_KEY=uploads/2026/12/report.pdf",
        "| password | string | The user's password |",
        "| `max_tokens` | `4096` |",
        "| Secret | Where |\n|--|--|\n| STRIPE_KEY | vault/prod/stripe |",
        "echo $API_TOKEN | base64 -d",
        "cat token.txt | xargs curl",
        "password: PasswordHasherArgonTwo",
        "token: AutoTokenizerFastSlow",
        "secret: HTTPServerErrorHandler",
        "password: CorrectHorseBatteryStaple",
        "token: getAccessTokenFromHeaders",
        "token: XMLHttpRequestUpload",
        "version_key: v2.3.1-rc.4",
        "model_key: claude-sonnet-4-5-20250929",
        "commit_key = 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "snake_case_key = password_reset_token_expiry_seconds",
    ],
)
def test_what_is_no_secret_stays(text):
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        '{"auths": {"r.io": {"auth": "dXNlcjpQdzk4eA=="}}}',
        "::add-mask::Qz4kASAOsE1",
    ],
)
def test_the_rules_other_forms_are_judged_as_before(text):
    # (no key's name in them: a short value still goes, as it did before key names came)
    out = redact_text(text)
    assert "[REDACTED:generic-secret]" in out


def test_a_key_by_its_names_form_in_a_tools_input():
    from exporter.redact import redactor

    value = {
        "env": {
            "APP_KEY": f"base64:{B64}",
            "accountKey": AZURE,
            "CACHE_KEY": "Xk3vQ9pL2mN8rT5wY7zA1bC4dE6",
            "sort_key": "createdAt",
            "GPG_KEY": "A035C8C19219BA821ECEA86B64E628F8D684696D",
            "REQUEST_KEY": "3f2b9c1e-8a7d-4e6f-9b0c-1d2e3f4a5b6c",
        }
    }
    out = redactor().value(value)["env"]
    assert out["APP_KEY"] == out["accountKey"] == "[REDACTED:generic-secret]"
    for name in ("CACHE_KEY", "sort_key", "GPG_KEY", "REQUEST_KEY"):
        assert out[name] == value["env"][name]


def test_a_uuid_under_a_keys_name_stays():
    assert redact_text("REQUEST_KEY=3f2b9c1e-8a7d-4e6f-9b0c-1d2e3f4a5b6c") == (
        "REQUEST_KEY=3f2b9c1e-8a7d-4e6f-9b0c-1d2e3f4a5b6c"
    )
