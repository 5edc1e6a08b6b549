"""A conflict copy's diff stays cheap and honest on long parts (review38 H2, L2): the lines
both texts begin and end with are set aside, at most ``editdiff.COMPARED`` lines a side of
the rest are compared, once, and the copy says where the comparison stopped; the session's
growth after the person's last line is counted, never shown as ``-`` lines; a long line is
cut only after the texts are redacted, so no piece of a secret is left. Synthetic text and
fake tokens (built by concatenation) only."""

from __future__ import annotations

import difflib
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from vault_builder import export, the_note, write_session

from exporter import editdiff

HEAD = "Your edit of the note, saved."


def _counting(monkeypatch) -> list[tuple[int, int]]:
    """The sizes of each pair of line lists the copy compares."""
    sizes: list[tuple[int, int]] = []
    matcher = difflib.SequenceMatcher

    def counted(junk, a, b, *args, **kw):
        if isinstance(a, list):
            sizes.append((len(a), len(b)))
        return matcher(junk, a, b, *args, **kw)

    monkeypatch.setattr(difflib, "SequenceMatcher", counted)
    return sizes


def test_a_long_part_edited_throughout_compares_a_bounded_window_once(monkeypatch):
    sizes = _counting(monkeypatch)
    written = "\n".join(f"line {n} of the session" for n in range(50_000))
    theirs = "\n".join(
        f"line {n} of the session, edited" if n % 10 == 5 else f"line {n} of the session"
        for n in range(50_000)
    )
    started = time.monotonic()
    copy = editdiff.copy_text(HEAD, written, theirs)
    assert time.monotonic() - started < 5  # a guard against the quadratic case only
    assert sizes and max(max(pair) for pair in sizes) <= editdiff.COMPARED
    assert len(sizes) == 1  # one comparison serves the growth and the hunks
    assert "-line 5 of the session\n+line 5 of the session, edited" in copy
    assert f"stopped after the first {editdiff.COMPARED:,} lines that differ" in copy
    assert copy.endswith(theirs + "\n")  # the whole text still follows


def test_lines_both_begin_and_end_with_are_not_compared(monkeypatch):
    sizes = _counting(monkeypatch)
    lines = [f"line {n}" for n in range(30_000)]
    edited = [*lines[:20_000], "my own line", *lines[20_000:]]
    said = editdiff.summary("\n".join(lines), "\n".join(edited))
    assert max(max(pair) for pair in sizes) <= 2
    assert (
        "@@ -19999,4 +19999,5 @@\n line 19998\n line 19999\n+my own line\n line 20000\n line 20001\n```"
        in said
    )
    assert "stopped" not in said


def test_growth_after_an_edit_far_up_a_long_part_is_counted_not_compared(monkeypatch):
    sizes = _counting(monkeypatch)
    lines = [f"line {n}" for n in range(30_000)]
    grown = [*lines, "### User · 10:00", "", "later", "", "reply to later"]
    theirs = ["line 0 EDITED", *lines[1:]]
    said = editdiff.summary("\n".join(grown), "\n".join(theirs))
    assert max(max(pair) for pair in sizes) <= 2
    assert "-line 0\n+line 0 EDITED" in said
    assert "The last 5 lines of ccexport's text" in said
    assert "later" not in said.partition("```diff")[2]


def conflict_said(tmp_path: Path, last_line: str) -> str:
    """What a conflict copy says above the person's text: they made "reply to two" (the
    part's last line) ``last_line``, then the session grew by two turns."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["one", "two"])
    export(vault, home)
    note = the_note(vault)
    note.write_text(note.read_text().replace("reply to two", last_line, 1))
    write_session(home, ["one", "two", "later 0", "later 1"])
    (conflict,) = export(vault, home).conflicts()
    saved = conflict.message.rpartition("was saved to ")[2]
    return (vault / saved).read_text().partition("Your text as you had it")[0]


def _conflict_at_the_end(tmp_path: Path, added: str) -> str:
    """The same, the person having added ``added`` after the part's last line."""
    return conflict_said(tmp_path, f"reply to two{added}")


def test_the_sessions_growth_after_an_edit_at_the_end_reads_as_growth(tmp_path):
    said = _conflict_at_the_end(tmp_path, "\n\nMY FIRST LINE\n\nMY SECOND LINE\nMY THIRD")
    diff = said.partition("```diff")[2]
    assert "+MY FIRST LINE" in diff and "+MY THIRD" in diff
    assert not [line for line in diff.splitlines()[2:] if line.startswith("-")]
    assert "### User" not in diff and "later" not in diff
    assert "of ccexport's text, which yours does not have after your last line" in said


def test_an_edit_of_the_last_line_is_shown_with_the_growth_left_out(tmp_path):
    said = _conflict_at_the_end(tmp_path, " (checked) and MY NOTE")
    diff = said.partition("```diff")[2]
    assert "-reply to two\n+reply to two (checked) and MY NOTE" in diff
    assert "later" not in diff


def test_a_line_is_cut_only_after_it_is_redacted(tmp_path):
    token = "ghp" + "_" + "Zq8RtY2mNc4VbX6kLp0JwS3dF5gH7jK9aB1e"  # fake, of GitHub's shape
    for into in (4, 8, 11):  # where the line's cut falls inside the token
        pad = "w" * (editdiff.LINE_WIDTH - into - 1)
        said = _conflict_at_the_end(tmp_path / str(into), f"\n{pad} {token} and more")
        assert token[: into - 1] not in said, into
        assert "[REDACTED" in said or pad in said


LINES = st.lists(st.sampled_from(["a", "b", "", "### User", "later", "x y"]), max_size=30)


@settings(max_examples=300, deadline=None)
@given(LINES, LINES)
def test_each_hunk_shows_the_persons_lines_where_they_are(ours, theirs):
    """Whatever is left out as growth, a hunk's `+` and ` ` lines are the person's text at
    the line its header names, and its `-` and ` ` lines ccexport's."""
    said = editdiff.summary("\n".join(ours), "\n".join(theirs))
    body = said.partition("+++ yours\n")[2].rpartition("\n```")[0].split("\n") if said else []
    theirs_lines, ours_lines = editdiff._lines("\n".join(theirs)), editdiff._lines("\n".join(ours))
    hunks = "\n".join(body).split("\n@@")
    for hunk in filter(None, hunks):
        header, *lines = hunk.removeprefix("@@").split("\n")
        old, new = header.strip(" @").split(" ")
        new_at = int(new[1:].split(",")[0]) - (
            0 if "," not in new or new.split(",")[1] != "0" else -1
        )
        old_at = int(old[1:].split(",")[0]) - (
            0 if "," not in old or old.split(",")[1] != "0" else -1
        )
        shown_new = [line[1:] for line in lines if line[:1] in " +"]
        shown_old = [line[1:] for line in lines if line[:1] in " -"]
        assert theirs_lines[new_at - 1 : new_at - 1 + len(shown_new)] == shown_new
        assert ours_lines[old_at - 1 : old_at - 1 + len(shown_old)] == shown_old
