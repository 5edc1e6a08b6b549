"""The re-render's fast paths give exactly what the slow ones give: the splice of a plain
frontmatter without PyYAML (``frontmatter_splice._plain_splice``) against the splice through
PyYAML's nodes, and the end marker found by passing over most lines in C against the loop
over every line that found it before."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from exporter import frontmatter_splice, notefile
from exporter.keytext import Keeper

sys.path.insert(0, str(Path(__file__).parent))
from test_frontmatter_read import scalar, strict, texts  # noqa: E402

NAMES = ["title", "tags", "aliases", "my-key", "x", "created", "cost"]
value = st.one_of(
    st.sampled_from(["a", "yes", "1e5", "C#", "x &y", "a: b", 3, 1.5, True, None]),
    st.lists(st.sampled_from(["t1", "t2", "yes", "a #b", "p/q"]), max_size=3),
)
values = st.dictionaries(st.sampled_from(NAMES), value, max_size=5)
drops = st.sets(st.sampled_from(NAMES), max_size=3)


def both(yaml_text, ours, drop, keeper):
    import yaml

    try:  # (as parse reads it: a note PyYAML refuses is never spliced)
        existing = yaml.load(yaml_text, Loader=notefile._loader()) or {}
    except (yaml.YAMLError, ValueError):  # (ValueError: a day the calendar lacks)
        return None, None
    if not isinstance(existing, dict):
        return None, None
    keep = Keeper(ours, existing, yaml_text) if keeper else None
    fast = frontmatter_splice._plain_splice(yaml_text, ours, drop, existing, keep)
    keep = Keeper(ours, existing, yaml_text) if keeper else None
    slow = frontmatter_splice._composed_splice(yaml_text, ours, drop, existing, keep)
    return fast, slow


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(texts, values, drops, st.booleans())
@example("title: a\ntags:\n- t1\n- mine\nx: 1\n", {"title": "b", "tags": ["t1", "t2"]}, {"x"}, True)
@example("title: a\ncost: 1\n", {"title": "a", "cost": 1}, set(), True)
def test_the_plain_splice_is_the_composed_one(yaml_text, ours, drop, keeper):
    fast, slow = both(yaml_text, ours, drop, keeper)
    if fast is not frontmatter_splice._UNSURE:
        assert fast == slow


@settings(max_examples=300, deadline=None)
@given(st.lists(scalar, min_size=1, max_size=6), st.booleans())
def test_a_note_as_ccexport_writes_it_is_spliced_without_pyyaml(words, keeper):
    ours = {"title": words[0], "tags": words[1:], "messages": len(words)}
    yaml_text = notefile.yaml_of({**ours, "mine": "kept"})
    new = {**ours, "messages": len(words) + 1}
    fast, slow = both(yaml_text, new, {"cwd"}, keeper)
    if fast is frontmatter_splice._UNSURE:
        assert re.search(r"[^\x20-\x7e]| #|: ", yaml_text) or any(
            w != w.strip() or not w for w in words if isinstance(w, str)
        ), yaml_text  # (only odd texts are left to PyYAML)
    else:
        assert fast == slow


# The loop that found the end marker before (every line matched against both patterns).
def old_candidates(lines, begin):
    candidates, anywhere, fence = [], [], ""
    for i in range(begin + 1, len(lines)):
        line = lines[i].rstrip("\r")
        found = notefile._END_LINE.match(line)
        if found:
            anywhere.append((i, found.group(1)))
            if not fence:
                candidates.append((i, found.group(1)))
        opened = notefile._FENCE.match(line)
        if opened:
            mark = opened.group(1)
            if not fence:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip(mark[0] + " "):
                fence = ""
    return candidates or anywhere


def old_end(lines, begin, owned_lines):
    candidates = old_candidates(lines, begin)
    for i, written in candidates:
        if written and notefile.owned_hash("\n".join(lines[begin + 1 : i])) == written:
            return i, written
    if owned_lines is not None:
        for i, written in candidates:
            if i == begin + 1 + owned_lines:
                return i, written
    return candidates[0] if candidates else (None, None)


REGION = ["a", "b"]
LINE = st.sampled_from(
    [
        "text", "", "\r", "```", "```py", "  ```", "    ```", "~~~", "````", "``` x", "~~~~\r",
        " ```\r", "%% ccexport:end %%", "%% ccexport:end %%\r", "%% ccexport:end %% ",
        f"%% ccexport:end {notefile.owned_hash('a')} %%", "%% ccexport:end 0123456789abcdef %%",
        notefile.end_marker("\n".join(REGION)), "x %% ccexport:end %%", "%% ccexport:endx %%",
        "a", "b", "%% ccexport:begin x %%",
    ]
)  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(LINE, max_size=14), st.integers(0, 3), st.none() | st.integers(0, 12), st.booleans()
)
def test_the_end_marker_is_the_one_found_before(lines, begin, owned_lines, crlf):
    lines = ["x"] * begin + [notefile.BEGIN, *lines]
    if crlf:
        lines = [line + "\r" for line in lines]
    expected = old_end(lines, begin, owned_lines)
    text = "\n".join(lines)  # (as parse passes it: the note's text, and where the region starts)
    start = len("\n".join(lines[: begin + 1])) + 1
    for given_text in [("", 0), (text, start)]:
        end, written, owned = notefile._end_of_region(lines, begin, owned_lines, *given_text)
        assert (end, written) == expected
        assert owned == ("\n".join(lines[begin + 1 : end]) if end is not None else "")
        assert notefile._end_candidates(lines, begin, *given_text) == old_candidates(lines, begin)


def test_a_parsed_note_is_as_before():
    """``parse`` itself, on a note with fences, a quoted marker and the person's text."""
    owned = "### User\n\n```\n%% ccexport:end %%\n```\ntext"
    text = notefile.compose({"title": "t"}, "", owned, "mine\n%% ccexport:end %%\n")
    parsed = notefile.parse(text)
    assert (parsed.owned, parsed.after, parsed.edited) == (
        owned,
        "mine\n%% ccexport:end %%\n",
        False,
    )
    assert strict(parsed.metadata) == strict({"title": "t"})


