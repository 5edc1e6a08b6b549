"""Gemini CLI tool calls of status ``cancelled``: shown as cancelled, never as failures
(one Esc cancels every active call); one stopped while it ran (a long shell command
interrupted) keeps what it returned, or showed live, under a line saying it was cancelled.

How the CLI records them (gemini-cli ``scheduler/tool-executor.ts`` and
``scheduler/state-manager.ts``, read for the facts): stopped before it ran, the result is a
``functionResponse`` whose ``response`` is only ``{error: "[Operation Cancelled] …"}`` (with,
for a proposed edit, its diff as ``resultDisplay``); stopped while it ran, ``response`` holds
the tool's ``output`` with that ``error`` beside it, and ``resultDisplay`` what the tool
showed; cancelled by the CLI while it ran, the output shown live so far is the
``resultDisplay`` (a string, or terminal lines of ``{text, …}`` tokens).

Synthetic chats only (tests/gemini_builder.py)."""

from __future__ import annotations

import tempfile
from datetime import UTC
from pathlib import Path

from conftest import load_sessions, note_files
from gemini_builder import GeminiChat, project_folder
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.adapters.gemini import GeminiAdapter
from exporter.adapters.gemini.chat import CANCELLED_WHILE_RUNNING
from exporter.export import ExportOptions, run_export

SID = "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
ROOT = "/home/dev/work/site"
CANCELLED = "[Operation Cancelled] User cancelled tool execution."
SHELL_OUTPUT = "building page 1\nbuilding page 2"


def cancelled_call(
    call_id: str,
    name: str,
    args: dict,
    response: dict | None,
    display: object = None,
) -> dict:
    """A tool call record of status ``cancelled`` as the CLI writes it."""
    call: dict = {
        "id": call_id,
        "name": name,
        "args": args,
        "status": "cancelled",
        "displayName": name.title(),
        "timestamp": "2026-06-01T09:00:00Z",
    }
    if response is not None:
        call["result"] = [{"functionResponse": {"id": call_id, "name": name, "response": response}}]
    if display is not None:
        call["resultDisplay"] = display
    return call


def interrupted_shell() -> dict:
    """``npm run build`` interrupted after two lines: its output kept beside the error."""
    output = (
        "Command was cancelled by user before it could complete. Below is the output before "
        f"it was cancelled:\n{SHELL_OUTPUT}"
    )
    return cancelled_call(
        "sh-1",
        "run_shell_command",
        {"command": "npm run build"},
        {"output": output, "error": CANCELLED},
        f"Command cancelled by user.\n\nOutput before cancellation:\n{SHELL_OUTPUT}",
    )


def stopped_by_the_cli() -> dict:
    """A call the CLI cancelled while it ran: only the error, and the live terminal output."""
    live = [
        [{"text": "linting ", "bold": False}, {"text": "src/", "bold": True}],
        [{"text": "3 files checked"}],
        [],
    ]
    return cancelled_call(
        "sh-2",
        "run_shell_command",
        {"command": "npm run lint"},
        {"error": "[Operation Cancelled] Reason: Operation cancelled by user"},
        live,
    )


def declined_edit() -> dict:
    """A proposed write the person cancelled: never ran; the diff it proposed is kept."""
    diff = {"fileDiff": "--- a\n+++ b\n+# Notes", "fileName": "NOTES.md",
            "originalContent": "", "newContent": "# Notes"}  # fmt: skip
    return cancelled_call(
        "w-1",
        "write_file",
        {"file_path": f"{ROOT}/NOTES.md", "content": "# Notes"},
        {"error": "[Operation Cancelled] Reason: User denied execution."},
        diff,
    )


def write_chat(home: Path, calls: list[dict]) -> None:
    chat = GeminiChat(SID, ROOT)
    chat.user("Build the site, lint it, then write the notes")
    chat.gemini("", calls=calls)
    chat.write_jsonl(project_folder(home, ROOT, "site") / "chats")


def results(home: Path) -> list:
    (session,), problems = load_sessions(GeminiAdapter(), home)
    assert problems == []
    return [p for m in session.messages for p in m.parts if p.kind == "tool_result"]


def test_a_call_cancelled_while_it_ran_keeps_its_output_and_says_so(tmp_path):
    write_chat(tmp_path, [interrupted_shell(), stopped_by_the_cli()])
    shell, lint = results(tmp_path)
    assert (shell.is_error, shell.not_run) == (False, "cancelled")
    assert shell.output.startswith(CANCELLED_WHILE_RUNNING + "\nCommand was cancelled by user")
    assert shell.output.endswith(SHELL_OUTPUT)
    assert (lint.is_error, lint.not_run) == (False, "cancelled")
    assert lint.output == f"{CANCELLED_WHILE_RUNNING}\nlinting src/\n3 files checked"


