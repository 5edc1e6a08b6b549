"""A tool output too large for Claude Code's transcript: the line holds a ``<persisted-output>``
wrapper with a 2 KB preview, the whole output is in ``<session>/tool-results/<id>.txt`` (and,
for a shell command, in the line's ``toolUseResult``). The note showed the preview and a path
on another machine: about 2% of a 126.7 KB output in the corpus (agent-a485154, line 37)."""

from __future__ import annotations

from datetime import UTC

import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import CORPUS, note_files
from test_claude_adapter import SID, load_all, only, projects

from exporter.export import ExportOptions, run_export
from exporter.model import ToolResultPart

WHOLE = "".join(f"line {n}: {'x' * 60}\n" for n in range(3000))  # about 200 KB


def wrapper(saved: str) -> str:
    return (
        "<persisted-output>\nOutput too large (203.2KB). Full output saved to: "
        f"{saved}\n\nPreview (first 2KB):\n{WHOLE[:2048]}\n...\n</persisted-output>"
    )


def session_with_big_output(sid: str, saved: str, rich=None, agent: str | None = None):
    s = ClaudeSession(sid, sidechain=agent is not None, agent_id=agent)
    s.user("list everything")
    s.assistant([tool_use("Bash", {"command": "find /"}, "toolu_big")])
    s.tool_result("toolu_big", wrapper(saved), rich=rich)
    s.assistant("That is a lot of files.")
    return s


def outputs(session) -> list[str]:
    return [p.output for m in session.messages for p in m.parts if isinstance(p, ToolResultPart)]


def test_the_saved_file_is_the_whole_output(tmp_path):
    folder = projects(tmp_path)
    saved = f"/Users/someone/.claude/projects/-w-proj/{SID}/tool-results/toolu_big.txt"
    session_with_big_output(SID, saved).write(folder / f"{SID}.jsonl")
    (folder / SID / "tool-results").mkdir(parents=True)
    (folder / SID / "tool-results" / "toolu_big.txt").write_text(WHOLE, encoding="utf-8")
    sessions, problems = load_all(tmp_path)
    assert problems == [] and outputs(only(sessions)) == [WHOLE]


def test_a_subagents_saved_file_is_in_its_sessions_folder(tmp_path):
    folder = projects(tmp_path)
    main = ClaudeSession(SID)
    main.user("go")
    main.assistant("ok")
    main.write(folder / f"{SID}.jsonl")
    saved = f"/home/x/.claude/projects/-w-proj/{SID}/tool-results/toolu_big.txt"
    agent = session_with_big_output(SID, saved, agent="a485154")
    agent.write(folder / SID / "subagents" / "agent-a485154.jsonl")
    (folder / SID / "tool-results").mkdir(parents=True)
    (folder / SID / "tool-results" / "toolu_big.txt").write_text(WHOLE, encoding="utf-8")
    sessions, _ = load_all(tmp_path)
    (child,) = [s for s in sessions if s.parent_id]
    assert outputs(child) == [WHOLE]


def test_without_the_file_a_shell_commands_result_holds_it(tmp_path):
    folder = projects(tmp_path)
    saved = f"/elsewhere/{SID}/tool-results/toolu_big.txt"
    rich = {"stdout": WHOLE, "stderr": "find: /proc/1: Permission denied", "interrupted": False}
    session_with_big_output(SID, saved, rich=rich).write(folder / f"{SID}.jsonl")
    sessions, _ = load_all(tmp_path)
    assert outputs(only(sessions)) == [WHOLE + "\nfind: /proc/1: Permission denied"]


@pytest.mark.parametrize(
    "saved",
    [
        f"/x/{SID}/tool-results/toolu_big.txt",  # the file is not there
        f"/x/{SID}/tool-results/../../../../secret.txt",  # names a file elsewhere
        "/x/other-session/tool-results/toolu_big.txt",  # another session's
    ],
)
def test_with_neither_the_wrapper_stays_as_claude_code_wrote_it(tmp_path, saved):
    """It says the output was cut and where the whole was saved; nothing outside the
    session's own tool-results folder is read for it."""
    folder = projects(tmp_path)
    session_with_big_output(SID, saved).write(folder / f"{SID}.jsonl")
    (tmp_path / "secret.txt").write_text("not to be read")
    (folder / "other-session" / "tool-results").mkdir(parents=True)
    (folder / "other-session" / "tool-results" / "toolu_big.txt").write_text("not this one")
    sessions, _ = load_all(tmp_path)
    assert outputs(only(sessions)) == [wrapper(saved)]


