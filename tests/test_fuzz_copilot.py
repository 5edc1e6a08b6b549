"""Damaged GitHub Copilot Chat (VS Code) sessions, logs and databases, and damaged Copilot
CLI event logs (found by a seeded mutation run over synthetic homes). Whatever is damaged
costs only itself and is said, with the file, and the line or request it is in; the other
sessions are exported whole, and no note holds a Python repr, a control character or
frontmatter that does not parse."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from conftest import load_sessions, texts
from copilot_builder import log_lines, markdown, request, terminal_tool, write
from copilot_builder import session as vs_session
from copilot_cli_builder import CopilotCliSession
from copilot_cli_builder import request as cli_request
from fuzz_lines import MARKER
from fuzz_oracle import checked_export
from vscode_builder import workspace

from exporter.adapters import SourceContext
from exporter.adapters._jsonl import NOT_UTF8
from exporter.adapters.copilot import CopilotAdapter
from exporter.adapters.copilot_cli import CopilotCliAdapter
from exporter.export import ExportOptions, run_export

INDEX = "chat.ChatSessionStore.index"
LEGACY = "interactive.sessions"
URI = {
    "$mid": 1,
    "fsPath": "/home/dev/a/login.py",
    "path": "/home/dev/a/login.py",
    "scheme": "file",
}


def export(home: Path, vault: Path, source: str) -> tuple[str, list[str]]:
    """Every note's text, checked (``fuzz_oracle``), and the problems as printed."""
    return checked_export(home, vault, source)


# -- Copilot Chat in VS Code ---------------------------------------------------------------


def rich_request() -> dict[str, Any]:
    """A request with what the reader looks at, each text with its marker."""
    made = request(1, "mk1x first prompt", [
        markdown("mk2x the answer"),
        terminal_tool("call-1", "mk3x ls", "mk4x output"),
        {"kind": "textEditGroup", "uri": URI, "edits": [[{"text": "mk5x code", "range": {
            "startLineNumber": 1, "startColumn": 1, "endLineNumber": 1, "endColumn": 1}}]]},
        markdown("mk6x after"),
    ])  # fmt: skip
    made["message"]["parts"] = [{"kind": "text", "text": "mk1x first prompt"}]
    made["variableData"] = {"variables": [
        {"kind": "paste", "code": "mk7x pasted", "copiedFrom": {"uri": URI}}]}  # fmt: skip
    return made


def chat(sid: str, requests: list[dict[str, Any]]) -> dict[str, Any]:
    data = vs_session(sid, requests)
    data["pendingRequests"], data["inputState"] = [], {}
    return data


def vs_home(home: Path, rich: dict[str, Any] | None = None, log: str | None = None) -> Path:
    """Workspace ``ws-a`` holds the rich chat (``rich`` in its place when given; ``log``: a
    ``.jsonl`` log in place of the ``.json``) and a plain one, ``ws-b`` another plain one,
    each with a title index. Returns the rich chat's file."""
    user = home / ".config" / "Code" / "User"
    for ws, folder, sid in (("ws-a", "a", "s-two"), ("ws-b", "b", "s-four")):
        index = {"version": 1, "entries": {sid: {"title": f"{sid} titled"}}}
        workspace(user, ws, f"file:///home/dev/{folder}", {INDEX: json.dumps(index)})
    chats = user / "workspaceStorage" / "ws-a" / "chatSessions"
    plain = [request(1, "mk20x question", [markdown("mk21x answer")])]
    write(chats / "s-two.json", chat("s-two", plain))
    plain = [request(1, "mk40x question", [markdown("mk41x answer")])]
    write(
        user / "workspaceStorage" / "ws-b" / "chatSessions" / "s-four.json", chat("s-four", plain)
    )
    if log is not None:
        return write(chats / "s-rich.jsonl", log)
    return write(chats / "s-rich.json", rich or chat("s-rich", [rich_request()]))


OTHERS = {"mk20x", "mk21x", "mk40x", "mk41x"}


def test_a_prompt_that_is_not_text_is_read_from_its_parts_and_said(tmp_path):
    """A message.text of a number lost the prompt and what was attached to it, unsaid."""
    made = rich_request()
    made["message"]["text"] = 7
    path = vs_home(tmp_path / "home", chat("s-rich", [made]))
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot")
    assert {"mk1x", "mk7x", *OTHERS} <= set(MARKER.findall(text))
    assert problems == [
        f"{path}: request 1: its prompt (message.text) is a number, not text: read from its parts"
    ]


