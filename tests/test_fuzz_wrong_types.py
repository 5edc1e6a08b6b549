"""A value of the wrong type in one record (found by the corpus type-confusion audit): the
record is reported with its file and line, the rest of the session is exported, and the
value never reaches the note as a Python repr (``['x']``, ``{'a': 1}``, ``None``)."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path
from typing import Any

from claude_builder import ClaudeSession
from claude_builder import tool_use as claude_tool_use
from cline_builder import ask as cline_ask
from cline_builder import message as cline_message
from cline_builder import say as cline_say
from cline_builder import sdk_session as cline_sdk_session
from cline_builder import storage as cline_storage
from cline_builder import task as cline_task
from cline_builder import text as cline_text
from cline_builder import tool as cline_tool
from cline_builder import tool_result as cline_tool_result
from cline_builder import tool_use as cline_tool_use
from codex_builder import CodexRollout
from conftest import note_files
from copilot_builder import markdown as copilot_markdown
from copilot_builder import request as copilot_request
from copilot_builder import session as copilot_session
from copilot_builder import terminal_tool as copilot_terminal_tool
from copilot_builder import write as copilot_write
from copilot_cli_builder import CopilotCliSession
from copilot_cli_builder import request as cli_request
from cursor_agent_builder import AgentChat
from cursor_agent_builder import tool as agent_tool
from gemini_builder import GeminiChat, project_folder, tool_call
from gemini_builder import setup_turns as gemini_setup_turns
from gemini_builder import write_checkpoint as gemini_write_checkpoint
from opencode_builder import OpenCodeStore
from opencode_builder import text as oc_text
from opencode_builder import tool as oc_tool
from test_antigravity_adapter import session_steps as antigravity_steps
from test_antigravity_adapter import transcript as antigravity_transcript
from vscode_builder import make_db, workspace

from exporter.export import ExportOptions, run_export

REPRS = ("['", "{'", "None", "True", "False")


def exported(home: Path, vault: Path, source: str, **options) -> tuple[str, list[str]]:
    """Every note's text, and the problems as printed (path:line: message)."""
    report = run_export(
        ExportOptions(vault=vault, home=home, sources=[source], timezone=UTC, **options)
    )
    assert not report.failed, report.problems
    text = "\n".join(b.decode() for b in note_files(vault).values())
    return text, [str(p) for p in report.problems]


def test_codex_a_call_named_by_a_list_and_a_turn_ended_for_an_object(tmp_path):
    r = CodexRollout("019a0000-0000-7000-8000-0000000000a1").turn()
    r.user("mk1 first question").shell(["ls"], "mk2 output")
    r.assistant("mk3 answer")
    call = next(line for line in r.lines if line["payload"].get("type") == "function_call")
    call["payload"]["name"] = ["write_stdin"]
    r.event({"type": "turn_aborted", "reason": {"why": "budget"}})
    end_line = len(r.lines)
    r.user("mk4 second question").assistant("mk5 second answer")
    path = r.write(tmp_path / "home" / ".codex")
    text, problems = exported(tmp_path / "home", tmp_path / "v", "codex")
    assert all(f"mk{i}" in text for i in range(1, 6))
    assert not [r for r in REPRS if r in text], text
    call_line = r.lines.index(call) + 1
    assert (
        f"{path}:{call_line}: a tool call's name is a list, not text: shown as 'tool'" in problems
    )
    assert f"{path}:{end_line}: the turn's end reason is an object, not text: left out" in problems


def test_gemini_a_tool_call_named_by_a_list(tmp_path):
    chat = GeminiChat("5e55a0a0-0000-4000-8000-0000000000a2")
    chat.user("mk1 first question")
    call = tool_call("c1", "read_file", {"path": "a.py"}, "mk2 output")
    call["name"], call["displayName"] = ["read_file"], {"label": "Read"}
    reply = chat.gemini("mk3 answer", calls=[call])
    chat.user("mk4 second question")
    chat.gemini("mk5 second answer")
    path = chat.write_json(project_folder(tmp_path / "home", "/home/dev/work/api", "api") / "chats")
    text, problems = exported(tmp_path / "home", tmp_path / "v", "gemini")
    assert all(f"mk{i}" in text for i in range(1, 6))
    assert not [r for r in REPRS if r in text], text
    why = 'a tool call\'s name is a list, not text: shown as "tool"'
    assert f'{path}: message "{reply["id"]}": {why}' in problems


