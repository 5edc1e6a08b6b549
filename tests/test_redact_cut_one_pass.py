"""The search for a keyword cut between list items reads a text once, finding only the
keywords a separator cuts (a JSON log is full of whole ones: reading each of them halved
redaction's speed on the corpus, 25 -> 13 MB/s). It finds every cut the reading of every
keyword in the text with its separators taken out found, kept here as the reference, and
more only where that reading had taken the keyword into a longer one whole in its item
(``AGE-SECRET-KEY-1``: its ``SECRET``, a name going on to the item's end): a cut found is a
join read by the rules, never a redaction of its own. On the corpus both find the same."""

from __future__ import annotations

import bisect
import re

import re2
from hypothesis import given, settings
from hypothesis import strategies as st

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
    found = []
    for m in pattern.finditer(view):
        start, end = m.span()
        i = bisect.bisect_right(at_view, start)
        word = m.group().lower() if m.group(2) is not None else m.group()
        kind = kinds.get(word, "name")
        if i >= len(at_view) or (at_view[i] >= end and kind != "name"):
            continue
        if at_view[i] >= end and not _NAME_GOES_ON.fullmatch(view, end, at_view[i]):
            continue
        last = bisect.bisect_left(at_view, end) - 1
        found.append((spans[i][0], spans[i][1], kind, end + taken[last + 1]))
    return found


_CUTS = redactor()._split._cuts
_WORDS = sorted(_CUTS._kinds)
_fragments = st.one_of(
    st.sampled_from(_WORDS).flatmap(
        lambda w: st.integers(0, len(w)).map(lambda i, w=w: [w[:i], w[i:]])
    ),
    st.lists(st.text("abcXYZ_-=019 ", max_size=8).map(str.encode), min_size=1, max_size=2),
)
_separators = st.sampled_from([b'", "', b"','", b'",\n  "', b'\\",\\"', b'", \\n "'])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_fragments, _separators), min_size=1, max_size=8))
def test_the_one_pass_finds_what_the_reading_of_every_keyword_found(items):
    data = b'["' + b"".join(b"".join(f) + s for f, s in items) + b'end"]'
    found = [(c.cut, c.after, c.kind, c.end) for c in _CUTS.find(data, _separator())]
    assert set(found) >= set(reference_cuts(_CUTS._kinds, _CUTS._names, data))
    assert found == sorted(found)


def test_on_the_corpus_both_readings_find_the_same(corpus):
    for path in sorted(corpus.rglob("*")):
        if path.is_file() and path.suffix in (".jsonl", ".json", ".md"):
            data = path.read_bytes()
            found = [(c.cut, c.after, c.kind, c.end) for c in _CUTS.find(data, _separator())]
            assert found == reference_cuts(_CUTS._kinds, _CUTS._names, data), path.name