@pytest.mark.parametrize(
    ("message", "said"),
    [
        (None, "it has no message (the prompt)"),
        (["mk1x"], "its message (the prompt) is a list, not an object"),
        ({"parts": []}, "its message has no text (the prompt)"),
    ],
    ids=["missing", "a list", "no text"],
)
def test_a_request_whose_prompt_is_lost_keeps_its_attachments_and_says_so(tmp_path, message, said):
    made = rich_request()
    if message is None:
        del made["message"]
    else:
        made["message"] = message
    path = vs_home(tmp_path / "home", chat("s-rich", [made]))
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot")
    assert {"mk2x", "mk7x", *OTHERS} <= set(MARKER.findall(text))
    assert problems == [f"{path}: request 1: {said}: left out"]


def test_a_response_part_with_no_kind_and_no_text_or_no_object_is_said(tmp_path):
    """A tool invocation that lost its kind, read as markdown with no text, and a part
    that is a number, were dropped without a word."""
    made = rich_request()
    del made["response"][1]["kind"]
    made["response"].insert(0, 12)
    path = vs_home(tmp_path / "home", chat("s-rich", [made]))
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot")
    assert {"mk1x", "mk2x", "mk6x", *OTHERS} <= set(MARKER.findall(text))
    assert problems == [
        f"{path}: request 1: response part 1 is a number, not an object: left out",
        f"{path}: response parts of a kind not known here left out: "
        "a part with no kind and no text",
    ]


@pytest.mark.parametrize(("uri", "said"), [([], "its uri is a list"), (None, "it has no uri")])
def test_an_edit_of_no_file_is_said(tmp_path, uri, said):
    made = rich_request()
    if uri is None:
        del made["response"][2]["uri"]
    else:
        made["response"][2]["uri"] = uri
    path = vs_home(tmp_path / "home", chat("s-rich", [made]))
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot")
    assert {"mk1x", "mk4x", "mk6x", *OTHERS} <= set(MARKER.findall(text))
    assert problems == [
        f"{path}: request 1: response part 3: an edit of no file ({said}): left out"
    ]


@pytest.mark.parametrize(
    ("kind", "said"), [(True, "its kind is true, not text"), (None, "it has no kind")]
)
def test_a_pasted_attachment_whose_kind_is_damaged_is_read_and_said(tmp_path, kind, said):
    """Pasted text whose kind was lost (or not text) was dropped without a word."""
    made = rich_request()
    variable = made["variableData"]["variables"][0]
    if kind is None:
        del variable["kind"]
    else:
        variable["kind"] = kind
    path = vs_home(tmp_path / "home", chat("s-rich", [made]))
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot")
    assert {"mk1x", "mk7x", *OTHERS} <= set(MARKER.findall(text))
    assert problems == [
        f"{path}: request 1: attached item 1: {said}: read as pasted text (it holds code)"
    ]


def _log(*changes: dict[str, Any]) -> str:
    made = rich_request()
    start = chat("s-rich", [])
    second = request(2, "mk10x second prompt", [markdown("mk11x second answer")])
    return log_lines([
        {"kind": 0, "v": start},
        {"kind": 2, "k": ["requests"], "v": [made]},
        {"kind": 2, "k": ["requests"], "v": [second]},
        *changes,
    ])  # fmt: skip


def test_a_log_entry_with_no_path_does_not_replace_the_session(tmp_path):
    """A set (kind 1) that lost its path ``k`` was read as an empty path: the whole session
    replaced by its value (here a request's result), every request lost in silence."""
    result = {"timings": {"totalElapsed": 5}, "errorDetails": {"message": "failed"}}
    log = _log({"kind": 1, "v": result})
    path = vs_home(tmp_path / "home", log=log)
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot")
    assert {"mk1x", "mk2x", "mk10x", "mk11x", *OTHERS} <= set(MARKER.findall(text))
    assert problems == [f"{path}:4: log entry (kind 1) with no path (k), skipped"]


def test_a_log_entry_of_a_kind_that_is_not_a_number_is_named_by_its_type(tmp_path):
    """Said as "unknown log entry kind None": a Python repr."""
    path = vs_home(tmp_path / "home", log=_log({"kind": "1", "k": ["customTitle"], "v": "x"}))
    _text, problems = export(tmp_path / "home", tmp_path / "v", "copilot")
    assert problems == [f"{path}:4: unknown log entry kind text, skipped"]