def test_opencode_tree_a_numeric_session_id_a_nul_in_a_message_id_and_odd_outputs(tmp_path):
    """The session file's id as a number lost the session (its messages were looked for
    under "7"); a NUL in a message id lost it too ('could not be read: embedded null
    byte', from the part folder it names); an output of true or a list was a repr."""
    store = OpenCodeStore()
    session = store.session("Fuzzed", "/home/dev/work/app", ident="ses_fuzzed")
    store.user(session, oc_text("mk1 first question"))
    store.assistant(session, oc_tool("bash", {"command": "ls"}, "x"), oc_text("mk2 answer"))
    store.assistant(session, oc_tool("read", {"path": "a.py"}, "x"), oc_text("mk3 more"))
    store.user(session, oc_text("mk4 second question"))
    store.assistant(session, oc_text("mk5 second answer"))
    session.messages[1].parts[0][1]["state"]["output"] = True
    session.messages[2].parts[0][1]["state"]["output"] = [{"a": 1}]
    storage = store.write_tree(tmp_path / "home" / ".local/share/opencode/storage")
    session_file = storage / "session/global/ses_fuzzed.json"
    session_file.write_text(json.dumps({**session.info(), "id": 7}))
    damaged = storage / "message/ses_fuzzed" / f"{session.messages[3].id}.json"
    damaged.write_text(json.dumps({**json.loads(damaged.read_text()), "id": "msg_\u0000x"}))
    text, problems = exported(tmp_path / "home", tmp_path / "v", "opencode")
    assert all(f"mk{i}" in text for i in range(1, 6))
    assert not [r for r in REPRS if r in text], text
    assert "```text\n> true\n" in text and '> [{"a":1}]\n' in text
    why = "the session's id is a number, not text: named by its file"
    assert f"{session_file}: {why}" in problems


COPILOT_ID = "5e55c0c0-0000-4000-8000-0000000000a3"


def copilot_home(home: Path, requests: list[dict]) -> Path:
    chats = home / ".config/Code/User/globalStorage/emptyWindowChatSessions"
    return copilot_write(chats / f"{COPILOT_ID}.json", copilot_session(COPILOT_ID, requests))


def copilot_requests() -> list[dict]:
    return [
        copilot_request(i, f"mk{2 * i - 1} ask", [copilot_markdown(f"mk{2 * i} reply")])
        for i in range(1, 4)
    ]


def test_claude_code_a_tool_call_named_by_a_list_or_true(tmp_path):
    s = ClaudeSession("11111111-2222-4333-8444-5555555555a4", "/home/dev/work/app")
    s.user("mk1 first question")
    s.assistant([claude_tool_use("Bash", {"command": "ls"}, "call-1")])
    s.tool_result("call-1", "mk2 output")
    s.assistant([claude_tool_use("Read", {"file_path": "a.py"}, "call-2")])
    s.tool_result("call-2", "mk3 output")
    s.assistant("mk4 answer")
    lines = [json.loads(line) for line in s.lines]
    bash = next(i for i, r in enumerate(lines) if "call-1" in json.dumps(r))
    lines[bash]["message"]["content"][0]["name"] = ["Bash"]
    lines[bash + 2]["message"]["content"][0]["name"] = True
    path = tmp_path / "home/.claude/projects/-home-dev-work-app" / f"{s.session_id}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    text, problems = exported(tmp_path / "home", tmp_path / "v", "claude-code")
    assert all(f"mk{i}" in text for i in range(1, 5))
    assert not [r for r in REPRS if r in text], text
    for line, kind in ((bash + 1, "a list"), (bash + 3, "true")):
        assert f"{path}:{line}: a tool call's name is {kind}, not text: shown as 'tool'" in problems


def test_copilot_cli_a_tool_named_by_a_list_or_a_number(tmp_path):
    s = CopilotCliSession("c0c0a0a0-0000-4000-8000-0000000000a5")
    s.user("mk1 first question")
    s.assistant("mk2 looking", [cli_request("t1", ["bash"], {"command": "ls"})])
    s.tool("t1", "bash", {"command": "ls"}, "mk3 output")
    s.tool("t2", 1e308, {"path": "a.py"}, "mk4 output")
    s.assistant("mk5 answer")
    path = s.write(tmp_path / "home" / ".copilot")
    text, problems = exported(tmp_path / "home", tmp_path / "v", "copilot-cli")
    assert all(f"mk{i}" in text for i in range(1, 6))
    assert not [r for r in (*REPRS, "1e+308") if r in text], text
    for line, kind in ((3, "a list"), (6, "a number")):
        why = f"a tool call's name is {kind}, not text: shown as 'tool'"
        assert f"{path}:{line}: {why}" in problems, problems


