"""A Claude Code line dropped whole because its message or content is of the wrong type is
named in its note as a line that could not be read, as a malformed line is; a line read in
part (a bad block beside good ones, whose good blocks are shown; a tool call whose name is
damaged, shown as ``tool``) is said in the run's report but not named as unread.

What counts as dropped whole: the message is not an object; its content is neither text
nor a list; its content is a list none of whose blocks is an object (nothing of it can be
shown). A list with at least one object block is read in part."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import load_sessions, note_files

from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.export import ExportOptions, run_export

SID = "0bb0b0b0-1111-4222-8333-444444444444"


def session_file(home: Path, damage: dict[str, Any]) -> tuple[Path, dict[str, int]]:
    """A session whose lines hold markers mk1..mk6 (a prompt, five replies); ``damage``
    maps a marker to what its line's message (``message``) or content (``content``)
    becomes. Returns the file and each marker's line."""
    s = ClaudeSession(SID, "/w/proj")
    s.user("mk1 question")
    s.assistant("mk2 first reply")
    s.assistant("mk3 second reply")
    s.assistant(
        [{"type": "text", "text": "mk4 third reply"}, tool_use("Bash", {"command": "ls"}, "t1")],
        split=False,
    )
    s.tool_result("t1", "mk5 files")
    s.assistant("mk6 last reply")
    lines = [json.loads(line) for line in s.lines]
    at = {
        f"mk{i}": n
        for n, r in enumerate(lines, 1)
        for i in range(1, 7)
        if f"mk{i} " in json.dumps(r)
    }
    for marker, (field, value) in damage.items():
        record = lines[at[marker] - 1]
        if field == "message":
            record["message"] = value
        else:
            record["message"]["content"] = value(record["message"]["content"])
    path = home / ".claude" / "projects" / "-w-proj" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return path, at


def note(home: Path, vault: Path) -> tuple[str, list[str]]:
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    (text,) = [data.decode() for data in note_files(vault).values()]
    return text, [str(p) for p in report.problems]


def unread(text: str) -> str | None:
    """The note's words about lines that could not be read (None: it has none)."""
    found = [line for line in text.splitlines() if "could not be read" in line]
    return found[0] if found else None


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (("message", "mk2 first reply"), "the message is text, not an object: left out"),
        (("message", ["mk2"]), "the message is a list, not an object: left out"),
        (("content", lambda c: {"text": "mk2"}), "the message's content is an object, not text or a list: left out"),
        (("content", lambda c: 7), "the message's content is a number, not text or a list: left out"),
        (("content", lambda c: [7, "mk2"]), None),  # no block is an object: nothing of it is shown
    ],
    ids=["message text", "message list", "content object", "content number", "no block an object"],
)  # fmt: skip
def test_a_line_dropped_whole_for_a_wrong_type_is_named_in_its_note(tmp_path, damage, said):
    path, at = session_file(tmp_path / "home", {"mk2": damage})
    text, problems = note(tmp_path / "home", tmp_path / "v")
    line = at["mk2"]
    assert "mk3 second reply" in text and "mk6 last reply" in text
    assert unread(text) == (
        f"> Line {line} of this session's file could not be read: it is not in this note."
    )
    if said is None:
        assert [p for p in problems if p.startswith(f"{path}:{line}: ")] == [
            f"{path}:{line}: a content block is a number, not an object: left out",
            f"{path}:{line}: a content block is text, not an object: left out",
        ]
    else:
        assert problems == [f"{path}:{line}: {said}"]


def test_a_line_read_in_part_is_said_but_not_named_as_unread(tmp_path):
    """One block that is no object beside a good one: the good block is shown; a tool call
    named by a list: the call is shown as ``tool``. Both lines are read, in part."""
    path, at = session_file(
        tmp_path / "home",
        {
            "mk3": ("content", lambda c: [7, *c]),
            "mk4": ("content", lambda c: [c[0], {**c[1], "name": ["Bash"]}]),
        },
    )
    text, problems = note(tmp_path / "home", tmp_path / "v")
    assert "mk3 second reply" in text and "mk4 third reply" in text and "`tool`" in text
    assert unread(text) is None
    assert problems == [
        f"{path}:{at['mk3']}: a content block is a number, not an object: left out",
        f"{path}:{at['mk4']}: a tool call's name is a list, not text: shown as 'tool'",
    ]


def test_lines_dropped_whole_and_read_in_part_together(tmp_path):
    """The note names the two lines dropped whole, and neither line read in part; a
    malformed line is named beside them as before."""
    home = tmp_path / "home"
    path, at = session_file(
        home,
        {
            "mk2": ("message", "mk2"),
            "mk3": ("content", lambda c: [None, *c]),
            "mk6": ("content", lambda c: {"text": "mk6"}),
        },
    )
    with path.open("a") as f:
        f.write("{not json\n")
    text, _ = note(home, tmp_path / "v")
    lines = sorted([at["mk2"], at["mk6"], at["mk6"] + 1])
    assert unread(text) == (
        f"> Lines {lines[0]}, {lines[1]} and {lines[2]} of this session's file could not be "
        "read: they are not in this note."
    )


def test_the_adapter_marks_only_lines_dropped_whole(tmp_path):
    path, at = session_file(
        tmp_path,
        {"mk2": ("message", 5), "mk3": ("content", lambda c: [1, *c])},
    )
    _, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    assert [(p.line, p.left_out) for p in problems] == [(at["mk2"], True), (at["mk3"], False)]
