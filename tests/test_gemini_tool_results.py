"""Gemini CLI tool results read back from what the CLI wrote for the model: a shell
command's output without the lines around it, its exit code apart (a non-zero one is a
failure, though the CLI records the call as a success), and a subagent's JSON report as
text (synthetic homes only)."""

from __future__ import annotations

import json
from datetime import UTC

from conftest import load_sessions, note_files
from gemini_builder import GeminiChat, project_folder, tool_call
from hypothesis import assume, given
from hypothesis import strategies as st

from exporter.adapters.gemini import GeminiAdapter
from exporter.adapters.gemini.results import shell_result, subagent_report
from exporter.export import ExportOptions, run_export

SID = "7d1c2b3a-5b7d-4e2f-8a1c-0d9e8f7a6b5c"
ROOT = "/home/dev/work/api"

# The three forms the CLI has written (the same command, ``ls /nope``, exit code 1)
FULL_OUTPUT = (
    "Command: ls /nope\nDirectory: (root)\nOutput: ls: /nope: No such file or directory\n"
    "Error: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\n"
    "Process Group PGID: 4242"
)
STDOUT_STDERR = (
    "Command: ls /nope\nDirectory: (root)\nStdout: (empty)\n"
    "Stderr: ls: /nope: No such file or directory\nError: (none)\nExit Code: 1\n"
    "Signal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242"
)
SHORT = "Output: ls: /nope: No such file or directory\nExit Code: 1\nProcess Group PGID: 4242"
UNTRUSTED = f"<untrusted_context>\n{SHORT}\n</untrusted_context>"


def export_calls(tmp_path, *calls):
    chat = GeminiChat(SID)
    chat.user([{"text": "Look around"}])
    chat.gemini("", calls=list(calls))
    chat.gemini("Done.")
    chat.write_json(project_folder(tmp_path / "home", ROOT, "api") / "chats")
    (session,), problems = load_sessions(GeminiAdapter(), tmp_path / "home")
    assert problems == []
    report = run_export(
        ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", sources=["gemini"],
                      timezone=UTC)
    )  # fmt: skip
    assert not report.failed
    (note,) = note_files(tmp_path / "v").values()
    results = [p for m in session.messages for p in m.parts if p.kind == "tool_result"]
    return results, note.decode()


def test_a_shell_command_shows_what_it_printed_and_fails_on_a_non_zero_exit(tmp_path):
    calls = [
        tool_call(f"sh-{n}", "run_shell_command", {"command": "ls /nope"}, output)
        for n, output in enumerate((FULL_OUTPUT, STDOUT_STDERR, SHORT, UNTRUSTED))
    ]
    calls.append(
        tool_call("sh-ok", "run_shell_command", {"command": "ls -F"},
                  "Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345")
    )  # fmt: skip
    results, note = export_calls(tmp_path, *calls)
    printed = "ls: /nope: No such file or directory"
    assert [(r.output, r.exit_code, r.is_error) for r in results] == [
        (printed, 1, True), (printed, 1, True), (printed, 1, True), (printed, 1, True),
        ("AgentSessions/\nREADME.md", None, False),  # (newer CLIs write no exit code 0)
    ]  # fmt: skip
    assert "errors: 4\n" in note and note.count(" · exit 1") == 4
    for noise in ("Command:", "Directory:", "Process Group PGID", "Background PIDs", "(none)",
                  "untrusted_context", "Output:", "Stdout:", "Stderr:"):  # fmt: skip
        assert noise not in note, noise


def test_a_process_error_or_a_signal_is_shown_and_is_a_failure():
    full = FULL_OUTPUT.replace("Error: (none)", "Error: spawn /bin/bash ENOENT").replace(
        "Exit Code: 1", "Exit Code: (none)"
    )
    assert shell_result(full, "ls /nope") == (
        "ls: /nope: No such file or directory\nError: spawn /bin/bash ENOENT", None, True
    )  # fmt: skip
    assert shell_result("Output: (empty)\nSignal: 15\nProcess Group PGID: 7", "sleep 9") == (
        "Signal: 15", None, True
    )  # fmt: skip
    assert shell_result(FULL_OUTPUT.replace("Exit Code: 1", "Exit Code: 0"), None)[1:] == (
        0, False
    )  # fmt: skip