def test_cline_a_tool_call_named_by_a_list(tmp_path):
    messages = [
        cline_message("user", cline_text("mk1 first question"), n=1),
        cline_message(
            "assistant",
            cline_text("mk2 looking"),
            cline_tool_use("t1", ["read_files"], {"path": "a.py"}),
            n=2,
        ),  # fmt: skip
        cline_message("user", cline_tool_result("t1", "mk3 output"), n=3),
        cline_message("assistant", cline_text("mk4 answer"), n=4),
    ]
    folder = cline_sdk_session(tmp_path / "home" / ".cline" / "data", "1764145500000_fz", messages)
    text, problems = exported(tmp_path / "home", tmp_path / "v", "cline")
    assert all(f"mk{i}" in text for i in range(1, 5))
    assert not [r for r in REPRS if r in text], text
    why = "message 2: a tool call's name is a list, not text: shown as 'tool'"
    assert f"{folder / '1764145500000_fz.messages.json'}: {why}" in problems, problems


def test_copilot_a_tool_invocation_named_by_a_list(tmp_path):
    requests = copilot_requests()
    tool = copilot_terminal_tool("t1", "ls", "mk9 output")
    tool["toolId"] = ["run_in_terminal"]
    requests[1]["response"].insert(0, tool)
    path = copilot_home(tmp_path / "home", requests)
    text, problems = exported(tmp_path / "home", tmp_path / "v", "copilot")
    assert all(f"mk{i}" in text for i in range(1, 7))
    assert not [r for r in REPRS if r in text], text
    why = "request 2: a tool call's name is a list, not text: shown as 'tool'"
    assert f"{path}: {why}" in problems, problems


def test_antigravity_a_tool_call_named_by_a_list_or_true(tmp_path):
    steps = antigravity_steps()
    steps[2]["tool_calls"][0]["name"] = ["list_dir"]
    steps[2]["tool_calls"][1]["name"] = True
    path = antigravity_transcript(tmp_path / "home", steps)
    text, problems = exported(tmp_path / "home", tmp_path / "v", "antigravity")
    assert "> a.txt\n> b.txt" in text and "The repo holds a.txt and b.txt." in text
    assert "['" not in text and "True" not in text, text  # ("None" is in the fixture's text)
    for kind in ("a list", "true"):
        assert f"{path}:3: a tool call's name is {kind}, not text: shown as 'tool'" in problems


CURSOR_ID = "c0c0c0c0-1111-4222-8333-4444444444a6"


def cursor_home(home: Path, bubbles: list[dict]) -> Path:
    """A composer of ``bubbles`` in the global database (returned), listed by a workspace."""
    header = {"_v": 10, "composerId": CURSOR_ID, "name": "Fuzzed", "createdAt": 1759861723898,
              "fullConversationHeadersOnly": [{"bubbleId": b["bubbleId"]} for b in bubbles]}  # fmt: skip
    disk = {f"composerData:{CURSOR_ID}": json.dumps(header)}
    disk |= {f"bubbleId:{CURSOR_ID}:{b['bubbleId']}": json.dumps(b) for b in bubbles}
    user = home / ".config" / "Cursor" / "User"
    db = make_db(user / "globalStorage" / "state.vscdb", {}, disk)
    chats = {"composer.composerData": {"allComposers": [{"composerId": CURSOR_ID}]}}
    workspace(user, "ws1", "file:///home/dev/work/app", chats)
    return db


def test_cursor_a_tool_named_by_a_list(tmp_path):
    bubbles = [
        {"_v": 3, "type": 1, "bubbleId": "b1", "text": "mk1 question"},
        {"_v": 3, "type": 2, "bubbleId": "b2", "text": "mk2 looking",
         "toolFormerData": {"name": ["grep"], "toolCallId": "t1", "status": "completed",
                            "rawArgs": '{"pattern": "x"}', "result": '{"output": "mk3 found"}'}},
        {"_v": 3, "type": 2, "bubbleId": "b3", "text": "mk4 answer"},
    ]  # fmt: skip
    db = cursor_home(tmp_path / "home", bubbles)
    text, problems = exported(tmp_path / "home", tmp_path / "v", "cursor")
    assert all(f"mk{i}" in text for i in range(1, 5))
    assert not [r for r in REPRS if r in text], text
    why = (
        f"composer {CURSOR_ID}, bubble b2: a tool call's name is a list, not text: shown as 'tool'"
    )
    assert f"{db}: {why}" in problems, problems


