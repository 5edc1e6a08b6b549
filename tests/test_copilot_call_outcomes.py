"""Copilot Chat in VS Code: what came of a tool call, said once.

- A tool that threw: VS Code keeps its error (``resultError``, the message, or true; the
  model read "ERROR while calling tool: …"). The call failed, and says so with the error's
  text; it was shown as a success.
- An edit tool's call VS Code showed (older builds did not hide them) and the edits it
  streamed after it (``textEditGroup``) are one call: they were the call and a separate
  ``edit``.
- A call a preToolUse hook denied: Copilot Chat shows the hook's ``stopReason`` (a ``hook``
  part) and VS Code hides the call it then denies, for the same reason; the call says it
  (not permitted, with what the model was told), the hook part does not say it again.
"""

from __future__ import annotations

import re

from copilot_builder import markdown
from test_copilot_hidden_calls import INDEX, _asked, _group, _hidden, exported

HOOK_REASON = "Tried to use run_in_terminal - rm is not allowed here"
# What Copilot Chat's hook service shows for a PreToolUse hook that exits with code 2
# (chatHookService formatHookErrorMessage), and the reason it denies the call for.
HOOK_STOP = (
    "A hook prevented chat from continuing. Please check the GitHub Copilot Chat Hooks output "
    f"channel for more details. \nError message: {HOOK_REASON}"
)
RM = {"command": "rm -rf build", "explanation": "Clean the build", "isBackground": False}


def _shown(tool: str, call_id: str, message: str, **extra) -> dict:
    """An invocation VS Code shows (no ``presentation``), complete and run."""
    return {"kind": "toolInvocationSerialized", "toolId": tool, "toolCallId": call_id,
            "invocationMessage": {"value": message}, "pastTenseMessage": {"value": message},
            "isConfirmed": {"type": 1}, "isComplete": True,
            "source": {"type": "internal", "label": "Built-In"}, **extra}  # fmt: skip


def _front(note: str) -> str:
    return note.split("---")[1]


# --- a tool that threw (resultError) ---


def test_a_call_whose_tool_threw_failed_and_says_its_error_once(tmp_path):
    """The model read the error in Copilot's words, which hold VS Code's message: shown
    once, the call a failure (it was shown as a success, and errors was 0)."""
    error = "Invalid input path: src/a.ts. Be sure to use an absolute path."
    response = [
        markdown("Let me read it. "),
        _shown("copilot_readFile", "f1", "Read src/a.ts", resultError=error),
        markdown("I need an absolute path."),
    ]
    told = f"ERROR while calling tool: {error}|\nPlease check your input and try again."
    args = {"filePath": "src/a.ts", "startLine": 1, "endLine": 20}
    note, problems = exported(tmp_path, "Read a.ts", response, _asked("read_file", args, told))
    assert problems == []
    assert "errors: 1" in _front(note)
    assert (
        "Let me read it. \n\n> [!failure]- `copilot_readFile` — Read src/a.ts (error)\n"
    ) in note
    assert f"> ERROR while calling tool: {error}\n> Please check your input" in note
    assert note.count("Invalid input path") == 1


def test_a_call_whose_tool_threw_shows_the_error_where_nothing_else_was_kept(tmp_path):
    """No result the model read, no output: the error VS Code kept is the call's output."""
    response = [
        _shown("mcp_db_query", "q1", "Ran `query`", resultError="connection refused"),
        markdown("The database is down."),
    ]
    note, problems = exported(tmp_path, "Count the users", response)
    assert problems == []
    assert (
        "> [!failure]- `mcp_db_query` — Ran `query` (error)\n"
        "> ```text\n> connection refused\n> ```\n\nThe database is down."
    ) in note
    assert "errors: 1" in _front(note)


def test_a_call_whose_error_is_true_failed_and_keeps_its_output(tmp_path):
    """``resultError`` true: the call failed, its output as the tool gave it."""
    details = {"input": "{}", "output": [{"type": "embed", "isText": True, "value": "quota"}]}
    response = [_shown("mcp_db_query", "q1", "Ran `query`", resultError=True,
                       resultDetails=details)]  # fmt: skip
    note, problems = exported(tmp_path, "Count the users", response)
    assert problems == []
    assert "> [!failure]- `mcp_db_query` — Ran `query` (error)\n" in note
    assert "> quota\n" in note and "errors: 1" in _front(note)


