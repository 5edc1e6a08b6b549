"""Secrets named by what is around them rather than by their form: a password that is a
number (``DB_PASSWORD=93847561``, ``{"password": 12345678}``), and a value named only by a
key above it (``credentials:`` over ``prod:`` over ``db: …``). Both reached notes as they
were; what must stay (``port: 5432``, ``password_min_length: 12``, a ``secrets:`` mapping
of switches and paths) is listed here too.

Every value is generated at test time or obviously made up; none is real.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from datetime import UTC

import pytest
from claude_builder import ClaudeSession, tool_use
from test_redact import ALNUM, Gen

from exporter.export import ExportOptions, run_export
from exporter.redact import redact_text, redactor

DIGITS = "93847561"
KEY = Gen(77)(ALNUM, 24)

# -- a password of digits ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"password: {DIGITS}",
        f'{{"password": {DIGITS}}}',
        f'"password": "{DIGITS}",',
        f"DB_PASSWORD={DIGITS} ./migrate",
        f"export PGPASSWORD='{DIGITS}'",
        f"userPassword = {DIGITS};",
        f"mysql_pwd: {DIGITS}",
        f"--password {DIGITS}",
        "password: 123456",  # six digits: the shortest a password value is taken as text
    ],
)
def test_a_password_of_digits_is_redacted(text):
    counts: Counter[str] = Counter()
    out = redact_text(text, counts)
    assert "[REDACTED:" in out and DIGITS not in out and "123456" not in out
    assert sum(counts.values()) == 1


@pytest.mark.parametrize(
    "text",
    [
        "port: 5432",
        "max_tokens: 4096, timeout: 30",
        "password_min_length: 12",
        "password_max_age: 7776000",  # a setting about passwords, not one: the name goes on
        "password_reset_timeout = 86400",
        "PASSWORD_HISTORY=24",
        "password: 2024",  # under six digits: a year, a count (n_pass = 1000) as often
        "n_pass = 1000",
        "first_pass: 123456",  # a count of passes, however long
        '{"n_pass": 250000}',
        "bypass: 12345678",  # not the word: the rule never read it as a name
        "api_token: 12345678",  # a key of digits alone is a count or an id: only passwords
        "input_tokens: 15234567",
    ],
)
def test_numbers_that_are_not_passwords_stay(text):
    assert redact_text(text) == text


def test_a_password_of_digits_in_a_tool_input_is_redacted():
    value = {
        "password": 12345678,
        "db": {"DB_PASSWORD": "20240101"},
        "env": [{"name": "MYSQL_PWD", "value": 93847561}],
        "argv": ["mysqladmin", "--password", "55512345"],
        "port": 5432,
        "max_tokens": 4096,
        "password_min_length": 12,
        "password_max_age": 7776000,
        "ok": True,
    }
    counts: Counter[str] = Counter()
    out = redactor().value(value, counts)
    placeholder = "[REDACTED:generic-password]"
    assert out["password"] == out["db"]["DB_PASSWORD"] == placeholder
    assert out["env"][0]["value"] == out["argv"][2] == placeholder
    assert {k: out[k] for k in ("port", "max_tokens", "password_min_length", "ok")} == {
        "port": 5432, "max_tokens": 4096, "password_min_length": 12, "ok": True
    }  # fmt: skip
    assert out["password_max_age"] == 7776000 and counts == {"generic-password": 4}
    assert redactor((), ("12345678",)).value({"password": 12345678}) == {"password": 12345678}


# -- a secret named by a key above it -------------------------------------------------------------


def test_a_value_below_a_key_that_holds_secrets_is_redacted_in_a_tool_input():
    value = {
        "secrets": {"prod": {"db": "s3cr3t-value-9", "name": "app-secrets-2"}},
        "credentials": {"prod": {"db": "hunter2hunter2", "username": "deploy-bot2"}},
        "apiKeys": [{"github": KEY}],
        "db_credentials": {"replica": {"pw": "Zq8vR2kL"}},
    }
    counts: Counter[str] = Counter()
    out = redactor().value(value, counts)
    assert out["secrets"]["prod"] == {"db": "[REDACTED:generic-secret]", "name": "app-secrets-2"}
    assert out["credentials"]["prod"] == {
        "db": "[REDACTED:generic-password]", "username": "deploy-bot2"
    }  # fmt: skip
    assert out["apiKeys"] == [{"github": "[REDACTED:generic-secret]"}]
    assert out["db_credentials"]["replica"]["pw"] == "[REDACTED:generic-password]"
    assert counts == {"generic-secret": 2, "generic-password": 2}


YAML = """\
deploy:
  credentials:
    prod:
      db: hunter2hunter2   # the one for the primary
      user: deploy-bot2
    staging:
      - "Zq8vR2kL7m"
  replicas: 3