def _set_index(home: Path, sql: str, *args: Any) -> Path:
    """Applies ``sql`` to both workspaces' databases; returns ws-a's."""
    user = home / ".config" / "Code" / "User" / "workspaceStorage"
    for ws in ("ws-a", "ws-b"):
        with closing(sqlite3.connect(user / ws / "state.vscdb")) as conn:
            conn.execute(sql, args)
            conn.commit()
    return user / "ws-a" / "state.vscdb"


@pytest.mark.parametrize(
    ("sql", "args", "said"),
    [
        ("UPDATE ItemTable SET value = NULL WHERE key = ?", (INDEX,), "not JSON"),
        ("UPDATE ItemTable SET value = 7 WHERE key = ?", (INDEX,), "not JSON"),
        ("UPDATE ItemTable SET value = ? WHERE key = ?", (b"\xff{", INDEX), "not JSON"),
        ("UPDATE ItemTable SET value = ? WHERE key = ?", ('{"entr', INDEX), "not JSON"),
        ("UPDATE ItemTable SET value = ? WHERE key = ?", ('{"entries": [1]}', INDEX), "a list"),
        ("UPDATE ItemTable SET value = ? WHERE key = ?", ("[1]", INDEX), "a list"),
        ("DROP TABLE ItemTable", (), "no ItemTable"),
    ],
    ids=["NULL", "a number", "bytes", "cut short", "entries a list", "a list", "no table"],
)
def test_a_damaged_title_index_is_said(tmp_path, sql, args, said):
    """The titles of a workspace's chats were lost in silence (each chat titled by its
    first prompt instead)."""
    home = tmp_path / "home"
    vs_home(home)
    db = _set_index(home, sql, *args)
    text, problems = export(home, tmp_path / "v", "copilot")
    assert {"mk1x", *OTHERS} <= set(MARKER.findall(text))
    mine = [p for p in problems if p.startswith(f"{db}: ")]
    assert len(mine) == 1 and said in mine[0] and "chat titles" in mine[0], problems
    assert len(problems) == 2  # (and ws-b's)


def test_an_empty_title_index_or_none_is_no_damage(tmp_path):
    home = tmp_path / "home"
    vs_home(home)
    _set_index(home, "UPDATE ItemTable SET value = 'null' WHERE key = ?", INDEX)
    assert load_sessions(CopilotAdapter(), home)[1] == []
    _set_index(home, "DELETE FROM ItemTable WHERE key = ?", INDEX)
    assert load_sessions(CopilotAdapter(), home)[1] == []


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ("[{", "a value that is not JSON (damaged or cut short); not exported"),
        (7, "a value that is not JSON (damaged or cut short); not exported"),
        ('{"a": 1}', "it is an object, not a list; not exported"),
    ],
)
def test_damaged_pre_file_sessions_are_said(tmp_path, stored, said):
    """interactive.sessions (the chats before session files) not JSON was not even found:
    the chats it held were lost without a word."""
    home = tmp_path / "home"
    vs_home(home)
    db = _set_index(home, "INSERT INTO ItemTable VALUES (?, ?)", LEGACY, stored)
    text, problems = export(home, tmp_path / "v", "copilot")
    assert {"mk1x", *OTHERS} <= set(MARKER.findall(text))
    other = db.parent.parent / "ws-b" / "state.vscdb"  # (_set_index damaged both)
    assert problems == [f"{db}: {LEGACY}: {said}", f"{other}: {LEGACY}: {said}"]


@pytest.mark.parametrize("stored", ["[]", "null"], ids=["an empty list", "null"])
def test_a_workspace_that_kept_no_pre_file_sessions_is_no_source(tmp_path, stored):
    """VS Code stores the workspace's chats in interactive.sessions, [] when it keeps none:
    that is no chat, and no source of chats without a conversation (each run said one)."""
    home = tmp_path / "home"
    vs_home(home)
    _set_index(home, "INSERT INTO ItemTable VALUES (?, ?)", LEGACY, stored)
    refs = list(CopilotAdapter().discover(SourceContext(home, {}, False)))
    assert not [r.session_id for r in refs if r.session_id.startswith("legacy:")]
    report = run_export(
        ExportOptions(vault=tmp_path / "v", home=home, sources=["copilot"], timezone=UTC)
    )
    assert report.problems == [] and report.empty_units == []


