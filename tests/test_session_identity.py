"""One session, one identity: a Claude Code session is the ``sessionId`` inside its file."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession
from conftest import note_files

from exporter.export import ExportOptions, run_export
from exporter.notefile import parse

SHARED_NAME = "0b5c1a4e-0000-4000-8000-000000000001"
FIRST = "1a1a1a1a-1111-4111-8111-111111111111"
SECOND = "2b2b2b2b-2222-4222-8222-222222222222"


def _projects(home: Path) -> Path:
    return home / ".claude" / "projects"


def _session(session_id: str, prompt: str, cwd: str, start: str = "2026-11-20T09:00:00Z"):
    s = ClaudeSession(session_id, cwd, start=start)
    s.user(prompt)
    s.assistant(f"reply to {prompt}")
    return s


def _notes(vault: Path) -> dict[str, dict]:
    out = {}
    for relpath, data in note_files(vault).items():
        text = data.decode()
        meta = parse(text).metadata
        if meta.get("session_id"):
            out[meta["session_id"]] = {"path": Path(relpath), "meta": meta, "text": text}
    return out


def test_two_sessions_whose_files_share_a_name_are_both_exported(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    web = _projects(home) / "-home-dev-web"
    api = _projects(home) / "-home-dev-api"
    _session(FIRST, "fix the web login", "/home/dev/web").write(web / f"{SHARED_NAME}.jsonl")
    second = _session(SECOND, "speed up the api", "/home/dev/api")
    second.write(api / f"{SHARED_NAME}.jsonl")
    agent = ClaudeSession(SECOND, "/home/dev/api", sidechain=True, agent_id="a1")
    agent.user("look at the slow query")
    agent.assistant("found it")
    agent.write(api / SHARED_NAME / "subagents" / "agent-a1.jsonl")

    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))

    notes = _notes(vault)
    assert {FIRST, SECOND, f"{SECOND}/agent-a1"} <= set(notes)
    assert not [p for p in report.problems if "already exported" in p.message]
    child = notes[f"{SECOND}/agent-a1"]
    assert child["meta"]["parent"] == f"[[{notes[SECOND]['path'].stem}]]"


def test_of_two_copies_of_one_session_the_newest_content_wins(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    # "a-old" sorts first but holds the older copy; the copy in "z-new" was resumed later.
    older = _session(FIRST, "start the migration", "/home/dev/app")
    newer = _session(FIRST, "start the migration", "/home/dev/app")
    newer.user("and finish it")
    newer.assistant("migration finished")
    newer.write(_projects(home) / "-z-new" / f"{FIRST}.jsonl")
    older.write(_projects(home) / "-a-old" / f"{FIRST}.jsonl")

    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))

    notes = _notes(vault)
    assert list(notes) == [FIRST]
    assert "migration finished" in notes[FIRST]["text"]
    assert any("older copy" in p.message and "-a-old" in p.path for p in report.problems)
