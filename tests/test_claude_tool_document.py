"""A text document a tool returned (a ``document`` block with a text source in a
``tool_result``) is that call's output: it became a text part of the user line, and the note
showed it as a new prompt of the person's after the call, counted in ``prompts``."""

from __future__ import annotations

from datetime import UTC

from claude_builder import ClaudeSession, tool_use
from conftest import note_files

from exporter.export import ExportOptions, run_export

SID = "7a7a7a7a-1111-4222-8333-444444444445"


def test_a_text_document_a_tool_returned_is_its_output_not_a_prompt(tmp_path):
    s = ClaudeSession(SID, "/w/d", start="2026-02-01T09:00:00Z")
    s.user("Read the notes file")
    s.assistant([tool_use("Read", {"file_path": "/w/d/notes.txt"}, "toolu_1")])
    doc = {"type": "text", "media_type": "text/plain", "data": "line one of the file"}
    s.tool_result("toolu_1", [{"type": "text", "text": "notes.txt:"},
                              {"type": "document", "source": doc}])  # fmt: skip
    s.assistant("It says line one.")
    s.write(tmp_path / "home" / ".claude" / "projects" / "-w-d" / f"{SID}.jsonl")
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", timezone=UTC))
    assert not report.problems, report.problems
    ((_, data),) = note_files(tmp_path / "v").items()
    note = data.decode()
    assert "prompts: 1\n" in note
    assert note.count("### User") == 1
    call = note[note.index("> [!example]- `Read`") :]
    assert call.index("> notes.txt:\n> line one of the file") < call.index("It says line one.")