def test_a_pre_file_session_that_is_damaged_costs_only_itself_and_is_said(tmp_path):
    home = tmp_path / "home"
    vs_home(home)
    old = chat("s-old", [request(1, "mk50x old question", [markdown("mk51x old answer")])])
    stored = json.dumps([7, {"sessionId": 8, "requests": []}, old])
    db = _set_index(home, "INSERT INTO ItemTable VALUES (?, ?)", LEGACY, stored)
    sessions, problems = load_sessions(CopilotAdapter(), home)
    assert texts(next(s for s in sessions if s.session_id == "s-old")) == [
        "mk50x old question",
        "mk51x old answer",
    ]
    assert [p.message for p in problems if p.path == str(db)] == [
        f"{LEGACY}: session 1 is a number, not an object; skipped",
        f"{LEGACY}: session 2 has no sessionId (text); skipped",
    ]


# -- Copilot CLI -----------------------------------------------------------------------------


def cli_home(
    home: Path, rich: CopilotCliSession, workspace_yaml: str | bytes | None = None
) -> Path:
    """The rich log (beside ``workspace_yaml`` when given) and a plain one."""
    root = home / ".copilot"
    path = rich.write(root)
    if workspace_yaml is not None:
        raw = workspace_yaml if isinstance(workspace_yaml, bytes) else workspace_yaml.encode()
        (path.parent / "workspace.yaml").write_bytes(raw)
    plain = CopilotCliSession("s-two")
    plain.user("mk20x question")
    plain.assistant("mk21x answer")
    plain.write(root)
    return path


def rich_cli() -> CopilotCliSession:
    s = CopilotCliSession("s-rich")
    s.user("mk1x first prompt")
    s.assistant("mk2x looking", [cli_request("c1", "bash", {"command": "mk3x ls"})])
    s.tool("c1", "bash", {"command": "mk3x ls"}, "mk4x listing")
    s.user("mk5x second prompt")
    s.assistant("mk6x second answer")
    return s


def test_an_event_with_no_data_or_null_data_is_said(tmp_path):
    """Data that was not an object was said, but none (or null) went silent."""
    s = rich_cli()
    del s.events[5]["data"]  # the second prompt
    s.events[6]["data"] = None  # a reply to it
    s.assistant("mk7x third answer")
    path = cli_home(tmp_path / "home", s)
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot-cli")
    assert {"mk1x", "mk2x", "mk4x", "mk7x", "mk20x", "mk21x"} <= set(MARKER.findall(text))
    assert problems == [
        f"{path}:6: the event has no data: left out",
        f"{path}:7: the event's data is null, not an object: left out",
    ]


def test_text_of_the_wrong_type_is_said(tmp_path):
    """A prompt, a reply, a reasoning that was not text was dropped without a word."""
    s = rich_cli()
    s.events[1]["data"]["content"] = 7
    s.events[2]["data"]["content"] = ["mk2x looking"]
    s.events[2]["data"]["reasoningText"] = {"text": "x"}
    s.event("assistant.reasoning", {"reasoningId": "r", "content": False})
    del s.events[5]["data"]["content"]  # the second prompt: nothing left of it
    path = cli_home(tmp_path / "home", s)
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot-cli")
    assert {"mk3x", "mk4x", "mk6x", "mk20x", "mk21x"} <= set(MARKER.findall(text))
    assert problems == [
        f"{path}:2: the prompt's content is a number, not text: left out",
        f"{path}:3: the reply's reasoningText is an object, not text: left out",
        f"{path}:3: the reply's content is a list, not text: left out",
        f"{path}:6: a prompt with no content: left out",
        f"{path}:8: the reasoning's content is false, not text: left out",
    ]


def test_a_reply_with_nothing_in_it_is_said(tmp_path):
    s = rich_cli()
    del s.events[6]["data"]["content"]
    s.events[6]["data"]["toolRequests"] = []
    path = cli_home(tmp_path / "home", s)
    _text, problems = export(tmp_path / "home", tmp_path / "v", "copilot-cli")
    assert problems == [f"{path}:7: a reply with no content: left out"]


