"""The search for a keyword cut between list items reads a text once, finding only the
keywords a separator cuts (a JSON log is full of whole ones: reading each of them halved
redaction's speed on the corpus, 25 -> 13 MB/s). What the rules then redact is what they
redacted with the reading of every keyword in the text with its separators taken out, kept
here as the reference; on the corpus both find the same cuts."""

from __future__ import annotations

import bisect
import re
from unittest.mock import patch

import cut_searches
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter import redact_cut
from exporter.redact import redactor
from exporter.redact_split import _separator

_NAME_GOES_ON = re2.compile(rb"[A-Za-z0-9_-]{0,24}")


def reference_cuts(kinds: dict[bytes, str], names: list[bytes], data: bytes) -> list[tuple]:
    """The reading before: every keyword of the view (separators taken out), kept where a
    separator cuts it, or where a name goes on up to one."""
    separator = _separator()
    view = separator.sub(b"", data)
    if len(view) == len(data):
        return []
    exact = sorted((re.escape(w) for w, k in kinds.items() if k != "name"), key=len, reverse=True)
    folded = sorted((re.escape(w) for w in names), key=len, reverse=True)
    pattern = re.compile(
        b"(" + (b"|".join(exact) or b"(?!)") + b")|(?i:(" + (b"|".join(folded) or b"(?!)") + b"))"
    )
    spans = [m.span() for m in separator.finditer(data)]
    at_view, taken = [], [0]
    for a, b in spans:
        at_view.append(a - taken[-1])
        taken.append(taken[-1] + b - a)
    names_only = re.compile(b"(?i:(" + (b"|".join(folded) or b"(?!)") + b"))")
    found = []

    def keep(start: int, end: int, word: bytes, kind: str) -> None:
        i = bisect.bisect_right(at_view, start)
        if i >= len(at_view) or (at_view[i] >= end and kind != "name"):
            return
        if at_view[i] >= end and not _NAME_GOES_ON.fullmatch(view, end, at_view[i]):
            return
        last = bisect.bisect_left(at_view, end) - 1
        found.append((spans[i][0], spans[i][1], kind, end + taken[last + 1]))

    for m in pattern.finditer(view):
        word = m.group().lower() if m.group(2) is not None else m.group()
        keep(*m.span(), word, kinds.get(word, "name"))
        if m.group(1) is not None:
            # A name that begins inside a prefix (``AGE-SECRET-KEY-1`` holds ``secret``),
            # read too since secrets8 (``["and", "a", "pi_key=…"]``: ``dapi`` first).
            inner = names_only.search(view, m.start() + 1)
            if inner is not None and inner.start() < m.end():
                keep(*inner.span(), inner.group().lower(), "name")
    return found


_CUTS = redactor()._split._cuts
_WORDS = sorted(_CUTS._kinds)
_VALUE = "=Zq9xLm4" + "hunter2Wq"  # (a made-up password, built in two pieces)


@st.composite
def _lists(draw) -> bytes:
    """A list of strings in which a keyword (or a name and its value) is cut between items,
    an empty item perhaps between its pieces, among words and separators of every kind."""
    word = draw(st.sampled_from(_WORDS)).decode()
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(word) - 1)), min_size=1, max_size=2)))
    pieces = [word[a:b] for a, b in zip([0, *cuts], [*cuts, len(word)], strict=True)]
    pieces[-1] += draw(st.sampled_from(["", _VALUE, "_key" + _VALUE, "ghp"]))
    items = []
    for piece in pieces:
        items.append(piece)
        items += [""] * draw(st.integers(0, 2))  # (empty items between the pieces)
    words = st.lists(st.text("abcXYZ_-019 ", max_size=8), max_size=3)
    items = draw(words) + items[: len(items) - (items[-1] == "")] + draw(words)
    quote = draw(st.sampled_from(['"', "'", '\\"']))
    separator = draw(st.sampled_from([", ", ",", ",\n  ", ", \\n "]))
    return ("[" + quote + (quote + separator + quote).join(items) + quote + "]").encode()


def _reference_find(self, data, separator):
    cuts = [redact_cut.Cut(*cut) for cut in reference_cuts(self._kinds, self._names, data)]
    if self._also:  # (and what secrets10 found in searches of their own: ``cut_searches``)
        cuts += [*cut_searches.short_names(data), *cut_searches.anchors(data)]
    yield from sorted(cuts, key=lambda c: (c.cut, c.after, c.kind, c.end))


@settings(max_examples=300, deadline=None)
@given(_lists())
def test_the_one_pass_redacts_what_the_reading_of_every_keyword_did(data):
    """What the rules redact from a list whose keyword a separator cuts, an empty item or
    two perhaps between its pieces (review36 1: the first one pass missed those): the same
    with either reading. (The one pass may find a cut fewer where the name before it goes on
    across the same separator, ``["secret_tok", "en=…"]``: the same join is read.)"""
    text = data.decode()
    found = redactor().text(text)
    with patch.object(redact_cut.CutKeywords, "find", _reference_find):
        assert found == redactor().text(text)


def test_on_the_corpus_both_readings_find_the_same(corpus):
    for path in sorted(corpus.rglob("*")):
        if path.is_file() and path.suffix in (".jsonl", ".json", ".md"):
            data = path.read_bytes()
            found = [(c.cut, c.after, c.kind, c.end) for c in _CUTS.find(data, _separator())]
            reference = [(c.cut, c.after, c.kind, c.end) for c in _reference_find(_CUTS, data, 0)]
            assert sorted(found) == reference, path.name


def test_a_keyword_cut_across_an_empty_item_is_found():
    """review36 1: ``["pass", "", "word=…"]`` kept its password after the first one pass."""
    for before, rule in (
        ('"pass", "", "word', "generic-password"),
        ('"api_", "", "key', "generic-secret"),
    ):
        text = f'[{before}{_VALUE}"]'
        assert redactor().text(text) == f'[{before}=[REDACTED:{rule}]"]'
