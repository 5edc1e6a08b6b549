"""A name's item that opens its value's quote, assigns with ``is``/``was``, ends in a short
password name or in ``Bearer ``, or a value quoted in its own item (review38 M3): the value
in the next item goes, as it does when the same assignment stands whole in one item. Lists
of ordinary words stay."""

from __future__ import annotations

import json

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from secret_values import secret_values

from exporter.redact import redactor

# A made-up value as random as a key (27 characters), built in pieces.
_VALUE = "Zq9xLm4" + "hunter2Wq" + "Ab3Cd5Ef7Gh"


def _args(items: list[str]) -> str:
    return json.dumps({"args": items})


def test_each_shape_loses_its_value_as_its_whole_item_form_does():
    for items, whole, rule in (
        (['api_key="', _VALUE, '"'], f'api_key="{_VALUE}"', "generic-secret"),
        (["api_key='", _VALUE, "'"], f"api_key='{_VALUE}'", "generic-secret"),
        (["password=", f"'{_VALUE}'"], f"password='{_VALUE}'", "generic-password"),
        (["the password is", _VALUE], f"the password is {_VALUE}", "generic-password"),
        (["the secret was", _VALUE], f"the secret was {_VALUE}", "generic-secret"),
        (["pwd=", _VALUE], f"pwd={_VALUE}", "generic-password"),
        (["dbPwd:", _VALUE], f"dbPwd:{_VALUE}", "generic-password"),
        (["curl", "-H", "Authorization: Bearer ", _VALUE], f"Bearer {_VALUE}", "bearer-token"),
    ):
        assert _VALUE not in redactor().text(_args([whole])), whole  # (the rule's own form)
        found = redactor().text(_args(items))
        assert _VALUE not in found and f"[REDACTED:{rule}]" in found, items


def test_only_the_value_goes_and_its_quotes_stay():
    assert redactor().text(_args(['api_key="', _VALUE, '"'])) == _args(
        ['api_key="', "[REDACTED:generic-secret]", '"']
    )
    assert redactor().text(_args(["password=", f"'{_VALUE}'"])) == _args(
        ["password=", "'[REDACTED:generic-password]'"]
    )


def test_ordinary_lists_and_plain_values_stay():
    for items in (
        ["is", "was"],
        ["the password is", "wrong"],
        ["the password is", "incorrect", "again"],
        ["bypass=", _VALUE],  # (not a password's name, whole either)
        ["passes=", _VALUE],
        ["password=", "'placeholder'"],
        ["password=", "''", "next"],
        ['api_key="', "getValueFromConfig", '"'],
        ["Authorization: Bearer ", "token"],
        ["Bearer", _VALUE],  # (``Bearer`` and the value with no space: the rule's too)
        ["pass", "", "the", "word"],
    ):
        assert redactor().text(_args(items)) == _args(items), items


_LONG_NAMES = ["access_token", "api_key", "password", "client_secret", "DB_PASSWORD", "secret"]
_SHORT_NAMES = ["pwd", "PWD", "pass", "db_pass", "dbPwd"]