def test_codex_a_review_finding_titled_by_a_list_and_a_command_given_as_an_object(tmp_path):
    r = CodexRollout("019a0000-0000-7000-8000-0000000000a7").turn()
    r.user("mk1 review my change")
    r.event({"type": "exited_review_mode", "review_output": {
        "overall_explanation": "mk2 two problems.",
        "findings": [{"title": ["Off by one"], "body": "mk3 use range(n)."}]}})  # fmt: skip
    review_line = len(r.lines)
    r.local_shell(["ls"], "mk4 output")
    shell = r.lines[-2]
    shell["payload"]["action"]["command"] = {"argv": "ls"}
    r.user("mk5 second question").assistant("mk6 answer")
    path = r.write(tmp_path / "home" / ".codex")
    text, problems = exported(tmp_path / "home", tmp_path / "v", "codex")
    assert all(f"mk{i}" in text for i in range(1, 7))
    assert not [r for r in REPRS if r in text], text
    assert '{"argv":"ls"}' in text
    why = "review finding 1's title is a list, not text: left out"
    assert f"{path}:{review_line}: {why}" in problems, problems


def test_cline_a_result_item_whose_query_is_a_list(tmp_path):
    item = {"query": ["src/a.ts", "src/b.ts"], "result": "mk3 found", "success": True}
    messages = [
        cline_message("user", cline_text("mk1 first question"), n=1),
        cline_message("assistant", cline_tool_use("t1", "read_files", {"path": "a"}), n=2),
        cline_message("user", cline_tool_result("t1", [item]), n=3),
        cline_message("assistant", cline_text("mk4 answer"), n=4),
    ]
    cline_sdk_session(tmp_path / "home" / ".cline" / "data", "1764145500000_fq", messages)
    text, _problems = exported(tmp_path / "home", tmp_path / "v", "cline")
    assert all(f"mk{i}" in text for i in (1, 3, 4))
    assert not [r for r in REPRS if r in text], text
    assert '"src/a.ts",' in text


def _codex_shell_output(tmp_path: Path, thread: str, output: Any) -> str:
    """The note of a Codex turn whose ``ls`` call's output is ``output`` as stored."""
    r = CodexRollout(thread).turn()
    r.user("mk1 question")
    r.shell(["ls"], "placeholder")
    stored = next(line for line in r.lines if line["payload"].get("type") == "function_call_output")
    stored["payload"]["output"] = output
    r.assistant("mk2 answer")
    r.write(tmp_path / "home" / ".codex")
    return exported(tmp_path / "home", tmp_path / "v", "codex")[0]


def test_codex_a_wrapped_output_that_is_not_text_is_shown_as_json(tmp_path):
    wrapped = json.dumps({"output": ["a.py", "b.py"], "metadata": {"exit_code": 0}})
    text = _codex_shell_output(tmp_path, "019a0000-0000-7000-8000-0000000000a9", wrapped)
    assert "mk1" in text and "mk2" in text and '> ["a.py","b.py"]' in text
    assert not [r for r in REPRS if r in text], text


def test_gemini_a_saved_chat_whose_call_is_named_by_a_list(tmp_path):
    folder = project_folder(tmp_path / "home", "/home/dev/work/api", "api")
    history = [
        *gemini_setup_turns("/home/dev/work/api"),
        {"role": "user", "parts": [{"text": "mk1 read the server"}]},
        {"role": "model", "parts": [{"functionCall": {"name": ["read_file"], "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "read_file",
                                                         "response": {"output": "mk2 app"}}}]},
        {"role": "model", "parts": [{"text": "mk3 done"}]},
    ]  # fmt: skip
    path = gemini_write_checkpoint(folder, "saved", history)
    text, problems = exported(tmp_path / "home", tmp_path / "v", "gemini")
    assert all(f"mk{i}" in text for i in range(1, 4))
    assert not [r for r in REPRS if r in text], text
    why = "turn 4: a tool call's name is a list, not text: shown as 'tool'"
    assert f"{path}: {why}" in problems, problems


def test_codex_a_tool_search_that_found_tools_named_by_lists(tmp_path):
    r = CodexRollout("019a0000-0000-7000-8000-0000000000b2")
    r.user("mk1 draw a cat")
    r.item({"type": "tool_search_call", "call_id": "ts", "arguments": '{"query": "images"}'})
    r.item({"type": "tool_search_output", "call_id": "ts", "tools": [
        {"type": "function_group", "name": ["media"], "tools": [{"name": "draw"}, {"name": [1]}]},
        {"type": "function", "name": "upload"}]})  # fmt: skip
    r.assistant("mk2 done")
    r.write(tmp_path / "home" / ".codex")
    text, _problems = exported(tmp_path / "home", tmp_path / "v", "codex")
    assert "mk1" in text and "mk2" in text and "> function_group: draw\n> upload" in text
    assert not [r for r in REPRS if r in text], text


