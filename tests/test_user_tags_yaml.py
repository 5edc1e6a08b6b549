"""The person's tags and text inside ccexport's keys, where YAML itself makes it hard: tags
YAML 1.1 (PyYAML) reads as one value and YAML 1.2 (Obsidian) as two texts, a list that
cannot be kept in place (a nested list), an anchor on a tag the person's own key refers to.
Each real export is edited, grown and exported, then grown and exported again: the second
update changes no byte of the person's text."""

from __future__ import annotations

import io
import re
from datetime import date, datetime
from pathlib import Path

import frontmatter
import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from vault_builder import LastWrite, export, the_note, updated_note, write_session

from exporter import notefile, vaultmerge

OUR_TAGS = ["ai-session", "ai-session/claude-code", "project/app"]
WRITTEN_TAGS = "tags:\n- ai-session\n- ai-session/claude-code\n- project/app\n"
# ccexport's keys whose values change as a session grows; every other line stays.
COUNTERS = re.compile(r"^(?:" + "|".join(vaultmerge.OWNED_KEYS) + r"):.*\n", re.MULTILINE)


def yaml12(text: str):
    """As Obsidian reads it: YAML 1.2 (ruamel.yaml's strict reader refuses a key twice)."""
    return YAML(typ="rt", pure=True).load(io.StringIO(text))


def read_back(text: str) -> tuple[dict, list]:
    """The note's properties as PyYAML and python-frontmatter read them (the same), and its
    tags as ruamel.yaml (YAML 1.2) reads them."""
    fm = notefile.parse(text).yaml
    loaded = yaml.safe_load(fm)
    assert frontmatter.loads(text).metadata == loaded
    return loaded, [as_text(t) for t in yaml12(fm)["tags"]]


