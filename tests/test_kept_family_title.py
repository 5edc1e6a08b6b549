"""A grown subagent written beside its parent kept as shrunk keeps the title its note had
(``keptfamily._retitled``, for a note a worker rendered ahead): in its properties, its
aliases and the note's own heading, its first, never a line further down that reads as it
(review41 L-4: a person's template titling the note elsewhere)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from exporter.keptfamily import _retitled
from exporter.notes import Note

POOR, HAD = "Explore the repo", "Find the POST /notes tests"


def _note(body: str) -> Note:
    return Note("k", "n.md", {"title": POOR, "aliases": [POOR, "other"]}, body)


def test_the_first_heading_takes_the_title_it_had():
    done = _retitled(_note(f"# {POOR}\n\n### User\n\nhi\n"), POOR, HAD)
    assert done.body == f"# {HAD}\n\n### User\n\nhi\n"
    assert done.frontmatter["title"] == HAD and done.frontmatter["aliases"] == [HAD, "other"]


def test_a_line_further_down_that_reads_as_the_title_stays():
    body = f"## Session\n\n### User\n\n# {POOR}\n"  # (a person's template: no title heading)
    assert _retitled(_note(body), POOR, HAD).body == body


@given(st.text(st.characters(blacklist_categories=["Cs"]), max_size=200))
def test_only_the_first_heading_is_ever_changed(text):
    body = f"# {POOR}\n{text}\n# {POOR}\n"
    done = _retitled(_note(body), POOR, HAD).body
    assert done == f"# {HAD}\n{text}\n# {POOR}\n"