def test_codex_an_output_of_true_is_shown_as_json(tmp_path):
    text = _codex_shell_output(tmp_path, "019a0000-0000-7000-8000-0000000000b3", True)
    assert "mk1" in text and "mk2" in text and "> true\n" in text
    assert not [r for r in REPRS if r in text], text


def test_cline_ui_messages_a_tool_and_an_mcp_server_named_by_lists(tmp_path):
    """Cline's older ``ui_messages.json``: the names were joined with ``str()``."""
    root = cline_storage(tmp_path / "home", "saoudrizwan.claude-dev")
    mcp = {"type": "use_mcp_tool", "serverName": ["github"], "toolName": "search",
           "arguments": '{"q": "x"}'}  # fmt: skip
    cline_task(root, "1762500000001", ui=[
        cline_say(0, "task", "mk1 find the helper"),
        cline_tool(1, ["readFile"], kind="ask", path="a.py"),
        cline_ask(2, "use_mcp_server", json.dumps(mcp)),
        cline_say(3, "text", "mk2 found it"),
    ])  # fmt: skip
    text, _problems = exported(tmp_path / "home", tmp_path / "v", "cline")
    assert "mk1" in text and "mk2" in text and "`search`" in text
    assert not [r for r in REPRS if r in text], text


def test_copilot_a_question_without_a_title_whose_id_is_a_list(tmp_path):
    requests = copilot_requests()
    requests[1]["response"].append({"kind": "questionCarousel", "resolveId": "q", "questions": [
        {"id": ["fw"], "options": [{"label": "Vue", "value": "vue"}]}]})  # fmt: skip
    copilot_home(tmp_path / "home", requests)
    text, _problems = exported(tmp_path / "home", tmp_path / "v", "copilot")
    assert all(f"mk{i}" in text for i in range(1, 7)) and "Vue" in text
    assert not [r for r in REPRS if r in text], text


def test_cursor_a_grep_match_without_its_line_and_a_lint_with_a_list_for_its_message(tmp_path):
    grep = {"success": {"workspaceResults": {"/w": {"content": {"matches": [
        {"file": "a.py", "matches": [{"content": "mk3 import os"}]}]}}}}}  # fmt: skip
    lints = {"linterErrorsByFile": [{"relativeWorkspacePath": "b.py", "errors": [
        {"message": ["unused"], "severity": "DIAGNOSTIC_SEVERITY_WARNING",
         "range": {"startPosition": {"line": 2, "column": [1]}}}]}]}  # fmt: skip
    bubbles = [
        {"_v": 3, "type": 1, "bubbleId": "b1", "text": "mk1 question"},
        {"_v": 3, "type": 2, "bubbleId": "b2", "text": "mk2 searching",
         "toolFormerData": {"name": "grep", "toolCallId": "t1", "status": "completed",
                            "rawArgs": '{"pattern": "os"}', "result": json.dumps(grep)}},
        {"_v": 3, "type": 2, "bubbleId": "b3", "text": "mk4 linting",
         "toolFormerData": {"name": "read_lints", "toolCallId": "t2", "status": "completed",
                            "rawArgs": "{}", "result": json.dumps(lints)}},
    ]  # fmt: skip
    cursor_home(tmp_path / "home", bubbles)
    text, _problems = exported(tmp_path / "home", tmp_path / "v", "cursor")
    assert "> a.py:?:mk3 import os" in text and "> b.py:2:?: warning: \n" in text
    assert not [r for r in REPRS if r in text], text


def test_cursor_agent_thinking_given_as_a_list_and_a_result_as_an_object(tmp_path):
    chat = AgentChat(
        tmp_path / "home", "/home/dev/work/app", "a9e9a9e9-1111-4222-8333-4444444444c3"
    )
    chat.user("mk1 first question")
    chat.reply({"type": "thinking", "thinking": ["mk9 thought"]}, "mk2 looking",
               agent_tool("Shell", command="ls"))  # fmt: skip
    chat.line({"role": "user", "message": {"content": [
        {"type": "tool_result", "content": {"files": ["a.py"]}}]}})  # fmt: skip
    chat.reply("mk3 answer")
    path = chat.write()
    text, problems = exported(tmp_path / "home", tmp_path / "v", "cursor")
    assert all(f"mk{i}" in text for i in range(1, 4)) and '{"files":["a.py"]}' in text
    assert not [r for r in REPRS if r in text], text
    assert problems == [f"{path}:2: a thinking block's text is a list, not text: left out"]
