"""One damaged record (found by the corpus damaged-record audit) costs only itself: a record
whose content has the wrong type is said, not dropped without a word; bytes JSON or SQLite
cannot hold as text (a lone surrogate, invalid UTF-8, a raw NUL) cost only those bytes; a
request no one expected costs that request, not the chat."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import ClaudeSession
from conftest import EXAMPLES_HOME, note_files
from copilot_cli_builder import CopilotCliSession
from gemini_builder import GeminiChat, project_folder
from test_fuzz_wrong_types import (
    CURSOR_ID,
    copilot_home,
    copilot_requests,
    cursor_home,
    exported,
)

from exporter.adapters._jsonl import NOT_UTF8, RAW_CONTROL
from exporter.export import ExportOptions, run_export

OPENCODE_TREE = ".local/share/opencode/storage"


@pytest.mark.parametrize(
    ("source", "relpath", "damage"),
    [
        ("copilot",
         ".config/Code/User/globalStorage/emptyWindowChatSessions/c0b1107a-5e55-4a0d-9c1e-000000000002.json",
         lambda doc: doc["requests"][0].__setitem__("modelId", "copilot/gpt\ud800-5")),
        ("cline", ".cline/data/sessions/1764145500000_demo1/1764145500000_demo1.messages.json",
         lambda doc: doc["messages"][1]["content"][1].__setitem__("name", "use_sub\ud800agents")),
        ("opencode", f"{OPENCODE_TREE}/session/global/ses_2a7f0c3e1ffeDemoCartTotal.json",
         lambda doc: doc.__setitem__("title", "Fix the cart \ud800 total")),
    ],
)  # fmt: skip
def test_a_lone_surrogate_escaped_in_a_json_document_costs_nothing(
    tmp_path, source, relpath, damage
):
    """Written escaped (``"\\ud800"``), it parses as a lone surrogate, which no note can
    hold: the Copilot session failed ('could not be written'), and the OpenCode session
    file was skipped as not JSON, losing the session."""
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    _, before = exported_notes(home, tmp_path / "before", source)
    path = home / relpath
    doc = json.loads(path.read_text())
    damage(doc)
    path.write_text(json.dumps(doc, ensure_ascii=True))
    report, after = exported_notes(home, tmp_path / "after", source)
    assert not report.failed and not [p for p in report.problems if p.path == str(path)]
    assert len(after) == len(before)


def exported_notes(home: Path, vault: Path, source: str):
    report = run_export(ExportOptions(vault=vault, home=home, sources=[source], timezone=UTC))
    return report, note_files(vault)


def test_copilot_an_attached_variable_with_a_list_for_its_id(tmp_path):
    """'unhashable type: list' lost the whole chat ('could not be read')."""
    requests = copilot_requests()
    requests[1]["variableData"] = {"variables": [{"kind": "file", "id": ["x"], "name": "a.py"}]}
    copilot_home(tmp_path / "home", requests)
    text, _problems = exported(tmp_path / "home", tmp_path / "v", "copilot")
    assert all(f"mk{i}" in text for i in range(1, 7))


def test_copilot_a_request_no_one_expected_costs_only_itself(tmp_path, monkeypatch):
    """Whatever a request's values make fail (here a stand-in for the next such bug) is
    reported with the request's number; the other requests are exported."""
    import exporter.adapters.copilot_log as copilot_log

    requests = copilot_requests()
    requests[1]["variableData"] = {"variables": [{"kind": "file", "id": "odd", "name": "a.py"}]}
    real = copilot_log.variable_parts

    def failing(request):
        if request["variableData"]["variables"]:
            raise TypeError("unhashable type: 'list'")
        return real(request)

    monkeypatch.setattr(copilot_log, "variable_parts", failing)
    path = copilot_home(tmp_path / "home", requests)
    text, problems = exported(tmp_path / "home", tmp_path / "v", "copilot", workers=1)
    assert all(f"mk{i}" in text for i in (1, 2, 5, 6)) and "mk3" not in text
    why = "request 2: unexpected shape (TypeError: unhashable type: 'list'); skipped"
    assert f"{path}: {why}" in problems


