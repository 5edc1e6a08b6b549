"""A text whose only pieces are Markdown's escapes (``my\\_var``, ``some\\-thing``) is read
through a view built in bulk (``redact_views._unescaped``): the same view, character for
character and place for place, as the piece-by-piece reading gives, and an escaped token in
a large text dense with escapes is still redacted. The tokens are random characters made
at test time; none is real."""

from __future__ import annotations

import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.redact import redact_text
from exporter.redact_views import view

_rng = random.Random(20261208)
GITHUB = "gh" + "p_" + "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(36))

_pieces = st.sampled_from(["\\_", "\\-", "\\", "_", "-", "a", "Z", "7", " ", "\t", "\\\\_"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_pieces, max_size=40).map("".join))
def test_each_character_of_an_escaped_view_maps_back_to_what_it_reads(text):
    meant = view(text)
    plain = text.replace("\\_", "_").replace("\\-", "-")
    if plain == text:
        assert meant is None
        return
    assert meant is not None and meant.text == plain
    for i, char in enumerate(meant.text):
        start, end = meant.span(i, i + 1)
        written = text[start:end]
        assert written == char or written == "\\" + char
        assert meant.across(i, i + 1) == (len(written) == 2)


def test_an_escaped_token_in_a_text_dense_with_escapes_is_redacted():
    escaped = GITHUB.replace("_", "\\_")
    text = "my\\_var some\\-thing plain words here " * 5000 + f"token {escaped} end"
    out = redact_text(text)
    assert GITHUB[4:] not in out and out.endswith("token [REDACTED:github-pat] end")
    assert out.startswith("my\\_var some\\-thing plain words here my\\_var")
