"""A tool call of a session's last reply that no result answers (the session ended, was
killed, or was read while the tool ran) looked exactly like a call whose output was empty,
in Codex, Copilot CLI, Gemini CLI and OpenCode notes as in Claude Code's before
(test_claude_unanswered.py). The note says so under it; a call answered, even with nothing,
says nothing; a call the harness marked interrupted says only that. Streamed and held
readings make the same note."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import pytest
from codex_builder import CodexRollout
from conftest import UNANSWERED_SAID, note_files, said_under
from copilot_cli_builder import CopilotCliSession, request
from gemini_builder import GeminiChat, project_folder, tool_call
from opencode_builder import OpenCodeStore, text, tool

from exporter.adapters import codex, copilot_cli
from exporter.adapters import gemini as gemini_adapter
from exporter.adapters._unanswered import last_reply_marked
from exporter.export import ExportOptions, run_export
from exporter.model import Message, NoticePart, TextPart, ToolCallPart, ToolResultPart

SID = "4b8e2f10-7c3d-4e5a-9f6b-1a2b3c4d5e6f"
STREAMING = {"codex": codex, "copilot-cli": copilot_cli, "gemini": gemini_adapter}


def notes(home: Path, source: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The notes of ``home``'s sessions of ``source``, by path: read whole, and (for a
    source that streams long files) streamed too, which must make the same notes."""
    made = []
    for stream in (False, True) if source in STREAMING else (False,):
        if source in STREAMING:
            monkeypatch.setattr(STREAMING[source], "STREAM_FROM", 0 if stream else 1 << 62)
        vault = home / f"vault-{stream}"
        options = ExportOptions(vault=vault, home=home, sources=[source], timezone=UTC)
        assert run_export(options).problems == []
        made.append({k: v.decode() for k, v in note_files(vault).items()})
    assert all(m == made[0] for m in made)
    return made[0]


# -- the shared rule ------------------------------------------------------------------


def call(call_id: str | None) -> ToolCallPart:
    return ToolCallPart("bash", {"command": f"run {call_id}"}, call_id)


def marks(*messages: Message) -> list[str | None]:
    """The ids of the calls marked, in order."""
    parts = [p for m in last_reply_marked(messages) for p in m.parts]
    return [
        parts[i - 1].call_id
        for i, p in enumerate(parts)
        if isinstance(p, NoticePart) and p.notice == "unanswered"
    ]


def test_of_a_reply_in_several_messages_each_call_unanswered_is_marked():
    """Codex writes each call of one response as an item of its own."""
    prompt = Message("user", (TextPart("go"),))
    a, b, c = (Message("assistant", (call(i),)) for i in "abc")
    assert marks(prompt, a, b, c, Message("tool", (ToolResultPart("", "b"),))) == ["a", "c"]


def test_only_the_last_reply_and_only_when_nothing_but_results_followed():
    a, b = Message("assistant", (call("a"),)), Message("assistant", (call("b"),))
    result_a = Message("tool", (ToolResultPart("done", "a"),))
    assert marks(a, result_a, b) == ["b"]  # (a reply after a result: the next reply)
    assert marks(Message("assistant", (call("x"),)), a, result_a, b) == ["b"]  # (x: earlier)
    assert marks(a, Message("user", (TextPart("stop"),))) == []
    assert marks(a, Message("user", (NoticePart("interrupted"),))) == []
    assert marks(a, Message("assistant", (NoticePart("error", "stream lost"),))) == []
    assert marks(Message("assistant", (call(None),))) == []  # (no id: nothing can answer it)


# -- Copilot CLI ----------------------------------------------------------------------


