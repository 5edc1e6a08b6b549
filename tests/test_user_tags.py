"""What the person writes inside the keys ccexport owns survives a re-render: their tags
where they put them, comments between and after them, a flow list as a flow list, a comment
after a value of ours, and every tag of a ``tags:`` key written twice."""

from __future__ import annotations

import io
import re
from pathlib import Path

import frontmatter
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from vault_builder import LastWrite, export, the_note, updated_note, write_session

from exporter import bases, frontmatter_yaml, keytext, notefile, vaultmerge

OUR_TAGS = ["ai-session", "ai-session/claude-code", "project/app"]
WRITTEN_TAGS = "tags:\n- ai-session\n- ai-session/claude-code\n- project/app\n"


def frontmatter_of(text: str) -> str:
    return notefile.parse(text).yaml


def read_back(text: str) -> dict:
    """The note's properties, checked by three readers; a strict YAML 1.2 reader refuses a
    key written twice."""
    fm = frontmatter_of(text)
    strict = YAML(typ="rt", pure=True).load(io.StringIO(fm))
    loaded = yaml.safe_load(fm)
    assert frontmatter.loads(text).metadata == loaded
    assert list(strict["tags"]) == loaded["tags"]
    return loaded


def grown(tmp_path: Path, edit, state_lost: bool = False) -> tuple[str, Path, Path, Path]:
    """The note after the person's ``edit`` and a re-render of the grown session
    (``state_lost``: without ``.ccexport/state.json``, as on another machine)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    text = note.read_text()
    assert WRITTEN_TAGS in text
    note.write_text(edit(text))
    if state_lost:
        (vault / ".ccexport" / "state.json").unlink()
    write_session(home, ["q", "q2"])
    report = export(vault, home)
    assert report.total("updated") == 1, report.problems
    text = note.read_text()
    assert read_back(text)["messages"] == 4 and "q2" in text
    return text, note, home, vault


def tags_typed(block: str):
    return lambda text: text.replace(WRITTEN_TAGS, block, 1)


def test_comment_lines_inside_tags_and_the_persons_tag_stay_where_they_were(tmp_path):
    typed = "tags:\n  - ai-session\n  # my comment\n  - mine\n"
    # (without the state: with it, the tags of ours the person removed stay out, below)
    text, *_ = grown(tmp_path, tags_typed(typed), state_lost=True)
    assert (
        "tags:\n  - ai-session\n  - ai-session/claude-code\n  - project/app\n"
        "  # my comment\n  - mine\n---\n"
    ) in text  # ours that were missing come back after the one of ours before them
    assert read_back(text)["tags"] == [*OUR_TAGS, "mine"]


def test_a_tag_of_ours_the_person_removed_or_renamed_stays_as_they_left_it(tmp_path):
    """Their decision, as a configured property they delete is: ``project/app`` renamed to
    a tag of their own scheme, ``ai-session/claude-code`` removed, stay so update after
    update; ``ai-session``, which Sessions.base selects the notes by, comes back."""
    typed = "tags:\n- project/mine  # renamed\n- todo\n"
    text, note, home, vault = grown(tmp_path, tags_typed(typed))
    assert "tags:\n- ai-session\n- project/mine  # renamed\n- todo\n---\n" in text
    write_session(home, ["q", "q2", "q3"])
    assert export(vault, home).total("updated") == 1
    assert read_back(note.read_text())["tags"] == ["ai-session", "project/mine", "todo"]


def test_a_tag_put_first_stays_first_and_ours_keep_their_order(tmp_path):
    typed = "tags:\n  - mine  # why\n  - ai-session\n  - ai-session/claude-code\n  - project/app\n"
    text, *_ = grown(tmp_path, tags_typed(typed))
    assert typed in text
    assert read_back(text)["tags"] == ["mine", *OUR_TAGS]


def test_a_comment_after_a_value_of_ours_stays_also_when_the_value_changes(tmp_path):
    def edit(text: str) -> str:
        text = text.replace("\nproject: app\n", "\nproject: app  # my project\n")
        return text.replace("\nmessages: 2\n", "\nmessages: 2  # grows\n")

    text, *_ = grown(tmp_path, edit)
    assert "\nproject: app  # my project\n" in text
    assert "\nmessages: 4  # grows\n" in text


def test_a_flow_list_stays_a_flow_list_with_its_comment(tmp_path):
    typed = "tags: [ai-session, ai-session/claude-code, project/app, mine]  # c\n"
    text, *_ = grown(tmp_path, tags_typed(typed))
    assert typed in text


@pytest.mark.parametrize("where", ["above", "below"])
def test_a_second_tags_key_loses_no_tag_and_leaves_its_comment(tmp_path, where):
    pasted = "tags: [meeting, 'a, b']  # from my template\n"
    mine = WRITTEN_TAGS + "- mine\n"

    def edit(text: str) -> str:
        text = text.replace(WRITTEN_TAGS, mine, 1)
        if where == "above":
            return text.replace("---\ntitle:", f"---\n{pasted}title:", 1)
        return text.replace(mine, f"{mine}agenda: x\n{pasted}", 1)

    text, *_ = grown(tmp_path, edit)
    theirs = ["meeting", "a, b"]
    expected = [*theirs, *OUR_TAGS, "mine"] if where == "above" else [*OUR_TAGS, "mine", *theirs]
    assert read_back(text)["tags"] == expected  # in the order of the text
    fm = frontmatter_of(text)
    assert len(re.findall(r"^tags:", fm, re.MULTILINE)) == 1
    assert "# from my template\n" in fm
    assert fm.index("tags:") > fm.index("title:")  # the list stays where ccexport put it
    if where == "below":
        assert fm.endswith("- mine\n- meeting\n- a, b\nagenda: x\n# from my template\n")


def test_a_rerun_over_the_persons_edits_changes_no_byte(tmp_path):
    typed = "tags: [mine, ai-session]  # c\ntags:\n  - ai-session  # ours\n  # note\n  - other\n"
    text, note, home, vault = grown(tmp_path, tags_typed(typed))
    stamp = note.stat().st_mtime_ns
    write_session(home, ["q", "q2"], start="2026-03-04T10:00:00Z")  # same content, new mtime
    assert export(vault, home).total("unchanged") == 1
    assert note.read_text() == text and note.stat().st_mtime_ns == stamp


# The same, through the merge alone (``updated_note``): the cases a session rarely makes.

OURS = {"title": "q", "aliases": ["q"], "project": "app", "messages": 4, "tags": OUR_TAGS}
BODY = "body"


def rendered(yaml_text: str, previous: list[str] | None = None, ours=OURS) -> str:
    """The frontmatter of a note holding ``yaml_text`` after an update; checked to read
    back right and to stay as it is when updated again."""
    note = f"---\n{yaml_text}---\n{notefile.BEGIN}\n{BODY}\n{notefile.end_marker(BODY)}\n"
    record = LastWrite(previous) if previous is not None else None
    text = updated_note(notefile.parse(note), ours, BODY, record, lambda s: s)
    assert updated_note(notefile.parse(text), ours, BODY, record, str) == text
    loaded = read_back(text)
    assert loaded["messages"] == 4 and all(t in loaded["tags"] for t in ours["tags"])
    return frontmatter_of(text)


def test_a_tag_ccexport_no_longer_writes_goes_and_the_comment_on_it_stays():
    typed = "tags:\n  - mine\n  - ai-session\n  # ours\n  - project/old  # renamed\n  - last\n"
    fm = rendered(typed, previous=["ai-session", "project/old"])
    assert fm == (
        "tags:\n  - mine\n  - ai-session\n  - ai-session/claude-code\n  - project/app\n"
        "  # ours\n  # renamed\n  - last\ntitle: q\naliases:\n- q\nproject: app\nmessages: 4\n"
    )


def test_a_new_tag_of_ours_joins_a_flow_list_in_its_style():
    fm = rendered("tags: [ mine,project/app ]  # c\n", previous=["project/app"])
    assert fm.startswith("tags: [ mine,ai-session,ai-session/claude-code,project/app ]  # c\n")
    odd = {**OURS, "tags": [*OUR_TAGS, "x, [y]"]}
    assert rendered("tags: [ai-session, mine]\n", ours=odd).startswith(
        "tags: [ai-session, ai-session/claude-code, project/app, 'x, [y]', mine]\n"
    )


def test_aliases_written_twice_are_joined_with_their_comments():
    typed = (
        "aliases:\n  - old title  # was\n  # between\n  - q\nproject: app\naliases: [tpl]  # t\n"
    )
    fm = rendered(typed)
    assert fm.startswith("aliases:\n  - old title  # was\n  # between\n  - q\n  - tpl\n")
    assert "project: app\n# t\n" in fm
    assert yaml.safe_load(fm)["aliases"] == ["old title", "q", "tpl"]


def test_a_list_that_cannot_be_kept_in_place_keeps_every_tag():
    fm = rendered("tags: [\n  mine,  # inside\n  ai-session]\n")  # a flow list on two lines
    assert yaml.safe_load(fm)["tags"] == ["mine", *OUR_TAGS]  # written plainly, the
    assert "- project/app\n# inside\ntitle: q\n" in fm  # comment inside it below it; a
    # second copy's comments are kept (and stay on the next update: ``rendered`` updates
    # twice)
    fm = rendered("tags: [\n  mine,\n  ai-session]\ntags:\n  - x  # on x\n  # below\n")
    assert fm.startswith("tags:\n- mine\n- ai-session\n- ai-session/claude-code\n")
    assert "- project/app\n- x\n# on x\n# below\ntitle: q\n" in fm


def test_comments_keep_the_notes_line_ends():
    typed = "project: app  # p\r\nmessages: 2  # m\r\ntags:\r\n  - mine  # c\r\n"
    fm = rendered(typed).replace("\r\n", "\n")
    assert "project: app  # p\nmessages: 4  # m\ntags:\n" in fm and "  - mine  # c\n" in fm
    note = f"---\r\n{typed}---\r\n{notefile.BEGIN}\r\n{BODY}\r\n{notefile.end_marker(BODY)}\r\n"
    text = updated_note(notefile.parse(note), OURS, BODY, None, str)
    assert "messages: 4  # m\r\n" in text and "  - mine  # c\r\n" in text


@pytest.mark.parametrize(
    ("theirs", "previous", "expected"),
    [
        (["mine", *OUR_TAGS], OUR_TAGS, ["mine", *OUR_TAGS]),
        (["ai-session", "mine"], OUR_TAGS, ["ai-session", *OUR_TAGS[1:], "mine"]),
        (["mine", "project/app", "x"], OUR_TAGS, ["mine", *OUR_TAGS, "x"]),
        (["mine"], OUR_TAGS, [*OUR_TAGS, "mine"]),  # none of ours left: first, as written
        (["ai-session", "project/old", "x"], ["project/old"], ["ai-session", *OUR_TAGS[1:], "x"]),
        (["x", "x", "ai-session"], OUR_TAGS, ["x", *OUR_TAGS]),
    ],
)
def test_ours_go_where_ccexport_puts_them_and_theirs_stay(theirs, previous, expected):
    merged = vaultmerge.merge_frontmatter({"tags": theirs}, {"tags": OUR_TAGS}, previous)
    assert merged["tags"] == expected


@pytest.mark.parametrize(
    ("theirs", "written", "expected"),
    [
        (["mine"], OUR_TAGS, ["ai-session", "mine"]),  # the tag queries need, alone
        (["ai-session", "project/mine"], OUR_TAGS, ["ai-session", "project/mine"]),
        (["x"], ["ai-session", "project/old"], [*OUR_TAGS, "x"]),  # never written: added
        (["x", "project/app"], ["ai-session/claude-code"], ["x", "ai-session", "project/app"]),
    ],
)
def test_a_tag_of_ours_written_before_and_removed_stays_out(theirs, written, expected):
    merged = vaultmerge.merge_frontmatter({"tags": theirs}, {"tags": OUR_TAGS}, written,
                                          written=written)  # fmt: skip
    assert merged["tags"] == expected


def test_the_tag_kept_is_the_one_sessions_base_selects_by():
    assert vaultmerge.QUERIED_TAG == bases.SESSION_TAG


def test_a_note_as_ccexport_wrote_it_takes_the_plain_path(monkeypatch):
    """The person's text is looked for only when a key's text is not ccexport's own."""

    def refuse(*args):
        raise AssertionError("the slow path")

    for name in ("_edited_list", "_with_comment", "_plain_list"):
        monkeypatch.setattr(keytext, name, refuse)
    monkeypatch.setattr(vaultmerge, "_comments_of", refuse)
    monkeypatch.setattr(vaultmerge, "_as_read_in_obsidian", refuse)
    written = notefile.yaml_of({"title": "q", "aliases": ["q"], "messages": 2, "tags": ["x"]})
    fm = rendered(written, previous=["x"])  # every key of ours changes, tags too
    assert fm == notefile.yaml_of(
        {k: v for k, v in OURS.items() if k != "project"} | {"project": "app"}
    )


