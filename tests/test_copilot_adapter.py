"""Copilot Chat in VS Code: the mutation log replayed in full, and the session parser."""

from __future__ import annotations

import base64
import copy
import json
import re
from pathlib import Path

import pytest
from conftest import load_sessions, texts
from copilot_builder import (
    log_lines,
    markdown,
    request,
    session,
    terminal_tool,
    tsx_result,
    write,
)
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from vscode_builder import make_db, workspace

from exporter.adapters.copilot import CopilotAdapter
from exporter.adapters.copilot_replay import LOST_START, replay
from exporter.model import Usage
from exporter.stats import edited_files, error_count, session_properties

USER = Path(".config") / "Code" / "User"
SID = "5e55104d-0000-4000-8000-000000000001"


def load(home: Path, env: dict | None = None, real_home: bool = False):
    return load_sessions(CopilotAdapter(), home, env, real_home)


def base() -> dict:
    return session(SID, [request(0, "first question", [markdown("first answer")])])


def test_replay_every_entry_kind(tmp_path):
    start = base()
    second = request(1, "second question", [markdown("partial")], state=0)
    log = [
        {"kind": 0, "v": start},
        {"kind": 2, "k": ["requests"], "v": [second]},  # append
        {"kind": 2, "k": ["requests", 1, "response"], "v": [markdown(" and more")]},
        {"kind": 1, "k": ["requests", 1, "modelState"], "v": {"value": 1}},
        {"kind": 1, "k": ["customTitle"], "v": "Renamed later"},
        {"kind": 3, "k": ["customTitle"]},  # and the rename deleted again
        {
            "kind": 2,
            "k": ["requests"],
            "i": 1,
            "v": [request(1, "edited second question", [markdown("new answer")])],
        },
        {"kind": 2, "k": ["requests", 0, "response"], "i": 0},  # truncation without items
    ]
    state = replay(write(tmp_path / "s.jsonl", log_lines(log)), problems := [])
    assert problems == []
    assert [r["message"]["text"] for r in state["requests"]] == [
        "first question",
        "edited second question",
    ]
    assert state["requests"][0]["response"] == [] and "customTitle" not in state
    assert state["requests"][1]["response"] == [markdown("new answer")]


def test_a_later_initial_state_and_an_empty_path_set_start_over(tmp_path):
    replaced = session(SID, [request(0, "after the rewrite", [markdown("fresh")])])
    log = [{"kind": 0, "v": base()}, {"kind": 0, "v": replaced}]
    assert (
        replay(write(tmp_path / "a.jsonl", log_lines(log)), [])["requests"][0]["message"]["text"]
        == "after the rewrite"
    )
    root = session(SID, [request(0, "root replaced", [])])
    log = [{"kind": 0, "v": base()}, {"kind": 1, "k": [], "v": root}]
    assert (
        replay(write(tmp_path / "b.jsonl", log_lines(log)), [])["requests"][0]["message"]["text"]
        == "root replaced"
    )


def test_bad_entries_are_reported_and_skipped(tmp_path):
    log = [
        {"kind": 1, "k": ["customTitle"], "v": "too early"},
        {"kind": 0, "v": base()},
        {"kind": 9, "k": ["x"], "v": 1},
        {"kind": 1, "k": ["requests", 7, "response"], "v": []},
        {"kind": 2, "k": ["requests", 0, "response"], "v": [markdown(" still applied")]},
    ]
    problems: list = []
    state = replay(write(tmp_path / "s.jsonl", log_lines(log)), problems)
    assert [(p.line, p.message.split(",")[0]) for p in problems] == [
        (1, "log entry before the initial state (kind 0)"),
        (3, "unknown log entry kind 9"),
        (4, "log entry for a path that does not exist (requests/7/response)"),
    ]
    assert state["requests"][0]["response"][-1] == markdown(" still applied")


def test_session_parts_and_noise(tmp_path):
    response = [
        {"kind": "mcpServersStarting", "didStartServerIds": []},
        {"kind": "thinking", "value": ["Checking ", "the Makefile"]},
        markdown("Let me look at "),
        {
            "kind": "inlineReference",
            "inlineReference": {"path": "/w/app/Makefile", "scheme": "file"},
        },
        markdown(" first."),
        terminal_tool("call_1", "make test", "2 passed"),
        {"kind": "toolInvocationSerialized", "toolId": "secret_tool", "presentation": "hidden"},
        {
            "kind": "textEditGroup",
            "uri": {"path": "/w/app/src/a.py", "scheme": "file"},
            "edits": [[]],
        },
        {"kind": "progressMessage", "content": {"value": "Working..."}},
        markdown("All tests pass."),
    ]
    data = session(SID, [
        request(0, "Run the tests #file:Makefile", response),
        request(1, "Stop that", [markdown("Stopping")], state=2),
        request(2, "Summarise", [{"kind": "warning", "content": markdown("Context was trimmed")},
                                 markdown("Summary.")]),  # fmt: skip
        request(3, "Try again", [], state=3, result={"errorDetails": {"message": "Rate limited"}}),
    ])  # fmt: skip
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load(tmp_path)
    assert problems == []
    assert texts(s, "user") == [
        "Run the tests #file:Makefile",
        "Stop that",
        "Summarise",
        "Try again",
    ]
    assistant = [m for m in s.messages if m.role == "assistant"]
    kinds = [[p.kind for p in m.parts] for m in assistant]
    assert kinds == [
        ["thinking", "text", "tool_call", "tool_call", "text"],  # the edit where it was made
        ["text", "notice"],
        ["notice", "text"],
        ["notice"],
    ]
    first = assistant[0].parts
    assert (
        first[0].text == "Checking the Makefile"
        and first[1].text == "Let me look at `Makefile` first."
    )
    assert (first[2].name, first[2].input, first[2].description) == (
        "run_in_terminal",
        {"command": "make test"},
        "Ran `make test`",
    )
    # the edit of a hidden invocation's call is shown by its group, named after the call
    assert (first[3].name, first[3].input) == ("secret_tool", {"file_path": "/w/app/src/a.py"})
    assert [(p.notice, p.text) for m in assistant[1:] for p in m.parts if p.kind == "notice"] == [
        ("interrupted", "cancelled"),
        # a warning is no error: a notification, as Gemini CLI's and Copilot CLI's warnings
        ("notification", "Context was trimmed"),
        ("error", "Rate limited"),
    ]
    result = next(p for m in s.messages if m.role == "tool" for p in m.parts)
    assert (result.output, result.call_id) == ("2 passed", "call_1")
    assert s.models == ("copilot/gpt-5",)
    assert "QUEUED-NOT-SENT" not in json.dumps([texts(s)]) and "DRAFT-NOT-SENT" not in json.dumps(
        [texts(s)]
    )


