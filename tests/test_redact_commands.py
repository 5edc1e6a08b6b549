"""Credential forms review27 F7 left: a value piped into a command that stores it, a
command given as a list of its words judged as the same command written out (and the
other way round), OpenVPN's inline ``auth-user-pass``, a PIN under its key. All values
are synthetic."""

from __future__ import annotations

import re
import shlex
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.redact import redact_text, redactor

TOKEN = "R36opaqueTokenQm9Xz7Lk3Vb8Nc2Wd5"
PASSWORD = "Tr0ub4dor-R36-x9Qz"


@pytest.mark.parametrize(
    "command",
    [
        f"echo {TOKEN} | vercel env add API_TOKEN production",
        f'echo -n "{TOKEN}" | npx vercel env add API_TOKEN',
        f"echo {TOKEN} | gh secret set API_TOKEN",
        f"printf %s '{TOKEN}' | wrangler secret put API_TOKEN",
        f"echo {PASSWORD} | docker login -u me --password-stdin registry.example.com",
    ],
)
def test_a_value_piped_into_a_command_that_stores_it_is_redacted(command):
    out = redact_text(command)
    assert TOKEN not in out and PASSWORD not in out and "[REDACTED:" in out


@pytest.mark.parametrize(
    "command",
    [
        "echo $API_TOKEN | vercel env add API_TOKEN production",
        "echo production | vercel env add NODE_ENV production",
        'echo "$DOCKER_PASSWORD" | docker login -u me --password-stdin',
        "echo hello-world-app | vercel link",
    ],
)
def test_a_variable_or_a_plain_word_piped_so_stays(command):
    assert redact_text(command) == command


# Commands that take a password, as lists of their words, with ``{}`` for it.
COMMANDS = [
    ["docker", "login", "-u", "me", "-p", "{}", "registry.example.com"],
    ["podman", "login", "-u", "me", "-p", "{}"],
    ["mysql", "-uroot", "-p{}", "shop"],
    ["sshpass", "-p", "{}", "ssh", "deploy@host"],
    ["redis-cli", "-a", "{}", "ping"],
    ["curl", "-u", "me:{}", "https://api.example.com"],
    ["app", "--db-password", "{}"],
    ["psql", "postgres://app:{}@db.example.com/app"],
]
PASSWORDS = st.text(
    st.sampled_from("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"),
    min_size=12,
    max_size=24,
).filter(lambda p: len(set(p)) >= 10 and any(c.isdigit() for c in p))  # (random-looking)


@settings(max_examples=150, deadline=None)
@given(template=st.sampled_from(COMMANDS), password=PASSWORDS)
def test_a_command_as_a_list_of_words_is_judged_as_written_out(template, password):
    """Both ways: the command written out and as its words lose the password alike."""
    argv = [word.replace("{}", password) for word in template]
    rules = redactor()
    counts: Counter[str] = Counter()
    as_list = rules.value({"command": argv}, counts)
    written = rules.text(shlex.join(argv))
    assert password not in written
    assert password not in repr(as_list) and sum(counts.values()) == 1
    assert unnamed(shlex.join(as_list["command"])) == unnamed(written)  # (the same words go)


def unnamed(text: str) -> str:
    """``text`` with each placeholder the same (one form may say ``secret-flag``, the other
    ``generic-password``) and no quotes."""
    return re.sub(r"\[REDACTED:[\w.-]+\]", "#", text).replace("'", "")


@pytest.mark.parametrize(
    "argv",
    [
        ["docker", "run", "-p", "8080:80", "nginx"],
        ["gcc", "-pthread", "-o", "app", "main.c"],
        ["mysql", "-p", "shop"],
        ["ls", "-la", "src/token_store.py", "tests/test_password_reset.py"],
        ["git", "commit", "-m", "Rotate the password policy"],
    ],
)
def test_a_list_of_words_without_a_secret_stays(argv):
    assert redactor().value({"command": argv}) == {"command": argv}


def test_openvpns_inline_auth_user_pass_loses_its_password():
    config = f"client\ndev tun\n<auth-user-pass>\nvpnuser\n{PASSWORD}\n</auth-user-pass>\n"
    out = redact_text(config)
    assert PASSWORD not in out and "vpnuser" in out
    placeholder = "<auth-user-pass>\nvpnuser\npassword\n</auth-user-pass>\n"
    assert redact_text(placeholder) == placeholder


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ({"pin": "739184"}, True),
        ({"pin": 739184}, True),
        ({"pinCode": "4821"}, True),
        ({"sim_pin": "0917"}, True),
        ({"pin": "1.2.3"}, False),  # a version pinned
        ({"pin": "==2.0"}, False),
        ({"pin": "latest"}, False),
        ({"pin": True}, False),
        ({"pin": "2024"}, False),  # a year
        ({"pin": "20241107"}, False),  # a date
        ({"pin": 17}, False),  # a GPIO pin
        ({"spin": "123456"}, False),
        ({"pinned": "123456"}, False),
        ({"opinion": "4821"}, False),
    ],
)
def test_a_pin_under_its_key_and_no_pin_of_a_version(value, secret):
    out = redactor().value(value)
    assert (out != value) is secret
