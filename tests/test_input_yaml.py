"""A tool call's other arguments are YAML lines: a YAML reader gives back exactly the
arguments, and a one-line text is in the note as typed, so search finds a Windows folder or a
regex (as JSON, ``C:\\Users\\dev`` read ``C:\\\\Users\\\\dev`` and a quote ``\\"``)."""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from message_builder import msg, session

from exporter import inputyaml
from exporter.inputyaml import arguments_yaml
from exporter.model import TextPart, ToolCallPart
from exporter.notes import NoteSettings, build_note
from exporter.toolinput import input_blocks

_MD = MarkdownIt("commonmark")
# Any text but surrogates (which no source's JSON can hold).
_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)
_TEXT = _TEXT | _TEXT.map(lambda text: text + "\n") | _TEXT.map(lambda text: text + "\n\n")
# One line, no controls, short enough to stay among the arguments: what a person searches for.
_LINE = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=120
)
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _TEXT
)  # fmt: skip
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=12,
)
_QUICK = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


@_QUICK
@given(st.dictionaries(_TEXT, _VALUES, min_size=1, max_size=6))
def test_a_yaml_reader_gives_back_the_arguments(arguments):
    """Also as the note's code block holds it, with a line break after the last line."""
    assert yaml.safe_load(arguments_yaml(arguments)) == arguments
    assert yaml.safe_load(arguments_yaml(arguments) + "\n") == arguments


@_QUICK
@given(st.dictionaries(st.sampled_from(["path", "pattern", "q", "glob", "dir"]), _LINE, min_size=2))
@example({"path": "*** Begin Patch", "pattern": "0"})  # (one line: no patch, no diff block)
@example({"path": "0", "pattern": "@@ -1 +1 @@"})
def test_a_one_line_argument_is_in_the_note_as_typed(arguments):
    """Read by a CommonMark parser, the note's arguments block holds every one-line value
    verbatim on a line of its own (after its key, or alone in a literal block)."""
    call = ToolCallPart("search", arguments, "c1")
    note = build_note(session(msg("user", TextPart("look")), msg("assistant", call)), "n.md",
                      NoteSettings(), lambda key: None).body  # fmt: skip
    (block,) = [t.content for t in _MD.parse(note) if t.type == "fence" and t.info == "yaml"]
    assert yaml.safe_load(block) == arguments
    lines = block.splitlines()
    for value in arguments.values():
        if not _needs_escapes(value):
            assert any(line.endswith(value) or line.endswith(f"{value}'") for line in lines)


def _needs_escapes(value: str) -> bool:
    """Text YAML can only write with escapes: a character it must escape (a byte-order
    mark, C1 controls), or spaces at its end, which a literal block cannot keep."""
    return value != value.rstrip() or any(
        ch in "\ufeff\x85" or "\x80" <= ch < "\xa0" or ch in "\ufffe\uffff" for ch in value
    )


@_QUICK
@given(st.dictionaries(_TEXT, _VALUES, min_size=1, max_size=6))
def test_the_same_lines_with_or_without_libyaml(arguments):
    """PyYAML's own emitter writes what libyaml would have: a note does not change with
    the machine that made it (libyaml escapes an emoji and writes an empty key its way)."""
    with_libyaml = arguments_yaml(arguments)
    saved = inputyaml._FAST[:]
    inputyaml._FAST.clear()
    try:
        assert arguments_yaml(arguments) == with_libyaml
    finally:
        inputyaml._FAST[:] = saved


def test_windows_paths_and_patterns_read_as_typed():
    (block,) = input_blocks(
        {"pattern": "#\\[test\\]", "path": "C:\\Users\\dev\\src", "query": "it's: done"}, "Grep"
    )
    assert block == {
        "label": "",
        "text": "pattern: '#\\[test\\]'\npath: C:\\Users\\dev\\src\nquery: |-\n  it's: done",
        "lang": "yaml",
    }


def test_numbers_and_truths_stay_what_they_were():
    """``"10"`` the text and 10 the number read differently, as the call gave them."""
    text = arguments_yaml({"timeout": 10, "limit": "10", "all": True, "mode": "yes", "x": None})
    assert text == "timeout: 10\nlimit: '10'\nall: true\nmode: 'yes'\nx: null"


def test_a_value_shown_twice_is_written_twice():
    shared = ["a", "b"]
    assert "&" not in arguments_yaml({"include": shared, "exclude": shared})