def test_tokens_from_the_results_that_record_them(tmp_path):
    used = {"usage": {"promptTokens": 9723, "completionTokens": 33, "promptTokenDetails": []}}
    data = session(SID, [
        request(0, "one", [markdown("a")], result=used),
        request(1, "two", [markdown("b")]),  # no usage recorded
        request(2, "three", [markdown("c")], result={"usage": {"promptTokens": 277, "completionTokens": "x"}}),
    ])  # fmt: skip
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load(tmp_path)
    assert problems == []
    assert (s.usage.input_tokens, s.usage.output_tokens) == (10_000, 33)


def test_a_chat_that_changed_models_keeps_each_models_tokens(tmp_path):
    """Each request names its model: a chat that went from GPT-5 to Claude was priced whole
    at the first one's rate."""
    sonnet = "copilot/claude-sonnet-4.5"
    data = session(SID, [
        request(0, "one", [markdown("a")], result={"usage": {"promptTokens": 900, "completionTokens": 30}}),
        request(1, "two", [markdown("b")], model=sonnet,
                result={"usage": {"promptTokens": 2000, "completionTokens": 100}}),
        request(2, "three", [markdown("c")], result={"usage": {"promptTokens": 100, "completionTokens": 5}}),
    ])  # fmt: skip
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), _ = load(tmp_path)
    assert s.usage == Usage(3000, 135)
    assert s.model_usage == (("copilot/gpt-5", Usage(1000, 35)), (sonnet, Usage(2000, 100)))
    # GPT-5: 1.25 and 10 USD per million tokens in and out; Sonnet 4.5: 3 and 15
    expected = (1000 * 1.25 + 35 * 10 + 2000 * 3 + 100 * 15) / 1_000_000
    assert session_properties(s)["cost"] == pytest.approx(expected)


def test_jsonl_wins_over_json_and_copies_keep_the_newest(tmp_path):
    user = tmp_path / USER
    old = base()
    write(user / "workspaceStorage" / "ws1" / "chatSessions" / f"{SID}.json", old)
    newer = copy.deepcopy(old)
    newer["requests"].append(request(5, "asked later in ws1", [markdown("ok")]))
    write(
        user / "workspaceStorage" / "ws1" / "chatSessions" / f"{SID}.jsonl",
        log_lines([{"kind": 0, "v": newer}]),
    )
    write(user / "workspaceStorage" / "ws1" / "workspace.json", {"folder": "file:///w/one"})
    copied = copy.deepcopy(old)  # the copy left behind when the window changed folder
    write(user / "workspaceStorage" / "ws2" / "chatSessions" / f"{SID}.json", copied)
    write(user / "workspaceStorage" / "ws2" / "workspace.json", {"folder": "file:///w/two"})
    (s,), _ = load(tmp_path)
    assert texts(s, "user")[-1] == "asked later in ws1" and s.project == "one"


def test_empty_window_sessions_and_index_titles(tmp_path):
    user = tmp_path / USER
    write(
        user / "globalStorage" / "emptyWindowChatSessions" / f"{SID}.jsonl",
        log_lines([{"kind": 0, "v": base()}]),
    )
    index = {"version": 1, "entries": {SID: {"sessionId": SID, "title": "Title from the index"}}}
    make_db(user / "globalStorage" / "state.vscdb", {"chat.ChatSessionStore.index": index})
    (s,), _ = load(tmp_path)
    assert s.title == "Title from the index" and s.project is None
    renamed = base()
    renamed["customTitle"] = "The user's own title"
    write(
        user / "globalStorage" / "emptyWindowChatSessions" / f"{SID}.jsonl",
        log_lines([{"kind": 0, "v": renamed}]),
    )
    assert load(tmp_path)[0][0].title == "The user's own title"


def test_pre_file_sessions_in_the_workspace_database(tmp_path):
    legacy = [
        session(
            "legacy-1",
            [request(0, "from the old interactive.sessions key", ["old plain string answer"])],
        )
    ]
    workspace(tmp_path / USER, "ws-old", "file:///w/old", {"interactive.sessions": legacy})
    (s,), _ = load(tmp_path)
    assert s.session_id == "legacy-1" and texts(s) == [
        "from the old interactive.sessions key",
        "old plain string answer",
    ]


@pytest.mark.parametrize("product", ["Code", "Code - Insiders", "VSCodium", "Code - OSS"])
def test_vscode_flavours_and_portable_mode(tmp_path, product):
    write(
        tmp_path
        / ".config"
        / product
        / "User"
        / "globalStorage"
        / "emptyWindowChatSessions"
        / f"{SID}.json",
        base(),
    )
    assert len(load(tmp_path)[0]) == 1
    portable = tmp_path / "portable"
    write(
        portable
        / "user-data"
        / "User"
        / "globalStorage"
        / "emptyWindowChatSessions"
        / f"{SID}.json",
        base(),
    )
    assert len(load(tmp_path / "elsewhere", {"VSCODE_PORTABLE": str(portable)}, True)[0]) == 1


def test_under_wsl_the_windows_users_editors_are_read_too(tmp_path, monkeypatch):
    """ccexport runs in WSL beside Claude Code while VS Code runs on Windows: its chats are
    in each Windows user's AppData, as WSL mounts C:. Only under WSL, only on your own home,
    and Windows's own profiles (Public, Default) are not people."""
    from exporter.adapters import vscode

    users = tmp_path / "mnt" / "c" / "Users"
    for person in ("ana", "Public"):
        chats = users / person / "AppData" / "Roaming" / "Code" / "User" / "globalStorage"
        write(chats / "emptyWindowChatSessions" / f"{SID}.json", base())
    monkeypatch.setattr(vscode, "WSL_USERS", users)
    linux_home = tmp_path / "home" / "ana"
    monkeypatch.setattr(vscode, "under_wsl", lambda: False)
    assert load(linux_home, {}, True)[0] == []
    monkeypatch.setattr(vscode, "under_wsl", lambda: True)
    (found,), _ = load(linux_home, {}, True)
    assert str(found.source_path).startswith(str(users / "ana"))
    assert load(linux_home, {}, False)[0] == []  # --home: that home alone
    monkeypatch.setattr(vscode, "WSL_USERS", tmp_path / "not-mounted")
    assert load(linux_home, {}, True)[0] == []


