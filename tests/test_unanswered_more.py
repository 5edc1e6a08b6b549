"""A tool call of a session's last reply that no result answers (the session ended, was
killed, or was read while the tool ran, or the call still waits for the person's approval)
looked exactly like a call whose output was empty, in the Cline family's and Copilot Chat's
notes, as it did in the sources test_unanswered.py covers. The note says so under it; a call
answered, even with nothing, rejected, failed or interrupted says nothing more. (A call the
file tells was still waiting for approval: test_awaiting_approval.py.)"""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import cline_builder as cb
import copilot_builder as cp
from conftest import UNANSWERED_SAID, note_files, said_under

from exporter.export import ExportOptions, run_export


def notes(home: Path, source: str) -> dict[str, str]:
    vault = home.parent / "vault"
    options = ExportOptions(vault=vault, home=home, sources=[source], timezone=UTC)
    assert run_export(options).problems == []
    return {k: v.decode() for k, v in note_files(vault).items()}


# -- the Cline family: the UI transcript ------------------------------------------------------


def cline_task(home: Path, *after: dict, extension: str = cb.CLINE) -> None:
    """A task whose reply edited a file (the UI file records no result of an edit: it is in
    the next request), then asked to run ``npm test``, with ``after`` after that question."""
    root = cb.storage(home, extension)
    cb.task(root, "1762500000000", ui=[
        cb.say(0, "task", "Fix the failing test"),
        cb.api_request(1, 100, 20, 0.01),
        cb.say(2, "text", "Editing the helper."),
        cb.tool(3, "editedExistingFile", path="src/util.ts", diff="- a\n+ b"),
        cb.say(4, "checkpoint_created"),
        cb.api_request(5, 120, 20, 0.01),
        cb.say(6, "text", "Running the tests."),
        cb.ask(7, "command", "npm test"),
        *after,
    ])  # fmt: skip


def the_note(home: Path, source: str = "cline") -> str:
    (note,) = notes(home, source).values()
    return note


def test_cline_a_task_ending_with_a_command_asked_says_so(tmp_path):
    """The question is the file's last entry: the person has not answered it yet, or
    approved it and the command has not returned (the file does not say which)."""
    cline_task(tmp_path / "home")
    note = the_note(tmp_path / "home")
    said_under(note, "npm test")  # (not under the edit, answered in the next request)


def test_cline_the_task_reopened_since_says_so_too(tmp_path):
    """Reopening the task adds Cline's resume question: the call has no result still."""
    cline_task(tmp_path / "home", cb.ask(9, "resume_task"), extension=cb.ROO)
    said_under(the_note(tmp_path / "home", "roo-code"), "npm test")


def test_cline_tools_run_without_asking_and_not_returned_say_so(tmp_path):
    """Two calls made together (each its own entry), neither returned."""
    cline_task(
        tmp_path / "home",
        cb.say(8, "command_output", "PASS 3 tests"),
        cb.api_request(9, 150, 20, 0.01),
        cb.tool(10, "readFile", path="package.json"),
        cb.tool(11, "readFile", path="tsconfig.json"),
    )
    said_under(the_note(tmp_path / "home"), "package.json", "tsconfig.json")


def test_cline_an_answered_or_settled_last_call_says_nothing(tmp_path):
    """Output, the next request, a rejection, an error or a checkpoint (saved once a tool
    ran) after the call: each says what became of it."""
    request = {"request": "[execute_command for 'npm test'] Result:\n\nThe user denied this "
               "operation.", "tokensIn": 1, "tokensOut": 1, "cost": 0}  # fmt: skip
    endings = [
        [cb.say(8, "command_output", "")],
        [cb.api_request(8, 150, 20, 0.01)],
        [cb.say(8, "api_req_started", json.dumps(request))],
        [cb.say(8, "error", "Error executing command: spawn ENOENT")],
        [cb.say(8, "checkpoint_created")],
    ]
    for n, after in enumerate(endings):
        home = tmp_path / str(n) / "home"
        cline_task(home, *after)
        assert UNANSWERED_SAID not in the_note(home), after


def test_cline_a_batch_of_subagents_still_running_says_so_for_each_unfinished(tmp_path):
    status = {"status": "running", "items": [
        {"index": 0, "prompt": "find the tests", "status": "completed", "result": "3 files"},
        {"index": 1, "prompt": "find the docs", "status": "running"},
    ]}  # fmt: skip
    cline_task(
        tmp_path / "home", cb.api_request(8, 1, 1, 0), cb.say(9, "subagent", json.dumps(status))
    )
    said_under(the_note(tmp_path / "home"), "find the docs")


