"""A Gemini CLI call's title names its subject, as other sources' calls do: the agent
``delegate_to_agent`` starts (as Claude Code's Task names its kind of agent), the file an
older read_file read (``absolute_path``), the folder list_directory lists (``dir_path``) and
the files read_many_files reads (``paths``). Synthetic homes only."""

from __future__ import annotations

from datetime import UTC

from conftest import note_files
from gemini_builder import GeminiChat, project_folder, tool_call

from exporter.export import ExportOptions, run_export

SID = "7d1c2b3a-5b7d-4e2f-8a1c-0d9e8f7a6b51"
ROOT = "/home/dev/work/api"


def _note(tmp_path, *calls) -> str:
    chat = GeminiChat(SID)
    chat.user([{"text": "Look around"}])
    chat.gemini("", calls=list(calls))
    chat.gemini("Done.")
    chat.write_json(project_folder(tmp_path / "home", ROOT, "api") / "chats")
    report = run_export(
        ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", sources=["gemini"],
                      timezone=UTC)
    )  # fmt: skip
    assert not report.failed
    (note,) = [n for p, n in note_files(tmp_path / "v").items() if "agent-" not in str(p)]
    return note.decode()


def test_each_call_names_its_subject(tmp_path):
    note = _note(
        tmp_path,
        tool_call("d-1", "delegate_to_agent",
                  {"agent_name": "codebase_investigator", "objective": "Map the API routes"},
                  '{"report": "three routes"}'),
        tool_call("r-1", "read_file", {"absolute_path": "/home/dev/work/api/app.py"}, "x = 1"),
        tool_call("l-1", "list_directory", {"dir_path": "/home/dev/work/api/src"}, "[DIR] a"),
        tool_call("m-1", "read_many_files", {"paths": ["app.py", "src/*.py"]}, "x = 1"),
    )  # fmt: skip
    assert "> [!example]- `delegate_to_agent` — `codebase_investigator`\n" in note
    assert "> [!example]- `read_file` — `/home/dev/work/api/app.py`\n" in note
    assert "> [!example]- `list_directory` — `/home/dev/work/api/src`\n" in note
    assert "> [!example]- `read_many_files` — `app.py, src/*.py`\n" in note
