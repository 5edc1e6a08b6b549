"""Damaged Gemini CLI and Antigravity files (found by a seeded mutation run over synthetic
homes, about 300 damages a source). Whatever is damaged costs only itself and is said, with
the file and the message, entry, turn or line it is in; what is still readable is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import load_sessions, texts
from fuzz_lines import MARKER
from fuzz_oracle import checked_export
from gemini_builder import GeminiChat, project_folder, tool_call, write_checkpoint, write_prompt_log
from test_antigravity_adapter import ROOT as AG_ROOT
from test_antigravity_adapter import step, transcript

from exporter.adapters.antigravity import AntigravityAdapter
from exporter.adapters.gemini import GeminiAdapter

SID = "aaaaaaaa-1111-4111-8111-111111111111"
ROOT = "/home/dev/work/api"


def gemini(home: Path) -> tuple[dict, list[str]]:
    sessions, problems = load_sessions(GeminiAdapter(), home)
    return {s.session_id: s for s in sessions}, [
        f"{Path(p.path).name}: {p.message}" for p in problems
    ]


def antigravity(home: Path) -> tuple[dict, list[str]]:
    sessions, problems = load_sessions(AntigravityAdapter(), home)
    return {s.session_id: s for s in sessions}, [str(p) for p in problems]


def chat() -> GeminiChat:
    c = GeminiChat(SID, ROOT)
    c.user("mk1x first prompt")
    c.gemini("mk2x reply", calls=[tool_call("c1", "read_file", {"path": "/p/a"}, "mk3x output")])
    return c


def project(home: Path) -> Path:
    return project_folder(home, ROOT, "api", marker=True)


# -- Gemini CLI: parts -----------------------------------------------------------------------


def test_a_part_of_no_known_kind_or_type_in_a_message_is_said(tmp_path):
    """A prompt whose only part was damaged ({"a": 1}) vanished, and a tool's result part
    whose key was garbled by invalid bytes lost its output, both in silence."""
    c = chat()
    c.user([{"a": 1}, 7])
    c.messages[1]["toolCalls"][0]["result"][0] = {"functM\ufffdonResponse": {}}
    c.notice("info", {"text": ["mk4x"]})
    path = c.write_jsonl(project(tmp_path) / "chats")
    sessions, problems = gemini(tmp_path)
    assert texts(sessions[SID]) == ["mk1x first prompt", "mk2x reply"]
    at = f'{path.name}: message "aaaaaaaa-m'
    assert problems == [
        f"{at}2\": tool call 1's result: part 1 is of no known kind (no text, data or call): "
        "left out",
        f'{at}3": its content: part 1 is of no known kind (no text, data or call): left out',
        f'{at}3": its content: part 2 is a number, not an object: left out',
        f'{at}4": its content has a text that is a list, not text: left out',
    ]


@pytest.mark.parametrize("form", ["jsonl", "json"])
def test_a_tool_result_that_is_text_or_a_single_part_is_read(tmp_path, form):
    """gemini-cli's ``ToolCallRecord.result`` is ``PartListUnion | null``: text, a single
    Part, or a list of Parts and texts. Each was called damage ("is an object, not a list",
    "is text, not a list", "part 1 is text, not an object") and its output left out."""
    c = chat()
    response = {"functionResponse": {"id": "c2", "name": "ls", "response": {"output": "mk40x"}}}
    failed = {"functionResponse": {"id": "c5", "name": "ls", "response": {"error": "mk44x"}}}
    calls = [
        {**tool_call("c2", "ls", {}), "result": response},
        {**tool_call("c3", "ls", {}), "result": "mk41x a.py\nb.py"},
        {**tool_call("c4", "ls", {}), "result": ["mk42x ", {"text": "mk43x"}]},
        {**tool_call("c5", "ls", {}), "status": "error", "result": failed},
    ]
    c.gemini("mk45x", calls=calls)
    folder = project(tmp_path) / "chats"
    c.write_jsonl(folder) if form == "jsonl" else c.write_json(folder)
    sessions, problems = gemini(tmp_path)
    assert problems == []
    results = [
        (p.call_id, p.output, p.is_error)
        for m in sessions[SID].messages
        for p in m.parts
        if p.kind == "tool_result"
    ]
    assert results == [
        ("c1", "mk3x output", False),
        ("c2", "mk40x", False),
        ("c3", "mk41x a.py\nb.py", False),
        ("c4", "mk42x \nmk43x", False),
        ("c5", "mk44x", True),
    ]


def test_content_lists_holding_text_are_read(tmp_path):
    """``BaseMessageRecord.content`` (and ``displayContent``) is a ``PartListUnion``: a list
    may hold strings beside Parts. Each string was called damage ("part 1 is text, not an
    object: left out") and its words left out of the prompt, reply or notice."""
    c = chat()
    c.user(["mk50x and ", {"text": "mk51x then?"}])
    c.user("mk52x sent", displayContent=["mk53x typed ", {"text": "mk54x"}])
    c.gemini(["mk55x ", {"text": "mk56x reply"}])
    c.notice("info", ["mk57x ", {"text": "mk58x note"}])
    c.write_jsonl(project(tmp_path) / "chats")
    sessions, problems = gemini(tmp_path)
    assert problems == []
    assert texts(sessions[SID]) == [
        "mk1x first prompt",
        "mk2x reply",
        "mk50x and mk51x then?",
        "mk53x typed mk54x",
        "mk55x mk56x reply",
    ]
    notices = [p.text for m in sessions[SID].messages for p in m.parts if p.kind == "notice"]
    assert notices == ["mk57x mk58x note"]


def test_a_result_that_is_no_text_part_or_list_is_still_said(tmp_path):
    """Beside the shapes the type allows, a result of another type is damage, said as such."""
    c = chat()
    c.messages[1]["toolCalls"][0]["result"] = 7
    path = c.write_jsonl(project(tmp_path) / "chats")
    _, problems = gemini(tmp_path)
    assert problems == [
        f'{path.name}: message "aaaaaaaa-m2": tool call 1\'s result is a number, not text, a '
        "part or a list: left out"
    ]


def test_tool_calls_thoughts_and_tokens_of_the_wrong_type_are_said(tmp_path):
    """Each was left out (or not counted) in silence: a toolCalls that is a number, a call
    or a result part that is a list, a response that is text, thoughts that are a number."""
    c = chat()
    c.gemini("mk5x", calls=[tool_call("c2", "ls", {}, "x"), tool_call("c3", "ls", {}, "y")])
    c.gemini("mk6x", thoughts=[{"subject": "s", "description": ["d"]}, "t"])
    c.messages[1]["toolCalls"] = 1e30
    c.messages[2]["toolCalls"][0] = ["ls"]
    c.messages[2]["toolCalls"][1]["result"] = [{"functionResponse": {"response": "mk7x out"}}]
    c.messages[2]["tokens"] = [1]
    c.messages[3]["toolCalls"] = [{"name": "ls", "result": {"output": "z"}}]
    path = c.write_json(project(tmp_path) / "chats")
    sessions, problems = gemini(tmp_path)
    assert texts(sessions[SID], "assistant") == ["mk2x reply", "mk5x", "mk6x"]
    at = f'{path.name}: message "aaaaaaaa-m'
    assert problems == [
        f'{at}2": its toolCalls are a number, not a list: left out',
        f'{at}3": its tokens are a list, not an object: not counted',
        f'{at}3": tool call 1 is a list, not an object: left out',
        f"{at}3\": tool call 2's result: part 1: its response is text, not an object: left out",
        f"{at}4\": thought 1's description is a list, not text: left out",
        f'{at}4": thought 2 is text, not an object: left out',
        f"{at}4\": tool call 1's result is of no known kind (no text, data or call): left out",
    ]


def test_a_saved_chats_damaged_turns_and_parts_are_said(tmp_path):
    """A turn or part that was no object, a part whose key was garbled ("te\\ufffd\\ufffdxt",
    invalid bytes read leniently) or a call that was a list were dropped in silence."""
    history = [
        {"role": "user", "parts": [{"te\ufffd\ufffdxt": "mk1x"}, {"text": "mk2x prompt"}]},
        True,
        {"role": "model", "parts": ["mk3x", {"functionCall": []}, {"text": "mk4x reply"}]},
        {"role": "model", "parts": {"text": "mk5x"}},
    ]
    path = write_checkpoint(project(tmp_path), "tag", history)
    sessions, problems = gemini(tmp_path)
    assert texts(sessions["api/checkpoint/tag"]) == ["mk2x prompt", "mk4x reply"]
    at = f"{path.name}: turn"
    assert problems == [
        f"{at} 1: part 1 is of no known kind (no text, data or call): left out",
        f"{at} 2 is true, not an object: left out",
        f"{at} 3: part 1 is text, not an object: left out",
        f"{at} 3: part 2 has a functionCall that is a list, not an object: left out",
        f"{at} 4's parts are an object, not a list: left out",
    ]


def test_a_prompt_logs_damaged_entries_are_said(tmp_path):
    """A session id that was a number, a missing message, a type of no kind known here, an
    entry that was no object: each entry was dropped in silence (a chatless session's note
    lost that prompt)."""
    other = "cccccccc-3333-4333-8333-333333333333"
    stamps = [f"2026-04-01T10:0{i}:00Z" for i in range(5)]
    path = write_prompt_log(
        project(tmp_path), [(other, t, f"mk{i}x prompt") for i, t in enumerate(stamps)]
    )
    rows = json.loads(path.read_text())
    rows[1]["sessionId"] = 7
    del rows[2]["message"]
    rows[3]["type"] = "model"
    rows.append(["mk9x"])
    rows.append({**rows[0], "sessionId": True})
    path.write_text(json.dumps(rows))
    sessions, problems = gemini(tmp_path)
    assert texts(sessions[other], "user") == ["mk0x prompt", "mk4x prompt"]
    assert problems == [
        "logs.json: entry 2: its sessionId is a number, not text: left out",
        "logs.json: entry 3: it has no message: left out",
        'logs.json: entry 4: its type is "model", not "user": left out',
        "logs.json: entry 6: it is a list, not an object: left out",
        "logs.json: entry 7: its sessionId is true, not text: left out",
    ]


def test_subagents_whose_chat_file_is_gone_or_a_folder_keep_their_notes(tmp_path):
    """The subagents of a session whose chat file was a folder (or was deleted) were never
    found: lost in silence. Now each has its note, under its session's id, and it is said."""
    folder = project(tmp_path)
    main = chat()
    (folder / "chats" / main.file_name(".jsonl")).mkdir(parents=True)
    sub = GeminiChat("agent-1", ROOT, kind="subagent")
    sub.user("mk30x task")
    sub.gemini("mk31x sub reply")
    sub.write_jsonl(folder / "chats" / SID, "agent-1.jsonl")
    sessions, problems = gemini(tmp_path)
    child = sessions[f"{SID}/agent-agent-1"]
    assert (child.parent_id, child.cwd, texts(child)) == (
        SID,
        ROOT,
        ["mk30x task", "mk31x sub reply"],
    )
    assert problems == [
        f'{SID}: no chat file of session "{SID}" beside this folder (gone, or not a file): '
        "its subagents are exported alone"
    ]
    text, _ = export_notes(tmp_path, "gemini")
    assert {"mk30x", "mk31x"} <= set(MARKER.findall(text))


def export_notes(home: Path, source: str) -> tuple[str, list[str]]:
    return checked_export(home, home.parent / f"vault-{source}", source)


# -- Antigravity ----------------------------------------------------------------------------


def ag_steps() -> list[dict]:
    return [
        step(0, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nmk1x ask\n</USER_REQUEST>"),
        step(1, "PLANNER_RESPONSE", thinking="mk2x think", content="mk3x reply",
             tool_calls=[{"name": "view_file", "args": {"AbsolutePath": '"/tmp/a"'}}]),
        step(2, "VIEW_FILE", content="mk4x body"),
        step(3, "PLANNER_RESPONSE", content="mk5x final"),
    ]  # fmt: skip


def test_a_steps_text_of_the_wrong_type_is_said(tmp_path):
    """A prompt, thinking, reply or tool output that was a number, a list or an object was
    left out in silence (the output as an empty answer to its call)."""
    steps = ag_steps()
    steps[0]["content"] = ["mk1x"]
    steps[1]["thinking"] = 7
    steps[2]["content"] = {"text": "mk4x"}
    steps[3]["content"] = True
    path = transcript(tmp_path, steps)
    _, problems = antigravity(tmp_path)
    assert problems == [
        f"{path}:1: its content is a list, not text: left out",
        f"{path}:2: its thinking is a number, not text: left out",
        f"{path}:3: its content is an object, not text: left out",
        f"{path}:4: its content is true, not text: left out",
    ]


def test_tool_calls_of_the_wrong_type_are_said(tmp_path):
    steps = ag_steps()
    steps[1]["tool_calls"] = [["view_file"], {"name": "ls", "args": False}]
    steps[3]["tool_calls"] = 5
    path = transcript(tmp_path, steps)
    sessions, problems = antigravity(tmp_path)
    assert texts(next(iter(sessions.values())), "assistant") == ["mk3x reply", "mk5x final"]
    assert problems == [
        f"{path}:2: tool call 1 is a list, not an object: left out",
        f"{path}:2: tool call 2's args are false, not an object",
        f"{path}:4: its tool_calls are a number, not a list: left out",
    ]


def test_what_a_step_of_a_type_not_known_here_does_not_give_is_said(tmp_path):
    """A step of the person's of an unknown type was dropped in silence; so were the
    thinking and tool calls of a model's step whose type was unknown (a garbled
    PLANNER_RESPONSE: its reply was kept as a tool's output, its calls lost)."""
    steps = ag_steps()
    steps[0]["type"] = "USER_VOICE"
    steps[1]["type"] = "PLANNER_RESPONS\ufffd"
    steps.append(step(4, "BROWSER_ACTION", content="mk6x page"))  # an output: no word
    path = transcript(tmp_path, steps)
    sessions, problems = antigravity(tmp_path)
    assert "mk3x reply" in [p.output for m in next(iter(sessions.values())).messages
                            for p in m.parts if p.kind == "tool_result"]  # fmt: skip
    assert problems == [
        f'{path}:1: a step of a type not known here ("USER_VOICE"): its content left out',
        f'{path}:2: a step of a type not known here ("PLANNER_RESPONS\ufffd"): its thinking '
        "and tool calls left out",
    ]


@pytest.mark.parametrize(
    ("cache", "why"),
    [
        ({"/home/dev/ag": 7}, 'the entry of workspace "/home/dev/ag" holds a number, not the id of '
         "a conversation"),
        ({"/home/dev/ag": {"id": ""}}, 'the entry of workspace "/home/dev/ag" names no '
         "conversation"),
        ({"/home/o'brien": 7}, 'the entry of workspace "/home/o\'brien" holds a number, not the id '
         "of a conversation"),
        ({"": "5b6c"}, "an entry names no workspace"),
        ([], "holds a list, not an object of workspaces"),
        (None, "holds null, not an object of workspaces"),  # (it was read as no cache at all)
    ],
    ids=["an entry", "an empty id", "an apostrophe", "no workspace", "the whole file", "null"],
)  # fmt: skip
def test_a_damaged_workspace_cache_is_said(tmp_path, cache, why):
    """Its conversation lost its folder in silence."""
    transcript(tmp_path, ag_steps())
    path = tmp_path / AG_ROOT / "cache" / "last_conversations.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(cache))
    sessions, problems = antigravity(tmp_path)
    assert [s.cwd for s in sessions.values()] == [None]
    then = "until it can be read, the working folders it gives are kept from the last run"
    _, said = export_notes(tmp_path, "antigravity")
    assert said == [f"{path}: {why}; {then}"]


# -- Both: how a damaged record's value is named ---------------------------------------------


def test_a_value_in_a_message_is_named_in_double_quotes_and_clipped(tmp_path):
    """Values were named by Python's repr: an id holding an apostrophe came out in other
    quotes ("it's"), a long one whole. Now in double quotes, as they are written, at most
    about 40 characters (``_values.quoted``), as OpenCode and Cursor name theirs."""
    c = chat()
    c.messages[1]["id"] = "it's-m2"
    c.messages[1]["content"] = 7
    c.messages.append({**c.messages[0], "id": "m3", "type": "vox'" + "x" * 60})
    path = c.write_jsonl(project(tmp_path) / "chats")
    _, problems = gemini(tmp_path)
    assert problems == [
        f'{path.name}: message "it\'s-m2": its content is a number, not text or a list: left out',
        f'{path.name}: unknown message type "vox\'…" skipped',
    ]