def the_answer(tmp_path, response: list, **result: dict):
    """The one answer to "Change Bonjour World to hello world" (``result``: its result)."""
    data = session(SID, [request(0, "Change Bonjour World to hello world", response, **result)])
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load(tmp_path)
    assert problems == []
    (answer,) = [m for m in s.messages if m.role == "assistant"]
    return answer


def calls_in(message) -> list:
    return [(p.name, p.input) for p in message.parts if p.kind == "tool_call"]


def test_an_edit_the_model_asked_for_shows_what_it_replaced(tmp_path):
    """The edit tool's invocation is hidden and the textEditGroup holds only the new lines;
    the model's own call in toolCallRounds (paired by order) says what was replaced: the
    note showed only the new text, so a reader could not see what changed (corpus
    copilot_session_simple, "Change Bonjour World to hello world")."""
    uri = {"$mid": 1, "fsPath": "/w/app/index.ts", "path": "/w/app/index.ts", "scheme": "file"}
    other = {"path": "/w/app/util.ts", "scheme": "file"}
    response = [
        markdown("I'll change it. "),
        {"kind": "textEditGroup", "uri": other, "edits": [  # (no invocation made it)
            [{"text": "a", "range": {"startLineNumber": 1, "endLineNumber": 2}}]]},
        {"kind": "toolInvocationSerialized", "toolId": "copilot_readFile", "presentation": "hidden"},
        {"kind": "toolInvocationSerialized", "toolId": "copilot_replaceString", "presentation": "hidden"},
        {"kind": "textEditGroup", "uri": uri, "done": True, "edits": [
            [{"text": "console.log('hello world');", "range": {"startLineNumber": 10, "startColumn": 1,
                                                               "endLineNumber": 10, "endColumn": 30}}]]},
        markdown("Done!"),
    ]  # fmt: skip
    asked = {"filePath": "/w/app/index.ts", "oldString": "console.log('Bonjour World');",
             "newString": "console.log('hello world');", "explanation": "Say hello"}  # fmt: skip
    read = {"filePath": "/w/app/index.ts", "startLine": 1, "endLine": 20}  # the same file, read
    result = {"metadata": {"toolCallRounds": [{"response": "", "toolCalls": [
        {"name": "read_file", "arguments": json.dumps(read), "id": "m0"},
        {"name": "replace_string_in_file", "arguments": json.dumps(asked), "id": "m1"}]}]}}  # fmt: skip
    shown = calls_in(the_answer(tmp_path, response, result=result))
    assert shown == [
        # no model call made it: its file said in a key of ours
        ("edit", {"file_path": "/w/app/util.ts", "lines": "1-2", "new_string": "a"}),
        # a hidden call that made no edit is shown as a call (the read names the same file)
        ("copilot_readFile", read),
        # the model's arguments as it sent them: its filePath, not an invented file_path
        # (review20 F6)
        ("copilot_replaceString", asked),
    ]
    assert list(shown[2][1]) == ["filePath", "oldString", "newString", "explanation"]


def test_the_edits_an_answer_made_are_shown_with_their_new_text(tmp_path):
    """A textEditGroup holds what the agent wrote into a file (the edit tool itself is a
    hidden invocation): each file is an edit call with the lines replaced and the new text,
    where VS Code shows it (the empty code block around its codeblockUri), so the text after
    it ("Done!") comes after the edit; a file edited with no such block, where it was made."""
    uri = {"$mid": 1, "fsPath": "/w/app/index.ts", "path": "/w/app/index.ts", "scheme": "file"}
    other = {"path": "/w/app/util.ts", "scheme": "file"}
    response = [
        markdown("I'll change it. "),
        {"kind": "toolInvocationSerialized", "toolId": "copilot_multiReplaceString", "presentation": "hidden"},
        markdown("\n```\n"),
        {"kind": "codeblockUri", "uri": uri, "isEdit": True},
        {"kind": "textEditGroup", "uri": uri, "done": True, "edits": [
            [{"text": "console.log('hello world');", "range": {"startLineNumber": 10, "startColumn": 1,
                                                               "endLineNumber": 10, "endColumn": 30}}], []]},
        {"kind": "textEditGroup", "uri": other, "edits": [
            [{"text": "a", "range": {"startLineNumber": 1, "endLineNumber": 2}}],
            [{"text": "", "range": {"startLineNumber": 7, "endLineNumber": 7}}]]},
        markdown("\n```\n"),
        markdown("Done!"),
    ]  # fmt: skip
    answer = the_answer(tmp_path, response)
    assert calls_in(answer) == [
        ("copilot_multiReplaceString", {"file_path": "/w/app/index.ts", "lines": "10",
                                        "new_string": "console.log('hello world');"}),
        ("copilot_multiReplaceString", {"file_path": "/w/app/util.ts", "edits": [
            {"lines": "1-2", "new_string": "a"}, {"lines": "7", "new_string": ""}]}),
    ]  # fmt: skip
    # The empty code block VS Code shows the edited file in is left out, the edits in its place.
    assert [(p.kind, p.text.strip() if p.kind == "text" else p.input["file_path"])
            for p in answer.parts] == [
        ("text", "I'll change it."), ("tool_call", "/w/app/index.ts"),
        ("tool_call", "/w/app/util.ts"), ("text", "Done!")]  # fmt: skip
    assert "```" not in "".join(p.text for p in answer.parts if p.kind == "text")


def test_an_edit_streamed_a_line_at_a_time_reads_as_one(tmp_path):
    lines = ["id,setup", "1,a joke", "", "2,another"]
    batches = [[]] + [
        [{"text": t, "range": {"startLineNumber": n, "startColumn": 1, "endLineNumber": n,
                               "endColumn": 9}}] for n, t in enumerate(lines, 1)
    ] + [[{"text": "x", "range": {"startLineNumber": 9, "startColumn": 4, "endLineNumber": 9,
                                  "endColumn": 4}}]]  # fmt: skip
    uri = {"path": "/w/jokes.csv", "scheme": "file"}
    response = [markdown("Added."), {"kind": "textEditGroup", "uri": uri, "edits": batches}]
    data = session(SID, [request(0, "Add a joke", response)])
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), _ = load(tmp_path)
    (call,) = [p for m in s.messages for p in m.parts if p.kind == "tool_call"]
    assert call.input == {"file_path": "/w/jokes.csv", "edits": [
        {"lines": "1-4", "new_string": "id,setup\n1,a joke\n\n2,another"},
        {"lines": "9", "new_string": "x"}]}  # fmt: skip