@st.composite
def _cut_assignments(draw) -> tuple[list[str], str, str]:
    """One of M3's shapes, cut at the assignment's end (and, for a long name, perhaps once
    inside it too), words perhaps before: the items, the value, its whole-item form."""
    value = draw(secret_values(20, 30))
    shape = draw(st.sampled_from(["opens", "quoted", "is", "short", "bearer"]))
    closing: list[str] = []
    if shape == "bearer":
        name, assigned, item_value = "", draw(st.sampled_from(["Bearer ", "bearer  "])), value
        assigned = draw(st.sampled_from(["", "Authorization: ", "authorization: "])) + assigned
    elif shape == "short":
        name = draw(st.sampled_from(_SHORT_NAMES))
        assigned = name + draw(st.sampled_from(["=", ": ", " = ", ":=", " is"]))
        item_value = value
    else:
        name = draw(st.sampled_from(_LONG_NAMES))
        quote = draw(st.sampled_from(["'", '"']))
        if shape == "opens":
            assigned = name + draw(st.sampled_from(["=", ": ", " = "])) + quote
            item_value, closing = value, draw(st.sampled_from([[quote], []]))
        elif shape == "quoted":
            assigned = name + draw(st.sampled_from(["=", ": ", " => "]))
            item_value = quote + value + quote
        else:
            assigned = draw(st.sampled_from(["the ", "my ", ""])) + name
            assigned += draw(st.sampled_from([" is", " was", " is ", " is: "]))
            item_value = value
    pieces = [assigned]
    if shape not in ("short", "bearer") and draw(st.booleans()):  # a cut inside the name
        at = assigned.index(name) + draw(st.integers(1, len(name) - 1))
        pieces = [assigned[:at], assigned[at:]]
    words = draw(st.lists(st.sampled_from(["curl", "-H", "and", "then", "run"]), max_size=2))
    items = words + pieces + [item_value] + closing
    whole = assigned + (" " if assigned.endswith(("is", "was")) else "") + item_value
    return items, value, whole + "".join(closing)


@settings(max_examples=300, deadline=None)
@given(_cut_assignments())
def test_every_cut_of_these_shapes_with_a_random_value_is_redacted(case):
    items, value, whole = case
    # (As random as the rule asks of a value named whole: ``abcdefgh…`` is not.)
    assume(value not in redactor().text(_args([whole])))
    assert value not in redactor().text(_args(items))


_WORDS = [
    "is", "was", "the", "password", "pass", "pwd", "secret", "token", "api_key", "Bearer",
    "bearer", "Authorization:", "value", "wrong", "config", "get", "user", "name", "=", ":",
    "'", '"', "x64", "v2", "file", "path", "run", "and",
]  # fmt: skip


@st.composite
def _ordinary_items(draw) -> str:
    """A word, words with spaces (``the password is``), or a word quoted in its item."""
    words = draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3))
    joined = " ".join(words) + draw(st.sampled_from(["", "", "=", ": ", " is", '="', "='"]))
    quote = draw(st.sampled_from(["", "", "'", '"']))
    return quote + joined + quote


@settings(max_examples=300, deadline=None)
@given(st.lists(_ordinary_items(), min_size=1, max_size=8))
def test_lists_of_ordinary_words_are_never_redacted(items):
    # (Unless the rules redact the items written as one: ``password=Authorization:x64=``
    # is an assignment the generic rule takes whole, and a list cut inside it is read so.)
    # An item ending in ``is`` or ``was`` is joined to the next by a space, as words are.
    def joined(some: list[str]) -> str:
        return "".join(i + " " if i.endswith((" is", " was")) else i for i in some)

    assume("[REDACTED:" not in redactor().text(_args([joined(items)])))
    # Nor from any item on: the words before a name are words of their own (``["is",
    # "pass=", "Authorization:", "x64="]`` is ``pass=Authorization:x64=`` after ``is``).
    assume(not any("[REDACTED:" in redactor().text(_args([joined(items[n:])]))
                   for n in range(1, len(items))))  # fmt: skip
    text = _args(items)
    assert redactor().text(text) == text


def test_two_items_ending_in_an_assignment_are_no_value_cut_in_two():
    # (Written out as one, nothing in them is redacted: ``password is is x64="is=``,
    # ``password='is='x64=``, ``token=passwordvalue=config=an``.)
    for items in (
        ["password", 'is is x64="', "is="],
        ["password=", "'is='", "x64="],
        ["token=", "passwordvalue=", "config=", "an"],
    ):
        for quote in ("'", '"'):
            text = "[" + ", ".join(quote + i + quote for i in items) + "]"
            if quote in "".join(items):
                continue
            assert redactor().text(text) == text, text
