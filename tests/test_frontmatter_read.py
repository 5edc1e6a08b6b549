"""The fast frontmatter reader (exporter/frontmatter_read.py) against PyYAML, the reference:
wherever it answers, it answers exactly what PyYAML reads (types too), and the lines it
gives each key are those PyYAML's node marks give ``splice_frontmatter``."""

from __future__ import annotations

from datetime import date, datetime

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from exporter import frontmatter_read, notefile
from exporter.frontmatter_yaml import fast_block

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

WORDS = [
    "a", "yes", "No", "on", "OFF", "true", "False", "null", "~", "Null", "0", "-0", "+5", "007",
    "0x1F", "1_000", "1.5", "-0.0", "1.", ".5", "1e5", "1.5e3", ".inf", ".nan", "1:30",
    "2026-01-01", "2026-1-1", "2026-02-30", "2026-11-20T09:01:07", "2026-11-20 09:01:07 +01:00",
    "2026-11-20T09:01:07Z", "2026-11-20T09:01:07.123+05:30", "2026-11-20T09:01:07-05:00",
    "2026-11-20T09:01:07+00:00", "2026-13-01T00:00:00", "2026-11-20T25:01:07", "2026-11-20t09:01:07",
    "2026-11-20T09:01:07+99:00", "2026-11-20T09:01:07+14:30", "0000-01-01T00:00:00", "=", "<<", "C#", "a #b", "a: b",
    "a:b", "- a", "-a", "? a", "?a", ":a", "[]", "{}", "[a, b]", "{a: 1}", "&x a", "*x", "!!str 1",
    "|", ">", "'q'", "'it''s'", "'bad", '"q"', '"a\\"b"', '"a\\\\b"', '"a\\nb"', '"bad', "%x",
    "@x", "`x`", "a  b", " a", "a ", "", "é", "日本", "😀", "a\tb", "a\rb", "\x85", "\u2028",
    "\ufeff", "x\x07", "---", "...", "#", "Fix [bug], {x}", "1" * 40, "9" * 400 + ".0", "---x",
]  # fmt: skip
KEYS = ["title", "tags", "aliases", "yes", "null", "my-key", "_", "Key2", "'q'", "a b", "x"]
scalar = st.sampled_from(WORDS) | st.text(
    st.sampled_from("ab -:#'\"[]{}&*!|>%@`?,.0123456789eE_+\\é\t"), max_size=8
)
# Mostly texts it takes (else few examples would test anything): words, numbers, dates.
usual = st.text(st.sampled_from("abc-:/._ é0123456789"), min_size=1, max_size=12).filter(
    lambda t: t == t.strip(" ") and ": " not in t and not t.endswith(":")
)
scalar = st.one_of(usual, usual, st.sampled_from(WORDS), scalar)
item = st.tuples(st.sampled_from(["", "", " ", "  "]), scalar)
entry = st.one_of(
    st.tuples(st.sampled_from(KEYS), scalar).map(lambda e: f"{e[0]}: {e[1]}\n"),
    st.tuples(st.sampled_from(KEYS), st.lists(item, max_size=3)).map(
        lambda e: f"{e[0]}:\n" + "".join(f"{i}- {s}\n" if s else f"{i}-\n" for i, s in e[1])
    ),
    st.sampled_from(["# a comment\n", "\n", "  x\n", "key:value\n", "key:  x\n", "key: \n"]),
)
entry = st.one_of(entry.filter(lambda e: not e.startswith(("#", "\n", " ", "key:"))), entry)
texts = st.lists(entry, max_size=6).map("".join)


def strict(value):
    """A value with the type of every part in it (``1``, ``1.0`` and ``True`` differ)."""
    if isinstance(value, dict):
        return ("dict", [(strict(k), strict(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [strict(v) for v in value])
    if isinstance(value, float) and value != value:
        return ("nan",)
    if isinstance(value, datetime):
        return ("datetime", value, value.utcoffset())
    return (type(value).__name__, value)


def pyyaml_marks(text: str) -> list[tuple[str, int, int, bool]]:
    """Each key's first and last line as ``splice_frontmatter`` takes them from the nodes."""
    node = yaml.compose(text, Loader=LOADER)
    if node is None:
        return []
    lines = notefile.yaml_lines(text)
    found = []
    for key, value in node.value:
        first = key.start_mark.line
        last = max(first, value.end_mark.line - (value.end_mark.column == 0))
        while last > first and (not lines[last].strip() or lines[last].startswith("#")):
            last -= 1
        found.append((key.value, first, last, isinstance(value, yaml.SequenceNode)))
    return found


@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(texts)
@example("title: a\ntags:\n- x\n- y\nnext:\n")
@example("created: 2026-11-20T09:01:07\nupdated: 2026-11-20T09:01:07\n")
def test_the_fast_reader_reads_what_pyyaml_reads(text):
    fast = frontmatter_read.entries(text)
    if fast is None:
        return
    loaded = yaml.load(text, Loader=LOADER) or {}  # (raises if the reader took a bad text)
    assert strict({e.name: e.value for e in fast}) == strict(loaded)
    assert [(e.name, e.first, e.last, e.is_list) for e in fast] == pyyaml_marks(text)


def test_it_reads_what_ccexport_writes():
    metadata = {
        "title": "Why does test 0 fail with `<T>`?", "aliases": ["a: b", "yes"],
        "source": "claude-code", "session_id": "0000015f-bench", "models": ["m-1"],
        "created": datetime(2026, 4, 16, 9, 0, 5), "day": date(2026, 4, 16), "messages": 6,
        "cost": 0.01683, "cost_estimated": True, "parent": None, "files": [],
        "tags": ["ai-session", "project/p-1", "1e5", " x"],
    }  # fmt: skip
    text = fast_block(metadata).removeprefix("---\n").removesuffix("---\n")
    assert strict(frontmatter_read.load(text)) == strict(metadata)


def test_each_date_time_is_its_own_object():
    loaded = frontmatter_read.load("created: 2026-01-01T09:00:00\nupdated: 2026-01-01T09:00:00\n")
    assert loaded["created"] == loaded["updated"] and loaded["created"] is not loaded["updated"]


def test_what_it_is_not_sure_of_is_left_to_pyyaml():
    for text in ["a: 1\na: 2\n", "a: 1 # c\n", "a: [1]\n", "a: 2026-02-30\n", "a: 0x10\n", "\n"]:
        assert frontmatter_read.entries(text) is None, text