def copilot_log(home: Path, *, answered: bool, agent: bool = False) -> None:
    s = CopilotCliSession(SID)
    s.user("Commit it")
    s.assistant("Removing it.", [request("c1", "bash", {"command": "rm hello.js"})])
    s.tool("c1", "bash", {"command": "rm hello.js"}, "")  # answered, with nothing
    command = {"command": "git add -A && git status --short"}
    s.assistant("Staging.", [request("c2", "bash", command), request("c3", "view", {"path": "a"})])
    s.event("tool.execution_start", {"toolCallId": "c2", "toolName": "bash", "arguments": command})
    s.tool("c3", "view", {"path": "a"}, "# App")
    if agent:  # the call waited on is a sub-agent's, whose last call never returned
        task = {"prompt": "Find the tests", "agent_type": "explore"}
        s.assistant("Delegating.", [request("task-1", "task", task)])
        s.event("subagent.started", {"toolCallId": "task-1", "agentName": "explore"}, agentId="ag")
        s.assistant("Searching.", [request("sub-1", "grep", {"pattern": "health"})])
        s.events[-1]["agentId"] = "ag"  # (the envelope's: the sub-agent's own events)
        if answered:
            s.tool("sub-1", "grep", {"pattern": "health"}, "tests/test_health.py", agentId="ag")
    if answered:
        done = {"toolCallId": "c2", "success": True, "result": {"content": ""}}
        s.event("tool.execution_complete", done)
    s.write(home / ".copilot")


def test_copilot_cli_a_last_call_with_no_result_says_so(tmp_path, monkeypatch):
    copilot_log(tmp_path, answered=False)
    (note,) = notes(tmp_path, "copilot-cli", monkeypatch).values()
    said_under(note, "git status --short")  # (not under rm, answered with nothing, nor view)


def test_copilot_cli_a_sub_agent_s_last_call_too(tmp_path, monkeypatch):
    copilot_log(tmp_path, answered=False, agent=True)
    made = notes(tmp_path, "copilot-cli", monkeypatch)
    (main,) = [n for k, n in made.items() if "agent" not in k]
    (child,) = [n for k, n in made.items() if "agent" in k]
    said_under(child, "`health`")
    said_under(main, "`task`")  # (its delegating call: no result either)


def test_copilot_cli_an_answered_last_call_says_nothing(tmp_path, monkeypatch):
    copilot_log(tmp_path, answered=True)
    assert UNANSWERED_SAID not in "".join(notes(tmp_path, "copilot-cli", monkeypatch).values())


def test_copilot_cli_an_aborted_turn_says_only_that(tmp_path, monkeypatch):
    copilot_log(tmp_path, answered=False)
    log = tmp_path / ".copilot" / "session-state" / SID / "events.jsonl"
    abort = {"type": "abort", "data": {"reason": "user initiated"}, "id": "ev-x", "parentId": None,
             "timestamp": "2026-06-01T10:00:00.000Z"}  # fmt: skip
    log.write_text(log.read_text() + json.dumps(abort) + "\n")
    (note,) = notes(tmp_path, "copilot-cli", monkeypatch).values()
    assert UNANSWERED_SAID not in note and "Interrupted by the user" in note


@pytest.mark.parametrize(
    "aside",
    [("session.truncation", {"messagesRemovedDuringTruncation": 4}),
     ("session.model_change", {"newModel": "gpt-5"})],
)  # fmt: skip
def test_copilot_cli_a_notice_that_says_nothing_of_the_call_leaves_it_unanswered(
    tmp_path, monkeypatch, aside
):
    """The context cut (or the model switched) while the tool ran, and the log ends: the
    notice tells nothing of the call, which still has no result (review12 F5)."""
    copilot_log(tmp_path, answered=False)
    log = tmp_path / ".copilot" / "session-state" / SID / "events.jsonl"
    kind, data = aside
    event = {"type": kind, "data": data, "id": "ev-x", "parentId": None,
             "timestamp": "2026-06-01T10:00:00.000Z"}  # fmt: skip
    log.write_text(log.read_text() + json.dumps(event) + "\n")
    (note,) = notes(tmp_path, "copilot-cli", monkeypatch).values()
    said_under(note, "git status --short")
    assert ("Context truncated" if kind == "session.truncation" else "Model changed") in note


# -- Codex ----------------------------------------------------------------------------

TID = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"


