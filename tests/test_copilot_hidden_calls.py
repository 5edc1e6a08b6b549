"""Copilot Chat in VS Code: the tool calls VS Code does not show (``presentation`` "hidden",
or "hiddenAfterComplete" once complete, as every saved call is). Copilot Chat hides its edit
tools' calls, whose edit the response's textEditGroup shows; VS Code also hides a call a
preToolUse hook denied and a terminal command it redirected to another tool, and a failed
edit leaves no textEditGroup. Each is in the note with what came of it (the result the
model read, ``result.metadata.toolCallResults``), as a visible call is; an edit that is
shown keeps its place, under the name of the tool that made it, with that result."""

from __future__ import annotations

import json
import re
from datetime import UTC
from pathlib import Path

from conftest import note_files
from copilot_builder import markdown, request, session, write

from exporter.export import ExportOptions, run_export

SID = "5e55104d-0000-4000-8000-00000000a11d"
INDEX = {"$mid": 1, "fsPath": "/w/app/index.ts", "path": "/w/app/index.ts", "scheme": "file"}


def _tsx(text: str) -> dict:
    """A tool result as Copilot keeps it: a prompt-tsx element holding text chunks."""
    chunks = [{"type": 2, "text": t, "lineBreakBefore": False} for t in text.split("|")]
    return {
        "$mid": 20,
        "content": [{"$mid": 23, "value": {"node": {"type": 1, "children": chunks}}}],
    }


def _asked(name: str, args: dict, result: str | None) -> dict:
    """Copilot's record of the model's one call: its arguments and the result it read."""
    metadata = {
        "toolCallRounds": [
            {
                "response": "",
                "toolCalls": [{"name": name, "arguments": json.dumps(args), "id": "m1"}],
            },
            {"response": "", "toolCalls": []},
        ],
        "toolCallResults": {"m1": _tsx(result)} if result is not None else {},
    }
    return {"timings": {"firstProgress": 800, "totalElapsed": 5_000}, "metadata": metadata}


def _hidden(tool: str, call_id: str, message: str, **extra) -> dict:
    return {"kind": "toolInvocationSerialized", "presentation": "hidden", "toolId": tool,
            "toolCallId": call_id, "invocationMessage": {"value": message},
            "isConfirmed": {"type": 1}, "isComplete": True,
            "source": {"type": "internal", "label": "Built-In"}, **extra}  # fmt: skip


def exported(tmp_path: Path, prompt: str, response: list, result: dict | None = None):
    """The note of a one-request chat in workspace /w/app, and the run's problems."""
    ws = tmp_path / "home" / ".config" / "Code" / "User" / "workspaceStorage" / "ws"
    extra = {"result": result} if result else {}
    write(
        ws / "chatSessions" / f"{SID}.json", session(SID, [request(0, prompt, response, **extra)])
    )
    write(ws / "workspace.json", {"folder": "file:///w/app"})
    options = ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", sources=["copilot"],
                            timezone=UTC)  # fmt: skip
    report = run_export(options)
    (note,) = note_files(tmp_path / "v").values()
    return note.decode(), report.problems


def test_a_call_a_hook_denied_is_shown_not_permitted_with_what_the_model_was_told(tmp_path):
    """VS Code hides a call a preToolUse hook denied (isConfirmed Denied, "Denied by
    PreToolUse hook: …"); the model read "Tool execution denied: …". The note lost the call
    and its result without a word."""
    args = {"command": "rm -rf build", "explanation": "Clean the build", "isBackground": False}
    response = [
        markdown("I'll clean the build folder. "),
        _hidden(
            "run_in_terminal",
            "h1",
            "Denied by PreToolUse hook: rm is not allowed here",
            isConfirmed={"type": 0},
        ),
        markdown("The hook did not let me run it."),
    ]
    result = _asked("run_in_terminal", args, "Tool execution denied: rm is not allowed here")
    note, problems = exported(tmp_path, "Clean the build", response, result)
    assert problems == []
    assert "- run_in_terminal\n" in note.split("---")[1]  # (the tools property)
    assert (
        "I'll clean the build folder. \n\n"
        "> [!note]- `run_in_terminal` — Denied by PreToolUse hook: rm is not allowed here"
        " (not permitted)\n"
    ) in note
    assert "> rm -rf build\n" in note
    assert "> Tool execution denied: rm is not allowed here\n" in note
    assert "(error)" not in note and "errors: 0" in note  # not run: no failure


