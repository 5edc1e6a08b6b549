"""doctor counts the notes the next run renders again as the export then counts them: a
session in part notes once, by its first part (cli8: a session split by ``note_max_bytes``
in 4 parts was "4 notes were written with other … settings" in doctor, "1 note rendered
again" in the export)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from claude_builder import ClaudeSession, tool_use
from conftest import note_files
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()
LONG = "0000abcd-0000-4000-8000-00000000cafe"
SHORT = "0000abcd-0000-4000-8000-00000000beef"


def _home(home: Path) -> None:
    """A session long enough for several 64 KB parts, and one of a single note."""
    long = ClaudeSession(LONG, "/home/dev/work/big")
    for i in range(40):
        long.user(f"question q{i}q")
        long.assistant([tool_use("Read", {"file_path": f"/src/f{i}.py"}, f"c{i}")])
        long.tool_result(f"c{i}", f"file f{i}\n" + "lorem ipsum dolor sit amet\n" * 150)
        long.assistant(f"answer a{i}a " + "consectetur adipiscing " * 40)
    long.write(home / ".claude" / "projects" / "-w-big" / f"{LONG}.jsonl")
    short = ClaudeSession(SHORT, "/home/dev/work/small")
    short.user("what is two and two")
    short.assistant("four")
    short.write(home / ".claude" / "projects" / "-w-small" / f"{SHORT}.jsonl")


def _run(vault: Path, home: Path, *args: str):
    return runner.invoke(app, ["--vault", str(vault), "--home", str(home), *args])


def _doctor_says(vault: Path, home: Path) -> int:
    said = re.search(
        r"(\d+) notes? (?:was|were) written with other templates",
        _run(vault, home, "doctor").output,
    )
    assert said, "doctor names no note to render again"
    return int(said.group(1))


def test_doctor_and_the_export_count_a_session_in_parts_once(tmp_path: Path) -> None:
    home, vault = tmp_path / "home", tmp_path / "v"
    _home(home)
    config = vault / ".ccexport" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('note_max_bytes = "64 KB"\n')
    assert _run(vault, home).exit_code == 0
    assert len(note_files(vault)) >= 4  # (the long session in 3 parts or more, the short one)
    config.write_text('note_max_bytes = "64 KB"\nthinking = "hidden"\n')
    told = _doctor_says(vault, home)
    document = json.loads(_run(vault, home, "--json").stdout)
    assert document["rendered_again_notes"] == told == 2
    assert document["totals"]["found"] == 2
