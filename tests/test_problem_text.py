"""A problem is printed on one line, and nothing in it restyles the terminal: a damaged
value quoted in its message, or a file name, may hold a newline or an escape sequence
(the reviewer of the Gemini mend found ``a\\nb\\x1b[31m`` reaching the terminal raw)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from exporter.adapters._values import quoted
from exporter.errors import Problem

CONTROL = {chr(c) for c in [*range(0x00, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0)]}


def test_a_quoted_value_with_control_characters_is_printed_escaped():
    damaged = "a\nb\x1b[31m"
    problem = Problem("/h/chat.json", f"message {quoted(damaged)}: its role is missing")
    assert str(problem) == '/h/chat.json: message "a\\x0ab\\x1b[31m": its role is missing'


def test_a_file_name_is_printed_escaped_and_kept_as_it_is_on_the_problem():
    path = "/h/.claude/projects/x/evil\x1b]0;title\x07.jsonl"
    problem = Problem(path, "not valid JSON, line skipped", 3)
    assert problem.path == path  # (it names the file: the note's unread lines are found by it)
    assert (
        str(problem)
        == "/h/.claude/projects/x/evil\\x1b]0;title\\x07.jsonl:3: not valid JSON, line skipped"
    )
    assert json.loads(json.dumps(problem.as_dict()))["path"] == path


@given(st.text(), st.text())
def test_no_control_character_but_a_tab_is_ever_printed(path, message):
    shown = str(Problem(path, message))
    assert not CONTROL & set(shown)


def test_a_folded_file_name_is_printed_escaped_too():
    from exporter.report import problem_lines

    path = "/h/evil\x1b[2J.jsonl"
    lines = problem_lines([Problem(path, f"warning {i}", i) for i in range(1, 9)], False, False)
    assert (
        lines[-1] == "warning: /h/evil\\x1b[2J.jsonl: 3 more warnings (--verbose lists every one)"
    )
    assert not CONTROL & set("".join(lines))
