"""``inline`` at the start of a line opens no block (a prompt starting with ``~~~`` ran a
fence over the end marker and the person's notes), and ``doctor`` follows session text
through ``to_json``, ``short_model``, ``format`` and ``join``, which escape nothing."""

from __future__ import annotations

import jinja2
import pytest
from markdown_it import MarkdownIt

from exporter.doctor_template_lint import _raw_outputs
from exporter.filter_args import checked_filters

# What would reach past its own line: a fence or math block over the end marker and the
# person's notes, a setext underline making the line above a heading.
BLOCK_STARTS = ["~~~ see the log below", "~~~~", "$$", "$$ x", "===", "---", "--"]
# What shapes only its own line stays as typed: a heading's title "1. Setup" is searched
# for as typed (a template that prints inline on a line of its own is told to use literal).
LINE_SHAPES = ["> [!warning] x", "# x", "- [ ] x", "- x", "1. Setup", "12) x", "[x]: https://a.b"]


@pytest.mark.parametrize("text", BLOCK_STARTS)
def test_inline_on_a_line_of_its_own_opens_no_block(text):
    shown = checked_filters()["inline"](text)
    tokens = MarkdownIt("commonmark").parse(f"Before\n\n{shown}\n\nrest\n")
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"] * 3
    assert tokens[4].content == shown and tokens[7].content == "rest"
    said = MarkdownIt("commonmark").parse(f"Said: {shown}\n")[1].children
    assert "".join(t.content for t in said if t.type == "text") == f"Said: {text}"


def test_inline_leaves_text_that_opens_nothing_as_it_was():
    inline = checked_filters()["inline"]
    for text in ("-5 degrees", "12.5 kg", "+1", "--help me", "plain", "~/notes", "1999 was"):
        assert inline(text) == text
    for text in LINE_SHAPES:
        assert inline(text) == text, text


def test_doctor_follows_session_text_through_filters_that_escape_nothing():
    source = (
        "{{ item.text | to_json }}\n"
        "{{ item.text | tojson }}\n"
        "{{ turn.model | short_model }}\n"
        '{{ "%s" | format(item.text) }}\n'
        '{{ [item.text] | join(",") }}\n'
        '{{ session.models | join(", ") }}\n'
        '{{ item.output | callout("note", item.summary) }}\n'
        "{{ item.text | length }} {{ turn.model | short_model | inline }}\n"
        "{{ item.text | prose }} {{ project | wikilink(title) }}\n"
    )
    found = _raw_outputs(jinja2.Environment().parse(source))
    assert [(line, shown) for line, shown, _ in found] == [
        (1, "item.text"), (2, "item.text"), (3, "turn.model"), (4, "item.text"),
        (5, "item.text"), (6, "session.models"), (7, "item.summary"),
    ]  # fmt: skip