def test_an_empty_prompt_with_attachments_makes_no_user_turn(tmp_path):
    """A valid request whose text is empty: its reply follows the previous one, and what
    VS Code attached to it (the open file) makes no turn of its own (as before the
    damaged-input work; only a damaged prompt, which is said, keeps its attachments)."""
    opened = {"$mid": 1, "fsPath": "/w/p/a.py", "external": "file:///w/p/a.py",
              "path": "/w/p/a.py", "scheme": "file"}  # fmt: skip
    variables = [{"kind": "file", "id": "vscode.implicit.file", "name": "file:a.py",
                  "value": opened}]  # fmt: skip
    empty = request(1, "", [markdown("second reply")], variableData={"variables": variables})
    empty["message"]["parts"] = []
    data = session(SID, [request(0, "first question", [markdown("first answer")]), empty])
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load(tmp_path)
    assert problems == []
    assert [(m.role, [getattr(p, "text", None) for p in m.parts]) for m in s.messages] == [
        ("user", ["first question"]),
        ("assistant", ["first answer"]),
        ("assistant", ["second reply"]),
    ]


def test_what_was_attached_to_a_prompt_is_kept_with_it(tmp_path):
    """variableData: the active file and selection VS Code attached, a folder, a symbol, a
    pasted snippet and a pasted image (its bytes, a serialised Uint8Array) are attachments
    of the prompt; the tools enabled for the request are not."""
    index = {"$mid": 1, "fsPath": "/w/app/index.ts", "external": "file:///w/app/index.ts",
             "path": "/w/app/index.ts", "scheme": "file"}  # fmt: skip
    png = b"\x89PNG\r\n\x1a\nfake"
    variables = [
        {"kind": "file", "id": "vscode.implicit.file", "name": "file:index.ts", "value": index},
        {"kind": "file", "id": "vscode.implicit.selection", "name": "file:index.ts",
         "value": {"uri": index, "range": {"startLineNumber": 10, "startColumn": 14,
                                           "endLineNumber": 12, "endColumn": 27}}},
        {"kind": "directory", "id": "file:///w/app/src", "name": "src", "value": "file:///w/app/src"},
        {"kind": "symbol", "id": "sym", "name": "greet", "fullName": "greet",
         "value": {"uri": index, "range": {"startLineNumber": 3, "endLineNumber": 3}}},
        {"kind": "paste", "id": "p1", "name": "pasted", "code": "const x = 1;", "language": "ts",
         "fileName": "snippet.ts", "pastedLines": "1 line"},
        {"kind": "image", "id": "img", "name": "screenshot.png", "mimeType": "image/png",
         "value": {str(i): b for i, b in enumerate(png)}},
        {"kind": "tool", "id": "copilot_readFile", "name": "readFile", "value": None},
        {"kind": "toolset", "id": "edit", "name": "edit", "value": None},
    ]  # fmt: skip
    data = session(SID, [request(0, "Fix #selection", [markdown("Done")],
                                 variableData={"variables": variables})])  # fmt: skip
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load(tmp_path)
    assert problems == []
    (prompt,) = [m for m in s.messages if m.role == "user"]
    assert prompt.parts[0].text == "Fix #selection"
    assert [(p.name, p.data, p.media_type) for p in prompt.parts[1:]] == [
        ("/w/app/index.ts", None, "application/octet-stream"),
        ("/w/app/index.ts:10-12", None, "application/octet-stream"),
        ("/w/app/src", None, "inode/directory"),
        ("/w/app/index.ts:3", None, "application/octet-stream"),
        ("snippet.ts", b"const x = 1;", "text/plain"),
        ("screenshot.png", png, "image/png"),
    ]


def _sent(*elements: str) -> dict:
    """A request's result as Copilot records it: the prompt it rendered, attachments first."""
    text = (
        "<attachments>\n"
        + "\n".join(elements)
        + "\n\n</attachments>\n<userRequest>\nx\n</userRequest>\n"
    )
    return {"metadata": {"renderedUserMessage": [{"type": 1, "text": text}, {"type": 3, "cacheType": "ephemeral"}]}}  # fmt: skip


def test_the_text_copilot_sent_for_an_attached_file_or_selection_is_shown(tmp_path):
    """VS Code keeps only where an attached file or selection is; Copilot's record of the
    prompt it sent (result.metadata.renderedUserMessage) holds each one's text in an
    <attachment> element, paired by id (the variable's name) or, for a whole file, by its
    filePath. That text is the attachment's (its description and the excerpt's heading,
    fence and path comment are Copilot's); a file Copilot shortened, a selection it did not
    send, a folder and a file with no element stay named only."""

    def uri(path):
        return {
            "$mid": 1,
            "fsPath": path,
            "external": f"file://{path}",
            "path": path,
            "scheme": "file",
        }

    def span(first, last):
        return {"startLineNumber": first, "startColumn": 1, "endLineNumber": last, "endColumn": 9}

    variables = [
        {"kind": "file", "id": "file:///w/app/index.ts", "name": "index.ts", "value": uri("/w/app/index.ts")},
        {"kind": "file", "id": "vscode.implicit.selection", "name": "file:main.py",
         "value": {"uri": uri("/w/app/main.py"), "range": span(10, 11)},
         "modelDescription": "User's active selection"},
        {"kind": "file", "id": "vscode.implicit.file", "name": "file:a&b.rs", "value": uri("/w/a&b.rs"),
         "modelDescription": "User's active file"},
        {"kind": "file", "id": "sel2", "name": "file:notes.md",
         "value": {"uri": uri("/w/notes.md"), "range": span(1, 2)}},
        {"kind": "file", "id": "file:///w/big.ts", "name": "big.ts", "value": uri("/w/big.ts")},
        {"kind": "file", "id": "file:///w/gone.ts", "name": "gone.ts", "value": uri("/w/gone.ts")},
        {"kind": "directory", "id": "file:///w/app/src", "name": "src", "value": "file:///w/app/src"},
    ]  # fmt: skip
    result = _sent(
        '<attachment id="index.ts" filePath="/w/app/index.ts">\n// filepath: /w/app/index.ts\nconsole.log(1);\n</attachment>',
        '<attachment id="file:main.py">\nUser\'s active selection, this should be the main focus:\n'
        'Excerpt from main.py, lines 10 to 11:\n````python\nprint("```")\nx = 1\n````\n</attachment>',
        '<attachment filePath="/w/app/main.py">\nUser\'s active file for additional context:\nTHE WHOLE FILE\n</attachment>',
        '<attachment id="file:a&amp;b.rs" filePath="/w/a&amp;b.rs">\nUser\'s active file:\nfn main() {}\n</attachment>',
        '<attachment id="file:notes.md">\nExcerpt from notes.md, lines 1 to 2:\n```markdown\n'
        '<!-- filepath: /w/notes.md -->\n# Notes\n- one\n```\n</attachment>',
        '<attachment id="big.ts" isSummarized="true" filePath="/w/big.ts">\nclass A {\n\t…\n}\n</attachment>',
    )  # fmt: skip
    data = session(SID, [request(0, "Explain", [markdown("Done")], result=result,
                                 variableData={"variables": variables})])  # fmt: skip
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load(tmp_path)
    assert problems == []
    (prompt,) = [m for m in s.messages if m.role == "user"]
    assert [p.name for p in prompt.parts[1:] if p.shortened] == ["/w/big.ts"]
    assert [(p.name, p.data, p.media_type) for p in prompt.parts[1:]] == [
        # the whole file (the path comment was the file's own line: filePath says where it is)
        ("/w/app/index.ts", b"// filepath: /w/app/index.ts\nconsole.log(1);", "text/plain"),
        ("/w/app/main.py:10-11", b'print("```")\nx = 1', "text/plain"),  # not the whole file
        ("/w/a&b.rs", b"fn main() {}", "text/plain"),
        ("/w/notes.md:1-2", b"# Notes\n- one", "text/plain"),  # Copilot's path comment left out
        ("/w/big.ts", "class A {\n\t…\n}".encode(), "text/plain"),  # as Copilot shortened it
        ("/w/gone.ts", None, "application/octet-stream"),
        ("/w/app/src", None, "inode/directory"),
    ]


