"""A damaged record whose id or kind is a list or an object, where a string belongs, costs
at most itself: looked up in a set or a dict, it raised ``unhashable type`` and the whole
session failed to load (test_fuzz_adapters found the Codex one)."""

from __future__ import annotations

import json

from codex_builder import CodexRollout
from conftest import load_sessions
from gemini_builder import GeminiChat, project_folder

from exporter.adapters.codex import CodexAdapter
from exporter.adapters.gemini import GeminiAdapter

TID = "019a0000-1111-7222-8333-44445555aaaa"


def _texts(session) -> str:
    return json.dumps([repr(m.parts) for m in session.messages])


def test_a_codex_call_output_whose_call_id_is_a_list_costs_only_itself(tmp_path):
    r = CodexRollout(TID)
    r.user("mk1x spawn one")
    r.spawn_agent("look around", {"agent_id": "019a0000-1111-7222-8333-44445555bbbb"})
    r.item({"type": "function_call_output", "call_id": ["x"], "output": "odd"})
    r.item({"type": "function_call_output", "call_id": {"id": 1}, "output": "odd"})
    r.event({"type": "user_message", "message": "mk3x typed", "kind": ["user_instructions"]})
    r.assistant("mk2x done")
    r.write(tmp_path / ".codex")
    sessions, problems = load_sessions(CodexAdapter(), tmp_path)
    main = [s for s in sessions if s.session_id == TID]
    assert main and all(mark in _texts(main[0]) for mark in ("mk1x", "mk2x")), problems
    # (the event of an odd kind is read as the prompt it is: before, its line was skipped as
    # "unexpected shape (TypeError: unhashable type: 'list')")
    assert not [p for p in problems if "unhashable" in str(p)], problems


def test_a_gemini_tool_call_whose_status_is_a_list_costs_only_itself(tmp_path):
    chat = GeminiChat("5e5e5e5e-0000-4000-8000-0000000000cc")
    chat.user("mk1x question", id="q1")
    reply = chat.gemini("mk2x answer")
    reply["toolCalls"] = [{"id": "c1", "name": "read_file", "args": {}, "status": ["executing"]}]
    chat.write_jsonl(project_folder(tmp_path, "/w/api", "api") / "chats")
    sessions, problems = load_sessions(GeminiAdapter(), tmp_path)
    assert sessions and "mk1x" in _texts(sessions[0]) and "mk2x" in _texts(sessions[0]), problems
