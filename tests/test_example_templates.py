"""The templates in ``examples/templates/`` work as their comments say: the demo home exports
with each without a problem, and the conversation-only one leaves no empty turn behind."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME, ROOT, note_files

from exporter.export import ExportOptions, run_export
from exporter.model import Message, Session, TextPart, ToolCallPart, ToolResultPart
from exporter.notes import NoteSettings, build_note

EXAMPLES = ROOT / "examples" / "templates"


@pytest.mark.parametrize("name", ["no-tools", "minimal"])
def test_the_demo_home_exports_with_each_example(tmp_path: Path, name: str) -> None:
    options = ExportOptions(
        vault=tmp_path / "v", home=EXAMPLES_HOME, templates=EXAMPLES / name, timezone=UTC
    )
    report = run_export(options)
    assert not report.failed and not [p for p in report.problems if p.severity == "error"]
    notes = note_files(tmp_path / "v")
    assert len(notes) > 30
    if name == "no-tools":  # (a call is a folded example, or failure, callout)
        text = "".join(n.decode() for n in notes.values())
        assert "> [!example]-" not in text and "> [!failure]-" not in text


def _tools_only_turn() -> Session:
    when = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    call = ToolCallPart("bash", {"command": "ls"}, "c1")
    return Session(
        source="claude-code",
        session_id="s1",
        source_path=Path("/logs/s1.jsonl"),
        messages=(
            Message("user", (TextPart("List the files"),), "u1", when),
            Message("assistant", (call,), "a1", when),
            Message("tool", (ToolResultPart("a.txt", "c1"),), "t1", when),
            Message("user", (TextPart("Thanks, and the hidden ones?"),), "u2", when),
            Message("assistant", (TextPart("There are none."),), "a2", when),
        ),
        started_at=when,
        ended_at=when,
    )


def test_a_turn_of_tool_calls_only_loses_its_heading_without_tools() -> None:
    """It kept "### Assistant · 09:00" with nothing under it (tplaudit F8), where
    ``--tools hidden`` leaves such a turn out."""
    settings = NoteSettings(timezone=UTC, templates=EXAMPLES / "no-tools")
    body = build_note(_tools_only_turn(), "n.md", settings, lambda k: None).body
    headings = re.findall(r"^### (\w+)", body, re.M)
    assert headings == ["User", "User", "Assistant"], body
    assert "There are none." in body and "ls" not in body.replace("List", "")


def test_wikilink_makes_its_target_a_note_s_name(tmp_path: Path) -> None:
    """``{{ project | wikilink }}`` wrote the project as given: "C# tools|x" linked to the
    heading "tools|x" of a note "C" (tplaudit F6). The target is now made a name as note
    names are made, so it is the project's index note."""
    from vault_builder import write_session

    home, folder = tmp_path / "home", tmp_path / "mine"
    write_session(home, ["q"], cwd="/w/C# tools|x")
    folder.mkdir()
    (folder / "session.md.j2").write_text("# {{ title | inline }}\n\n{{ project | wikilink }}\n")
    report = run_export(
        ExportOptions(vault=tmp_path / "v", home=home, templates=folder, timezone=UTC)
    )
    assert not report.failed
    notes = note_files(tmp_path / "v", index=True)
    (session,) = [n.decode() for k, n in notes.items() if "/Projects" not in k]
    (link,) = re.findall(r"\[\[[^\]]*\]\]", session.split("%% ccexport:end")[0].split("---")[-1])
    assert link == "[[C- tools-x]]"
    assert any(k.endswith("/Projects/C- tools-x.md") for k in notes)


def test_minimal_shows_a_turn_of_tool_calls_by_its_tools() -> None:
    """It showed "(no text)" for a turn of tool calls only, and for a typed command (780
    of 2,867 turns of the corpus, tplaudit F8)."""
    settings = NoteSettings(timezone=UTC, templates=EXAMPLES / "minimal")
    body = build_note(_tools_only_turn(), "n.md", settings, lambda k: None).body
    lines = [line for line in body.splitlines() if line.startswith("- **")]
    assert lines == [
        "- **User** 09:00: List the files",
        "- **Assistant** 09:00: ran `bash`",
        "- **User** 09:00: Thanks, and the hidden ones?",
        "- **Assistant** 09:00: There are none.",
    ]