# Any tags of the person's, with comments between and after them, among ours.
TAG = st.text(st.sampled_from("abcxyz019/-_ :#,'\"[]é"), min_size=1, max_size=8).filter(
    lambda t: t.strip() == t and t not in OUR_TAGS and frontmatter_yaml.simple_text(t)
)
COMMENT = st.none() | st.text(st.sampled_from("ab #:-'"), max_size=6).map(lambda c: f"# ~{c}")


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    theirs=st.lists(st.tuples(TAG, COMMENT, COMMENT), unique_by=lambda t: t[0], max_size=6),
    ours_at=st.lists(st.booleans(), min_size=len(OUR_TAGS), max_size=len(OUR_TAGS)),
    seed=st.randoms(use_true_random=False),
    indent=st.sampled_from(["", "  "]),
    flow=st.booleans(),
)
def test_the_persons_tags_and_comments_survive_in_order(theirs, ours_at, seed, indent, flow):
    present = [t for t, keep in zip(OUR_TAGS, ours_at, strict=True) if keep]
    items: list[tuple[str, str | None, str | None]] = [(t, None, None) for t in present]
    for entry in theirs:  # the person's tags at random places among those of ours
        items.insert(seed.randint(0, len(items)), entry)
    texts = {t: notefile.yaml_of({"t": [t]})[len("t:\n- ") : -1] for t, _, _ in items}
    if flow:
        typed = "tags: [" + ", ".join(flow_text(texts[t]) for t, _, _ in items)
        typed += "]  # ~all\n"
        comments = ["# ~all"]
    else:
        lines = ["tags:\n"]
        for tag, above, after in items:
            lines += [f"{indent}{above}\n"] if above else []
            lines.append(f"{indent}- {texts[tag]}{'  ' + after if after else ''}\n")
        typed = "".join(lines) if items else "tags: []\n"
        comments = [c for _, above, after in items for c in (above, after) if c]
    fm = rendered(typed)
    tags = yaml.safe_load(fm)["tags"]
    assert [t for t in tags if t not in OUR_TAGS] == [t for t, _, _ in theirs_in(items)]
    assert [t for t in tags if t in OUR_TAGS] == OUR_TAGS
    assert re.findall(r"# ~.*", fm) == comments
    if flow:
        assert fm.startswith("tags: [")  # still a flow list
    elif items:
        assert all(line in fm for line in typed.splitlines(keepends=True))  # each as typed