def test_an_attachment_copilot_did_not_send_as_its_text_is_named_only(tmp_path):
    """An element whose body is not the shape Copilot writes (an excerpt heading with no
    fenced block after it; a selection that is not an excerpt) and a file sent without its
    contents (a self-closing element) are not guessed at: the attachment is named only."""
    index = {"path": "/w/index.ts", "scheme": "file"}
    variables = [
        {"kind": "file", "id": "a", "name": "file:index.ts",
         "value": {"uri": index, "range": {"startLineNumber": 2, "endLineNumber": 2}}},
        {"kind": "file", "id": "b", "name": "other.ts", "value": {"path": "/w/other.ts", "scheme": "file"}},
        {"kind": "file", "id": "c", "name": "third.ts", "value": {"path": "/w/third.ts", "scheme": "file"}},
    ]  # fmt: skip
    result = _sent(
        '<attachment id="file:index.ts">\nsome text that is no excerpt\n</attachment>',
        '<attachment id="other.ts" filePath="/w/other.ts" />',
        '<attachment id="third.ts">\nExcerpt from third.ts:\nno fence\n</attachment>',
    )
    data = session(SID, [request(0, "Explain", [markdown("Done")], result=result,
                                 variableData={"variables": variables})])  # fmt: skip
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), _ = load(tmp_path)
    (prompt,) = [m for m in s.messages if m.role == "user"]
    assert [(p.name, p.data) for p in prompt.parts[1:]] == [
        ("/w/index.ts:2", None), ("/w/other.ts", None), ("/w/third.ts", None)]  # fmt: skip


def _invocation(tool: str, call_id: str, message: str, **extra):
    return {"kind": "toolInvocationSerialized", "toolId": tool, "toolCallId": call_id,
            "pastTenseMessage": {"value": message}, "isComplete": True, **extra}  # fmt: skip


def test_tool_calls_get_the_arguments_and_results_the_model_saw(tmp_path):
    """The invocations in response[] are written for display (no input, a read file's
    content nowhere, a search's matches only as places); Copilot's result.metadata has the
    model's calls with their arguments and results under other ids: paired by order (VS
    Code's own *_internal invocations aside), when every invocation has its call."""
    response = [
        markdown("Let me look. "),
        _invocation("copilot_readFile", "u1", "Read a.py"),
        _invocation("copilot_findTextInFiles", "u2", "Searched for `retry`, 1 result",
                    resultDetails=[{"uri": {"path": "/w/a.py", "scheme": "file"}}]),
        _invocation("copilot_insertEdit", "u3", "Edited", presentation="hidden"),
        _invocation("vscode_editFile_internal", "u4", "", presentation="hidden"),
        markdown("Done."),
    ]  # fmt: skip
    metadata = {
        "toolCallRounds": [
            {"response": "Let me look. ", "toolCalls": [
                {"name": "read_file", "arguments": '{"filePath": "/w/a.py", "startLine": 1}', "id": "m1"},
                {"name": "grep_search", "arguments": '{"query": "retry"}', "id": "m2"}]},
            {"response": "", "toolCalls": [{"name": "insert_edit_into_file", "arguments": "{}", "id": "m3"}]},
        ],
        "toolCallResults": {"m1": tsx_result("```python\n", "def retry(): ...\n", "```"),
                            "m2": tsx_result("1 match", '<match path="/w/a.py" line=1>\n')},
    }  # fmt: skip
    result = {"timings": {"totalElapsed": 5_000}, "metadata": metadata}
    unpaired = {"timings": {"totalElapsed": 5_000}, "metadata": {**metadata, "toolCallRounds": []}}
    data = session(SID, [request(0, "Where is retry?", response, result=result),
                         request(1, "Again", response, result=unpaired)])  # fmt: skip
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load(tmp_path)
    assert problems == []
    first, second = [m for m in s.messages if m.role == "assistant"]
    calls = [(p.name, p.input) for p in first.parts if p.kind == "tool_call"]
    assert calls == [
        ("copilot_readFile", {"filePath": "/w/a.py", "startLine": 1}),
        ("copilot_findTextInFiles", {"query": "retry"}),
        ("copilot_insertEdit", {}),  # hidden, and no edit shows it (VS Code's own inside: no)
    ]
    results = [m for m in s.messages if m.role == "tool"]
    outputs = {p.call_id: p.output for p in results[0].parts}
    assert outputs["u1"] == "def retry(): ..."  # the file, without Copilot's fence
    assert outputs["u2"] == '1 match\n<match path="/w/a.py" line=1>\n'  # after a block
    # No calls to pair with: the invocations as they are (the search's places as output).
    assert [p.input for p in second.parts if p.kind == "tool_call"] == [{}, {}, {}]
    assert [p.output for p in results[-1].parts] == ["/w/a.py"]