def rollout(*, answered: bool, parallel: bool = True, aborted: bool = False) -> CodexRollout:
    r = CodexRollout(TID).turn()
    r.user("commit it")
    r.shell(["rm", "hello.js"], "")  # answered, with nothing
    r.web_search("git add flags")  # (the API's own, as images it makes: no output item)
    r.lines[-1]["payload"]["id"] = "ws_1"
    r.item({"type": "image_generation_call", "id": "ig_1", "status": "completed",
            "revised_prompt": "a diagram of the index"})  # fmt: skip
    r.reasoning("Stage, then look.")
    argv = ["bash", "-lc", "git add -A && git status --short"]
    for cid in ("call_git", "call_cat") if parallel else ("call_git",):
        args = json.dumps({"command": argv if cid == "call_git" else ["cat", "a.txt"]})
        r.item({"type": "function_call", "name": "shell", "arguments": args, "call_id": cid})
    if parallel:
        r.item({"type": "function_call_output", "call_id": "call_cat", "output": "text"})
    if answered:
        r.item({"type": "function_call_output", "call_id": "call_git", "output": ""})
    if aborted:
        r.aborted()
    return r


def test_codex_the_last_calls_with_no_output_say_so(tmp_path, monkeypatch):
    rollout(answered=False).write(tmp_path / ".codex")
    (note,) = notes(tmp_path, "codex", monkeypatch).values()
    said_under(note, "git status --short")  # (cat has its output; rm and the search are earlier)


def test_codex_calls_made_together_each_say_so(tmp_path, monkeypatch):
    r = rollout(answered=False, parallel=False)
    r.item({"type": "custom_tool_call", "call_id": "call_patch", "name": "apply_patch",
            "input": "*** Begin Patch\n*** Delete File: b.txt\n*** End Patch"})  # fmt: skip
    r.write(tmp_path / ".codex")
    (note,) = notes(tmp_path, "codex", monkeypatch).values()
    said_under(note, "git status --short", "b.txt")


def test_codex_an_answered_last_call_says_nothing(tmp_path, monkeypatch):
    rollout(answered=True).write(tmp_path / ".codex")
    assert UNANSWERED_SAID not in "".join(notes(tmp_path, "codex", monkeypatch).values())


def test_codex_an_aborted_turn_says_only_that(tmp_path, monkeypatch):
    rollout(answered=False, aborted=True).write(tmp_path / ".codex")
    (note,) = notes(tmp_path, "codex", monkeypatch).values()
    assert UNANSWERED_SAID not in note and "Interrupted by the user" in note


def test_codex_a_subagent_s_last_call_too(tmp_path, monkeypatch):
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": TID, "depth": 1}}}
    child = CodexRollout("019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a6c", source=spawn).turn()
    child.user("look for the tests")
    args = json.dumps({"command": ["rg", "health"]})
    child.item({"type": "function_call", "name": "shell", "arguments": args, "call_id": "c9"})
    child.write(tmp_path / ".codex")
    (note,) = notes(tmp_path, "codex", monkeypatch).values()
    said_under(note, "rg health")


# -- Gemini CLI -----------------------------------------------------------------------

GID = "3f2a9c1e-5b7d-4e2f-8a1c-0d9e8f7a6b5c"


def gemini_chat(home: Path, status: str, *, subagent: bool = False) -> None:
    """The CLI records a call once it is done (success, error, cancelled); a call of
    another status and no result (written before it finished) is the case looked for. With
    ``subagent``, the chat is a subagent's, beside its parent's (whose calls are done)."""
    chat = GeminiChat("agent-7f3" if subagent else GID, kind="subagent" if subagent else "main")
    chat.user("Commit it")
    chat.gemini("Removing it.", calls=[tool_call("rm-1", "run_shell_command",
                                                 {"command": "rm hello.js"}, "")])  # fmt: skip
    command = {"command": "git add -A && git status --short"}
    output = "" if status == "success" else None
    chat.gemini("Staging.", calls=[tool_call("git-1", "run_shell_command", command, output,
                                             status=status)])  # fmt: skip
    chats = project_folder(home, "/home/dev/work/api", "api") / "chats"
    if subagent:
        parent = GeminiChat(GID)
        parent.user("Look into it")
        parent.gemini(
            "Done.", calls=[tool_call("inv-1", "investigator", {}, "ok", agent_id="agent-7f3")]
        )
        parent.write_jsonl(chats)
        chat.write_jsonl(chats / GID, "agent-7f3.jsonl")
    else:
        chat.write_jsonl(chats)