# -- the Cline family: the model's history (no UI file) ----------------------------------------


def legacy_task(home: Path, *after: dict) -> None:
    root = cb.storage(home, cb.KILO)
    cb.task(root, "7c2d-kilo", api=[
        cb.message("user", cb.text("<task>\nRun the tests\n</task>")),
        cb.message("assistant", cb.text("<read_file>\n<path>package.json</path>\n</read_file>")),
        cb.message("user", cb.text("[read_file for 'package.json'] Result:\n")),  # (empty)
        cb.message("assistant", cb.text(
            "Running them.\n\n<execute_command>\n<command>npm test</command>\n</execute_command>")),
        *after,
    ])  # fmt: skip


def test_cline_history_ending_with_a_call_says_so(tmp_path):
    """Cline sends a reply's results with its next request: a history ending with the
    model's call is one whose result was never sent."""
    legacy_task(tmp_path / "home")
    said_under(the_note(tmp_path / "home", "kilo-code"), "npm test")  # (not package.json)


def test_cline_history_an_answered_or_resumed_last_call_says_nothing(tmp_path):
    answered = [cb.message("user", cb.text("[execute_command for 'npm test'] Result:\n"))]
    resumed = [  # Cline's resumption (left out of the note), then a reply answered
        cb.message("user", cb.text("[TASK RESUMPTION] This task was interrupted 2 minutes ago.")),
        cb.message("assistant", cb.text("<list_files>\n<path>.</path>\n</list_files>")),
        cb.message("user", cb.text("[list_files for '.'] Result:\npackage.json")),
    ]
    for n, after in enumerate((answered, resumed)):
        home = tmp_path / str(n) / "home"
        legacy_task(home, *after)
        assert UNANSWERED_SAID not in the_note(home, "kilo-code")


def sdk(home: Path, *messages: dict, agents: dict | None = None) -> None:
    cb.sdk_session(home / ".cline" / "data", "s1", [
        cb.message("user", "Check the build", n=0),
        cb.message("assistant", cb.tool_use("t1", "read_files", {"paths": ["a.ts"]}), n=1),
        cb.message("user", cb.tool_result("t1", ""), n=2),  # (answered with nothing)
        *messages,
    ], agents=agents)  # fmt: skip


def test_cline_sdk_a_last_call_with_no_result_says_so(tmp_path):
    sdk(
        tmp_path / "home",
        cb.message("assistant", cb.tool_use("t2", "run_commands", {"commands": ["npm run build"]}),
                   cb.tool_use("t3", "read_files", {"paths": ["b.ts"]}), n=3),
        cb.message("user", cb.tool_result("t3", "export {}"), n=4),
    )  # fmt: skip
    said_under(the_note(tmp_path / "home"), "npm run build")  # (not a.ts, b.ts: answered)


def test_cline_sdk_an_answered_last_call_says_nothing(tmp_path):
    sdk(
        tmp_path / "home",
        cb.message("assistant", cb.tool_use("t2", "run_commands", {"commands": ["npm run build"]}), n=3),
        cb.message("user", cb.tool_result("t2", ""), n=4),
    )  # fmt: skip
    assert UNANSWERED_SAID not in the_note(tmp_path / "home")


def test_cline_sdk_subagents_of_a_batch_with_no_result(tmp_path):
    """A ``use_subagents`` call of several tasks is a call per task: each whose subagent
    has said nothing yet has no result; one whose transcript ends with a reply has it."""
    tasks = [{"prompt": "find the docs"}, {"prompt": "find the tests"}]
    agent = [
        cb.message("user", "find the tests", n=1),
        cb.message("assistant", cb.text("3 files"), n=2),
    ]
    sdk(
        tmp_path / "home",
        cb.message("assistant", cb.tool_use("t2", "use_subagents", {"tasks": tasks}), n=3),
        agents={"agent_a": agent},
    )
    made = notes(tmp_path / "home", "cline")
    (main,) = [n for k, n in made.items() if "agent" not in k.rsplit("/", 1)[-1]]
    said_under(main, "find the docs")


# -- Copilot Chat -------------------------------------------------------------------------------

CHAT = "5d1c7e2a-3b4f-4a6e-9c8d-7e6f5a4b3c2d"


def invocation(call_id: str, command: str, **extra) -> dict:
    """A terminal command VS Code ran (or runs): no result details unless given."""
    return {"kind": "toolInvocationSerialized", "toolId": "run_in_terminal", "toolCallId": call_id,
            "invocationMessage": {"value": f"Running `{command}`"}, "isConfirmed": {"type": 1},
            "isComplete": True, "toolSpecificData": {"kind": "terminal",
            "commandLine": {"original": command}, "language": "sh"}, **extra}  # fmt: skip