def test_a_call_whose_error_is_false_or_empty_succeeded(tmp_path):
    """(Valid: no error.) A successful result is not called an error."""
    response = [
        _shown("copilot_readFile", "f1", "Read a.ts", resultError=False),
        _shown("copilot_readFile", "f2", "Read b.ts", resultError=""),
    ]
    note, problems = exported(tmp_path, "Read both", response)
    assert problems == []
    assert "(error)" not in note and "[!failure]" not in note
    assert "errors: 0" in _front(note)


def test_a_damaged_error_is_said_and_the_call_kept(tmp_path):
    response = [_shown("copilot_readFile", "f1", "Read a.ts", resultError=42)]
    note, problems = exported(tmp_path, "Read it", response)
    assert [p.message for p in problems] == [
        "request 1: a tool call's resultError is a number, not text: not read as a failure"
    ]
    assert "> [!example]- `copilot_readFile` — Read a.ts\n" in note


def test_a_denied_call_is_not_a_failure_whatever_its_error(tmp_path):
    """(A call that did not run did not fail: refused first.)"""
    response = [
        _hidden("run_in_terminal", "h1", f"Denied by PreToolUse hook: {HOOK_REASON}",
                isConfirmed={"type": 0}, resultError=HOOK_REASON),
    ]  # fmt: skip
    note, problems = exported(tmp_path, "Clean", response)
    assert problems == []
    assert "(not permitted)" in note and "(error)" not in note
    assert "errors: 0" in _front(note)


# --- an edit call VS Code showed, and its edits ---


def test_an_edit_call_vscode_showed_and_its_edit_are_one_call(tmp_path):
    """An older build showed an edit tool's call: the note had the call (its input and
    result) and, apart, an ``edit`` of the group after it. One call now, where the edit is
    shown, with all of both: the edit's lines, the call's arguments and its result."""
    args = {"filePath": "/w/app/index.ts", "code": "joke();", "explanation": "Add a joke"}
    response = [
        markdown("I'll add it. "),
        _shown("copilot_insertEdit", "v1", "Edited index.ts"),
        markdown("\n```\n"),
        {"kind": "codeblockUri", "uri": INDEX, "isEdit": True},
        _group(INDEX, "joke();", 7),
        markdown("\n```\n"),
        markdown("Added."),
    ]
    done = "The following files were successfully edited:|\n|/w/app/index.ts"
    note, problems = exported(
        tmp_path, "Add a joke", response, _asked("insert_edit_into_file", args, done)
    )
    assert problems == []
    assert note.count("`copilot_insertEdit`") == 1 and "`edit`" not in note
    call = note.index("> [!example]- `copilot_insertEdit` — `/w/app/index.ts`\n")
    assert note.index("I'll add it.") < call < note.index("Added.")
    shown = note[call : note.index("Added.")]
    assert "> explanation: Add a joke\n" in shown and "> joke();\n" in shown
    assert "> The following files were successfully edited:\n> /w/app/index.ts\n" in shown
    front = _front(note)
    assert "tool_calls: 1" in front and "files:\n- index.ts\n" in front


def test_an_edit_call_vscode_showed_keeps_arguments_its_edit_does_not_show(tmp_path):
    """apply_patch names no file in its arguments: the group shows the file's new lines,
    and the patch the model sent stays with them (it was in the call, now merged)."""
    patch = "*** Begin Patch\n*** Update File: /w/app/index.ts\n-a()\n+b()\n*** End Patch"
    args = {"input": patch, "explanation": "Call b"}
    response = [
        _shown("copilot_applyPatch", "p1", "Applied patch"),
        _group(INDEX, "b()", 3),
        markdown("Patched."),
    ]
    note, problems = exported(tmp_path, "Call b", response, _asked("apply_patch", args, "ok"))
    assert problems == []
    assert note.count("`copilot_applyPatch`") == 1 and "`edit`" not in note
    assert "> [!example]- `copilot_applyPatch` — `/w/app/index.ts`\n" in note
    assert "> *** Begin Patch\n" in note and "> b()\n" in note and "> ok\n" in note


def test_an_edit_call_vscode_showed_with_no_record_of_the_models_calls(tmp_path):
    """No ``toolCallRounds`` to pair (and the pre-1.104 ``isConfirmed`` true): the call is
    known by its tool's id, one of Copilot Chat's edit tools."""
    response = [
        _shown("copilot_replaceString", "r1", "Edited index.ts", isConfirmed=True),
        _group(INDEX, "hello()", 2),
        markdown("Done."),
    ]
    note, problems = exported(tmp_path, "Say hello", response)
    assert problems == []
    assert note.count("`copilot_replaceString`") == 1 and "`edit`" not in note
    assert "> [!example]- `copilot_replaceString` — `/w/app/index.ts`\n" in note
    assert "> hello()\n" in note