def test_other_texts_stay_as_written(tmp_path):
    """A cancelled command's text, a summary the CLI made of the output, an envelope
    missing a line the older form always writes, another tool's output: as written."""
    kept = [
        "Command was cancelled by user before it could complete. Below is the output before "
        "it was cancelled:\npartial",
        "The command listed two files.",
        FULL_OUTPUT.replace("\nSignal: (none)", ""),
        # (a fixture that wrote the separators as the two characters \ and n)
        FULL_OUTPUT.replace("\n", "\\n"),
    ]
    for text in kept:
        assert shell_result(text, "ls /nope") is None, text
    results, _ = export_calls(
        tmp_path, tool_call("r-1", "read_file", {"file_path": "out.txt"}, SHORT)
    )
    assert [(r.output, r.exit_code, r.is_error) for r in results] == [(SHORT, None, False)]


_PRINTED = st.text(st.characters(blacklist_characters=":\r", blacklist_categories=("Cs",)))


@given(_PRINTED, st.integers(-255, 255), st.booleans())
def test_every_form_gives_back_what_was_printed_and_the_exit_code(printed, code, short):
    """Whatever the command printed (lines with no colon: none reads as a label), each
    form gives it back whole with its exit code."""
    assume(printed != "(empty)")  # (the CLI's word for no output)
    shown = printed or "(empty)"
    if short:
        tail = [f"Exit Code: {code}"] if code else []
        text = "\n".join([f"Output: {shown}", *tail, "Process Group PGID: 1"])
    else:
        text = (f"Command: x\nDirectory: (root)\nOutput: {shown}\nError: (none)\n"
                f"Exit Code: {code}\nSignal: (none)\nBackground PIDs: (none)\n"
                "Process Group PGID: 1")  # fmt: skip
    expected_code = code if code or not short else None
    assert shell_result(text, "x") == (printed, expected_code, bool(code))


REPORT = {
    "SummaryOfFindings": "Interrupted early.\n\n**Adaptability**\n\n* plugins are hardcoded",
    "ExplorationTrace": ['read_file("src/a.ts")'],
    "Score": 3,
    "Verdict": "mixed",
}
HEAD = "Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\n"


def test_a_subagent_report_in_json_reads_as_text(tmp_path):
    output = HEAD + json.dumps(REPORT, indent=2)
    results, note = export_calls(
        tmp_path,
        tool_call("d-1", "delegate_to_agent", {"agent_name": "codebase_investigator"}, output),
    )
    expected = (
        HEAD + "\nSummaryOfFindings:\nInterrupted early.\n\n**Adaptability**\n\n"
        '* plugins are hardcoded\n\nExplorationTrace:\n[\n  "read_file(\\"src/a.ts\\")"\n]'
        "\n\nScore: 3\n\nVerdict: mixed"
    )
    assert [r.output for r in results] == [expected]
    assert "> * plugins are hardcoded\n" in note  # a line of its own, not a \n escape


def test_a_report_without_lines_to_show_or_not_a_subagents_stays_as_written():
    one_line = HEAD + json.dumps({"Summary": "all fine", "Files": ["a.ts"]}, indent=2)
    not_json = HEAD + "{ the agent wrote prose"
    other_tool = "Result:\n" + json.dumps(REPORT)
    listed = HEAD + json.dumps([REPORT])
    for text in (one_line, not_json, other_tool, listed):
        assert subagent_report(text) == text


def test_every_referenced_file_is_an_attachment_named_by_its_path(tmp_path):
    """Two @-mentioned files, the second's text holding a blank line at its end and a line
    that only looks like a header; the displayed prompt (``displayContent``) does not hide
    them, and a prompt without the block has none."""
    chat = GeminiChat(SID)
    block = (
        "\n--- Content from referenced files ---\nContent from @src/a.ts:\nexport const a = 1;"
        "\nContent from @docs/b.md:\n# B\nContent from a friend\n\n--- End of content ---"
    )
    chat.user([{"text": "Compare @src/a.ts and @docs/b.md"}, {"text": block}],
              displayContent="Compare @src/a.ts and @docs/b.md")  # fmt: skip
    chat.gemini("They differ.")
    chat.user("Thanks")
    chat.gemini("Welcome.")
    chat.write_json(project_folder(tmp_path / "home", ROOT, "api") / "chats")
    (session,), _ = load_sessions(GeminiAdapter(), tmp_path / "home")
    files = [(m.role, p.name, p.data) for m in session.messages for p in m.parts
             if p.kind == "attachment"]  # fmt: skip
    assert files == [
        ("user", "src/a.ts", b"export const a = 1;"),
        ("user", "docs/b.md", b"# B\nContent from a friend\n"),
    ]
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", sources=["gemini"],
                             timezone=UTC))  # fmt: skip
    (note,) = note_files(tmp_path / "v").values()
    assert (
        "> [!cite] Attached `src/a.ts`\n> ```typescript\n> export const a = 1;\n> ```"
        in note.decode()
    )
    assert "Content from referenced files" not in note.decode()