def test_a_denied_or_skipped_tool_call_says_so_and_an_older_terminal_call_keeps_its_command(
    tmp_path,
):
    """isConfirmed: false (before VS Code 1.104) or {type: 0} is a call the person denied,
    {type: 5} one they skipped: it did not run, and the note says so. The older terminal
    invocation data is {kind: 'terminal', command, language}."""
    response = [
        _invocation("run_in_terminal", "t1", "Run `rm -rf build`", isConfirmed={"type": 0},
                    toolSpecificData={"kind": "terminal", "commandLine": {"original": "rm -rf build"}}),
        _invocation("run_in_terminal", "t2", "Run `make`", isConfirmed=False,
                    toolSpecificData={"kind": "terminal", "command": "make", "language": "sh"}),
        _invocation("copilot_readFile", "t3", "Read a.py", isConfirmed={"type": 5}),
        _invocation("copilot_readFile", "t4", "Read b.py", isConfirmed={"type": 1}),
    ]  # fmt: skip
    data = session(SID, [request(0, "Clean up", response)])
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), _ = load(tmp_path)
    calls = [p for m in s.messages for p in m.parts if p.kind == "tool_call"]
    assert [c.input for c in calls[:2]] == [{"command": "rm -rf build"}, {"command": "make"}]
    results = {p.call_id: (p.output, p.is_error, p.not_run) for m in s.messages
               for p in m.parts if p.kind == "tool_result"}  # fmt: skip
    assert results == {  # they did not run: no error
        "t1": ("denied by the user", False, "rejected"),
        "t2": ("denied by the user", False, "rejected"),
        "t3": ("skipped by the user", False, "rejected"),
    }


def test_the_answers_the_person_gave_to_the_assistants_questions_are_kept(tmp_path):
    """A questionCarousel holds the questions the assistant asked and, once submitted, the
    person's answers (data: question id -> string, {selectedValue}, {selectedValues}, with
    freeformValue): a call with its result. One never answered has no result. A part of a
    kind not known here is reported, not passed over in silence."""
    carousel = {
        "kind": "questionCarousel", "resolveId": "q-1", "allowSkip": True, "isUsed": True,
        "message": {"value": "A few questions first"},
        "questions": [
            {"id": "fw", "type": "singleSelect", "title": "Which framework?",
             "options": [{"id": "r", "label": "React", "value": "react"},
                         {"id": "v", "label": "Vue", "value": "vue"}]},
            {"id": "name", "type": "text", "title": "Project name"},
            {"id": "extras", "type": "multiSelect", "title": "Extras?",
             "options": [{"id": "t", "label": "Tests", "value": "tests"}]},
        ],
        "data": {"fw": {"selectedValue": "vue"}, "name": "shop",
                 "extras": {"selectedValues": ["tests"], "freeformValue": "and CI"}},
    }  # fmt: skip
    unanswered = {"kind": "questionCarousel", "questions": [{"id": "x", "title": "Sure?"}],
                  "allowSkip": True, "isUsed": False}  # fmt: skip
    response = [markdown("Let me ask."), carousel, unanswered, {"kind": "brandNewKind", "v": 1}]
    data = session(SID, [request(0, "Start a project", response)])
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load(tmp_path)
    calls = [p for m in s.messages for p in m.parts if p.kind == "tool_call"]
    assert [(c.name, c.description) for c in calls] == [
        ("questions", "A few questions first"), ("questions", None)]  # fmt: skip
    assert calls[0].input["questions"][0] == {
        "question": "Which framework?", "options": ["React", "Vue"]}  # fmt: skip
    (result,) = [p for m in s.messages for p in m.parts if p.kind == "tool_result"]
    assert (result.call_id, result.output) == (
        "q-1", "Which framework?: Vue\nProject name: shop\nExtras?: Tests, and CI")  # fmt: skip
    assert [p.message for p in problems] == [
        "response parts of a kind not known here left out: brandNewKind"
    ]


def test_an_elicitation_keeps_what_the_person_gave_and_markdown_content_its_text(tmp_path):
    """elicitationSerialized: a request for the person's input and its outcome (accepted
    with the values given, or rejected). A markdownContent part (the unserialised form)
    keeps its text under ``content``."""
    response = [
        {"kind": "markdownContent", "content": {"value": "Checking the server."}},
        {"kind": "elicitationSerialized", "title": {"value": "GitHub needs a repository"},
         "message": "Which repository?", "state": "accepted",
         "acceptedResult": {"repo": "acme/shop"}, "isHidden": False},
        {"kind": "elicitationSerialized", "title": "Run outside the sandbox?",
         "message": "", "state": "rejected", "isHidden": False},
    ]  # fmt: skip
    data = session(SID, [request(0, "Open an issue", response)])
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load(tmp_path)
    assert problems == []
    assert texts(s, "assistant") == ["Checking the server."]
    calls = [p for m in s.messages for p in m.parts if p.kind == "tool_call"]
    assert [(c.name, c.input) for c in calls] == [
        ("elicitation", {"title": "GitHub needs a repository", "message": "Which repository?"}),
        ("elicitation", {"title": "Run outside the sandbox?"}),
    ]
    results = [(p.output, p.is_error, p.not_run) for m in s.messages for p in m.parts
               if p.kind == "tool_result"]  # fmt: skip
    assert results == [
        ('accepted\n{\n  "repo": "acme/shop"\n}', False, None),
        ("rejected", False, "rejected"),  # the person said no: not an error
    ]


def test_an_image_a_tool_returned_is_an_attachment_not_base64(tmp_path):
    """resultDetails {output: {type: 'data', mimeType, base64Data}} (a screenshot tool), or
    an embed output item that is not text: the bytes become an attachment of the result;
    text items stay its output."""
    png = b"\x89PNG\r\n\x1a\nscreenshot"
    encoded = base64.b64encode(png).decode()
    response = [
        _invocation("screenshot", "s1", "Took a screenshot", resultDetails={
            "output": {"type": "data", "mimeType": "image/png", "base64Data": encoded}}),
        _invocation("mcp_browser", "s2", "Ran browser", resultDetails={"input": "{}", "output": [
            {"type": "embed", "isText": True, "value": "page loaded"},
            {"type": "embed", "mimeType": "image/png", "value": encoded}], "isError": False}),
    ]  # fmt: skip
    data = session(SID, [request(0, "Show me the page", response)])
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), _ = load(tmp_path)
    (tool,) = [m for m in s.messages if m.role == "tool"]
    shown = [(p.kind, getattr(p, "output", None), getattr(p, "data", None)) for p in tool.parts]
    assert shown == [
        ("attachment", None, png),
        ("tool_result", "page loaded", None),
        ("attachment", None, png),
    ]
    assert encoded not in json.dumps([p.output for p in tool.parts if p.kind == "tool_result"])