def test_a_terminal_command_redirected_to_another_tool_is_shown_with_what_the_model_was_told(
    tmp_path,
):
    """VS Code does not run a terminal command another tool should do and hides the call;
    the tool returned its recommendation (toolSpecificData.alternativeRecommendation). With
    no record of the model's calls to pair, that is the call's output."""
    response = [
        markdown("Let me read it. "),
        _hidden("run_in_terminal", "r1", "Running `cat src/a.py`", toolSpecificData={
            "kind": "terminal", "commandLine": {"original": "cat src/a.py"}, "language": "sh",
            "alternativeRecommendation": "Use the read_file tool to read a file, not cat."}),
        markdown("I'll use read_file."),
    ]  # fmt: skip
    note, problems = exported(tmp_path, "Show me a.py", response)
    assert problems == []
    assert (
        "Let me read it. \n\n> [!example]- `run_in_terminal` — Running `cat src/a.py`\n"
        "> ```sh\n> cat src/a.py\n> ```\n"
        "> ```text\n> Use the read_file tool to read a file, not cat.\n> ```\n\n"
        "I'll use read_file."
    ) in note


def test_a_failed_hidden_edit_is_shown_with_its_error_and_its_file_is_not_edited(tmp_path):
    """Copilot Chat hides its edit tools' calls; one that failed streamed no edit (no
    textEditGroup), so nothing showed it: the note read as if the assistant had not tried.
    Now the call is shown with what the model read, an error, and the file is not in
    ``files``."""
    args = {"filePath": "/w/app/index.ts", "oldString": "Bonjour World",
            "newString": "hello world", "explanation": "Say hello"}  # fmt: skip
    failure = "String replacement failed: Could not find matching text to replace."
    response = [
        markdown("I'll change it. "),
        _hidden("copilot_replaceString", "e1", 'Using "Replace String in File"'),
        markdown("The text was not there."),
    ]
    note, problems = exported(
        tmp_path, "Change Bonjour World", response, _asked("replace_string_in_file", args, failure)
    )
    assert problems == []
    front = note.split("---")[1]
    assert "- copilot_replaceString\n" in front and "errors: 1" in front
    assert "files:" not in front  # (it edited no file)
    assert (
        "I'll change it. \n\n"
        '> [!failure]- `copilot_replaceString` — Using "Replace String in File" (error)\n'
    ) in note
    assert f"> {failure}\n> ```\n\nThe text was not there." in note