def chat(home: Path, last: dict, *, log: bool = False) -> None:
    """A chat of two requests, the last one ``last``; a mutation log (``.jsonl``) or a
    whole file."""
    first = cp.request(0, "Clean up", [cp.markdown("Done.")])
    ws = home / ".config" / "Code" / "User" / "workspaceStorage" / "ws"
    data = cp.session(CHAT, [first, last])
    if log:
        cp.write(ws / "chatSessions" / f"{CHAT}.jsonl", cp.log_lines([{"kind": 0, "v": data}]))
    else:
        cp.write(ws / "chatSessions" / f"{CHAT}.json", data)
    cp.write(ws / "workspace.json", {"folder": "file:///w/app"})


def running(state: int | None, *tools: dict) -> dict:
    """The last request, its response ``state`` (None: a build before ``modelState``) and
    no ``result`` yet: Copilot writes it when the request ends."""
    response = [
        cp.markdown("Checking the tree first. "),
        cp.terminal_tool("t1", "git status --short", ""),  # (ran, with nothing to say)
        cp.markdown("Clean. Now the tests. "),
        *tools,
    ]
    made = cp.request(1, "Run the tests", response)
    del made["result"]
    if state is None:
        del made["modelState"]
    else:
        made["modelState"] = {"value": state}
    return made


def test_copilot_chat_a_call_of_a_response_still_running_says_so(tmp_path):
    """VS Code saved the request while its last call ran (``modelState`` Pending), in its
    log or its whole file alike; the call the model made before its last words returned."""
    for log in (False, True):
        home = tmp_path / str(log) / "home"
        chat(home, running(0, invocation("t2", "npm test")), log=log)
        said_under(the_note(home, "copilot"), "npm test")


def test_copilot_chat_an_older_build_s_unfinished_invocation_says_so(tmp_path):
    """Before ``modelState``: no ``result``, and the invocation not complete."""
    chat(tmp_path / "home", running(None, invocation("t2", "npm test", isComplete=False)))
    said_under(the_note(tmp_path / "home", "copilot"), "npm test")


def test_copilot_chat_a_finished_or_answered_last_call_says_nothing(tmp_path):
    """A request complete (its call answered with nothing), cancelled (said: interrupted),
    failed (said: the error), or still running with its last call answered."""
    done = running(1, invocation("t2", "npm test"))
    done["result"] = {"timings": {"firstProgress": 800, "totalElapsed": 5_000}}
    answered = running(0, cp.terminal_tool("t2", "npm test", "PASS"))
    lasts = [done, running(2, invocation("t2", "npm test")), running(3, invocation("t2", "npm test")),
             answered]  # fmt: skip
    for n, last in enumerate(lasts):
        home = tmp_path / str(n) / "home"
        chat(home, last)
        note = the_note(home, "copilot")
        assert UNANSWERED_SAID not in note and "npm test" in note, n


def test_copilot_chat_only_the_last_request_is_running(tmp_path):
    """A request before the last one that VS Code left Pending went on: the chat did."""
    home = tmp_path / "home"
    stale = running(0, invocation("t2", "npm test"))
    ws = home / ".config" / "Code" / "User" / "workspaceStorage" / "ws"
    later = cp.request(2, "Thanks", [cp.markdown("You're welcome.")])
    cp.write(ws / "chatSessions" / f"{CHAT}.json", cp.session(CHAT, [stale, later]))
    cp.write(ws / "workspace.json", {"folder": "file:///w/app"})
    assert UNANSWERED_SAID not in the_note(home, "copilot")


def test_copilot_chat_only_the_call_a_running_response_waits_on_says_so(tmp_path):
    """Calls of earlier rounds, with no words between them and the last, returned: the
    model went on to the next (review8 F1: each said "before the tool returned", a call
    titled "Read a.ts" too). Only the last is said; an older build's call not complete is
    said wherever it is."""
    home = tmp_path / "home"
    chat(home, running(0, invocation("t2", "npm run lint"), invocation("t3", "npm test")))
    said_under(the_note(home, "copilot"), "npm test")
    assert the_note(home, "copilot").index("npm run lint") < the_note(home, "copilot").index(
        UNANSWERED_SAID
    )
    home = tmp_path / "older" / "home"
    older = running(
        None, invocation("t2", "npm run lint", isComplete=False), invocation("t3", "npm test")
    )
    chat(home, older)
    said_under(the_note(home, "copilot"), "npm run lint", "npm test")