_ODD_PARTS = [  # each lost its whole session (a value used as a key, iterated, or a URL)
    {"kind": ["x"]},
    {"kind": {}},
    {"kind": "questionCarousel", "questions": 5},
    {"kind": "questionCarousel", "questions": [{"id": "a", "options": 3}], "data": {"a": "x"}},
    {"kind": "questionCarousel", "questions": [{"id": ["a"], "title": "T"}], "data": {"a": 1}},
    {"kind": "questionCarousel", "data": {"a": {"selectedValues": [[1]]}},
     "questions": [{"id": "a", "options": [{"label": "L", "value": ["v"]}]}]},
    {"kind": "questionCarousel", "questions": [{"id": "a"}], "data": {"a": {"selectedValue": {}}}},
    {"kind": "textEditGroup", "uri": "file://[x", "edits": [[{"text": "t", "range": {}}]]},
]  # fmt: skip


@pytest.mark.parametrize("part", _ODD_PARTS, ids=range(len(_ODD_PARTS)))
def test_a_value_of_an_unexpected_type_in_a_part_costs_nothing_else(tmp_path, part):
    """Found by a review of today's new shapes: each of these raised out of the reader."""
    response = [markdown("before the odd part"), part, markdown("after it")]
    odd_variables = {"variables": [{"kind": ["file"]}, {"kind": "file", "value": "http://[x"}]}
    model_round = {"metadata": {"toolCallRounds": [{"toolCalls": [{"id": "c", "arguments": "[" * 100_000}]}]}}  # fmt: skip
    requests = [
        request(0, "first ask", response, variableData=odd_variables, result=model_round),
        request(1, "second ask", [markdown("second reply")]),
    ]
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json",
          session(SID, requests))  # fmt: skip
    (s,), _ = load(tmp_path)
    shown = texts(s)
    assert shown[0] == "first ask" and "second reply" in shown
    assert any("after it" in t for t in shown)


def test_a_long_line_by_line_edit_is_joined_in_linear_time(tmp_path):
    """Joining each streamed line onto the text so far was quadratic: 20,000 lines took 3 s."""
    import time

    from exporter.adapters.copilot_context import _line_runs

    span = {"startColumn": 1, "endColumn": 1}
    edits = [({**span, "startLineNumber": i, "endLineNumber": i}, f"line {i}") for i in range(1, 100_001)]  # fmt: skip
    started = time.perf_counter()
    ((whole, text),) = _line_runs(edits)
    assert time.perf_counter() - started < 5  # quadratic: minutes
    assert whole["endLineNumber"] == 100_000 and text.count("\n") == 99_999


def test_a_log_that_lost_its_start_falls_back_to_the_document_it_came_from(tmp_path):
    """VS Code 1.109 migrates a session's .json to a .jsonl log and may leave the .json; a
    log whose first line (the whole state) is lost replays to nothing, and the session was
    gone though the .json held it. Now the .json is used, the log's damage reported; with a
    good log, the log wins."""
    chats = tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions"
    write(chats / f"{SID}.json", base())
    later = request(1, "second question", [markdown("second answer")])
    write(chats / f"{SID}.jsonl", log_lines([{"kind": 2, "k": ["requests"], "v": [later]}]))
    (s,), problems = load(tmp_path)
    assert texts(s) == ["first question", "first answer"]
    assert any("before" in p.message or "start" in p.message for p in problems), problems
    write(chats / f"{SID}.jsonl", log_lines([
        {"kind": 0, "v": base()}, {"kind": 2, "k": ["requests"], "v": [later]}]))  # fmt: skip
    (s,), _ = load(tmp_path)
    assert texts(s) == ["first question", "first answer", "second question", "second answer"]


@pytest.mark.parametrize("placeholder", [0, -1, 0.0])
def test_a_zero_time_is_no_time_not_1970(tmp_path, placeholder):
    """JavaScript writes 0 where no date was set: a session must not start on 1 January
    1970 (its note filed and named by that day) because one request or the session's
    creationDate holds it. The first time known is the start."""
    data = session(
        SID,
        [
            request(0, "First", [markdown("One")], timestamp=placeholder),
            request(1, "Second", [markdown("Two")]),
        ],
        creationDate=placeholder,
    )
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load(tmp_path)
    assert problems == []
    first_prompt = s.messages[0]
    assert first_prompt.role == "user" and first_prompt.timestamp is None
    known = [m.timestamp for m in s.messages if m.timestamp]
    assert min(known).year == 2025 and s.started_at == min(known)
    assert s.ended_at is not None and s.ended_at.year == 2025


def test_a_damaged_workspace_json_is_reported_and_costs_only_the_project(tmp_path):
    """A ``workspace.json`` cut short (a sync tool, a crash) left its sessions without a
    project and said nothing; one that is not there (an empty window) says nothing."""
    user = tmp_path / USER
    write(user / "workspaceStorage" / "ws1" / "chatSessions" / f"{SID}.json", base())
    (user / "workspaceStorage" / "ws1" / "workspace.json").write_text('{"folder": "file:///w/o')
    (s,), problems = load(tmp_path)
    assert texts(s, "user") and s.project is None
    (problem,) = problems
    assert problem.path == str(user / "workspaceStorage" / "ws1" / "workspace.json")
    assert problem.severity == "warning" and "project of its sessions is unknown" in problem.message
    (user / "workspaceStorage" / "ws1" / "workspace.json").unlink()
    assert load(tmp_path)[1] == []


