"""A wikilink Obsidian reads as one keeps its part note when it holds inline code
(``[[Note part 2|`code` label]]``) or stands in a Markdown link's text
(``[see [[Note]]](other.md)``); one wholly inside inline code or a code block still keeps
nothing (review34 3: since the move to a real parse, the first two were no links)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from test_linked_part_stays import _fewer_parts
from test_part_notes import _numbered, exported

from exporter.vaultlinkread import link_name, note_links

NAMES = st.text(st.sampled_from("abcXYZ 019-_()."), min_size=1, max_size=20).filter(
    lambda s: s.strip() and not s.startswith(" ") and not s.endswith(" ")
)
# (no bracket: "[[a|b]c]]" is no wikilink, code or not)
CODE = st.text(st.sampled_from("abc xyz.()|*_"), min_size=1, max_size=12).filter(str.strip)


def test_a_wikilink_with_code_in_its_label_or_name_is_a_link():
    assert note_links("See [[Note part 2|`code` label]] and `x`.\n") == {"note part 2"}
    assert note_links("See [[a `b` c]] and `x`.\n") == {"a `b` c"}
    assert note_links("`x` then [[Note part 3|the ``a`b`` label]]\n") == {"note part 3"}


def test_a_wikilink_in_a_links_text_is_a_link_too():
    assert note_links("[see [[Inner]]](Outer.md) and `x`\n") == {"inner", "outer"}
    assert note_links("![shown [[Inner]]](pic.png) `x`\n") == {"inner", "pic.png"}


def test_a_wikilink_wholly_in_code_is_still_no_link():
    assert note_links("`[[Gone]]` and `` [[Gone too]] `` but [[Kept]]\n") == {"kept"}
    assert note_links("```\n[[Gone|`x` label]]\n```\n") == set()
    assert note_links("[text `[[Gone]]`](Outer.md)\n") == {"outer"}


@settings(max_examples=200, deadline=None)
@given(NAMES, CODE, st.sampled_from(["`", "``"]))
def test_code_in_a_wikilinks_label_never_loses_the_link(name, code, ticks):
    label = f"{ticks}{code}{ticks}"
    text = f"Read [[{name}|{label} here]] first, `then`.\n"
    assert link_name(name) in note_links(text)
    assert link_name(name) not in note_links(f"Read `[[{name}|{code}]]` first.\n")


def test_a_part_linked_with_code_in_its_label_stays(tmp_path):
    home, vault, _ = exported(tmp_path, 60)
    before = _numbered(vault)
    assert len(before) >= 5
    fourth, fifth = (Path(before[n]).stem for n in (4, 5))
    (vault / "Journal.md").write_text(
        f"The fix: [[{fourth}|`retry()` in part four]], and [see [[{fifth}]]](elsewhere.md).\n"
    )
    report = _fewer_parts(vault, home)
    after = _numbered(vault)
    assert sorted(after) == [1, 2, 4, 5], report.problems
