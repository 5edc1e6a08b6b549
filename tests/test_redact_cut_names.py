"""A secret's name cut between the items of a list of strings, its keyword whole in one of
them and its value in the same item or the next (``["a", "ccess_token=", "…"]``): the value
goes. A list of ordinary words and names (``["an", "access", "token"]``) stays."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from secret_values import secret_values

from exporter.redact import redactor

# A made-up value as random as a key, built in pieces.
_VALUE = "Zq9xLm4" + "hunter2Wq"


def _list(items: list[str], quote: str = '"', separator: str = ", ") -> str:
    return "[" + (quote + separator + quote).join(items).join([quote, quote]) + "]"


def test_a_name_cut_before_its_keyword_loses_the_value_in_the_next_item():
    text = _list(["a", "ccess_token=", _VALUE])
    assert redactor().text(text) == _list(["a", "ccess_token=", "[REDACTED:generic-secret]"])


def test_a_name_whose_assignment_is_cut_loses_its_value():
    for items, rule in (
        (["access_token=", _VALUE], "generic-secret"),
        (["api_key ", "=", " " + _VALUE], "generic-secret"),
        (["auth_token:", "=", _VALUE], "generic-secret"),
        (["DB_", "PASSWORD:", " ", _VALUE], "generic-password"),
        (["clie", "nt_secret = ", _VALUE], "generic-secret"),
    ):
        found = redactor().text(_list(items))
        assert _VALUE not in found and f"[REDACTED:{rule}]" in found, items


def test_a_name_cut_inside_a_prefix_cut_is_found_too():
    """``and`` + ``a`` + ``pi_key`` reads ``dapi`` (a Databricks token's prefix) cut first:
    the name after it was not looked for, its value in the same item kept."""
    for items in (["and", "a", "pi_key=" + _VALUE], ["and", "a", "pi_key=", _VALUE]):
        assert _VALUE not in redactor().text(_list(items)), items


def test_a_value_followed_by_words_goes_alone():
    """The words after the value's item are not read as part of it (they made it no secret)."""
    text = _list(["pass", "word=", _VALUE, "and", "more"])
    assert redactor().text(text) == _list(
        ["pass", "word=", "[REDACTED:generic-password]", "and", "more"]
    )
    text = _list(["a", "ccess_token=", _VALUE, "next"], quote="'")
    assert redactor().text(text) == _list(
        ["a", "ccess_token=", "[REDACTED:generic-secret]", "next"], quote="'"
    )


def test_words_and_a_plain_value_after_a_cut_name_stay():
    for items in (
        ["an", "access", "token"],
        ["a", "ccess_token=", "placeholder"],
        ["a", "ccess_token=", "getValueFromConfig"],
        ["a", "ccess_token:", "${TOKEN}"],
        ["token=", "your-token-here"],
        ["token=", "anTokens", "v2"],
    ):
        assert redactor().text(_list(items)) == _list(items), items


_NAMES = [
    "access_token", "api_key", "apiKey", "password", "passwd", "client_secret", "DB_PASSWORD",
    "secret", "token", "auth_token", "private_key", "my_secret_key", "credential",
]  # fmt: skip
_ASSIGNMENTS = ["=", ":", ": ", " = ", ":=", " : "]


@st.composite
def _cut_names(draw) -> tuple[str, str]:
    """A list whose items cut a name and its assignment, one or two places (one of them
    in the name, or at the assignment's end), the value in the last piece's item or the
    next one, words perhaps around: the text, and the value."""
    assigned = draw(st.sampled_from(_NAMES)) + draw(st.sampled_from(_ASSIGNMENTS))
    cuts = sorted(draw(st.sets(st.integers(1, len(assigned)), min_size=1, max_size=2)))
    bounds = [0, *cuts, len(assigned)]
    pieces = [assigned[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
    value = draw(secret_values())
    # (As random as the rules ask of a value named whole: ``abcdefgh…`` is not.)
    assume(value not in redactor().text(assigned + value))
    if cuts[-1] < len(assigned) and draw(st.booleans()):
        pieces[-1] += value  # (the value in the item that ends the name)
    else:
        pieces.append(value)
    words = st.lists(st.sampled_from(["and", "then", "run", "the", "next", "x64"]), max_size=2)
    items = draw(words) + pieces + draw(words)
    quote = draw(st.sampled_from(['"', "'", '\\"']))
    separator = draw(st.sampled_from([", ", ",", ",\n  ", ", \\n "]))
    return _list(items, quote, separator), value


@settings(max_examples=300, deadline=None)
@given(_cut_names())
def test_a_cut_name_with_a_random_value_is_always_redacted(case):
    text, value = case
    assert value not in redactor().text(text)


_WORDS = [
    "an", "a", "access", "ccess", "token", "tokens", "api", "key", "keys", "pass", "word",
    "password", "secret", "secrets", "the", "is", "value", "config", "get", "set", "user",
    "name", "id", "v2", "x64", "file", "path", "auth", "client", "reset", "=", ":", " ",
]  # fmt: skip


# (Names of words alone: a name's item followed by a string of letters and digits,
# ``["token", "user_name_v2"]``, is a call's two strings to the rules, a value they judge.)
_LETTER_WORDS = [w for w in _WORDS if w.isalpha()]


@st.composite
def _identifiers(draw) -> str:
    """A word, or words joined as a name (``api_key``, ``getToken``, ``reset-password``),
    perhaps with an assignment's start after it."""
    words = draw(st.lists(st.sampled_from(_LETTER_WORDS), min_size=1, max_size=3))
    joiner = draw(st.sampled_from(["_", "-", "", "camel"]))
    if joiner == "camel":
        name = words[0] + "".join(w.capitalize() for w in words[1:])
    else:
        name = joiner.join(words)
    return name + draw(st.sampled_from(["", "", "=", ":", " = ", ": "]))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(_WORDS), _identifiers()), min_size=1, max_size=8),
    st.sampled_from(['"', "'", '\\"']),
    st.sampled_from([", ", ",", ",\n  "]),
)
def test_lists_of_words_and_names_are_never_redacted(items, quote, separator):
    # (Unless the rules redact the items written as one: ``token=token=password_value:``
    # is an assignment the generic rule takes whole, and a list cut inside it is read so;
    # nor a name's item followed by a value the rules judge a secret's, as a call's two
    # strings are read: ``["token", "key_password_config="]`` as ``token=key_password_config=``.)
    assume("[REDACTED:" not in redactor().text(_list(["".join(items)], quote, separator)))
    assume(not any("[REDACTED:" in redactor().text(f"{a}={b}") for a, b in pairwise(items)))
    text = _list(items, quote, separator)
    assert redactor().text(text) == text
