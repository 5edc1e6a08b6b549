"""A conflict copy's diff shows the person's edit of the part's last lines as theirs, however
the session grew after them: the end marker's hash of the part as ccexport last wrote it
tells exactly where the growth begins in the part as it writes it now (a last line rewritten
whole was counted with the growth, not shown as the person's change). Synthetic text only."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_conflict_copy_bounds import conflict_said

from exporter import editdiff
from exporter.notehash import owned_hash

HEAD = "Your edit of the note, saved."


def test_a_last_line_rewritten_whole_is_shown_as_the_persons_change(tmp_path):
    said = conflict_said(tmp_path, "ENTIRELY OTHER WORDS OF MINE")
    diff = said.partition("```diff")[2]
    assert "-reply to two\n+ENTIRELY OTHER WORDS OF MINE" in diff, said
    assert "later" not in diff and "### User" not in diff
    assert "what the session added since" in said


def test_a_last_line_rewritten_with_lines_after_it_is_shown_with_them(tmp_path):
    said = conflict_said(tmp_path, "MY REWRITE\n\nMY NEXT LINE")
    diff = said.partition("```diff")[2]
    assert "-reply to two\n+MY REWRITE\n+\n+MY NEXT LINE" in diff, said
    assert "later" not in diff


def test_a_last_line_removed_is_shown_removed_and_the_growth_is_not(tmp_path):
    said = conflict_said(tmp_path, "")
    diff = said.partition("```diff")[2]
    assert "-reply to two" in diff, said
    assert "later" not in diff and "### User" not in diff


def test_without_the_hash_the_texts_alone_are_read_as_before():
    written = "# T\n\nreply to two\n\n### User\n\nlater"
    theirs = "# T\n\nMINE"
    assert editdiff.copy_text(HEAD, written, theirs) == editdiff.copy_text(
        HEAD, written, theirs, written_hash=None
    )
    other = owned_hash("something else")
    assert editdiff.copy_text(HEAD, written, theirs, written_hash=other) == editdiff.copy_text(
        HEAD, written, theirs
    )


LINE = st.sampled_from(["a", "b", "x y", "### User", "later", "reply", "", "MINE", "a b c"])
FILLED = LINE.filter(bool)


def _applied(before: list[str], diff: list[str]) -> list[str]:
    """``before`` with the diff's hunks applied: each ``-`` line left out, each ``+`` one
    put in, where its hunk's header says."""
    result, at = [], 0
    for line in diff:
        if line.startswith("@@"):
            old = line.split(" ")[1][1:]
            first, _, length = old.partition(",")
            start = int(first) if length == "0" else int(first) - 1
            result += before[at:start]
            at = start
        elif line.startswith(" "):
            result.append(before[at])
            at += 1
        elif line.startswith("-"):
            assert line[1:] == before[at], (line, at)
            at += 1
        elif line.startswith("+"):
            result.append(line[1:])
    return result + before[at:]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(LINE, max_size=10), FILLED, st.integers(0, 4), st.lists(LINE, max_size=5),
    st.lists(LINE, max_size=8), FILLED,
)  # fmt: skip
def test_the_persons_edit_of_the_last_lines_is_reported_whatever_the_growth(
    start, last, replaced, mine, growth, growth_last
):
    """The person made the part's last lines their own (rewrote, removed or added to
    them), then the session added any lines: the diff, applied to the part as ccexport
    wrote it, gives the person's text (each edit of theirs is in it, none of the growth
    is), and the growth is counted."""
    before = ["first", *start, last]  # (a part starts with its heading, never a blank line)
    kept = max(1, len(before) - replaced)
    theirs = [*before[:kept], *mine]
    theirs_lines = editdiff._lines("\n".join(theirs))
    assume(theirs_lines != before)
    grown = [*growth, growth_last]
    now = "\n".join([*before, *grown])
    said = editdiff.copy_text(
        HEAD, now, "\n".join(theirs), written_hash=owned_hash("\n".join(before))
    )
    summary = said.partition("Your text as you had it")[0]
    diff = summary.partition("+++ yours\n")[2].rpartition("\n```")[0].split("\n")
    assert _applied(before, diff) == theirs_lines, summary
    assert f"The last {editdiff._lines_of(len(grown))} of ccexport's text" in summary, summary