def test_a_tool_event_with_no_call_id_is_said(tmp_path):
    """A tool's result, call or request, and a sub-agent's event, with no toolCallId (or
    one that is not text) were dropped without a word."""
    s = rich_cli()
    del s.events[4]["data"]["toolCallId"]  # the result
    s.assistant("", [cli_request(["x"], "bash", {"command": "pwd"}), 7])
    s.event("tool.execution_start", {"toolCallId": "", "toolName": "bash", "arguments": {}})
    s.event("subagent.started", {"agentName": "explore"})
    path = cli_home(tmp_path / "home", s)
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot-cli")
    assert {"mk1x", "mk2x", "mk3x", "mk6x", "mk20x", "mk21x"} <= set(MARKER.findall(text))
    assert problems == [
        f"{path}:5: a tool result with no toolCallId: left out",
        f"{path}:8: tool request 1 with a toolCallId that is a list: left out",
        f"{path}:8: tool request 2 is a number, not an object: left out",
        f"{path}:9: a tool call with no toolCallId: left out",
        f"{path}:10: a sub-agent event with no toolCallId: left out",
    ]


def test_tool_requests_that_are_not_a_list_are_said(tmp_path):
    s = rich_cli()
    s.events[2]["data"]["toolRequests"] = {"c1": 1}
    path = cli_home(tmp_path / "home", s)
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot-cli")
    assert {"mk2x", "mk3x", "mk4x"} <= set(MARKER.findall(text))  # (its start stands in)
    assert problems == [f"{path}:3: the reply's toolRequests are an object, not a list: left out"]


def test_a_parent_tool_call_id_that_is_not_text_is_said(tmp_path):
    s = rich_cli()
    s.events[5]["data"]["parentToolCallId"] = ["c1"]
    path = cli_home(tmp_path / "home", s)
    sessions, problems = load_sessions(CopilotCliAdapter(), tmp_path / "home")
    assert "mk5x second prompt" in texts(next(s for s in sessions if s.session_id == "s-rich"))
    assert [p.message for p in problems] == [
        "its parentToolCallId is a list, not text: read as the main agent's"
    ]
    assert problems[0].path == str(path)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("name: [1, 2]\n", ["its name is a list, not text: left out"]),
        ("name: {a: 1}\ncwd: 7\n", ["its name is an object, not text: left out",
                                    "its cwd is a number, not text: left out"]),
        ("- a\n- b\n", ["the workspace file is a list, not a mapping: its title and folder unread"]),
        (b"name: mk9x \xff\xfe title\n", [NOT_UTF8]),
    ],
    ids=["name a list", "name an object", "a list", "not UTF-8"],
)  # fmt: skip
def test_a_damaged_workspace_file_is_said(tmp_path, content, said):
    """Its title (``name``) and folder were lost without a word."""
    path = cli_home(tmp_path / "home", rich_cli(), content)
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot-cli")
    assert {"mk1x", "mk6x", "mk20x"} <= set(MARKER.findall(text))
    assert problems == [f"{path.parent / 'workspace.yaml'}: {why}" for why in said]
    if isinstance(content, bytes):
        assert "mk9x" in text  # the title, read all the same


def test_a_workspace_file_that_is_a_folder_is_said(tmp_path):
    """It was passed over at discovery without a word: the session's title and folder
    lost."""
    path = cli_home(tmp_path / "home", rich_cli())
    (path.parent / "workspace.yaml").mkdir()
    text, problems = export(tmp_path / "home", tmp_path / "v", "copilot-cli")
    assert {"mk1x", "mk6x", "mk20x"} <= set(MARKER.findall(text))
    assert problems == [
        f"{path.parent / 'workspace.yaml'}: could not be read (a folder, not a file): "
        "its title and folder unread"
    ]


def test_a_workspace_database_that_is_a_folder_is_said(tmp_path):
    """Passed over without a word: the titles of the workspace's chats lost."""
    home = tmp_path / "home"
    vs_home(home)
    db = home / ".config" / "Code" / "User" / "workspaceStorage" / "ws-a" / "state.vscdb"
    db.unlink()
    db.mkdir()
    text, problems = export(home, tmp_path / "v", "copilot")
    assert {"mk1x", *OTHERS} <= set(MARKER.findall(text))
    assert len(problems) == 1 and problems[0].startswith(f"{db}: a folder, not a file")
    assert "chat titles" in problems[0]
