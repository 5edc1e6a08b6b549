"""A folder where a Claude Code transcript belongs (``<project>/<id>.jsonl`` a folder) was
taken for a subagents' folder, and said nothing: the session it stands for was missed in
silence. Now it is named as a file that could not be read, as a FIFO there is, and the
rest of the project is exported."""

from __future__ import annotations

from pathlib import Path

from claude_builder import ClaudeSession
from conftest import note_files

from exporter.export import ExportOptions, run_export

SID = "f01df01d-2222-4333-8444-555555555555"
OTHER = "f01df01d-2222-4333-8444-666666666666"


def project(home: Path) -> Path:
    return home / ".claude" / "projects" / "-home-dev-app"


def other_session(home: Path) -> None:
    s = ClaudeSession(OTHER, "/home/dev/app")
    s.user("the other question")
    s.assistant("the other answer")
    s.write(project(home) / f"{OTHER}.jsonl")


def errors_of(home: Path, vault: Path) -> list[str]:
    report = run_export(ExportOptions(vault=vault, home=home, sources=["claude-code"]))
    return [str(p) for p in report.problems]


def test_a_folder_named_as_a_transcript_is_said_and_the_project_goes_on(tmp_path):
    home = tmp_path / "home"
    other_session(home)
    folder = project(home) / f"{SID}.jsonl"
    (folder / "stray").mkdir(parents=True)
    (project(home) / "agent-0a0a0a0a.jsonl").mkdir()  # an older layout's agent file
    problems = errors_of(home, tmp_path / "v")
    assert len(problems) == 2, problems
    for path in (folder, project(home) / "agent-0a0a0a0a.jsonl"):
        (said,) = [p for p in problems if p.startswith(f"{path}: ")]
        assert "could not be read: a folder, not a file;" in said
    notes = note_files(tmp_path / "v")
    assert len(notes) == 1 and any("the other question" in n.decode() for n in notes.values())


def test_a_session_s_own_folder_beside_its_transcript_is_no_damage(tmp_path):
    """The ``<id>/`` folder (its subagents, its saved tool outputs) is where it belongs."""
    home = tmp_path / "home"
    other_session(home)
    (project(home) / OTHER / "subagents").mkdir(parents=True)
    (project(home) / OTHER / "tool-results").mkdir()
    assert errors_of(home, tmp_path / "v") == []
    assert len(note_files(tmp_path / "v")) == 1