def old_parse(text, owned_lines):
    """``parse`` as it was: PyYAML's reading, the end marker found by the loop above."""
    import yaml

    m = notefile._FRONTMATTER.match(text)
    metadata = (yaml.load(m.group(1) or "", Loader=notefile._loader()) or {}) if m else {}
    if not isinstance(metadata, dict):
        raise ValueError("not a mapping")  # (parse refuses the note)
    rest = text[m.end() :] if m else text
    lines = rest.split("\n")
    begin = next(
        (i for i, x in enumerate(lines) if notefile._BEGIN_LINE.match(x.rstrip("\r"))), None
    )
    end, written = old_end(lines, begin, owned_lines) if begin is not None else (None, None)
    if begin is None or end is None:
        return metadata, rest, None, "", None
    before = "\n".join(lines[:begin]) + ("\n" if begin else "")
    return metadata, before, "\n".join(lines[begin + 1 : end]), "\n".join(lines[end + 1 :]), written


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    texts,
    st.lists(LINE, max_size=3),
    st.lists(LINE, max_size=8),
    st.none() | st.integers(0, 8),
    st.booleans(),
)
def test_a_note_is_parsed_as_before(yaml_text, before, body, owned_lines, fenced):
    import yaml

    text = (f"---\n{yaml_text}---\n" if fenced else "") + "\n".join(
        [*before, notefile.BEGIN, *body]
    )
    try:
        expected = old_parse(text, owned_lines)
    except (yaml.YAMLError, ValueError):
        return
    parsed = notefile.parse(text, owned_lines)
    got = (parsed.metadata, parsed.before, parsed.owned, parsed.after, parsed.written_hash)
    assert strict(got) == strict(expected)
