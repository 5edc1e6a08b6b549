"""The parser that locates code skips emphasis, and finds exactly the code the full one finds.

Code spans bind tighter than emphasis, and mistune resolves emphasis after its scan, so the
rule only costs time. Proven here on every text of the corpus sessions and on random Markdown
built from the characters that open and close code, emphasis, links and strikethrough.
"""

from __future__ import annotations

import pytest
from conftest import CORPUS
from corpus_home import corpus_texts
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter import markdown_code as markdown
from exporter import markdown_parsed


def _full_parser():
    import mistune

    return mistune.create_markdown(renderer="ast", plugins=["table", "strikethrough"])


def _located(text: str, parser) -> tuple:
    """What the parser says is code (blocks, spans) and the code ranges built from it."""
    saved = markdown_parsed._parser
    markdown_parsed._parser = lambda: parser
    try:
        blocks, spans = markdown_parsed._parser_code(text)
        return [b["raw"] for b in blocks], spans, markdown.code_ranges(text)
    finally:
        markdown_parsed._parser = saved


def _differences(texts: list[str]) -> list[str]:
    full, reduced = _full_parser(), markdown_parsed._parser()
    return [t for t in texts if _located(t, full) != _located(t, reduced)]


def test_the_code_parser_has_no_emphasis_rule_but_keeps_strikethrough():
    rules = markdown_parsed._parser().inline.rules
    assert "emphasis" not in rules
    assert "strikethrough" in rules and "codespan" in rules


def test_strikethrough_is_kept_because_it_claims_text_before_code_spans():
    # Without the strikethrough rule this would parse a code span `b~~ c`: the rule matters.
    _blocks, spans = markdown_parsed._parser_code("~~a `b~~ c` d")
    assert spans == []


@pytest.mark.corpus
def test_the_corpus_texts_locate_the_same_code(tmp_path, corpus):
    prose, outputs = corpus_texts(CORPUS, tmp_path / "home")
    texts = prose + outputs
    with_code = [t for t in texts if markdown._HAS_CODE.search(t)]
    assert len(with_code) > 100, "the corpus should hold many texts with code in them"
    assert _differences(with_code) == []


_PIECES = st.sampled_from(
    ["`", "``", "```", "~~", "~", "*", "**", "_", "__", "[", "]", "(", ")", "<", ">", "\\",
     "\n", "\n\n", "\n    ", "\n> ", "\n- ", "|", " ", "a", "b c", "x_y", "http://e.x"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_random_markdown_locates_the_same_code(text):
    assert _differences([text]) == []


_OPENERS = st.sampled_from(
    ["`", "``", "```", "~~~", "\n", "\n\n", "\n    ", "\n\t", "\n- ", "\n-     ", "\n1.     ",
     "\n> ", "\n>     ", " ", "  ", "a", "<t>", "x_y"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(_OPENERS, max_size=30).map("".join))
def test_nothing_is_code_before_the_first_place_code_could_open(text):
    # clean.py leaves a text unparsed when no code could open before an injected tag.
    ranges = markdown.code_ranges(text)
    if ranges == [(0, len(text))] and markdown._layout(text) is None:
        return  # unsure: the whole text counts as code, whatever opens where
    for at in (k for k, char in enumerate(text) if char == "<"):  # where a tag would start
        if at <= markdown.first_code_opener(text):
            assert not any(a <= at < b for a, b in ranges), (at, ranges)
