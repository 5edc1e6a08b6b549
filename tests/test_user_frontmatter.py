"""The user's own frontmatter is theirs, byte for byte: an update rewrites only the keys
ccexport owns; every other key keeps its exact text, order, quoting and comments."""

from __future__ import annotations

import pytest
import yaml
from vault_builder import export, the_note, write_session

from exporter import notefile
from exporter.vault import OWNED_KEYS

# Values YAML 1.1 readers turn into something else when they are dumped again.
USER_BLOCK = """\
# my properties, my comments
start: 10:30
zip: 01234
version: 1.10
answer: NO
on: the list
rating: 5  # out of 5
date_read: 2026-01-02
nested:
  - one   # first
  - {two: 2}
quote: >
  folded text
  kept as typed
"""


def put_user_block(text: str, block: str) -> str:
    """The block inserted after the note's ``source:`` line, as a user would type it."""
    head, sep, rest = text.partition("\nsource:")
    line, nl, tail = rest.partition("\n")
    return f"{head}{sep}{line}{nl}{block}{tail}"


def test_user_keys_keep_their_exact_text_order_and_comments(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"], start="2026-03-04T10:00:00Z")
    export(vault, home)
    note = the_note(vault)
    note.write_text(put_user_block(note.read_text(), USER_BLOCK) + "mine\n")
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("updated") == 1, report.problems
    text = note.read_text()
    assert USER_BLOCK in text  # byte for byte, in place, comments included
    fm = yaml.safe_load(text.split("---\n")[1])
    assert fm["messages"] == 4
    assert text.index("title:") < text.index(USER_BLOCK) < text.index("messages:")
    assert "q2" in text and text.endswith("mine\n")


def test_only_our_keys_change_and_a_repeated_run_writes_nothing(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    note.write_text(put_user_block(note.read_text(), USER_BLOCK))
    before = note.read_text()
    write_session(home, ["q", "q2"])
    export(vault, home)
    after = note.read_text()
    changed = [line for line in after.split("\n---\n")[0].splitlines() if line not in before]
    assert changed and all(line.split(":")[0] in OWNED_KEYS for line in changed)
    assert "messages: 4" in changed
    stamp = note.stat().st_mtime_ns
    write_session(home, ["q", "q2"], start="2026-03-04T10:00:00Z")  # same content, new mtime
    assert export(vault, home).total("unchanged") == 1 and note.stat().st_mtime_ns == stamp


def test_a_key_we_no_longer_write_is_removed_and_the_lines_around_it_stay():
    raw = "title: Old\n# about git\ngit_branch: feature\nmine: yes  # keep me\n"
    spliced = notefile.splice_frontmatter(raw, {"title": "New"}, {"git_branch"})
    assert spliced == "title: New\n# about git\nmine: yes  # keep me\n"


def test_user_tags_added_by_hand_stay_with_ours(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    note.write_text(note.read_text().replace("tags:\n", "tags:\n- mine/important\n", 1))
    write_session(home, ["q", "q2"])
    export(vault, home)
    tags = yaml.safe_load(note.read_text().split("---\n")[1])["tags"]
    assert "mine/important" in tags and "ai-session" in tags


@pytest.mark.parametrize(
    "raw",
    [
        "{title: x, mine: 1}\n",  # a flow mapping: cannot be spliced line by line
        "title: x\nmine: 'a\nb'\n",  # a quoted value broken over lines
    ],
)
def test_frontmatter_that_cannot_be_spliced_is_still_read_back_right(raw):
    spliced = notefile.splice_frontmatter(raw, {"title": "y"}, ())
    if spliced is not None:
        assert yaml.safe_load(spliced) == {**yaml.safe_load(raw), "title": "y"}
