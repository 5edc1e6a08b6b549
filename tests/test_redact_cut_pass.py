"""The short password names a list cuts (``["p", "wd=", "…"]``) and the items a list's words
are read around (``["mysql", "-p", "…"]``) are found in the cut keywords' one pass over the
list with its separators marked, not in searches of the text of their own: secrets10's two
searches made redaction of the corpus ~7-9% slower. The one pass finds what they found."""

from __future__ import annotations

import json

import cut_searches
import re2
from hypothesis import given, settings
from hypothesis import strategies as st
from test_redact_cut_one_pass import reference_cuts

from exporter.redact import redactor
from exporter.redact_split import _separator

_CUTS = redactor()._split._cuts
_VALUE = "Zq9xLm4" + "hunter2Wq"  # (a made-up password, built in two pieces)


def _found(data: bytes) -> list[tuple]:
    return sorted((c.cut, c.after, c.kind, c.end) for c in _CUTS.find(data, _separator()))


def _reference(data: bytes) -> list[tuple]:
    cuts = reference_cuts(_CUTS._kinds, _CUTS._names, data)
    cuts += [(c.cut, c.after, c.kind, c.end) for c in cut_searches.short_names(data)]
    cuts += [(c.cut, c.after, c.kind, c.end) for c in cut_searches.anchors(data)]
    return sorted(cuts)


_ITEMS = st.sampled_from(
    ["p", "wd=", "pw", "d:", "pa", "ss =", "pas", "s is", "wd was", "x-p", "P", "WD=", "", "",
     "mysql", "/usr/bin/mysql", "curl -u me", "docker", "login", "-p", "is", "was:", "=", ":",
     ":=", "=>", "the", "password", "api", "_key=", "secret_", "token", "gh", "p_", "run",
     _VALUE, "a b", "is it"]
)  # fmt: skip


@st.composite
def _lists(draw) -> bytes:
    """A list of strings of short names' pieces, clients, assignments and words, among
    separators of every kind, empty items too, perhaps inside a string of JSON."""
    items = draw(st.lists(_ITEMS, min_size=1, max_size=10))
    quote = draw(st.sampled_from(['"', "'", '\\"']))
    separator = draw(st.sampled_from([", ", ",", ",\n  ", ", \\n "]))
    opening = draw(st.sampled_from(["[", "(", "x, ", '{"a": 1, "b": [']))
    return (opening + quote + (quote + separator + quote).join(items) + quote + "]").encode()


@settings(max_examples=400, deadline=None)
@given(_lists())
def test_the_one_pass_finds_what_the_searches_of_their_own_found(data):
    assert _found(data) == _reference(data)


def test_examples_of_each_are_found_in_the_one_pass():
    for items, kind in (
        (["p", "wd=", _VALUE], "name"),
        (["pa", "", "ss:", _VALUE], "name"),
        (["mysql", "-u", "root", "-p", _VALUE], "words"),
        (["the", "password", "is", _VALUE], "words"),
    ):
        data = json.dumps(items).encode()
        assert _found(data) == _reference(data), items
        assert kind in {cut[2] for cut in _found(data)}, items
    # (three separators between a short name's pieces are more than its search took)
    data = json.dumps(["p", "", "", "wd=", _VALUE]).encode()
    assert _found(data) == _reference(data) == []


def test_a_list_is_searched_from_its_start_only_by_the_separators_and_the_named_items():
    """The text itself is read twice from its start (its separators, the names ending an
    item: as before secrets10); the short names and the anchors add no reading of it."""
    red = redactor()
    data = json.dumps({"args": ["run", "the", "build", "now"], "input_tokens": 5}).encode()
    spots, _, _ = red._spots(data)
    calls = []
    original = re2._Regexp._match

    def recorded(self, anchor, text, pos=None, endpos=None):
        if text is data and not pos:
            calls.append(self.pattern)
        return original(self, anchor, text, pos, endpos)

    re2._Regexp._match = recorded
    try:
        assert red._split.redact(data, spots, red._finds, None) is data
    finally:
        re2._Regexp._match = original
    assert len(calls) == 2, calls
