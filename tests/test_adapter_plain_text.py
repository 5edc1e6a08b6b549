"""Adapters hand over plain values; how text looks is the note's decision (no Markdown)."""

from __future__ import annotations

import json

import orjson
from codex_builder import CodexRollout
from conftest import load_sessions
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.adapters._jsonl import json_text
from exporter.adapters.codex import CodexAdapter
from exporter.model import TextPart

TID = "019a0000-0000-7000-8000-00000000abcd"


def test_a_codex_review_is_plain_text(tmp_path):
    rollout = CodexRollout(TID)
    rollout.turn().user("review my change")
    rollout.event(
        {
            "type": "exited_review_mode",
            "review_output": {
                "overall_explanation": "Two problems.",
                "findings": [
                    {"title": "Off by one in __init__.py", "body": "Use range(n)."},
                    {"title": "Unused **kwargs", "body": ""},
                ],
            },
        }
    )
    rollout.write(tmp_path / ".codex")
    sessions, _ = load_sessions(CodexAdapter(), tmp_path)
    texts = [p.text for m in sessions[0].messages for p in m.parts if isinstance(p, TextPart)]
    assert texts[-1] == (
        "Two problems.\n\nOff by one in __init__.py\nUse range(n).\n\nUnused **kwargs"
    )


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_JSON, st.booleans())
def test_a_value_is_written_back_as_the_json_it_was(value, indent):
    """As orjson writes it wherever orjson can; a number past 64 bits (which the lenient
    parser keeps) by the json module, still as JSON that reads back to the same value."""
    text = json_text(value, indent=indent)
    assert json.loads(text) == value
    try:
        expected = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()
    except TypeError:
        return
    assert text == expected