def as_text(value):
    """ruamel's value, its own types (a date, a hexadecimal int, a list) as plain Python
    ones: a date as its text, as Obsidian shows a tag."""
    if isinstance(value, date | datetime):
        return value.isoformat()
    if isinstance(value, list):
        return [as_text(v) for v in value]
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def exported_twice(tmp_path: Path, edit) -> tuple[str, str]:
    """The note after the person's ``edit`` and an update (the session grew), and after a
    second one (it grew again). A re-run over the second changes nothing."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q"])
    export(vault, home)
    note = the_note(vault)
    text = note.read_text()
    assert WRITTEN_TAGS in text
    note.write_text(edit(text))
    texts = []
    for prompts in (["q", "q2"], ["q", "q2", "q3"]):
        write_session(home, prompts)
        report = export(vault, home)
        assert report.total("updated") == 1, report.problems
        texts.append(note.read_text())
        assert read_back(texts[-1])[0]["messages"] == 2 * len(prompts)
    first, second = texts
    assert COUNTERS.sub("", notefile.parse(second).yaml) == COUNTERS.sub(
        "", notefile.parse(first).yaml
    )  # the second update changes only ccexport's counters
    write_session(home, ["q", "q2", "q3"], start="2026-03-04T10:00:00Z")  # a new mtime
    assert export(vault, home).total("unchanged") == 1
    assert note.read_text() == second
    return first, second


def tags_typed(block: str):
    return lambda text: text.replace(WRITTEN_TAGS, block, 1)


# 1. Tags YAML 1.1 reads as one value are two tags to Obsidian, and stay two.

YAML11_ALIKE = "- yes\n- on\n- Yes\n- no\n- off\n- 1\n- true\n- 1.0\n- 017\n- 15\n- 1:30\n"


def test_tags_pyyaml_reads_alike_all_stay_as_typed(tmp_path):
    typed = WRITTEN_TAGS + YAML11_ALIKE
    first, _ = exported_twice(tmp_path, tags_typed(typed))
    assert typed in first  # every line as typed: none merged into another
    _, tags = read_back(first)
    assert tags == [*OUR_TAGS, "yes", "on", "Yes", "no", "off", 1, True, 1.0, 17, 15, "1:30"]


def test_only_tags_obsidian_reads_as_one_are_one():
    # 15 and 0o17 are 15 to YAML 1.2 (017 is 17); "yes" quoted or not is the text yes
    fm = rendered("tags:\n- 15\n- 017\n- 0o17  # octal\n- yes\n- 'yes'\n- ai-session\n")
    assert fm.startswith("tags:\n- 15\n- 017\n# octal\n- yes\n- ai-session\n")


def test_a_flow_list_of_such_tags_keeps_each(tmp_path):
    typed = "tags: [yes, on, ai-session, no, off]  # mine\n"
    first, _ = exported_twice(tmp_path, tags_typed(typed))
    assert "tags: [yes, on, ai-session, no, off]  # mine\n" in first  # (ours removed: out)


def test_a_tag_of_ours_written_again_is_still_written_once():
    fm = rendered("tags:\n- ai-session\n- 'ai-session'  # again\n- yes\n- on\n")
    assert yaml12(fm)["tags"] == [*OUR_TAGS, "yes", "on"]
    assert "# again\n" in fm  # the line goes, its comment stays


def test_aliases_are_compared_as_obsidian_reads_them_too():
    fm = rendered("aliases: [yes, on, q]  # a\n")
    assert fm.startswith("aliases: [yes, on, q]  # a\n")


def test_a_second_tags_key_of_such_tags_keeps_each():
    fm = rendered("tags:\n- ai-session\n- yes\nagenda: x\ntags: [on, yes, 'on', 1, true]\n")
    assert yaml12(fm)["tags"] == [*OUR_TAGS, "yes", "on", 1, True]


OURS = {"title": "q", "aliases": ["q"], "project": "app", "messages": 4, "tags": OUR_TAGS}
BODY = "body"


def rendered(yaml_text: str, previous: list[str] | None = None) -> str:
    """The frontmatter of a note holding ``yaml_text`` after an update, checked to read the
    same in PyYAML and python-frontmatter, to be valid YAML 1.2, to hold each tag of ours
    once, and to stay byte for byte as it is when updated again."""
    note = f"---\n{yaml_text}---\n{notefile.BEGIN}\n{BODY}\n{notefile.end_marker(BODY)}\n"
    record = LastWrite(previous) if previous is not None else None
    text = updated_note(notefile.parse(note), OURS, BODY, record, str)
    assert updated_note(notefile.parse(text), OURS, BODY, record, str) == text
    loaded, tags = read_back(text)
    assert loaded["messages"] == 4 and all(tags.count(t) == 1 for t in OUR_TAGS)
    return notefile.parse(text).yaml


# Words YAML 1.1 reads as true, false, numbers, dates or null, and plain words.
WORD = st.sampled_from(
    ["yes", "Yes", "YES", "no", "No", "on", "On", "off", "OFF", "y", "n", "true", "True",
     "false", "1", "01", "017", "15", "0o17", "0x1F", "31", "1.0", "1.", ".5", "1e5", "+1",
     "1:30", "90", "1_000", "0b101", "2026-01-01", "~", "null", "mine", "a/b", "ai-session"]
)  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    lists=st.lists(st.lists(WORD, max_size=6), min_size=1, max_size=3),
    flow=st.lists(st.booleans(), min_size=3, max_size=3),
    ours_first=st.booleans(),
)
def test_any_tags_survive_as_obsidian_reads_them_in_order(lists, flow, ours_first):
    """Tags in one ``tags:`` key or several (a template pasted in), block or flow: what
    YAML 1.2 reads in them, in order, is what it reads after the update, once each (equal
    and of one type), ours added once."""
    copies = []
    for i, words in enumerate(lists):
        words = [*OUR_TAGS[:1], *words] if i == 0 and ours_first else words
        if flow[i] or not words:
            copies.append(f"tags: [{', '.join(words)}]\n")
        else:
            copies.append("tags:\n" + "".join(f"- {w}\n" for w in words))
    typed = "".join(f"{c}key{i}: {i}  # mine\n" for i, c in enumerate(copies))
    fm = rendered(typed)
    expected: list = []
    for copy in copies:  # each copy alone, as a YAML 1.2 reader reads it
        for tag in as_text(list(yaml12(copy)["tags"])):
            if not any(type(t) is type(tag) and t == tag for t in expected):
                expected.append(tag)
    after = as_text(list(yaml12(fm)["tags"]))
    assert [t for t in after if t not in OUR_TAGS] == [t for t in expected if t not in OUR_TAGS]
    assert all(f"key{i}: {i}  # mine\n" in fm for i in range(len(copies)))


# 2. A list that cannot be kept in place is written plainly, its comments kept, and so
# again by the next update.


def test_a_comment_after_tags_stays_when_a_nested_list_is_joined_in(tmp_path):
    def edit(text: str) -> str:
        text = text.replace(WRITTEN_TAGS, "tags:  # c\n", 1)
        return text.replace("\n---\n", "\nagenda: x\ntags: [x, [y]]\n---\n", 1)

    first, second = exported_twice(tmp_path, edit)
    fm = notefile.parse(second).yaml
    # (the tags of ours the person removed stay out but the one Sessions.base needs)
    assert "tags:  # c\n- ai-session\n- x\n" in fm
    assert read_back(second)[1] == ["ai-session", "x", ["y"]]


def test_comments_in_a_list_written_plainly_stay_below_it():
    typed = "tags:  # c\n  # about x\n  - x  # why\n  - - y\n    - z  # deep\n  - ai-session\n"
    fm = rendered(typed)
    assert fm.startswith(
        "tags:  # c\n- x\n- - y\n  - z\n- ai-session\n- ai-session/claude-code\n- project/app\n"
        "  # about x\n# why\n# deep\ntitle: q\n"
    )
    fm = rendered("tags: [  # open\n  mine,  # inside\n  [n], ai-session]  # after\n")
    assert fm.startswith("tags:  # open\n- mine\n- - n\n- ai-session\n")
    assert "- project/app\n# inside\n# after\ntitle: q\n" in fm


def test_a_single_line_nested_item_is_kept_in_place():
    typed = "tags:\n  - [y, yes]  # pair\n  # mine\n  - x\n  - ai-session\n"
    assert rendered(typed).startswith(
        "tags:\n  - [y, yes]  # pair\n  # mine\n  - x\n  - ai-session\n"
        "  - ai-session/claude-code\n  - project/app\n"
    )


TAG = st.sampled_from(["x", "yes", "on", "1", "a b", "'q'", "ai-session", "[n]", "[n, [m]]"])
NESTED = st.sampled_from(["- - y\n  - z", "- - yes", "- {a: 1}", "- |\n  # text\n"])
COMMENT = st.sampled_from(["", "  # ~c", "\t# ~t"])


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    items=st.lists(
        st.tuples(st.one_of(TAG, NESTED), COMMENT, st.booleans()), min_size=1, max_size=6
    ),
    indent=st.sampled_from(["", "  "]),
    head=COMMENT,
)
def test_no_tag_and_no_comment_is_lost_from_a_list_of_any_items(items, indent, head):
    lines = [f"tags:{head}\n"]
    for item, after, above in items:
        lines += [f"{indent}# ~above\n"] if above else []
        first, *more = (item if item.startswith("- ") else f"- {item}").split("\n")
        lines.append(f"{indent}{first}{after}\n")
        lines += [f"{indent}{m}\n" for m in more if m]
    typed = "".join(lines)
    try:
        before = yaml12(typed)["tags"]
    except YAMLError:  # (a tab before a comment after "|": PyYAML reads it, ruamel not)
        assume(False)
    fm = rendered(typed)  # (and updated twice: stable)
    after = [t for t in yaml12(fm)["tags"] if t not in OUR_TAGS]
    assert after == [t for i, t in enumerate(before) if t not in OUR_TAGS and t not in before[:i]]
    assert sorted(re.findall(r"# ~\w+", fm)) == sorted(re.findall(r"# ~\w+", typed))


# 3. An anchor on a tag of ours that the person's own key refers to.


def test_an_anchor_on_our_tag_the_persons_key_refers_to_keeps_everything(tmp_path):
    def edit(text: str) -> str:
        text = text.replace("- ai-session\n", "- &kind ai-session  # anchored\n", 1)
        return text.replace("\n---\n", "\nkind: *kind  # same as the tag\n# my note\n---\n", 1)

    first, second = exported_twice(tmp_path, edit)
    fm = notefile.parse(second).yaml
    assert "tags:\n- &kind ai-session  # anchored\n- ai-session/claude-code\n" in fm
    assert fm.endswith("kind: *kind  # same as the tag\n# my note\n")
    assert read_back(second)[0]["kind"] == "ai-session" == yaml12(fm)["kind"]


def test_an_anchor_on_our_project_the_persons_key_refers_to_stays(tmp_path):
    def edit(text: str) -> str:
        text = text.replace("\nproject: app\n", "\nproject: &p app  # ours\n", 1)
        return text.replace("\n---\n", "\nmine: *p  # follows\n---\n", 1)

    _, second = exported_twice(tmp_path, edit)
    fm = notefile.parse(second).yaml
    assert "\nproject: &p app  # ours\n" in fm and "\nmine: *p  # follows\n" in fm
    assert read_back(second)[0]["mine"] == "app" == yaml12(fm)["mine"]


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        (
            "tags:\n- &o project/old  # renamed\n- ai-session\n",
            "tags:\n- &o project/old  # renamed\n- ai-session\n- ai-session/claude-code\n"
            "- project/app\n",
        ),
        (
            "tags: [&o project/old, ai-session]  # t\n",
            "tags: [&o project/old, ai-session, ai-session/claude-code, project/app]  # t\n",
        ),
    ],
)
def test_a_dropped_tag_the_persons_key_refers_to_stays_with_its_anchor(typed, kept):
    # ccexport no longer writes project/old (the project was renamed), but the person's
    # key names its anchor: dropping it would leave ``*o`` naming nothing, and the whole
    # frontmatter was written anew, every comment lost. It stays, as typed (the person's).
    previous = ["ai-session", "project/old"]
    fm = rendered(f"# top\n{typed}other: *o  # mine\n# keep me\n", previous)
    assert fm.startswith(f"# top\n{kept}other: *o  # mine\n# keep me\ntitle: q\n")
    assert yaml12(fm)["other"] == "project/old" == yaml.safe_load(fm)["other"]
    unreferred = rendered(typed.replace("&o ", "&q "), previous)
    assert "project/old" not in unreferred  # an anchor nothing names: dropped as before


def test_a_nested_item_joined_from_a_second_copy_stays_so_on_the_next_update():
    # A second ``aliases:`` copy holding a nested list was joined in as a one-line block
    # item, which the next update could not keep: it wrote the list plainly then, and the
    # person's ``0o17  # c`` became ``15`` (``rendered`` updates twice and compares).
    for nested in ("- - deep\n", "- {a: 1}\n"):
        fm = rendered(f"aliases:\n- 0o17  # c\naliases:\n{nested}")
        assert "# c" in fm


def test_a_not_a_number_tag_keeps_its_list_as_typed():
    fm = rendered("# top\ntags: [.NaN, ai-session]  # c\nmine: x  # m\n")
    assert "tags: [.NaN, ai-session, ai-session/claude-code, project/app]  # c\n" in fm
    assert "- .nan  # c\n" in rendered("tags:\n- .nan  # c\n- ai-session\n")


def test_a_comment_after_a_lone_dash_opening_a_nested_item_stays():
    assert "# c\n" in rendered("tags:\n- # c\n  - deep\n- ai-session\n")


@pytest.mark.parametrize("mention", ["# was *o before\n", "mine: a *o b\n"])
def test_an_anchor_named_only_in_a_comment_or_a_value_is_not_referred_to(mention):
    # ``*o`` in a comment or inside a plain value is text, not an alias: the stale
    # project tag is dropped as ccexport drops any tag it no longer writes.
    fm = rendered(
        f"tags:\n- &o project/old\n- ai-session\n{mention}", ["ai-session", "project/old"]
    )
    assert "project/old" not in fm


def test_a_frontmatter_written_anew_keeps_the_persons_values_as_obsidian_reads_them():
    # An anchor on a value of ours that changes (title ``old`` becomes ``q``) still makes
    # the frontmatter be written anew; the person's values stay what Obsidian showed: a
    # text ``yes`` (not a checkbox), the number 8 (not the text "0o10"), the number 1000.
    typed = "# my notes\nreviewed: yes  # checked\nversion: 0o10\ncount: 1_000\n"
    typed += "levels: [on, 0x1F]\ntitle: &t old\nold_title: *t\n"
    before = yaml12(typed)
    fm = rendered(typed)
    after = yaml12(fm)
    for key in ("reviewed", "version", "count", "levels"):
        assert after[key] == before[key], key
    assert after["old_title"] == "old" and after["title"] == "q"
