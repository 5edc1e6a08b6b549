"""A note says which lines of its session's file could not be read: the warning is
printed once, by the run that reads the file, while the note is read for years after."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession, tool_use
from conftest import load_sessions, note_files
from gemini_builder import GeminiChat, project_folder
from message_builder import msg, session

from exporter.adapters.gemini import GeminiAdapter
from exporter.errors import Problem
from exporter.export import ExportOptions, run_export
from exporter.model import TextPart
from exporter.notes import unread_words
from exporter.readvalues import with_unread_lines

PROJECTS = Path(".claude", "projects", "-w-proj")


def _home(home: Path) -> Path:
    """A session with a damaged line (3) and a subagent with one (2), beside enough other
    sessions that a second job reads the family ahead of its turn."""
    sid, agent = "0aa0a0a0-1111-4222-8333-444444444444", "abc123"
    s = ClaudeSession(sid, "/w/proj", version="2.0.10")
    s.user("before the damage")
    s.assistant("first answer")
    s.raw("{this is not json")
    s.assistant("after the damage")
    task = {"description": "Look around", "prompt": "list the files", "subagent_type": "x"}
    s.assistant([tool_use("Task", task, "toolu_1")])
    s.tool_result("toolu_1", "done", rich={"status": "completed", "agentId": agent})
    path = s.write(home / PROJECTS / f"{sid}.jsonl")
    a = ClaudeSession(sid, "/w/proj", sidechain=True, agent_id=agent, version="2.0.10")
    a.user("list the files", parent=None)
    a.raw("[1, 2]")
    a.assistant("two files")
    a.write(home / PROJECTS / sid / "subagents" / f"agent-{agent}.jsonl")
    for i in range(30):
        other = ClaudeSession(f"0ee0e0e0-1111-4222-8333-{i:012d}", "/w/proj", version="2.0.10")
        other.user(f"question {i}")
        other.assistant(f"answer {i}")
        other.write(home / PROJECTS / f"{other.session_id}.jsonl")
    return path


def _note(texts: dict[str, str], words: str) -> str:
    (found,) = [text for text in texts.values() if words in text]
    return found


def test_a_note_names_the_lines_of_its_file_that_were_skipped(tmp_path):
    _home(tmp_path / "home")
    vaults = []
    for jobs in (1, 2):  # one process, and a worker reading the family ahead
        vault = tmp_path / f"vault{jobs}"
        report = run_export(
            ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC, workers=jobs)
        )
        assert [p.line for p in report.problems] == [3, 2]
        vaults.append(note_files(vault))
    assert vaults[0] == vaults[1]
    texts = {path: data.decode() for path, data in vaults[0].items()}
    parent = _note(texts, "after the damage")
    assert "> Line 3 of this session's file could not be read: it is not in this note." in parent
    subagent = _note(texts, "two files")
    assert "> Line 2 of this session's file could not be read: it is" in subagent
    others = [text for text in texts.values() if "question" in text]
    assert len(others) == 30 and not any("could not be read" in text for text in others)


def test_a_rerun_keeps_saying_it(tmp_path):
    _home(tmp_path / "home")
    options = ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", timezone=UTC)
    run_export(options)
    again = run_export(options)
    assert not again.problems  # the file was not read again: nothing printed this time
    texts = {path: data.decode() for path, data in note_files(tmp_path / "v").items()}
    assert "Line 3 of this session's file" in _note(texts, "after the damage")


def test_lines_are_given_only_to_the_session_alone_in_its_file():
    a = session(msg("user", TextPart("a")), session_id="a")
    b = session(msg("user", TextPart("b")), session_id="b")
    path = str(a.source_path)
    problems = [
        Problem(path, "not valid JSON, line skipped", 4, left_out=True),
        Problem(path, "not valid JSON, line skipped", 2, left_out=True),
        Problem(path, "not valid JSON, line skipped", 4, left_out=True),
        # read, in part: a time left out, a kind not known here, lines sharing a uuid
        Problem(path, "3 timestamps could not be read and were left out", 6),
        Problem(path, "unknown record type 'x' skipped", 7),
        Problem(path, "could not be read after line 9", 10, severity="error"),
        Problem(path, "not a list of messages", None),
        Problem("elsewhere.jsonl", "not valid JSON, line skipped", 5, left_out=True),
    ]
    (alone,) = with_unread_lines([a], problems)
    assert alone.unread_lines == (2, 4)
    # A file of two conversations (a database, a log): whose line it was is not known.
    assert with_unread_lines([a, b], problems) == [a, b]
    assert with_unread_lines([a], []) == [a]


def test_the_words_name_each_line_up_to_eight():
    assert unread_words(()) == ""
    assert unread_words((7,)).startswith("Line 7 of this session's file could not be read")
    assert unread_words((7,)).endswith(": it is not in this note.")
    assert unread_words((7, 17)).startswith("Lines 7 and 17 of")
    assert unread_words((7, 17)).endswith(": they are not in this note.")
    assert unread_words((1, 2, 3)).startswith("Lines 1, 2 and 3 of")
    many = unread_words(tuple(range(1, 12)))
    assert many.startswith("Lines 1, 2, 3, 4, 5, 6, 7, 8 and 3 more of")


def test_a_line_read_in_part_is_not_said_to_be_missing(tmp_path):
    """A time that could not be read is left out of a message that is kept: the note does
    not say the line is missing."""
    s = ClaudeSession("0cc0c0c0-1111-4222-8333-444444444444", "/w/proj")
    s.user("a question")
    s.raw({**s._envelope("assistant"), "timestamp": "yesterday",
           "message": {"role": "assistant", "content": [{"type": "text", "text": "kept"}]}})  # fmt: skip
    s.write(tmp_path / "home" / PROJECTS / f"{s.session_id}.jsonl")
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", timezone=UTC))
    assert [p.line for p in report.problems] == [2]
    (text,) = [d.decode() for d in note_files(tmp_path / "v").values() if b"kept" in d]
    assert "could not be read" not in text


def test_a_gemini_chat_line_of_neither_kind_is_named(tmp_path):
    folder = project_folder(tmp_path, "/w/proj", "proj") / "chats"
    chat = GeminiChat("5e5e5e5e-0000-4000-8000-000000000001")
    chat.user("a question")
    chat.gemini("an answer")
    chat.write_jsonl(folder, extra_lines=[{"neither": "kind"}])
    sessions, problems = load_sessions(GeminiAdapter(), tmp_path)
    (s,) = with_unread_lines(sessions, problems)
    assert s.unread_lines == (4,)  # the metadata, two messages, then this line


def test_a_line_read_despite_a_raw_control_character_is_not_said_to_be_missing(tmp_path):
    """A NUL left raw in a JSON string is damage the lenient reading passes over: the
    line is reported and read, so the note does not say it is missing."""
    s = ClaudeSession("0cc0c0c0-1111-4222-8333-444444444445", "/w/proj")
    s.user("a question")
    s.assistant("kept despite the damage")
    path = s.write(tmp_path / "home" / PROJECTS / f"{s.session_id}.jsonl")
    path.write_bytes(path.read_bytes().replace(b"kept despite", b"kept\x00despite"))
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", timezone=UTC))
    assert [p.line for p in report.problems] == [2]
    (text,) = [d.decode() for d in note_files(tmp_path / "v").values() if b"despite" in d]
    assert "could not be read" not in text
