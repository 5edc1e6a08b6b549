"""A conflict copy starts with what the person changed: a short unified diff of ccexport's
text against theirs, in a fenced ``diff`` block their text cannot break and in which a link,
tag or embed stays inert, capped with a line saying how much was left out, above their whole
text (review35 8: the copy was the whole old part, with nothing marking the edit)."""

from __future__ import annotations

from pathlib import Path

import mistune
from hypothesis import given, settings
from hypothesis import strategies as st
from vault_builder import export, the_note, write_session

from exporter import editdiff, notefile

HEAD = "Your edit of the note, saved."
WHOLE = "Your text as you had it, whole:"


def _blocks(markdown: str) -> list[dict]:
    return mistune.create_markdown(renderer="ast")(markdown)


def _inline_kinds(nodes: list[dict]) -> set[str]:
    kinds = set()
    for node in nodes:
        kinds.add(node["type"])
        kinds |= _inline_kinds(node.get("children") or [])
    return kinds


def _conflict_copy(tmp_path: Path, edit: str, turns: int = 3) -> tuple[str, str]:
    """An exported session whose note the person edited (``edit`` after "reply to one")
    before it grew by ``turns``: the copy's text and the note's generated part."""
    home, vault = tmp_path / "home", tmp_path / "v"
    asked = ["one", *(f"later {n}" for n in range(turns))]
    write_session(home, asked[:1])
    export(vault, home)
    note = the_note(vault)
    note.write_text(note.read_text().replace("reply to one", f"reply to one{edit}", 1))
    write_session(home, asked)
    (conflict,) = export(vault, home).conflicts()
    saved = conflict.message.rpartition("was saved to ")[2]
    return (vault / saved).read_text(), notefile.parse(note.read_text()).owned


def test_the_copy_starts_with_the_changed_lines_and_ends_with_the_whole_text(tmp_path):
    copy, owned = _conflict_copy(tmp_path, " MY EDIT")
    head, _, rest = copy.partition("\n\n")
    assert head.startswith("Your edit of [[")
    summary, _, whole = rest.partition(f"\n\n{WHOLE}\n\n")
    (code,) = [b for b in _blocks(summary) if b["type"] == "block_code"]
    assert code["attrs"]["info"] == "diff"
    lines = code["raw"].splitlines()
    assert lines[:2] == ["--- ccexport", "+++ yours"]
    assert "-reply to one" in lines and "+reply to one MY EDIT" in lines
    assert not [line for line in lines if "later" in line]  # the session's growth: counted
    assert "The last " in summary and "what the session added since" in summary
    assert "reply to one MY EDIT" in whole and whole.startswith("# ")
    assert "reply to later 0" in owned and "MY EDIT" not in owned  # the note: ccexport's


def test_links_tags_and_fences_in_the_edit_stay_inert_in_the_diff(tmp_path):
    edit = " [[Linked note]] ![[pic.png]] #mytag [site](https://example.com) %%c%% ```\n~~~"
    copy, _ = _conflict_copy(tmp_path, edit)
    summary = copy.partition(f"\n\n{WHOLE}\n\n")[0].partition("\n\n")[2]
    blocks = _blocks(summary)
    (code,) = [b for b in blocks if b["type"] == "block_code"]
    assert "+reply to one [[Linked note]] ![[pic.png]] #mytag" in code["raw"]
    assert "+~~~" in code["raw"]
    prose = [b for b in blocks if b["type"] != "block_code"]
    assert not _inline_kinds(prose) & {"link", "image"}
    assert not any(mark in str(prose) for mark in ("[[", "#mytag", "%%"))
    assert copy.count("[[Linked note]]") == 2  # in the diff (code) and in the whole text


def test_a_long_diff_is_cut_and_says_how_much_was_left_out():
    written = "\n".join(f"line {n}" for n in range(400))
    theirs = "\n".join(f"line {n} edited" if n % 2 else f"line {n}" for n in range(400))
    said = editdiff.summary(written, theirs)
    (code,) = [b for b in _blocks(said) if b["type"] == "block_code"]
    assert len(code["raw"].splitlines()) == editdiff.SHOWN_LINES + 2
    assert said.endswith("more of this comparison left out.")
    left = int(said.rpartition("… ")[2].split(" ")[0].replace(",", ""))
    assert left > 300  # (200 lines changed: a - and a + line each, with context)


def test_a_very_long_line_is_shown_cut():
    said = editdiff.summary("short\n" + "x" * 5000, "short\n" + "y" * 5000)
    width = editdiff.LINE_WIDTH
    assert f"\n-{'x' * (width - 1)} …\n" in said and f"\n+{'y' * (width - 1)} …\n" in said


def test_no_summary_when_only_the_session_grew_or_nothing_differs():
    assert editdiff.summary("a\nb", "a\nb  \n") == ""
    copy = editdiff.copy_text(HEAD, "a\nb", "a\nb\n")
    assert copy == f"{HEAD}\n\na\nb\n"


def test_a_person_who_removed_the_last_lines_sees_them_removed():
    said = editdiff.summary("a\nb\nc\nd", "a\nb")
    (code,) = [b for b in _blocks(said) if b["type"] == "block_code"]
    assert "-c" in code["raw"].splitlines() and "-d" in code["raw"].splitlines()
    assert "The last" not in said


TEXT = st.text(st.sampled_from("ab \n`~[]!#%|<>*_-+=$"), max_size=120)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_the_copy_holds_the_whole_text_and_the_diff_cannot_break_its_fence(written, theirs):
    copy = editdiff.copy_text(HEAD, written, theirs)
    whole = theirs.strip("\n")
    assert copy.endswith(f"{whole}\n")
    said = editdiff.summary(written, whole)
    if not said:
        return
    assert copy == (f"{HEAD}\n\n{said}\n\n{WHOLE}\n\n{whole}\n" if whole else f"{HEAD}\n\n{said}\n")
    lines = said.split("\n")
    opened = next(n for n, line in enumerate(lines) if line.startswith("```"))
    ticks = lines[opened].removesuffix("diff")
    closed = max(n for n, line in enumerate(lines) if line == ticks)
    blocks = _blocks(said)
    (code,) = [b for b in blocks if b["type"] == "block_code"]
    assert code["raw"] == "\n".join(lines[opened + 1 : closed]) + "\n"  # read whole, as code
    assert all(line[:1] in " -+@" for line in code["raw"].splitlines())
    prose = [b for b in blocks if b["type"] != "block_code"]
    assert not _inline_kinds(prose) & {"link", "image", "block_html", "inline_html"}