def theirs_in(items):
    return [item for item in items if item[0] not in OUR_TAGS]


def flow_text(text: str) -> str:
    """A tag as written in a block list, as it may stand in a flow list."""
    if text[0] in "'\"" or re.fullmatch(r"[\w/.][\w/. -]*", text):
        return text
    return "'" + text.replace("'", "''") + "'"


def test_thousands_of_tags_in_two_copies_merge_in_about_linear_time():
    # Each of ours and each kept tag was looked for in the whole list (quadratic: 13 s for
    # two copies of 10,000). A guard about a hundred times the linear time, as in
    # test_linear_time.py: it catches a quadratic step, not a slow one.
    import time

    many = 20_000
    theirs = "".join(f"- b{i}\n" for i in range(many))
    mine = "".join(f"- a{i}\n" for i in range(many))
    ours = "tags:\n- ai-session\n- ai-session/claude-code\n- project/app\n"
    typed = f"tags:\n{theirs}agenda: x\n{ours}# c\n{mine}"
    note = f"---\n{typed}---\n{notefile.BEGIN}\n{BODY}\n{notefile.end_marker(BODY)}\n"
    start = time.perf_counter()
    text = updated_note(notefile.parse(note), OURS, BODY, None, str)
    took = time.perf_counter() - start
    tags = read_back(text)["tags"]
    assert len(tags) == 2 * many + 3 and took < 20, took


@pytest.mark.parametrize(
    ("typed", "tags"),
    [
        ("[yes, no, 1:30, on]", ["yes", "no", "1:30", "on"]),  # text to Obsidian (YAML 1.2)
        ("[true, 7, 0x1F, 2.5]", [True, 7, 31, 2.5]),  # the same in both: kept as values
    ],
)
def test_tags_joined_from_a_second_key_are_what_obsidian_read_there(typed, tags):
    # YAML 1.1 (PyYAML) reads ``yes`` as true and ``1:30`` as 90; Obsidian reads both as
    # text. A tag moved in from a second ``tags:`` is written anew: as Obsidian read it.
    fm = rendered(f"tags:\n  - mine\n  - ai-session\nagenda: x\ntags: {typed}\n")
    strict = YAML(typ="safe", pure=True).load(io.StringIO(fm))  # YAML 1.2, as Obsidian
    assert list(strict["tags"]) == ["mine", *OUR_TAGS, *tags]
