"""A subagent's note the person deleted is linked no more: the parent's note, when it is
next written, neither lists it among its subagents nor links its transcript (the link led
nowhere, and Obsidian makes an empty note of that name when it is followed). `--restore`
writes the subagent's note again and links it again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app

PROJECT = Path(".claude/projects/-home-dev-work-rust-parser")
PARENT = "a3359d8f-b7c6-54bc-98db-2ca01fe16890"


def _export(vault: Path, home: Path, *more: str) -> str:
    args = ["--vault", str(vault), "--home", str(home), "--source", "claude-code", *more]
    result = CliRunner().invoke(app, [*args, "--timezone", "UTC"])
    assert result.exit_code == 0, result.output
    return result.output


def _grow(transcript: Path, prompt: str) -> None:
    """A prompt appended after the last message of the transcript."""
    lines = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    last = next(r for r in reversed(lines) if r.get("uuid"))
    line = {**{k: last[k] for k in ("cwd", "sessionId", "version", "gitBranch")},
            "parentUuid": last["uuid"], "isSidechain": False, "userType": "external",
            "type": "user", "uuid": "0d0d0d0d-0000-4000-8000-000000000001",
            "timestamp": "2026-11-20T10:00:00.000Z",
            "message": {"role": "user", "content": prompt}}  # fmt: skip
    with transcript.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def test_a_deleted_subagent_note_is_linked_no_more(tmp_path: Path) -> None:
    home, vault = tmp_path / "home", tmp_path / "v"
    shutil.copytree(EXAMPLES_HOME / PROJECT, home / PROJECT)
    _export(vault, home)
    (parent,) = list(vault.rglob(f"*{PARENT[:8]}.md"))
    (child,) = list(vault.rglob(f"*{PARENT[:8]} · agent *.md"))
    assert (
        parent.read_text(encoding="utf-8").count(f"[[{child.stem}") == 3
    )  # property, header, call

    child.unlink()
    _grow(home / PROJECT / f"{PARENT}.jsonl", "One more question about the lexer")
    said = _export(vault, home)
    assert "deleted in the vault; left deleted" in said
    text = parent.read_text(encoding="utf-8")
    assert "One more question about the lexer" in text  # the parent was written again
    assert child.stem not in text
    assert not child.exists()

    _export(vault, home, "--restore")
    assert child.is_file()
    assert parent.read_text(encoding="utf-8").count(f"[[{child.stem}") == 3
