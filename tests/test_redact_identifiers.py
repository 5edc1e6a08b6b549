"""A class's or tokenizer's name after a key's name is no secret (``token:
GPT2TokenizerFast``), while a random token with a digit, or a leetspeak secret, still is;
and a table row written without spaces keeps its closing pipe (``|token|…|``). Every
value is made at test time; none is real."""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.redact import redact_text
from exporter.redact_identifiers import code_identifier

_ALNUM = string.ascii_letters + string.digits
TOKEN = "Xk9mQ2vL8pR4tW7zY3bN6cF1"


@pytest.mark.parametrize(
    "name",
    ["gpt2TokenizerFast", "GPT2TokenizerFast", "Llama3Tokenizer", "T5TokenizerFast",
     "Qwen2Tokenizer", "CLIPTokenizer", "WhisperTokenizerFast"],
)  # fmt: skip
@pytest.mark.parametrize("form", ["token: {}", 'api_key = "{}"', "TOKEN={}"])
def test_a_class_name_after_a_keys_name_stays(name, form):
    text = form.format(name)
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "text",
    [f"token: {TOKEN}", "secret: MyS3cretValue", "token: Abcdefgh12345678",
     "password: Llama3Tokenizer", f"api_key = '{TOKEN}'"],
)  # fmt: skip
def test_a_token_with_digits_is_still_redacted(text):
    assert "[REDACTED:" in redact_text(text)


def test_random_tokens_with_digits_are_no_names():
    # Random letters and digits read as a name in code at most once in tens of thousands
    # at 16 characters, and never in these at 20 or more.
    rng = random.Random(20261208)
    for length in range(20, 41):
        for _ in range(2000):
            value = "".join(rng.choice(_ALNUM) for _ in range(length))
            assert not code_identifier(value), value


_WORDS = ["Tokenizer", "Fast", "Model", "Auto", "Bert", "Llama", "Roberta", "Whisper",
          "Config", "Processor", "Causal", "Encoder", "Decoder", "Vision", "Pretrained"]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["GPT", "XLM", "Llama", "Qwen", "Phi", "gpt", "Mistral"]),
    st.integers(1, 99),
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3),
)
def test_a_versioned_class_name_is_never_redacted(head, version, words):
    name = f"{head}{version}{''.join(words)}"
    if not any(len(w) >= 6 for w in words):
        name += "Tokenizer"
    text = f"token: {name}"
    assert redact_text(text) == text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (f"|token|{TOKEN}|", "|token|[REDACTED:generic-secret]|"),
        (f"|token|{TOKEN}|notes|", "|token|[REDACTED:generic-secret]|notes|"),
        (f"| token | {TOKEN}|", "| token | [REDACTED:generic-secret]|"),
        (f"|DB_PASSWORD|{TOKEN}|", "|DB_PASSWORD|[REDACTED:generic-password]|"),
    ],
)
def test_a_table_row_without_spaces_keeps_its_closing_pipe(text, kept):
    assert redact_text(text) == kept


def test_a_class_name_under_a_tool_inputs_key_stays():
    from exporter.redact import redactor

    value = {"token": "GPT2TokenizerFast", "api_key": TOKEN, "password": "Llama3Tokenizer"}
    assert redactor().value(value) == {
        "token": "GPT2TokenizerFast",
        "api_key": "[REDACTED:generic-secret]",
        "password": "[REDACTED:generic-password]",
    }
