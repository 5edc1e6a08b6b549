"""The direct frontmatter writer gives PyYAML's bytes: for any frontmatter, ``dump_frontmatter``
equals the reference (``frontmatter_yaml.reference_block``), and the plain shapes notes have
(every golden note's frontmatter) are written without PyYAML."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exporter import frontmatter_yaml, notefile
from exporter.markdown_code import REFERENCE_ENV

GOLDEN = Path(__file__).parent / "golden"
GOLDEN_NOTES = sorted(GOLDEN.rglob("*.md"))

# Strings YAML readers take for something else, or that need quotes for another reason.
SPECIAL = [
    "yes", "no", "Yes", "NO", "on", "off", "y", "n", "true", "False", "null", "Null", "~", "",
    "1e5", "1E-3", "0o17", "0x1F", "01234", "+12", "-0", ".5", "1.", "1_000", ".inf", "-.Inf",
    ".nan", "10:30", "1:20:30", "2026-01-01", "2026-01-01T10:00:00Z", "2026-01-01 10:00:00",
    "- x", "-", "-x", "--- x", "---", "...", "? x", "?x", ": x", ":x", "a: b", "a:b", "a:",
    "#x", "a #b", "a#b", "[x]", "[[Note]]", "[[Note|alias]]", "{x}", "x, y", "*alias", "&anchor",
    "!tag", "!", "&", "*", "%directive", "@at", "`tick", "'q'", '"q"', "it's", 'say "hi"', "|", ">", "=", "<<",
    "x\\y", "C:\\Users\\dev", " lead", "trail ", "  ", "\u00a0nbsp", "tab\tin", "line\nbreak",
    "cr\rin", "nul\x00", "bell\x07", "del\x7f", "\x85next", "\u2028", "\ufeffbom", "\u200bzw",
    "emoji \U0001f600", "\U00010000", "\ue000private", "\ufff8", "帮我写一个函数, 字段用 `;` 分隔",
    "ccexport/claude-code", "ai-session/claude-code", "project/win-app", "claude-opus-4-5",
    "~/projects/app", "/home/dev/app", "x" * 200,
]  # fmt: skip

KEYS = [
    "title", "aliases", "source", "session_id", "project", "cwd", "git_branch", "models",
    "created", "updated", "messages", "tool_calls", "tokens_in", "cost", "parent", "subagents",
    "tags", "forked_from", "resume", "rating", "status",
]  # fmt: skip

any_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)
texts = st.one_of(st.sampled_from(SPECIAL), any_text)
naive_datetimes = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31))
offsets = st.one_of(
    st.integers(-23 * 60 - 59, 23 * 60 + 59).map(lambda m: timedelta(minutes=m)),
    st.integers(-86399, 86399).map(lambda s: timedelta(seconds=s)),
)
aware_datetimes = st.builds(
    lambda moment, offset: moment.replace(tzinfo=timezone(offset)), naive_datetimes, offsets
)
scalars = st.one_of(
    texts,
    st.integers(),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.booleans(),
    st.none(),
    naive_datetimes,
    aware_datetimes,
    st.dates(),
)
keys = st.one_of(st.sampled_from(KEYS), texts, st.integers(), st.booleans(), st.none(), st.dates())
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=4),
    st.dictionaries(keys, st.one_of(scalars, st.lists(scalars, max_size=3)), max_size=3),
    st.dictionaries(keys, st.dictionaries(keys, scalars, max_size=2), max_size=2),
    st.lists(st.lists(scalars, max_size=2), max_size=2),
)
frontmatters = st.dictionaries(keys, values, max_size=8)


@pytest.fixture(autouse=True)
def _fast_path(monkeypatch):
    monkeypatch.delenv(REFERENCE_ENV, raising=False)


def _golden_frontmatter(path: Path) -> dict:
    return notefile.parse(path.read_text(encoding="utf-8")).metadata


def _reference_not_called(monkeypatch) -> None:
    def refuse(metadata):
        raise AssertionError(f"PyYAML asked for {metadata!r}")

    monkeypatch.setattr(frontmatter_yaml, "reference_block", refuse)


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(frontmatters)
def test_any_frontmatter_is_written_as_pyyaml_writes_it(metadata):
    assert notefile.dump_frontmatter(metadata) == frontmatter_yaml.reference_block(metadata)


# What the direct writer must take on: texts of the characters libyaml prints unescaped,
# YAML-special or not, and every scalar shape a note's properties have.
plain_text = st.one_of(
    st.sampled_from([s for s in SPECIAL if frontmatter_yaml.simple_text(s)]),
    st.text(
        st.characters(codec="utf-8", min_codepoint=0x20, max_codepoint=0xFFF8), max_size=30
    ).filter(frontmatter_yaml.simple_text),
)
plain_scalars = st.one_of(
    plain_text,
    st.integers(-(10**17), 10**17),
    st.floats(),
    st.booleans(),
    st.none(),
    st.datetimes(min_value=datetime(1000, 1, 1)),
    st.builds(
        lambda moment, minutes: moment.replace(tzinfo=timezone(timedelta(minutes=minutes))),
        st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30)),
        st.integers(-23 * 60 - 59, 23 * 60 + 59),
    ),
    st.dates(),
)
plain_keys = st.one_of(st.sampled_from(KEYS), plain_text.filter(lambda s: len(s) <= 40))
plain_frontmatters = st.dictionaries(
    plain_keys,
    st.one_of(
        plain_scalars,
        st.lists(plain_scalars, max_size=4),
        st.dictionaries(plain_keys, st.one_of(plain_scalars, st.lists(plain_scalars)), max_size=3),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
@given(plain_frontmatters)
def test_plain_frontmatter_is_written_without_pyyaml(metadata):
    written = frontmatter_yaml.fast_block(metadata)
    assert written is not None
    assert written == frontmatter_yaml.reference_block(metadata)


def test_the_golden_notes_are_many():
    assert len(GOLDEN_NOTES) >= 50


@pytest.mark.parametrize("path", GOLDEN_NOTES, ids=lambda p: str(p.relative_to(GOLDEN)))
def test_a_golden_notes_frontmatter_is_written_directly_and_the_same(path, monkeypatch):
    metadata = _golden_frontmatter(path)
    assert metadata
    reference = frontmatter_yaml.reference_block(metadata)
    _reference_not_called(monkeypatch)
    assert notefile.dump_frontmatter(metadata) == reference


def test_a_golden_note_still_begins_with_what_is_written_for_it():
    for path in GOLDEN_NOTES:
        text = path.read_text(encoding="utf-8")
        assert text.startswith(notefile.dump_frontmatter(_golden_frontmatter(path))), path


def test_the_reference_switch_turns_the_direct_writer_off(monkeypatch):
    metadata = _golden_frontmatter(GOLDEN_NOTES[0])
    expected = frontmatter_yaml.reference_block(metadata)
    monkeypatch.setenv(REFERENCE_ENV, "1")
    monkeypatch.setattr(frontmatter_yaml, "fast_block", lambda metadata: "not the reference")
    assert notefile.dump_frontmatter(metadata) == expected


MOMENT = datetime(2026, 1, 1, 10, 0, 0)
SHARED_LIST = ["a"]


@pytest.mark.parametrize(
    "metadata",
    [
        {"created": MOMENT, "updated": MOMENT},  # PyYAML anchors: &id001 / *id001
        {"aliases": SHARED_LIST, "tags": SHARED_LIST},
        {"created": datetime(5, 1, 1)},  # "5-01-01T00:00:00" is no timestamp: !!timestamp
        {"created": datetime(2026, 1, 1, tzinfo=timezone(timedelta(seconds=30)))},
        {"title": "emoji \U0001f600"},  # libyaml escapes what lies past the BMP
        {"title": "line\nbreak"},
        {"title": "x" * 20_000},
        {"k" * 80: 1},  # a long key is no simple key: "? key"
        {1: "an int key"},
        {None: "a null key"},
        {"nested": {"deeper": {"deepest": 1}}},
        {"rows": [["a"], ["b"]]},
        {"rows": [{"a": 1}]},
        {"big": 10**30},
        {},
    ],
    ids=repr,
)
def test_shapes_the_direct_writer_leaves_to_pyyaml(metadata):
    assert frontmatter_yaml.fast_block(metadata) is None
    assert notefile.dump_frontmatter(metadata) == frontmatter_yaml.reference_block(metadata)


class Label(str):
    """A str subclass: SafeRepresenter has no representer for it."""


def _outcome(write, metadata):
    try:
        return write(metadata)
    except yaml.YAMLError as exc:
        return type(exc), str(exc)


@pytest.mark.parametrize(
    "value",
    [(1, 2), {1, 2}, b"bytes", Label("x"), [Label("x")], date.today, UTC, 1 + 2j],
    ids=repr,
)
def test_other_types_are_left_to_pyyaml_which_writes_or_refuses_them(value):
    metadata = {"odd": value}
    assert frontmatter_yaml.fast_block(metadata) is None
    reference = _outcome(frontmatter_yaml.reference_block, metadata)
    assert _outcome(notefile.dump_frontmatter, metadata) == reference


def test_the_usual_characters_are_those_named_on_every_code_point():
    """The classes are written as their complement (they compile ten times faster): the
    same characters, checked on every code point against the named ranges."""
    usual = (
        "\x20-\x7e\u00a1-\u167f\u1681-\u1fff\u2010-\u2027\u2030-\u205e\u2070-\u2fff"
        "\u3001-\ud7ff\ue000-\ufdcf\ufdf0-\ufefe\uff00-\ufff8"
    )
    every = "".join(map(chr, range(0x110000)))
    not_simple = re.compile(f"[{usual}]").sub("", every)
    assert "".join(c for c in every if not frontmatter_yaml.simple_text(c)) == not_simple
    unusual = re.compile(f"[^{usual}\U00010000-\U000effff]").findall(every)
    assert frontmatter_yaml._UNUSUAL.findall(every) == unusual


# Texts near every YAML 1.1 type PyYAML resolves: numbers in each base, with signs,
# underscores, exponents and sexagesimal parts, dates and times with each separator, the
# words for booleans and null, and near misses of all of these.
_NEAR_TYPES = st.text(
    alphabet="0123456789_.:+-eExXbBoOaAfFtTzZ ~<=\t\nnulNULyesYESrRiI", max_size=24
)
_WORDS = st.sampled_from(
    ["yes", "Yes", "YES", "yEs", "no", "No", "NO", "nO", "y", "n", "true", "True", "TRUE",
     "tRue", "false", "on", "On", "ON", "oN", "off", "Off", "OFF", "null", "Null", "NULL",
     "nuLL", "~", "", "<<", "<", "=", "==", ".inf", "-.Inf", "+.INF", ".nan", ".NaN", "-.nan",
     ".iNf", "0b", "0x", "0o", "0b102", "0xG", "1e5", "1.e5", "1.0e5", "1.0e+5", "._1", "._",
     ".5", "+.5", "5.", "1:60", "1:59.5", "0:1", "\n", "yes\n", "~\n", "1\n", "\n1"]
)  # fmt: skip
_TIMES = st.builds(
    lambda moment, sep, frac, zone: moment.strftime(f"%Y-%m-%d{sep}%H:%M:%S") + frac + zone,
    st.datetimes(min_value=datetime(1000, 1, 1)),
    st.sampled_from(["T", "t", " ", "  ", "\t", "x", ""]),
    st.sampled_from(["", ".", ".5", ".123456", ".x"]),
    st.sampled_from(["", "Z", " Z", "+01", "-5", "+01:00", "+1:0", " -05:30", "z", "+123"]),
)


def pyyaml_resolved(text: str) -> str:
    """The tag PyYAML's own resolver gives ``text`` as a plain scalar (the reference)."""
    resolvers = frontmatter_yaml._dumper().yaml_implicit_resolvers
    for tag, regexp in [*resolvers.get(text[0] if text else "", ()), *resolvers.get(None, ())]:
        if regexp.match(text):
            return tag
    return "tag:yaml.org,2002:str"


@settings(max_examples=3000, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_NEAR_TYPES, _WORDS, _TIMES, texts))
def test_plain_scalars_resolve_as_pyyaml_resolves_them(text):
    """The resolver written out in frontmatter_yaml gives PyYAML's tag for every text."""
    assert frontmatter_yaml._resolved(text) == pyyaml_resolved(text)


def test_writing_a_plain_frontmatter_does_not_import_pyyaml():
    code = (
        "import sys; from datetime import datetime; from exporter import notefile\n"
        "notefile.dump_frontmatter({'title': 'yes', 'n': 1.5, 'created': datetime(2026, 1, 1),"
        " 'tags': ['ai-session', '2026-01-01', 'on'], 'cost': 0.25})\n"
        "print('yaml' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