def test_copilot_requests_that_are_not_a_list_are_said(tmp_path):
    """The chat was listed as empty without a word."""
    path = copilot_home(tmp_path / "home", copilot_requests())
    path.write_text(json.dumps({**json.loads(path.read_text()), "requests": {"0": "x"}}))
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home",
                                      sources=["copilot"], timezone=UTC))  # fmt: skip
    why = "its requests are an object, not a list: the chat holds none"
    assert [str(p) for p in report.problems] == [f"{path}: {why}"]


def test_claude_code_a_message_content_or_block_of_the_wrong_type_is_said(tmp_path):
    """Such a line was dropped without a word."""
    s = ClaudeSession("11111111-2222-4333-8444-5555555555a8", "/home/dev/work/app")
    s.user("mk1 first question")
    s.assistant("mk2 lost reply")
    s.assistant("mk3 kept")
    s.assistant("mk4 lost reply")
    s.user("mk5 second question")
    s.assistant("mk6 answer")
    lines = [json.loads(line) for line in s.lines]
    line = {f"mk{i}": n for n, r in enumerate(lines, start=1) for i in range(1, 7)
            if f"mk{i} " in json.dumps(r)}  # fmt: skip
    lines[line["mk2"] - 1]["message"]["content"] = {"text": "mk2 lost reply"}
    lines[line["mk3"] - 1]["message"]["content"].insert(0, 7)
    lines[line["mk4"] - 1]["message"] = "mk4 lost reply"
    path = tmp_path / "home/.claude/projects/-home-dev-work-app" / f"{s.session_id}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    text, problems = exported(tmp_path / "home", tmp_path / "v", "claude-code")
    assert all(f"mk{i}" in text for i in (1, 3, 5, 6))
    assert problems == [
        f"{path}:{line['mk2']}: the message's content is an object, not text or a list: left out",
        f"{path}:{line['mk3']}: a content block is a number, not an object: left out",
        f"{path}:{line['mk4']}: the message is text, not an object: left out",
    ]


def test_cursor_a_value_that_is_not_utf8_costs_only_its_bad_bytes(tmp_path):
    """'Could not decode to UTF-8 column value' failed the whole query: every chat of the
    database was lost."""
    bubbles = [
        {"_v": 3, "type": 1, "bubbleId": "b1", "text": "mk1 question"},
        {"_v": 3, "type": 2, "bubbleId": "b2", "text": "mk2 reply BAD"},
        {"_v": 3, "type": 2, "bubbleId": "b3", "text": "mk3 answer"},
    ]
    db = cursor_home(tmp_path / "home", bubbles)
    with closing(sqlite3.connect(db)) as conn:
        key = f"bubbleId:{CURSOR_ID}:b2"
        (value,) = conn.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)).fetchone()
        bad = value.encode().replace(b"BAD", b"\xff\xfe")
        conn.execute("UPDATE cursorDiskKV SET value = CAST(? AS TEXT) WHERE key = ?", (bad, key))
        conn.commit()
    text, _problems = exported(tmp_path / "home", tmp_path / "v", "cursor")
    assert all(f"mk{i}" in text for i in range(1, 4))