def test_a_hidden_edit_is_shown_by_its_edit_named_after_its_tool_with_its_result(tmp_path):
    """The edit a hidden call made stays where VS Code shows it (its code block), with what
    it replaced; it is named after the tool the model called (VS Code's id, as every other
    call: it was "edit", a name no tool has), and under it is what the model read of it
    ("The following files were successfully edited: …"), which was left out."""
    args = {"filePath": "/w/app/index.ts", "oldString": "console.log('Bonjour World');",
            "newString": "console.log('hello world');", "explanation": "Say hello"}  # fmt: skip
    edit = {"text": "console.log('hello world');",
            "range": {"startLineNumber": 10, "startColumn": 1, "endLineNumber": 10, "endColumn": 30}}  # fmt: skip
    response = [
        markdown("I'll change it. "),
        {"kind": "prepareToolInvocation", "toolName": "copilot_replaceString"},
        _hidden("copilot_replaceString", "e2", 'Using "Replace String in File"'),
        markdown("\n```\n"),
        {"kind": "undoStop", "id": "u1"},
        {"kind": "codeblockUri", "uri": INDEX, "isEdit": True},
        {"kind": "textEditGroup", "uri": INDEX, "edits": [[edit], []], "done": True},
        markdown("\n```\n"),
        markdown("Done!"),
    ]
    done = "The following files were successfully edited:|\n|/w/app/index.ts|\n"
    note, problems = exported(
        tmp_path, "Change Bonjour World", response, _asked("replace_string_in_file", args, done)
    )
    assert problems == []
    front = note.split("---")[1]
    assert "tools:\n- copilot_replaceString\n" in front and "errors: 0" in front
    assert "files:\n- index.ts\n" in front
    assert "`edit`" not in note
    assert (
        "I'll change it. \n\n> [!example]- `copilot_replaceString` — `/w/app/index.ts`\n"
        "> ```yaml\n> filePath: /w/app/index.ts\n> explanation: Say hello\n> ```\n"
        "> `oldString`:\n> ```typescript\n> console.log('Bonjour World');\n> ```\n"
        "> `newString`:\n> ```typescript\n> console.log('hello world');\n> ```\n"
        "> ```text\n> The following files were successfully edited:\n> /w/app/index.ts\n> ```\n"
        "\nDone!"
    ) in note


def _group(uri: dict, text: str, line: int) -> dict:
    span = {"startLineNumber": line, "startColumn": 1, "endLineNumber": line, "endColumn": 9}
    return {"kind": "textEditGroup", "uri": uri, "edits": [[{"text": text, "range": span}]]}


def test_an_edit_hidden_once_complete_is_one_call_and_one_refused_says_by_whom(tmp_path):
    """An edit of a file VS Code asks about (a sensitive file) is hidden once complete
    ("hiddenAfterComplete"): the call the person allowed is its edit, one call (it was
    shown twice, as a call and as an "edit"); the one they refused is shown rejected by the
    user, not as a failed edit."""
    env = {"$mid": 1, "fsPath": "/w/app/.env", "path": "/w/app/.env", "scheme": "file"}
    allowed = {"filePath": "/w/app/.env", "oldString": "DEBUG=1", "newString": "DEBUG=0"}
    response = [
        _hidden("copilot_replaceString", "s1", "Edit .env", presentation="hiddenAfterComplete",
                isConfirmed={"type": 4}),
        _group(env, "DEBUG=0", 3),
        _hidden("copilot_replaceString", "s2", "Edit .env", presentation="hiddenAfterComplete",
                isConfirmed={"type": 0}),
        markdown("You declined the second edit."),
    ]  # fmt: skip
    calls = [
        {"name": "replace_string_in_file", "arguments": json.dumps(allowed), "id": "m1"},
        {"name": "replace_string_in_file", "arguments": json.dumps(allowed), "id": "m2"},
    ]
    result = {"metadata": {"toolCallRounds": [{"response": "", "toolCalls": calls}],
                           "toolCallResults": {"m1": _tsx("The following files were successfully edited:|\n|/w/app/.env")}}}  # fmt: skip
    note, problems = exported(tmp_path, "Turn debug off", response, result)
    assert problems == []
    assert note.count("`copilot_replaceString`") == 2 and "`edit`" not in note
    first, second = (
        note.index("`copilot_replaceString` — `/w/app/.env`"),
        note.index("`copilot_replaceString` — Edit .env (rejected by the user)"),
    )
    assert first < note.index("successfully edited") < second
    assert "> denied by the user\n" in note and "files:\n- .env\n" in note


def _renamed_in_two_files(tmp_path, args: dict) -> tuple[str, list]:
    """A multi_replace_string_in_file call given ``args``, shown as Copilot streams it: the
    hidden call, an edit group of index.ts and one of util.ts, then the reply."""
    other = {"$mid": 1, "fsPath": "/w/app/util.ts", "path": "/w/app/util.ts", "scheme": "file"}
    response = [
        _hidden("copilot_multiReplaceString", "mr1", "Using Multi-Replace String"),
        _group(INDEX, "renamed()", 4),
        _group(other, "function renamed", 1),
        markdown("Renamed."),
    ]
    done = "The following files were successfully edited:|\n|/w/app/index.ts\n/w/app/util.ts"
    return exported(
        tmp_path, "Rename old", response, _asked("multi_replace_string_in_file", args, done)
    )


