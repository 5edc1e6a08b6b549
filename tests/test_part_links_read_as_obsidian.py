"""A part note a session no longer needs stays while the person links to it (review29), and
only a link Obsidian counts keeps it: one in an Obsidian canvas (a card showing the note, or
a link in a card's text) keeps it as a note's link does, while a link in a code block or in
inline code, which Obsidian shows as code, keeps nothing (vault5 items 1 and 2)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from test_linked_part_stays import _fewer_parts
from test_part_notes import _numbered, exported

from exporter.vaultlinkread import canvas_links, link_name, note_links


def test_a_part_a_canvas_shows_or_links_stays(tmp_path):
    home, vault, _ = exported(tmp_path, 60)
    before = _numbered(vault)
    assert len(before) >= 5
    card, linked = before[4], Path(before[5]).stem
    canvas = {
        "nodes": [
            {"id": "a", "type": "file", "file": card, "x": 0, "y": 0, "width": 400},
            {"id": "b", "type": "text", "text": f"Read [[{linked}]] first", "x": 500},
            {"id": "c", "type": "link", "url": "https://example.com/", "x": 900},
        ],
        "edges": [{"id": "e", "fromNode": "a", "toNode": "b"}],
    }
    (vault / "Board.canvas").write_text(json.dumps(canvas))
    report = _fewer_parts(vault, home)
    after = _numbered(vault)
    assert sorted(after) == [1, 2, 4, 5], report.problems
    assert not (vault / before[3]).exists()  # (nothing of the person's links to it)
    (said,) = [p.message for p in report.problems if "now ends in this note" in p.message]
    assert "are left in place as notes of yours link to them" in said


def test_a_link_in_code_keeps_no_part_and_a_link_beside_it_does(tmp_path):
    home, vault, _ = exported(tmp_path, 60)
    before = _numbered(vault)
    assert len(before) >= 5
    third, fourth, fifth = (Path(before[n]).stem for n in (3, 4, 5))
    (vault / "Journal.md").write_text(
        f"How I link a part:\n\n```markdown\n[[{fourth}]]\n```\n\n"
        f"or inline, `[[{fifth}]]`, or indented:\n\n    [the part]({fourth}.md)\n\n"
        f"> The one I keep: [[{third}|part three]]\n"
    )
    report = _fewer_parts(vault, home)
    after = _numbered(vault)
    assert sorted(after) == [1, 2, 3], report.problems  # (4 and 5: linked only in code)
    assert not (vault / before[4]).exists() and not (vault / before[5]).exists()


NAMES = st.text(st.sampled_from("abcXYZ 019-_()."), min_size=1, max_size=20).filter(
    lambda s: s.strip() and not s.startswith(" ") and not s.endswith(" ")
)
WORDS = st.text(st.sampled_from("abc xyz,.!?"), max_size=30)


@settings(max_examples=200, deadline=None)
@given(NAMES, WORDS, WORDS)
def test_a_wikilink_in_text_is_a_link_and_the_same_in_code_is_not(name, before, after):
    assert link_name(name) in note_links(f"{before} [[{name}]] {after}\n")
    assert link_name(name) in note_links(f"- {before}\n- [[{name}|shown]] {after}\n")
    for code in (f"```\n[[{name}]]\n```\n", f"{before} `[[{name}]]` {after}\n",
                 f"{before}\n\n    [[{name}]]\n"):  # fmt: skip
        assert link_name(name) not in note_links(code), code


def test_a_canvas_that_is_not_one_links_nothing():
    for data in (b"", b"not json", b"[1, 2]", b'{"nodes": 3}', b'{"nodes": [1, {"file": 2}]}'):
        assert canvas_links(data) == set()


MARKDOWN = st.text(st.sampled_from("ab .[]()|!#*_-<>\\\n"), max_size=60)


@settings(max_examples=300, deadline=None)
@given(MARKDOWN)
def test_a_note_without_code_is_read_for_every_link_the_parser_finds(text):
    """A note that cannot hold code is searched as it stands (sooner): that finds every
    link the parser finds, and may keep a part more, never one less."""
    from exporter.vaultlinkread import _parser, _read

    parsed: set[str] = set()
    _read(_parser()(text), parsed)
    assert parsed <= note_links(text)


CODE_MARKDOWN = st.text(st.sampled_from("ab .[]()|!#*_-<>\\\n`~    "), max_size=80)


@settings(max_examples=300, deadline=None)
@given(CODE_MARKDOWN, st.sets(st.sampled_from(["a", "b", "ab", "a b", ""]), max_size=3))
def test_asking_about_some_names_finds_those_as_reading_the_whole_note_does(text, among):
    """A run asks only for the part notes it may remove: a note whose search as it stands
    finds none of them is not parsed (review34 2: 1.5 s a megabyte), and what it finds of
    them is what the whole reading finds."""
    assert note_links(text, among) & among == note_links(text) & among


def test_a_note_with_code_linking_to_no_part_is_not_parsed(monkeypatch):
    from exporter import vaultlinkread

    def no_parse():
        raise AssertionError("parsed")

    text = "```\ncode\n```\n\nSee [[Project plan]] and [the doc](doc.md).\n"
    monkeypatch.setattr(vaultlinkread, "_parser", no_parse)
    assert note_links(text, {"2026-11-20 session a3359d8f · part 2"}) == set()