def test_a_skipped_call_with_what_vs_code_told_the_model_still_did_not_run(tmp_path):
    """Skipped ({type: 5}), VS Code runs nothing and tells the model so; Copilot keeps that
    text as the call's result. It is kept, and the call still did not run: no error, and
    the file it would have created is not in ``files``."""
    skip = "The user chose to skip the tool call, they want to proceed without running it"
    response = [_invocation("copilot_createFile", "u1", "Create a.py", isConfirmed={"type": 5})]
    metadata = {
        "toolCallRounds": [{"response": "", "toolCalls": [
            {"name": "create_file", "arguments": '{"filePath": "/w/a.py", "content": "x"}',
             "id": "m1"}]}],
        "toolCallResults": {"m1": tsx_result(skip)},
    }  # fmt: skip
    result = {"timings": {"totalElapsed": 1_000}, "metadata": metadata}
    data = session(SID, [request(0, "Make a.py", response, result=result)])
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), _ = load(tmp_path)
    (res,) = [p for m in s.messages for p in m.parts if p.kind == "tool_result"]
    assert (res.output.strip(), res.is_error, res.not_run) == (skip, False, "rejected")
    assert edited_files(s) == [] and error_count(s) == 0


_LINE_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=40)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINE_TEXT, min_size=1, max_size=6))
def test_an_attachment_text_reads_back_whatever_it_holds(lines):
    """Whatever the file or selection holds (fences, backticks, tags, colons), the text
    read from Copilot's element is that text: a selection in a fence longer than any run of
    backticks in it (as Copilot writes it), a whole file as it is."""
    from exporter.adapters.copilot_context import variable_parts

    text = "\n".join(lines)
    assume(text.strip() and not any(line.startswith("</attachment>") for line in lines))
    run = max((len(r) for r in re.findall("`+", text)), default=0)
    fence = "`" * max(3, run + 1)
    index = {"path": "/w/a.py", "scheme": "file"}
    selection = {
        "kind": "file",
        "id": "vscode.implicit.selection",
        "name": "file:a.py",
        "modelDescription": "User's active selection",
        "value": {"uri": index, "range": {"startLineNumber": 1, "endLineNumber": 2}},
    }
    whole = {"kind": "file", "id": "file:///w/b.py", "name": "b.py",
             "value": {"path": "/w/b.py", "scheme": "file"}}  # fmt: skip
    sent = _sent(
        f'<attachment id="file:a.py">\nUser\'s active selection:\nExcerpt from a.py, lines 1 to 2:\n'
        f"{fence}python\n{text}\n{fence}\n</attachment>",
        f'<attachment id="b.py" filePath="/w/b.py">\n{text}\n</attachment>',
    )  # fmt: skip
    parts = variable_parts({"variableData": {"variables": [selection, whole]}, "result": sent})
    assert [p.data.decode().strip("\n") for p in parts] == [text.strip("\n")] * 2


_ITEMS = st.lists(
    st.one_of(
        st.tuples(st.just("md"), st.text("ab .", min_size=1, max_size=5)),
        st.tuples(st.just("edit"), st.sampled_from(["/w/x.py", "/w/y.py"]), st.booleans()),
    ),
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(_ITEMS)
def test_each_edit_sits_where_its_file_was_first_edited(items):
    """Whatever the order of text and edits (each shown in VS Code's empty code block or
    not): one edit call per file, where its file was first edited, the text before it in
    the answer before it and every character of the text kept, in order, with no fence."""
    from exporter.adapters.copilot_log import _response

    response, expected, before, seen = [], [], "", []
    for item in items:
        if item[0] == "md":
            response.append(markdown(item[1]))
            before += item[1].replace(" ", "")  # (a blank text between two edits is no text)
            continue
        _, path, block = item
        uri = {"path": path, "scheme": "file"}
        group = {"kind": "textEditGroup", "uri": uri,
                 "edits": [[{"text": "t", "range": {"startLineNumber": 1, "endLineNumber": 1}}]]}  # fmt: skip
        if block:
            response += [markdown("\n```\n"), {"kind": "codeblockUri", "uri": uri, "isEdit": True},
                         group, markdown("\n```\n")]  # fmt: skip
        else:
            response.append(group)
        if path not in seen:
            seen.append(path)
            expected.append((path, before))
    parts, _ = _response(response, [])
    text_so_far, got = "", []
    for part in parts:
        if part.kind == "text":
            text_so_far += part.text.replace("\n", "").replace(" ", "")
        else:
            got.append((part.input["file_path"], text_so_far))
    assert got == expected
    assert text_so_far == before and "`" not in text_so_far


def test_an_imported_chat_starts_at_its_first_request_not_at_the_import(tmp_path):
    """VS Code gives a chat it imports ("Chat: Import Chat…") the import's time as its
    creationDate, while its requests keep their own, a month before: the note is dated by
    the first request, and never ends before it starts."""
    month = 30 * 24 * 3600 * 1000
    data = session(
        SID, [request(0, "First", [markdown("One")]), request(1, "Second", [markdown("Two")])]
    )
    first = min(r["timestamp"] for r in data["requests"])
    data.update(creationDate=first + month, isImported=True)
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load(tmp_path)
    assert problems == []
    assert s.started_at == s.messages[0].timestamp
    assert s.ended_at >= s.started_at


def test_a_log_that_lost_its_start_with_no_document_is_one_warning_said_once(tmp_path):
    """A log whose first line (the chat's whole initial state) is cut, and no document
    beside it: each later entry was a warning ("before the initial state", 400 for a long
    chat) and the run called the file one "without a conversation". Now one warning says
    the chat is lost, the file is no file without a conversation, and a run over it
    unchanged says nothing again (nobody can mend VS Code's log: an error every night would
    fail the schedule for good); with the document there, it says the chat was read there."""
    from datetime import UTC

    from exporter.export import ExportOptions, run_export

    chats = tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions"
    later = [{"kind": 2, "k": ["requests"], "v": [request(i, f"q{i}", [markdown("a")])]}
             for i in range(1, 8)]  # fmt: skip
    lines = log_lines([{"kind": 0, "v": base()}, *later]).split("\n", 1)
    write(chats / f"{SID}.jsonl", lines[0][:50] + "\n" + lines[1])
    sessions, problems = load(tmp_path)
    assert sessions == [] and all(p.severity == "warning" for p in problems)
    assert [p.line for p in problems] == [1, None]  # the cut line, then what it cost
    assert (
        problems[1].message
        == f"{LOST_START}, so none of its 7 later entries can be placed: no note"
    )
    options = ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC)
    first = run_export(options)
    assert not first.failed and first.empty_units == [] and len(first.problems) == 2
    again = run_export(options)
    assert not again.problems and again.total("skipped") == 0 and not again.failed
    write(chats / f"{SID}.json", base())
    (s,), problems = load(tmp_path)
    assert texts(s) == ["first question", "first answer"]
    (lost,) = [p for p in problems if p.message.startswith(LOST_START)]
    assert lost.message.endswith(f"; the chat is read from {SID}.json, which it was migrated from")