def test_one_call_editing_two_files_is_two_edits_its_result_under_the_first(tmp_path):
    """multi_replace_string_in_file: each replacement names its file; each file's edit shows
    what it replaced, named after the call, whose result is under the first."""
    args = {"explanation": "Rename", "replacements": [
        {"filePath": "/w/app/index.ts", "oldString": "old()", "newString": "renamed()"},
        {"filePath": "/w/app/util.ts", "oldString": "function old", "newString": "function renamed"}]}  # fmt: skip
    note, problems = _renamed_in_two_files(tmp_path, args)
    assert problems == []
    index = note.index("> [!example]- `copilot_multiReplaceString` — `/w/app/index.ts`")
    util = note.index("> [!example]- `copilot_multiReplaceString` — `/w/app/util.ts`")
    assert index < note.index("successfully edited") < util < note.index("Renamed.")
    assert note.count("successfully edited") == 1
    assert "> function old\n" in note[util:] and "> old()\n" in note[index:util]
    assert "files:\n- index.ts\n- util.ts\n" in note


def test_an_edit_shows_the_keys_the_model_sent_and_two_replacements_of_a_file_together(tmp_path):
    """The model sent ``filePath``: the edit's input shows that key, not an invented
    ``file_path`` (review20 F6); two replacements of one file are its ``filePath`` once and
    those ``replacements`` as sent."""
    args = {"explanation": "Rename", "replacements": [
        {"filePath": "/w/app/index.ts", "oldString": "old()", "newString": "renamed()"},
        {"filePath": "/w/app/util.ts", "oldString": "function old", "newString": "function renamed"},
        {"filePath": "/w/app/util.ts", "oldString": "old;", "newString": "renamed;"}]}  # fmt: skip
    note, problems = _renamed_in_two_files(tmp_path, args)
    assert problems == [] and "file_path" not in note
    util = note.index("> [!example]- `copilot_multiReplaceString` — `/w/app/util.ts`")
    assert "> ```yaml\n> filePath: /w/app/index.ts\n> explanation: Rename\n" in note[:util]
    assert "> filePath: /w/app/util.ts\n" in note[util:]
    assert "function old" in note[util:] and "old;" in note[util:]
    assert "files:\n- index.ts\n- util.ts\n" in note


def test_a_hidden_edit_of_a_notebook_is_no_failure(tmp_path):
    """Copilot Chat streams a notebook's edit as notebookEditGroup parts (not shown here):
    a hidden edit call followed by one edited something, and is shown as a call, no error."""
    nb = {"$mid": 1, "fsPath": "/w/app/a.ipynb", "path": "/w/app/a.ipynb", "scheme": "file"}
    args = {"filePath": "/w/app/a.ipynb", "oldString": "x = 1", "newString": "x = 2"}
    response = [
        _hidden("copilot_replaceString", "n1", "Edit a.ipynb"),
        {"kind": "notebookEditGroup", "uri": nb, "edits": [], "done": True},
        markdown("Changed the cell."),
    ]
    done = "The following files were successfully edited:|\n|/w/app/a.ipynb"
    note, problems = exported(
        tmp_path, "x to 2", response, _asked("replace_string_in_file", args, done)
    )
    assert problems == []
    assert "> [!example]- `copilot_replaceString` — Edit a.ipynb\n" in note
    assert "errors: 0" in note and "files:\n- a.ipynb\n" in note