@pytest.mark.parametrize(
    ("source", "relpath", "words"),
    [
        ("gemini", ".gemini/tmp/win-app/chats/session-2026-11-22T07-45-2d4e6f80.json",
         b"Der Build bricht"),
        ("cline", ".cline/data/sessions/1764145500000_demo1/1764145500000_demo1.messages.json",
         b"Explain what"),
        ("copilot",
         ".config/Code/User/globalStorage/emptyWindowChatSessions/c0b1107a-5e55-4a0d-9c1e-000000000002.json",
         b"Regex for an ISO date?"),
    ],
)  # fmt: skip
@pytest.mark.parametrize(("byte", "why"), [(b"\x00", RAW_CONTROL), (b"\xff", NOT_UTF8)])
def test_damage_in_a_json_document_is_read_and_said(tmp_path, source, relpath, words, byte, why):
    """A NUL byte left raw inside a string (JSON wants it escaped) made the whole document
    unreadable: the Gemini chat failed ('not complete JSON'), the Cline and Copilot ones
    were 'not a readable JSON document'. A byte that is not UTF-8 was read as U+FFFD in
    silence. Now each is said, and the rest read."""
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    _, before = exported_notes(home, tmp_path / "before", source)
    path = home / relpath
    data = path.read_bytes()
    assert words in data
    path.write_bytes(data.replace(words, words[:3] + byte + words[3:], 1))
    report, after = exported_notes(home, tmp_path / "after", source)
    said = [(p.severity, p.message) for p in report.problems if p.path == str(path)]
    assert said == [("warning", why)]
    assert len(after) == len(before)


def test_a_raw_control_character_in_a_json_line_is_said_and_the_line_kept(tmp_path):
    """The line was skipped ('not valid JSON'), losing what it said."""
    s = ClaudeSession("11111111-2222-4333-8444-5555555555b9", "/home/dev/work/app")
    s.user("mk1 first question")
    s.assistant("mk2 answer")
    path = tmp_path / "home/.claude/projects/-home-dev-work-app" / f"{s.session_id}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(s.text().encode().replace(b"mk2 answer", b"mk2 \x00answer"))
    text, problems = exported(tmp_path / "home", tmp_path / "v", "claude-code")
    assert "mk1" in text and "mk2" in text
    assert problems == [f"{path}:2: {RAW_CONTROL}"]


def test_copilot_cli_an_event_whose_data_is_a_list_is_said(tmp_path):
    """It was dropped without a word."""
    s = CopilotCliSession("c0c0a0a0-0000-4000-8000-0000000000c1")
    s.user("mk1 first question")
    s.assistant("mk2 lost answer")["data"] = ["mk2 lost answer"]
    s.user("mk3 second question")
    s.assistant("mk4 answer")
    path = s.write(tmp_path / "home" / ".copilot")
    text, problems = exported(tmp_path / "home", tmp_path / "v", "copilot-cli")
    assert all(f"mk{i}" in text for i in (1, 3, 4))
    assert problems == [f"{path}:3: the event's data is a list, not an object: left out"]


def test_gemini_a_message_whose_content_is_a_number_is_said(tmp_path):
    """It was dropped without a word."""
    chat = GeminiChat("5e55a0a0-0000-4000-8000-0000000000c2")
    chat.user("mk1 first question")
    chat.gemini("mk2 lost answer")["content"] = 7
    chat.user("mk3 second question")
    reply = chat.gemini("mk4 answer")
    path = chat.write_json(project_folder(tmp_path / "home", "/home/dev/work/api", "api") / "chats")
    text, problems = exported(tmp_path / "home", tmp_path / "v", "gemini")
    assert all(f"mk{i}" in text for i in (1, 3, 4))
    lost = chat.messages[1]["id"]
    why = f'message "{lost}": its content is a number, not text or a list: left out'
    assert problems == [f"{path}: {why}"], (problems, reply)


def test_cursor_a_bubble_whose_text_is_a_number_is_said(tmp_path):
    """It was dropped without a word."""
    bubbles = [
        {"_v": 3, "type": 1, "bubbleId": "b1", "text": "mk1 question"},
        {"_v": 3, "type": 2, "bubbleId": "b2", "text": 7},
        {"_v": 3, "type": 2, "bubbleId": "b3", "text": "mk3 answer"},
    ]
    db = cursor_home(tmp_path / "home", bubbles)
    text, problems = exported(tmp_path / "home", tmp_path / "v", "cursor")
    assert "mk1" in text and "mk3" in text
    why = f"composer {CURSOR_ID}, bubble b2: its text is a number, not text: left out"
    assert problems == [f"{db}: {why}"]