def test_gemini_a_last_call_recorded_while_it_ran_says_so(tmp_path, monkeypatch):
    gemini_chat(tmp_path, "executing")
    (note,) = notes(tmp_path, "gemini", monkeypatch).values()
    said_under(note, "git status --short")


def test_gemini_a_subagent_s_last_call_too(tmp_path, monkeypatch):
    gemini_chat(tmp_path, "executing", subagent=True)
    made = notes(tmp_path, "gemini", monkeypatch)
    (main,) = [n for k, n in made.items() if "agent" not in k]
    (child,) = [n for k, n in made.items() if "agent" in k]
    assert UNANSWERED_SAID not in main
    said_under(child, "git status --short")


@pytest.mark.parametrize("status", ["success", "cancelled"])
def test_gemini_a_call_done_says_nothing(tmp_path, monkeypatch, status):
    """Answered with nothing (success, an empty output), or cancelled: the note says that."""
    gemini_chat(tmp_path, status)
    assert UNANSWERED_SAID not in "".join(notes(tmp_path, "gemini", monkeypatch).values())


# -- OpenCode -------------------------------------------------------------------------

DATA = Path(".local") / "share" / "opencode"


def opencode_store(home: Path, status: str, *, aborted: bool = False) -> None:
    store = OpenCodeStore()
    s = store.session("Commit it", "/home/dev/work/api")
    store.user(s, text("Commit it"))
    store.assistant(s, tool("bash", {"command": "rm hello.js"}, "", call_id="c1"))
    child = store.session("Find the tests", "/home/dev/work/api", parent=s)
    store.user(child, text("Find the tests"))
    store.assistant(child, tool("grep", {"pattern": "health"}, status=status, call_id="c9"))
    command = {"command": "git add -A && git status --short"}
    if status in ("completed", "error"):
        kept = {"error": "Tool execution aborted"} if status == "error" else {}
        git = tool("bash", command, None if kept else "", status=status, call_id="c2", **kept)
    else:
        git = tool("bash", command, status=status, call_id="c2")
    error = {"error": {"name": "MessageAbortedError", "data": {}}} if aborted else {}
    store.assistant(s, text("Staging."), git, tool("read", {"filePath": "a"}, "# A"), **error)
    store.write_db(home / DATA / "opencode.db")


@pytest.mark.parametrize("status", ["running", "pending"])
def test_opencode_a_last_call_still_running_says_so_a_child_s_too(tmp_path, monkeypatch, status):
    opencode_store(tmp_path, status)
    made = notes(tmp_path, "opencode", monkeypatch)
    (main,) = [n for k, n in made.items() if "agent" not in k]
    (child,) = [n for k, n in made.items() if "agent" in k]
    said_under(main, "git status --short")  # (not under rm, answered with nothing, nor read)
    said_under(child, "`health`")


@pytest.mark.parametrize("status", ["completed", "error"])
def test_opencode_a_call_done_or_stopped_says_nothing(tmp_path, monkeypatch, status):
    opencode_store(tmp_path, status)
    assert UNANSWERED_SAID not in "".join(notes(tmp_path, "opencode", monkeypatch).values())


def test_opencode_a_turn_stopped_says_only_that(tmp_path, monkeypatch):
    opencode_store(tmp_path, "running", aborted=True)
    made = notes(tmp_path, "opencode", monkeypatch)
    (main,) = [n for k, n in made.items() if "agent" not in k]
    assert UNANSWERED_SAID not in main and "Interrupted by the user" in main


def test_gemini_a_last_call_awaiting_approval_says_it_had_not_run(tmp_path, monkeypatch):
    """A status the CLI's types allow before an outcome: the tool had not run, which the
    note says instead of 'no result' (not seen written: the CLI records a call once done)."""
    gemini_chat(tmp_path, "awaiting_approval")
    (note,) = notes(tmp_path, "gemini", monkeypatch).values()
    assert UNANSWERED_SAID not in note
    waiting = note.index("waiting for the user's approval")
    assert note.index("git status --short") < waiting
    assert "rm hello.js" in note and note.count("waiting for the user's approval") == 1