def test_a_call_cancelled_before_it_ran_did_not_run(tmp_path):
    no_result = cancelled_call("sh-3", "run_shell_command", {"command": "sleep 100"}, None)
    blank = cancelled_call("sh-4", "run_shell_command", {"command": "true"},
                           {"output": " \n", "error": CANCELLED}, "")  # fmt: skip
    write_chat(tmp_path, [declined_edit(), no_result, blank])
    got = [(p.call_id, p.output, p.is_error, p.not_run) for p in results(tmp_path)]
    assert got == [
        ("w-1", "[Operation Cancelled] Reason: User denied execution.", False, "cancelled"),
        ("sh-3", "", False, "cancelled"),
        ("sh-4", CANCELLED, False, "cancelled"),  # (its blank output hid the error)
    ]


def test_the_note_shows_what_a_cancelled_call_returned_and_counts_no_error(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    write_chat(home, [interrupted_shell(), declined_edit()])
    report = run_export(ExportOptions(vault=vault, home=home, sources=["gemini"], timezone=UTC))
    assert not report.failed
    (note,) = note_files(vault).values()
    text = note.decode()
    assert "> [!note]- `run_shell_command` — `npm run build` (cancelled)\n" in text
    assert f"> {CANCELLED_WHILE_RUNNING}\n" in text and "> building page 2\n" in text
    assert "> [!note]- `write_file` — `/home/dev/work/site/NOTES.md` (cancelled)\n" in text
    # Cancelled is no failure, whether or not the call had started.
    assert "\nerrors: 0\n" in text


_texts = st.none() | st.text(st.sampled_from(" \nab"), max_size=4)


@settings(max_examples=100, deadline=None)
@given(output=_texts, display=_texts, error=st.booleans())
def test_a_cancelled_call_ran_exactly_when_something_it_returned_is_there(output, display, error):
    """Whatever the record holds, the call is cancelled, never a failure; what it returned
    (text that is not blank, or failing that what it showed) is kept under a first line
    saying so, and only then."""
    response = {k: v for k, v in (("output", output), ("error", CANCELLED if error else None))
                if v is not None}  # fmt: skip
    call = cancelled_call("c-1", "run_shell_command", {"command": "make"}, response or None,
                          display)  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        write_chat(Path(folder), [call])
        (result,) = results(Path(folder))
    returned = output if output is not None else None
    ran = bool(returned and returned.strip()) or bool(
        not (returned and returned.strip()) and display and display.strip()
    )
    assert (result.is_error, result.not_run) == (False, "cancelled")
    if ran:
        kept = output if output and output.strip() else display
        assert result.output == f"{CANCELLED_WHILE_RUNNING}\n{kept}"
    else:
        assert not result.output.startswith(CANCELLED_WHILE_RUNNING)


def test_the_person_stopping_a_turn_is_an_interruption_not_a_notification(tmp_path):
    """The CLI's info "Request cancelled." (Esc, or every call declined) and "User cancelled
    the request." (the stream's cancel event) say the person stopped the turn: shown as
    other sources show an interruption. Any other info, "Operation cancelled." of a slash
    command's declined confirmation among them, stays a notification."""
    chat = GeminiChat(SID, ROOT)
    chat.user("Build the site")
    chat.gemini("Building.")
    chat.notice("info", "Request cancelled.")
    chat.user("Try again")
    chat.notice("info", "User cancelled the request.")
    chat.notice("info", "Operation cancelled.")
    chat.notice("info", "Request cancelled. Retrying")
    home, vault = tmp_path / "home", tmp_path / "vault"
    chat.write_json(project_folder(home, ROOT, "site") / "chats")
    (session,), _ = load_sessions(GeminiAdapter(), home)
    notices = [(m.role, p.notice) for m in session.messages for p in m.parts if p.kind == "notice"]
    assert notices == [("system", "interrupted"), ("system", "interrupted"),
                       ("system", "notification"), ("system", "notification")]  # fmt: skip
    run_export(ExportOptions(vault=vault, home=home, sources=["gemini"], timezone=UTC))
    (note,) = note_files(vault).values()
    text = note.decode()
    assert text.count("*Interrupted by the user.*") == 2
    assert "Operation cancelled." in text and "> Request cancelled.\n" not in text
