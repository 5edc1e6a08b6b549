"""Gemini CLI: a chat whose header (its first line: the session's id and title) is damaged
for good is exported from what can be read, under the full id another file gives, with a
warning naming the file and what was wrong (adapters11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import load_sessions
from gemini_builder import GeminiChat, project_folder, write_checkpoint, write_prompt_log

from exporter.adapters.gemini import GeminiAdapter

SID = "1f2e3d4c-0000-4000-8000-00000000abcd"
KEY = SID[:8]


def chat_home(home: Path, suffix: str = ".jsonl") -> tuple[Path, Path]:
    """A project with one chat of a prompt and a reply; (its folder, the chat's file)."""
    folder = project_folder(home, "/home/dev/work/api", "api")
    chat = GeminiChat(SID)
    chat.user("Add a health check")
    chat.gemini("Added.")
    write = chat.write_jsonl if suffix == ".jsonl" else chat.write_json
    return folder, write(folder / "chats")


def with_header(path: Path, header: str | None = None, **fields) -> None:
    """The chat's first line replaced by ``header``, or with ``fields`` set in it."""
    first, rest = path.read_text(encoding="utf-8").split("\n", 1)
    if header is None:
        header = json.dumps({**json.loads(first), **fields})
    path.write_text(header + "\n" + rest, encoding="utf-8")


def read(home: Path, path: Path):
    sessions, problems = load_sessions(GeminiAdapter(), home)
    said = [p.message for p in problems if p.path == str(path) and p.line is None]
    return sessions, said


def conversation(session) -> list[tuple[str, str]]:
    return [(m.role, m.parts[0].text) for m in session.messages]


CUT = '{"sessionId": "1f2e3d4c-0000-4000-8000-00000000abcd", "projectHash": "ab'
LOST = "the line naming the session (its first: id and title) could not be read"
ELSEWHERE = (
    "(no other file names its full id: once the line is mended, the session's note is a "
    "second one beside this)"
)


@pytest.mark.parametrize("header", [CUT, '["not", "an object"]', "\ufeff" + CUT])
def test_a_lost_header_exports_the_rest_under_the_file_names_characters(tmp_path, header):
    _, path = chat_home(tmp_path)
    with_header(path, header)
    (session,), said = read(tmp_path, path)
    assert session.session_id == KEY and session.title is None
    assert conversation(session) == [("user", "Add a health check"), ("assistant", "Added.")]
    assert said == [
        f'{LOST}: exported under the 8 characters of its file name, "{KEY}", titled by its '
        f"first prompt {ELSEWHERE}"
    ]


def test_a_lost_header_takes_the_full_id_the_prompt_log_gives(tmp_path):
    """The project's ``logs.json`` names the session: its note keeps the id (and the note
    it was written under) when the line is mended."""
    folder, path = chat_home(tmp_path)
    other = "99999999-0000-4000-8000-000000000000"  # (another session: not this one's)
    write_prompt_log(folder, [(SID, "2026-05-01T10:00:01Z", "Add a health check"),
                              (other, "2026-05-01T11:00:00Z", "Other")])  # fmt: skip
    with_header(path, CUT)
    sessions, said = read(tmp_path, path)
    # (the other session, with no chat file, has the log's note of its prompts)
    assert sorted(s.session_id for s in sessions) == [SID, other]
    assert said == [
        f"{LOST}: exported under the id the prompt log (logs.json) gives, titled by its "
        "first prompt"
    ]


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_a_session_id_of_the_wrong_type_is_said(tmp_path, suffix):
    """A header (a legacy document's fields) whose id is no text: the chat is exported as
    before, and why its note is keyed by the 8 characters is said."""
    _, path = chat_home(tmp_path, suffix)
    if suffix == ".jsonl":
        with_header(path, sessionId=12345, summary="Health check")
    else:
        doc = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps({**doc, "sessionId": 12345, "summary": "Health check"}))
    (session,), said = read(tmp_path, path)
    assert (session.session_id, session.title) == (KEY, "Health check")
    assert said == [
        f"its session id is a number, not text: exported under the 8 characters of its file "
        f'name, "{KEY}" {ELSEWHERE}'
    ]


def test_a_title_of_the_wrong_type_is_said(tmp_path):
    _, path = chat_home(tmp_path)
    with_header(path, summary={"text": "Health check"})
    (session,), said = read(tmp_path, path)
    assert (session.session_id, session.title) == (SID, None)
    assert said == ["its title (summary) is an object, not text: titled by its first prompt"]


def test_a_saved_chat_whose_history_is_no_list_says_what_it_holds(tmp_path):
    folder = project_folder(tmp_path, "/home/dev/work/api", "api")
    path = write_checkpoint(folder, "t", [])
    path.write_text(json.dumps({"history": {"0": {"role": "user"}}, "authType": "x"}))
    sessions, said = read(tmp_path, path)
    assert sessions == []
    assert said == ["its history is an object, not a list of turns: nothing to read"]


def test_an_empty_session_id_is_said(tmp_path):
    _, path = chat_home(tmp_path)
    with_header(path, sessionId=" ")
    (session,), said = read(tmp_path, path)
    assert session.session_id == KEY
    assert said == [
        f'its session id is empty: exported under the 8 characters of its file name, "{KEY}", '
        f"titled by its first prompt {ELSEWHERE}"
    ]


@pytest.mark.parametrize("by", ["prompt log", "subagents' folder"])
def test_a_saved_chat_of_a_session_whose_header_is_lost_is_dated_and_linked(tmp_path, by):
    """``/chat save`` of a session whose header is lost: the saved chat takes the id the
    session is exported under (from the prompt log, or its subagents' folder), so it is
    dated by the session's prompts and linked to it as for a whole header."""
    folder, path = chat_home(tmp_path)
    if by == "prompt log":
        write_prompt_log(folder, [(SID, "2026-05-01T10:00:01Z", "Add a health check")])
    else:
        (folder / "chats" / SID).mkdir()
        (folder / "chats" / SID / "agent.jsonl").write_text("", encoding="utf-8")
    with_header(path, CUT)
    history = [
        {"role": "user", "parts": [{"text": "Add a health check"}]},
        {"role": "model", "parts": [{"text": "Added."}]},
    ]
    write_checkpoint(folder, "first", history)
    sessions, _ = read(tmp_path, path)
    whole = next(s for s in sessions if s.session_id == SID)
    saved = next(s for s in sessions if "/checkpoint/" in s.session_id)
    assert saved.forked_from == SID
    assert saved.started_at == whole.messages[0].timestamp == saved.messages[0].timestamp
