"""Gemini CLI: a warning about a damaged message names the file and line of the record whose
value was read (JSONL records are upserted by id: the id's last line), as every other
source's per-line warning does (``file:line: …``), not the message id alone (review21 F5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load_sessions
from gemini_builder import GeminiChat, project_folder

from exporter.adapters import gemini as gemini_adapter
from exporter.adapters.gemini import GeminiAdapter

SID = "9c1e3f2a-5b7d-4e2f-8a1c-0d9e8f7a6b5c"
ROOT = "/home/dev/work/api"
DAMAGED = {"weird": 1}  # content of no known kind
WHY = "its content is of no known kind"


def _chat() -> GeminiChat:
    chat = GeminiChat(SID, ROOT)
    chat.user("hello")
    chat.gemini("a fine reply")
    return chat


def _warnings(home: Path) -> list[tuple[str, int | None, str]]:
    _sessions, problems = load_sessions(GeminiAdapter(), home)
    return [(Path(p.path).name, p.line, p.message) for p in problems]


@pytest.fixture(params=[False, True], ids=["held", "indexed"])
def indexed(request, monkeypatch):
    """Both readings of a JSONL chat: held whole, and indexed (a long session)."""
    if request.param:
        monkeypatch.setattr(gemini_adapter, "STREAM_FROM", 0)
    return request.param


def test_a_damaged_message_is_named_with_its_line(tmp_path, indexed):
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    chat = _chat()
    bad = chat.gemini(DAMAGED)
    path = chat.write_jsonl(chats)  # line 1: the header; the damaged reply is line 4
    ((name, line, message),) = _warnings(tmp_path)
    assert (name, line) == (path.name, 4)
    assert message.startswith(f'message "{bad["id"]}": {WHY}')


def test_an_upserted_message_is_named_with_the_line_whose_value_was_read(tmp_path, indexed):
    """The id's first line was fine; an update of it (line 5) is damaged: that line is named,
    not the first, nor none."""
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    chat = _chat()
    reply = chat.messages[1]
    chat.user("and then?")
    path = chat.write_jsonl(chats, extra_lines=[dict(reply, content=DAMAGED)])
    ((name, line, message),) = _warnings(tmp_path)
    assert (name, line) == (path.name, 5)
    assert message.startswith(f'message "{reply["id"]}": {WHY}')


def test_a_message_left_behind_by_a_rewind_keeps_its_line(tmp_path, indexed):
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    chat = _chat()
    chat.user("a prompt that was rewound")
    bad = chat.gemini(DAMAGED)  # line 5
    rewind = {"$rewindTo": chat.messages[2]["id"]}
    again = {"id": "new", "type": "user", "content": "after", "timestamp": chat.stamp()}
    chat.write_jsonl(chats, extra_lines=[rewind, again])
    ((_name, line, message),) = _warnings(tmp_path)
    assert line == 5 and message.startswith(f'message "{bad["id"]}": {WHY}')


def test_a_session_in_two_files_names_the_file_the_message_is_in(tmp_path):
    """A legacy document and the JSONL it was migrated to: a message of the document is
    named by the document (which has no lines of its own), one of the log by the log."""
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    chat = _chat()
    old = chat.gemini(DAMAGED)
    document = chat.write_json(chats)
    chat.messages.remove(old)  # (only the document holds it)
    chat.user("after the resume", id="after")
    new = chat.gemini(["a list holding", 7])  # a part of no known kind, line 5 of the log
    log = chat.write_jsonl(chats)
    said = {message.split(":")[0]: (name, line) for name, line, message in _warnings(tmp_path)}
    assert said == {f'message "{old["id"]}"': (document.name, None),
                    f'message "{new["id"]}"': (log.name, 5)}  # fmt: skip