def test_edits_after_a_read_call_vscode_showed_stay_an_edit(tmp_path):
    """(Guard.) Edits mode applies the model's code blocks after it read a file: the read
    call made no edit, and the edit stays ``edit`` beside it."""
    response = [
        _shown("copilot_readFile", "f1", "Read index.ts"),
        _group(INDEX, "hello()", 2),
        markdown("Done."),
    ]
    args = {"filePath": "/w/app/index.ts", "startLine": 1, "endLine": 9}
    note, problems = exported(tmp_path, "Say hello", response, _asked("read_file", args, "a()"))
    assert problems == []
    assert "> [!example]- `copilot_readFile` — Read index.ts\n" in note
    assert "> [!example]- `edit` — `/w/app/index.ts`\n" in note


def test_an_edit_after_the_models_next_words_is_not_the_shown_calls(tmp_path):
    """(review8 F6) A shown edit call's edits come before the model's next words; a group
    of another file after them (Edits mode applying a code block) stays an ``edit``, as it
    was before the call and its edits were one."""
    util = {**INDEX, "fsPath": "/w/app/util.ts", "path": "/w/app/util.ts"}
    response = [
        _shown("copilot_replaceString", "r1", "Edited index.ts"),
        _group(INDEX, "hello()", 2),
        markdown("Now util:"),
        _group(util, "helper()", 5),
        markdown("Done."),
    ]
    note, problems = exported(tmp_path, "Say hello", response)
    assert problems == []
    assert note.count("`copilot_replaceString`") == 1
    assert "> [!example]- `copilot_replaceString` — `/w/app/index.ts`\n" in note
    assert "> [!example]- `edit` — `/w/app/util.ts`\n" in note
    assert note.index("copilot_replaceString") < note.index("Now util:") < note.index("util.ts`")


# --- a hook's denial, said once ---


def test_a_hooks_denial_beside_the_call_it_denied_is_said_once(tmp_path):
    """The hook part (before the call: the hook ran, then VS Code created the call denied
    and hidden) said the denial the call says: it was a notification and the call."""
    response = [
        markdown("I'll clean the build folder. "),
        {"kind": "hook", "hookType": "PreToolUse", "stopReason": HOOK_STOP},
        _hidden("run_in_terminal", "h1", f"Denied by PreToolUse hook: {HOOK_REASON}",
                isConfirmed={"type": 0}),
        markdown("The hook did not let me run it."),
    ]  # fmt: skip
    told = f"Tool execution denied: {HOOK_REASON}"
    note, problems = exported(
        tmp_path, "Clean the build", response, _asked("run_in_terminal", RM, told)
    )
    assert problems == []
    assert "hook stopped" not in note and "A hook prevented" not in note
    assert (
        "I'll clean the build folder. \n\n> [!note]- `run_in_terminal` — Denied by PreToolUse "
        f"hook: {HOOK_REASON} (not permitted)\n"
    ) in note
    assert f"> {told}\n" in note


def test_a_hooks_denial_after_the_call_it_denied_is_said_once_its_message_kept(tmp_path):
    """The call can come first (VS Code had it from the model's stream, then hid and
    cancelled it): the same. What else the hook said (``systemMessage``) is still said."""
    response = [
        _hidden("run_in_terminal", "h1", "Running `rm -rf build`", isConfirmed={"type": 0}),
        {"kind": "hook", "hookType": "PreToolUse", "stopReason": HOOK_STOP,
         "systemMessage": "Ask before deleting"},
        markdown("Not run."),
    ]  # fmt: skip
    told = f"Tool execution denied: {HOOK_REASON}"
    note, problems = exported(tmp_path, "Clean", response, _asked("run_in_terminal", RM, told))
    assert problems == []
    assert "hook stopped" not in note
    assert note.index("(not permitted)") < note.index("PreToolUse hook: Ask before deleting")
    assert len(re.findall("rm is not allowed here", note)) == 1  # (the call's output)


def test_a_hooks_stop_for_another_reason_is_still_said(tmp_path):
    """(Guard.) A hook part that says something else beside a denied call is not the
    call's denial: both are said."""
    response = [
        {"kind": "hook", "hookType": "PreToolUse", "stopReason": "Policy check timed out"},
        _hidden("run_in_terminal", "h1", f"Denied by PreToolUse hook: {HOOK_REASON}",
                isConfirmed={"type": 0}),
    ]  # fmt: skip
    note, problems = exported(tmp_path, "Clean", response)
    assert problems == []
    assert "PreToolUse hook stopped the request: Policy check timed out" in note
    assert "(not permitted)" in note
