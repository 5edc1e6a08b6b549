"""Secrets named by what is around them rather than by their form: a password that is a
number (``DB_PASSWORD=93847561``, ``{"password": 12345678}``) reached notes as it was;
what must stay (``port: 5432``, ``password_min_length: 12``) is listed here too.

Every value is generated at test time or obviously made up; none is real.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC

import pytest
from claude_builder import ClaudeSession, tool_use

from exporter.export import ExportOptions, run_export
from exporter.redact import redact_text, redactor

DIGITS = "93847561"

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


def test_an_export_redacts_a_password_of_digits_in_a_tool_input(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    s = ClaudeSession("5ec7e700-0000-4000-8000-0000000000d1")
    s.user("set up the database")
    s.assistant([tool_use("mcp__db__connect", {"host": "db", "password": 93847561}, "t1")])
    s.tool_result("t1", "connected")
    s.write(home / ".claude" / "projects" / "-home-dev-work-shop" / f"{s.session_id}.jsonl")
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert report.redactions == {"generic-password": 1}
    files = [p.read_text() for p in vault.rglob("*") if p.is_file() and p.name != "lock"]
    assert all("93847561" not in text for text in files)
