"""A file or folder name that is not UTF-8 (a Latin-1 name on Linux) costs its own sessions,
named in the report, and never the run: Python holds such a name with surrogates, which
neither the state file, a note, the terminal nor ``--json`` can encode."""

from __future__ import annotations

import json
import os
from pathlib import Path

from claude_builder import ClaudeSession
from conftest import note_files
from typer.testing import CliRunner

from exporter.cli import app
from exporter.errors import Problem

runner = CliRunner()


def session(path: Path, text: str) -> None:
    s = ClaudeSession(text.replace(" ", "-"), "/home/dev/shop", start="2026-03-01T10:00:00Z")
    s.user(text)
    s.assistant([{"type": "text", "text": "Done."}])
    s.write(path)


def latin1(path: Path) -> Path:
    """``path`` with its name's 'é' written as the Latin-1 byte 0xE9, as Python sees it."""
    return Path(os.fsdecode(os.fsencode(str(path)).replace("é".encode(), b"\xe9")))


def test_a_name_that_is_not_utf8_is_reported_and_the_other_sessions_exported(tmp_path):
    projects = tmp_path / "h" / ".claude" / "projects"
    session(projects / "-home-dev-shop" / "11111111-aaaa-4000-8000-000000000001.jsonl", "Kept")
    session(latin1(projects / "-home-dev-shop" / "caf\u00e9.jsonl"), "Bad file name")
    session(latin1(projects / "-home-dev-caf\u00e9") / "22222222-aaaa-4000-8000-000000000002.jsonl",
            "Bad folder name")  # fmt: skip
    vault = tmp_path / "v"
    args = ["--vault", str(vault), "--home", str(tmp_path / "h"), "--json"]
    for _ in range(2):  # reported again on the next run: still not exported
        result = runner.invoke(app, args)
        assert result.exit_code == 1, result.output
        summary = json.loads(result.stdout)
        assert sorted(e["path"] for e in summary["errors"]) == [
            str(projects / "-home-dev-caf\\xe9" / "22222222-aaaa-4000-8000-000000000002.jsonl"),
            str(projects / "-home-dev-shop" / "caf\\xe9.jsonl"),
        ]
        assert all("not valid UTF-8" in e["message"] for e in summary["errors"])
    notes = note_files(vault)
    assert [name for name in notes if "Kept" in name] and len(notes) == 1
    assert b"Bad" not in (vault / ".ccexport" / "state.json").read_bytes()

    plain = runner.invoke(app, args[:-1])  # the terminal's report names the file too
    assert plain.exit_code == 1 and "caf\\xe9.jsonl: the name is not valid UTF-8" in plain.output


def test_a_problem_shows_the_bytes_of_a_name_it_cannot_print():
    bad = os.fsdecode(b"/h/caf\xe9.jsonl")
    problem = Problem(bad, f"{bad} could not be read")
    assert problem.path == "/h/caf\\xe9.jsonl" and problem.message.startswith("/h/caf\\xe9")
    assert json.dumps(problem.as_dict(), ensure_ascii=False).encode()  # encodable now
    assert Problem("/h/café", "ok").path == "/h/café"  # a UTF-8 name stays as it is
    assert Problem("/h/\ud800", "x").path == "/h/\\ud800"  # a lone surrogate: escaped