def _insert_edit(tmp_path: Path):
    """insert_edit_into_file (VS Code id copilot_insertEdit) runs VS Code's own hidden
    vscode_editFile_internal, whose edit the group after both shows (corpus
    copilot_session_multiline)."""
    args = {"explanation": "Add a joke", "filePath": "/w/app/index.ts", "code": "joke();"}
    response = [
        _hidden("copilot_insertEdit", "i1", 'Using "Edit File"'),
        _hidden("vscode_editFile_internal", "i2", "Editing index.ts"),
        {"kind": "codeblockUri", "uri": INDEX, "isEdit": True},
        _group(INDEX, "joke();", 7),
        markdown("Added."),
    ]
    done = "The following files were successfully edited:|\n|/w/app/index.ts"
    return exported(tmp_path, "Add a joke", response, _asked("insert_edit_into_file", args, done))


def test_an_edit_made_through_vscodes_own_hidden_call_is_one_call(tmp_path):
    note, problems = _insert_edit(tmp_path)
    assert problems == []
    assert "> [!example]- `copilot_insertEdit` — `/w/app/index.ts`\n" in note
    assert "> joke();\n" in note and "successfully edited" in note
    assert "vscode_editFile_internal" not in note  # (inside the model's call, shown)


def test_a_file_edited_by_insert_edit_is_in_files(tmp_path):
    """(Named edit before: now copilot_insertEdit, VS Code's id, which stats must know.)"""
    note, _ = _insert_edit(tmp_path)
    assert "files:\n- index.ts\n" in note


def test_two_calls_editing_one_file_are_two_edits_each_with_its_result(tmp_path):
    """Two replace_string_in_file calls on one file: each is its edit, where it was made,
    with what it replaced and what the model read of it (they were one merged edit)."""
    first = {"filePath": "/w/app/index.ts", "oldString": "a = 1", "newString": "a = 2"}
    second = {"filePath": "/w/app/index.ts", "oldString": "b = 1", "newString": "b = 2"}
    response = [
        _hidden("copilot_replaceString", "t1", "Edit index.ts"),
        _group(INDEX, "a = 2", 1),
        markdown("Now b. "),
        _hidden("copilot_replaceString", "t2", "Edit index.ts"),
        _group(INDEX, "b = 2", 2),
        markdown("Both changed."),
    ]
    calls = [
        {"name": "replace_string_in_file", "arguments": json.dumps(first), "id": "m1"},
        {"name": "replace_string_in_file", "arguments": json.dumps(second), "id": "m2"},
    ]
    results = {"m1": _tsx("first edited"), "m2": _tsx("second edited")}
    metadata = {
        "toolCallRounds": [{"response": "", "toolCalls": calls}],
        "toolCallResults": results,
    }
    note, problems = exported(tmp_path, "Set a and b to 2", response, {"metadata": metadata})
    assert problems == []
    one, two = [
        m.start() for m in re.finditer(r"`copilot_replaceString` — `/w/app/index.ts`", note)
    ]
    assert one < note.index("> a = 1\n") < note.index("> first edited\n") < note.index("Now b.")
    assert note.index("Now b.") < two < note.index("> b = 1\n") < note.index("> second edited\n")
    assert note.index("> second edited\n") < note.index("Both changed.")


def test_what_a_hook_showed_the_person_is_a_notification_where_it_ran(tmp_path):
    """VS Code's ``hook`` part holds what a hook showed the person (``stopReason`` when it
    stopped the request or a tool, ``systemMessage``); it was dropped as bookkeeping."""
    response = [
        markdown("I'll clean the build folder. "),
        {"kind": "hook", "hookType": "PreToolUse", "toolDisplayName": "Run in Terminal",
         "stopReason": "rm is not allowed here"},
        {"kind": "hook", "hookType": "PostToolUse"},  # ran and said nothing: bookkeeping
        {"kind": "hook", "hookType": "Stop", "systemMessage": "Remember to run the tests"},
        markdown("The hook did not let me run it."),
    ]  # fmt: skip
    note, problems = exported(tmp_path, "Clean the build", response)
    assert problems == []
    stopped = note.index("PreToolUse hook stopped Run in Terminal: rm is not allowed here")
    assert note.index("I'll clean the build") < stopped < note.index("Stop hook: Remember")
    assert note.index("Stop hook: Remember") < note.index("The hook did not let me run it.")
    assert "PostToolUse" not in note