other: hunter2hunter2
region: eu-west-1
"""


def test_a_value_below_a_key_that_holds_secrets_is_redacted_in_yaml_and_json_text():
    counts: Counter[str] = Counter()
    out = redact_text(YAML, counts)
    assert out == (
        YAML.replace("hunter2hunter2", "[REDACTED:generic-password]").replace(
            "Zq8vR2kL7m", "[REDACTED:generic-password]"
        )
    )  # the same secret on a line of its own (``other:``) goes too
    assert counts == {"generic-password": 3}
    text = json.dumps({"secrets": {"prod": {"db": "s3cr3t-value-9", "name": "app-secrets-2"}}})
    for shown in (text, json.dumps(json.loads(text), indent=2)):
        assert redact_text(shown) == shown.replace("s3cr3t-value-9", "[REDACTED:generic-secret]")


# What a key that holds secrets may hold that is no secret: switches, short words, paths,
# references, names and descriptions (``name:``, ``file:``, ``username:``), counts. A value
# below such a key is a secret only as one word, as long and as random as a value the key's
# rule takes when named outright (a key: 8 characters and 3 bits each; credentials and
# passwords: 6 and 2.5), and not under a key that names or describes it. ``tokens:`` alone
# holds no secrets (a model's token counts, a lexer's tokens, a design system's colours),
# nor ``keys:`` (a keyboard's).
HOLDING_NO_SECRET = [
    {"secrets": {"enabled": True, "mode": "enabled", "rotate": "true", "count": 3}},
    {"secrets": {"db_password": {"file": "./db_password.txt"}, "api": {"external": True}}},
    {
        "secrets": {
            "github": "${{ secrets.GITHUB_TOKEN }}",
            "npm": "${NPM_TOKEN}",
            "path": "/run/secrets/db",
        }
    },
    {"secrets": {"tls": {"name": "app-tls-7f9c2b", "description": "the TLS pair v2"}}},
    {"credentials": {"prod": {"username": "deploy-bot2", "host": "db-1.internal"}}},
    {"credentials": {"source": "env", "profile": "default"}},
    {"tokens": {"primary": "#3b82f6", "spacing": "16px", "eos": "</s>"}},
    {"keys": {"save": "Ctrl+S", "quit": "Ctrl+Q"}},
    {"tokens": {"input": 1234, "output": 5678, "model": "claude-3-5-sonnet-20241022"}},
]


@pytest.mark.parametrize("value", HOLDING_NO_SECRET)
def test_what_a_key_that_holds_secrets_holds_that_is_no_secret_stays(value):
    assert redactor().value(value) is value
    for text in (json.dumps(value), json.dumps(value, indent=2), _yaml(value)):
        assert redact_text(text) == text


def _yaml(value, indent: str = "") -> str:
    lines = []
    for key, item in value.items():
        if isinstance(item, dict):
            lines.append(f"{indent}{key}:\n{_yaml(item, indent + '  ')}")
        else:
            lines.append(f"{indent}{key}: {json.dumps(item)}")
    return "\n".join(lines)


def test_an_export_redacts_both_in_tool_inputs_and_outputs(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    s = ClaudeSession("5ec7e700-0000-4000-8000-0000000000d1")
    s.user("set up the database")
    s.assistant([tool_use("mcp__db__connect", {"host": "db", "password": 93847561}, "t1")])
    s.tool_result("t1", "connected")
    s.assistant([tool_use("Read", {"file_path": "/srv/app/config.yml"}, "t2")])
    s.tool_result("t2", YAML)
    s.write(home / ".claude" / "projects" / "-home-dev-work-shop" / f"{s.session_id}.jsonl")
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert report.redactions == {"generic-password": 4}
    files = [p.read_text() for p in vault.rglob("*") if p.is_file() and p.name != "lock"]
    assert all(s not in text for text in files for s in ("93847561", "hunter2", "Zq8vR2kL7m"))


def test_redacting_nested_secrets_again_changes_nothing_and_crlf_lines_are_read():
    once = redact_text(YAML.replace("\n", "\r\n"))
    assert once == redact_text(YAML).replace("\n", "\r\n")
    assert redact_text(once) is once


def test_texts_full_of_holders_are_read_in_linear_time():
    """Each holder's lines are read once, whatever follows: a holder inside another is read
    with it, a JSON object that does not parse is read only up to where it fails (a parse
    error counts the lines before it: parsed from a slice), one nested too deep is left,
    and the same secrets elsewhere are found in one walk. Each text would take minutes if
    any of these were quadratic. Timed as a ratio, four times the text against the text,
    not in seconds: on a loaded machine the largest took 16 s where 10 s was the limit."""
    cases = {
        "holders": lambda n: "secrets:\n" * n,
        "nested holders": lambda n: "".join("  " * (i % 200) + "secrets:\n" for i in range(n // 2)),
        "secrets": lambda n: "".join(f"credentials:\n  db: hunter{i:06d}x\n" for i in range(n)),
        "unclosed": lambda n: '"secrets": {"a": ' * (n * 5 // 2),
        "too deep": lambda n: '{"secrets": ' * (n * 5 // 2),
        # one long line under a holder (the leaf's pattern was quadratic in it)
        "long leaf": lambda n: "secrets:\n  " + "a" * (n * 10) + " x\n",
        "spaces": lambda n: "secrets:\n  k" + " " * (n * 5) + "x y\n",
        "long key": lambda n: "secrets:\n  " + "k" * (n * 10) + ": v\n",
    }
    for name, make in cases.items():
        took = []
        for n in (10_000, 40_000):
            text = make(n)
            began = time.perf_counter()
            redact_text(text)
            took.append(time.perf_counter() - began)
        # linear: about 4 times; quadratic: 16 times (the second second or more)
        assert took[1] < 10 * took[0] + 1.0, (name, took)


# -- what names a secret without being one: kept, as evidence ---------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # a mapping on the lines below a key that sounds secret: its keys, not values
        "max_tokens:\n  claude-3-5-sonnet-20241022: 8192\n  gpt-4o-2024-08-06: 4096\n",
        '"max_output_tokens":\n  "claude35sonnetXk": 8192',
        # which secret, or where it is
        "secret_name: app-tls-7f9c2b",
        'secretName: "db-creds-9d8e7f6a"',
        "TOKEN_FILE=tokens-prod.json",
        "tls_secret_name: tls-cert-prod-2024",
        "api_key_env = OPENAI_API_KEY_2",
        "api_key_header: X-API-KEY-V2",
        "secretKeyRef: app-secrets-v2",
        "token_type: Bearer",
    ],
)
def test_names_and_places_of_secrets_stay(text):
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        f"password:\n  {KEY}\n",  # a value on the next line is still a value
        f"SECRET_ID={KEY}",  # (Vault's AppRole secret id is a credential)
        f'api_key = "{KEY}"',
        f"secret_name_value: {KEY}",
    ],
)
def test_secrets_beside_those_names_are_still_redacted(text):
    assert KEY not in redact_text(text)


def test_a_workflow_expression_in_a_tool_input_is_no_secret():
    value = {"with": {"token": "${{ secrets.GITHUB_TOKEN }}", "secretName": "app-tls-7f9c2b"}}
    assert redactor().value(value) == value


@pytest.mark.parametrize(
    "text",
    [f"password_ref: {KEY}", f"SMTP_PASSWORD_HEADER={KEY}", f"api_key_env = {KEY}",
     f"secret_name: {KEY}"],
)  # fmt: skip
def test_a_name_that_may_hold_the_secret_itself_is_no_description(text):
    """``header``, ``ref``, ``env``: such a key holds the secret as often as it names it
    (a review found these redacted before the describing names and not after)."""
    assert KEY not in redact_text(text)


@pytest.mark.parametrize("key", ["auth_header", "authorization_header", "cookie_header"])
def test_a_tool_input_under_such_a_name_is_redacted(key):
    assert redactor().value({key: KEY}) == {key: "[REDACTED:generic-secret]"}


def test_a_held_secret_written_with_json_escapes_is_redacted():
    """Go writes ``&`` as ``\\u0026``, PHP ``/`` as ``\\/``: the string as written is found."""
    secret = KEY[:10] + "&" + KEY[10:] + "/x"
    written = secret.replace("&", "\\u0026").replace("/", "\\/")
    text = f'{{"credentials": {{"prod": {{"db": "{written}"}}}}}}'
    out = redact_text(text + f"\nthen log in with {secret}\n")
    assert written not in out and secret not in out  # the plain copy too


@pytest.mark.parametrize(
    ("holder", "value"),
    [("passwords", "Summer24"), ("credentials", "hunter2"), ("credentials", "Admin_2024"),
     ("passwords", "qwerty123"), ("credentials", "correct-horse-battery-staple-42"),
     ("api_keys", "3f2a9c1e7b4d5a6f8e9d0c1b2a3f4e5d"),
     ("api_keys", "f47ac10b-58cc-4372-a567-0e02b2c3d479")],
)  # fmt: skip
def test_under_a_holder_a_weak_password_or_a_hex_key_is_redacted(holder, value):
    """Under a key that holds secrets, a value shaped like a name, a word with a number, an
    id or a hash is still taken for one: a service's key is often hex or a UUID, and a weak
    password is a password (a review found these kept by a rule meant for names)."""
    text = f"{holder}:\n  prod:\n    db: {value}\n"
    assert value not in redact_text(text)


def test_a_held_secret_is_replaced_wherever_else_the_text_holds_it():
    text = f"credentials:\n  db: {KEY}\nrun deploy -k{KEY} and keep {KEY}_old\n"
    out = redact_text(text)
    assert KEY not in out and out.count("[REDACTED:generic-password]") == 3


@pytest.mark.parametrize(
    "text", [f"DB_PASS={DIGITS}", f"MYSQL_PASS={DIGITS}", f"userPass: {DIGITS}", f"pass: {DIGITS}"]
)
def test_a_password_of_digits_under_pass_in_capitals_or_camel_case_is_redacted(text):
    assert DIGITS not in redact_text(text)


def test_a_count_of_passes_in_a_tool_input_stays():
    assert redactor().value({"n_pass": 250000, "firstPass": 123456}) == {
        "n_pass": 250000, "firstPass": 123456}  # fmt: skip
