"""A project's index note: its ``updated`` property is the project's latest activity (the
last message of any of its sessions), and its identity stays the same from run to run."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from claude_builder import ClaudeSession
from conftest import note_files
from vault_builder import export, write_session

from exporter.notefile import read_frontmatter
from exporter.state import STATE_DIR, STATE_FILE, State

OTHER = "bbbbbbbb-0000-4000-8000-000000000000"


def index_of(vault: Path, name: str = "app") -> dict:
    return read_frontmatter((vault / "AI Sessions" / "Projects" / f"{name}.md").read_text())


def _session(home: Path, sid: str, prompts: list[tuple[str, str]]) -> None:
    """A session of project app whose prompts are sent at the given times."""
    s = ClaudeSession(sid, "/home/dev/work/app", start=prompts[0][1])
    for prompt, at in prompts:
        s.clock = datetime.fromisoformat(at.replace("Z", "+00:00"))
        s.user(prompt)
        s.assistant(f"reply to {prompt}")
    s.write(home / ".claude" / "projects" / "-home-dev-work-app" / f"{sid}.jsonl")


def test_the_index_is_updated_at_the_last_message_not_the_newest_start(tmp_path):
    """A session begun on the 1st and resumed on the 9th is later than one begun on the
    5th: the project was last worked on the 9th."""
    home, vault = tmp_path / "home", tmp_path / "v"
    _session(home, "0a1b2c3d-0000-4000-8000-00000000000a",
             [("begin", "2026-03-01T10:00:00Z"), ("resume", "2026-03-09T16:00:00Z")])  # fmt: skip
    _session(home, OTHER, [("short", "2026-03-05T10:00:00Z")])
    export(vault, home)
    updated = index_of(vault)["updated"].isoformat()
    assert updated.startswith("2026-03-09T16:00"), updated


def test_a_state_written_before_the_last_message_was_listed_is_read_once(tmp_path):
    """The state of an older version lists no ``updated``: the notes are read once for it
    (else this machine's index would say another time than another machine's)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    _session(home, "0a1b2c3d-0000-4000-8000-00000000000a",
             [("begin", "2026-03-01T10:00:00Z"), ("resume", "2026-03-09T16:00:00Z")])  # fmt: skip
    export(vault, home)
    state = State.load(vault)
    for record in state.notes.values():
        record.meta = {k: v for k, v in record.meta.items() if k != "updated"}
    (vault / STATE_DIR / STATE_FILE).write_bytes(state.dumps())
    index = vault / "AI Sessions" / "Projects" / "app.md"
    index.write_text(
        index.read_text().replace("updated: 2026-03-09T16:00", "updated: 2020-01-01T00:00")
    )
    write_session(home, ["elsewhere"], sid=OTHER, cwd="/home/dev/work/other")  # relisted
    export(vault, home)
    assert index_of(vault)["updated"].isoformat().startswith("2026-03-09T16:00")
    assert all(
        "updated" in r.meta for k, r in State.load(vault).notes.items() if k.startswith("claude")
    )


def test_a_project_folder_named_with_brackets_keeps_one_index_note(tmp_path):
    """``[[`` in a project's name is written with a zero-width space (no link): the index
    note's identity is read back as it was written, run after run."""
    home, vault = tmp_path / "home", tmp_path / "v"
    cwd = "/home/u/notes [[x]]"
    write_session(home, ["q"], cwd=cwd)
    export(vault, home)
    note = next(p for p in vault.rglob("claude-code/*/*.md"))
    note.write_text(note.read_text() + "my words\n")  # (read again, not known by its stat)
    write_session(home, ["q2"], sid=OTHER, cwd=cwd)
    export(vault, home)
    index = next(vault.rglob("AI Sessions/Projects/*.md"))
    index.write_text(index.read_text() + "mine\n")
    write_session(home, ["q3"], sid="cccccccc-0000-4000-8000-000000000000", cwd=cwd)
    export(vault, home, index_dataview=True)  # every note rendered again
    indexes = [k for k in note_files(vault, index=True) if k.startswith("AI Sessions/Projects/")]
    assert indexes == ["AI Sessions/Projects/notes --x--.md"]
    assert index.read_text().count("[[") == 3 and "mine" in index.read_text()


def test_a_long_session_in_parts_updates_its_project_at_its_last_part(tmp_path):
    """The index lists a long session by its first part, but the project was last worked on
    at the last part's last message."""
    from datetime import UTC

    from claude_builder import tool_use

    from exporter.export import ExportOptions, run_export

    home, vault = tmp_path / "home", tmp_path / "v"
    s = ClaudeSession("0a1b2c3d-0000-4000-8000-00000000000a", "/home/dev/work/app")
    s.clock = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    for i in range(60):
        s.user(f"question {i}")
        s.assistant([tool_use("Read", {"file_path": f"/src/f{i}.py"}, f"call-{i}")])
        s.tool_result(f"call-{i}", "lorem ipsum dolor sit amet\n" * 150)
        s.assistant(f"answer {i}")
    s.write(home / ".claude" / "projects" / "-home-dev-work-app" / "0a1b2c3d.jsonl")
    last = s.clock
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=64 * 1024))
    parts = [p for p in note_files(vault) if "/app/" in p]
    assert len(parts) > 2, parts
    updated = index_of(vault)["updated"]  # (in --timezone's wall time)
    assert abs((updated.replace(tzinfo=UTC) - last).total_seconds()) < 120, (updated, last)