def test_the_corpus_agents_cut_output_is_whole(tmp_path):
    name = "codemie-ai__codemie-code__incremental-subagents__turn-2__subagents__agent-a485154.jsonl"
    source = CORPUS / "claude-code" / name
    if not source.exists():
        pytest.skip(f"the corpus is not beside the clone ({source})")
    folder = projects(tmp_path) / "e9fb405b-169f-40eb-9396-7e75076f045d" / "subagents"
    folder.mkdir(parents=True)
    (folder / "agent-a485154.jsonl").write_bytes(source.read_bytes())
    sessions, _ = load_all(tmp_path)
    (found,) = [o for s in sessions for o in outputs(s) if "@types/range-parser" in o]
    assert len(found) == 129_724 and not found.startswith("<persisted-output>")


def test_a_result_without_the_wrapper_is_left_alone(tmp_path):
    folder = projects(tmp_path)
    s = ClaudeSession(SID)
    s.user("run it")
    s.assistant([tool_use("Bash", {"command": "ls"}, "toolu_ls")])
    s.tool_result("toolu_ls", "a.txt\nb.txt", rich={"stdout": "different", "stderr": ""})
    s.write(folder / f"{SID}.jsonl")
    sessions, _ = load_all(tmp_path)
    assert outputs(only(sessions)) == ["a.txt\nb.txt"]


def test_whole_output_reaches_the_note(tmp_path):
    from exporter.export import ExportOptions, run_export

    folder = projects(tmp_path / "home")
    saved = f"/x/{SID}/tool-results/toolu_big.txt"
    session_with_big_output(SID, saved).write(folder / f"{SID}.jsonl")
    (folder / SID / "tool-results").mkdir(parents=True)
    (folder / SID / "tool-results" / "toolu_big.txt").write_text(WHOLE, encoding="utf-8")
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home"))
    (note,) = [p.read_text() for p in (tmp_path / "v").rglob("*list everything*.md")]
    assert "persisted-output" not in note and "line 0: " in note and "line 2999: " in note


@pytest.mark.parametrize("rich", [None, {"stdout": "", "stderr": ""}])
def test_an_empty_saved_file_leaves_the_preview(tmp_path, rich):
    """An empty saved file (cut short, or not yet written) replaced the 2 KB preview with
    nothing: the note showed an empty output (found by the Claude Code mutation run)."""
    folder = projects(tmp_path)
    saved = f"/x/{SID}/tool-results/toolu_big.txt"
    session_with_big_output(SID, saved, rich=rich).write(folder / f"{SID}.jsonl")
    (folder / SID / "tool-results").mkdir(parents=True)
    (folder / SID / "tool-results" / "toolu_big.txt").write_text("", encoding="utf-8")
    sessions, _ = load_all(tmp_path)
    (output,) = outputs(only(sessions))
    assert output.startswith("<persisted-output>") and WHOLE[:2048] in output


def test_an_empty_saved_file_gives_way_to_the_shell_result(tmp_path):
    folder = projects(tmp_path)
    saved = f"/x/{SID}/tool-results/toolu_big.txt"
    rich = {"stdout": WHOLE, "stderr": "", "interrupted": False}
    session_with_big_output(SID, saved, rich=rich).write(folder / f"{SID}.jsonl")
    (folder / SID / "tool-results").mkdir(parents=True)
    (folder / SID / "tool-results" / "toolu_big.txt").write_text("", encoding="utf-8")
    sessions, _ = load_all(tmp_path)
    assert outputs(only(sessions)) == [WHOLE]


def test_the_whole_output_copied_into_the_vault_is_the_bytes_the_tool_gave(tmp_path):
    """Its line ends and its last newline as recorded (review26 F7: CR LF was made LF); only
    a terminal's control sequences are taken out, so that printing the file runs none."""
    crlf = WHOLE.replace("\n", "\r\n")
    rich = {"stdout": "\x1b[32m" + crlf, "stderr": "", "interrupted": False}
    folder = projects(tmp_path)
    session_with_big_output(SID, f"/x/{SID}/tool-results/t.txt", rich=rich).write(
        folder / f"{SID}.jsonl"
    )
    run_export(ExportOptions(vault=tmp_path / "vault", home=tmp_path, timezone=UTC))
    (copy,) = (tmp_path / "vault" / "attachments" / "ccexport").glob("*.txt")
    assert copy.read_bytes() == crlf.encode()
    (note,) = note_files(tmp_path / "vault").values()
    assert f"*The whole output is `attachments/ccexport/{copy.name}`.*" in note.decode()
    assert "\r" not in note.decode()  # (the note itself shows it as Markdown reads it)
