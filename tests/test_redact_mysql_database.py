"""MySQL's lone ``-p`` (and ``--password`` with a space) asks for the password: the word
after it is the database the client opens. A database's name stays (``shop_db_v2``,
``customers2024``); a word there that looks like a password (letters of both cases and a
digit, or a sign) goes, as a password typed in the wrong place."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from exporter.redact import redactor

_NAMES = st.from_regex(r"[a-z][a-z0-9_]{2,20}", fullmatch=True)
_KEYS = st.text(st.sampled_from("ABCDEFGHJKabcdefghjk0123456789"), min_size=8, max_size=24).filter(
    lambda v: any(c.isupper() for c in v) and any(c.islower() for c in v)
    and any(c.isdigit() for c in v)
)  # fmt: skip
_LINES = ["mysql -u root -p {}", "mysql -h db.local -u admin -p {}", "mysqldump -u root -p {}",
          "mysql --password {}"]  # fmt: skip


@pytest.mark.parametrize("name", ["shop_db_v2", "customers2024", "analytics_v3_2024", "app"])
@pytest.mark.parametrize("line", _LINES)
def test_a_database_named_after_a_lone_p_stays(line, name):
    text = line.format(name)
    assert redactor().text(text) == text


@given(_NAMES, st.sampled_from(_LINES))
def test_a_database_name_is_never_redacted(name, line):
    text = line.format(name)
    assert redactor().text(text) == text
    if "--password" not in line:  # (as argv, ``["--password", x]`` is a name and its value)
        items = json.dumps(text.split())  # (a command given as list items)
        assert redactor().text(items) == items


@given(_KEYS, st.sampled_from(_LINES))
def test_a_password_shaped_word_there_goes_as_after_another_tools_password(key, line):
    # (random enough for the rules, as a value given to another tool's ``--password``)
    assume(key not in redactor().text(f"deploy --password {key}"))
    assert key not in redactor().text(line.format(key))


@pytest.mark.parametrize(
    "text",
    [
        'os.system("mysql -u root -p shop_db_v2")',
        '{"command": "mysql -u root -p customers2024"}',
        '["bash", "-c", "mysql -h db -u admin -p analytics_v3_2024"]',
        "run('mysql -p shop_db_v2 < dump.sql')",
    ],
)
def test_a_database_name_in_a_quoted_command_stays(text):
    """review41 M-1: the command a string of code or JSON, the name was taken again."""
    assert redactor().text(text) == text


def test_a_password_glued_to_p_or_given_with_equals_goes_whatever_it_looks_like():
    for text in ("mysql -u root -pcustomers2024", "mysql --password=customers2024"):
        assert "customers2024" not in redactor().text(text)
