"""``redact = false`` and a ``[redact]`` table in one file (review50 M1): the docs show both
forms, TOML takes one, and tomllib said only "Cannot overwrite a value". The message names
both lines and the form to write; any other TOML error is still tomllib's own."""

from __future__ import annotations

import pytest
from test_config_keys import config_error


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('redact = true\n\n[redact]\nallow = ["sk_test_x"]\n',
         "line 3: `redact = …` (line 1) and the [redact] table cannot both be set"),
        ('index = false\nindex.dataview = true\n',
         "line 2: `index = …` (line 1) and the [index] table cannot both be set"),
        ('folder = "Chats"\ndaily = true\n# mine\n[daily]\nfolder = "Days"\n',
         "line 4: `daily = …` (line 2) and the [daily] table cannot both be set"),
    ],
)  # fmt: skip
def test_a_plain_setting_and_its_table_are_said_to_clash_with_both_lines(tmp_path, text, said):
    message = config_error(tmp_path, text)
    assert said in message
    table = said.split("[")[1].split("]")[0]
    assert f"write `enabled = …` inside [{table}]" in message
    assert "Cannot overwrite" not in message


def test_a_table_without_an_enabled_key_is_told_to_take_one_form(tmp_path):
    message = config_error(tmp_path, 'frontmatter = 1\n[frontmatter]\ndrop = ["cost"]\n')
    assert "line 2: `frontmatter = …` (line 1) and the [frontmatter] table" in message
    assert "in one of the two forms" in message


@pytest.mark.parametrize(
    "text",
    ["folder = 1\nfolder = 2\n", "[redact]\nallow = []\n[redact]\n", "redact = [\n"],
)
def test_other_toml_errors_are_toml_s_own(tmp_path, text):
    message = config_error(tmp_path, text)
    assert "not valid TOML (" in message
    assert "cannot both be set" not in message
