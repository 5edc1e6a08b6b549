"""What a run says after the person renamed the notes' folder in Obsidian (review35 5): the
move is named as the reason its notes are rendered again (not "the templates, settings or
redaction rules changed", none of which the person changed), and a dry run lists a note
left deleted where the notes are now, not in the folder that is gone."""

from __future__ import annotations

import os

from claude_builder import ClaudeSession
from typer.testing import CliRunner

from exporter.cli import app


def _session(home, sid: str, prompt: str) -> None:
    s = ClaudeSession(sid, "/home/dev/app", start="2026-03-04T10:00:00Z")
    s.user(prompt)
    s.assistant(f"reply to {prompt}")
    s.write(home / ".claude" / "projects" / "-home-dev-app" / f"{sid}.jsonl")


def _run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _renamed_vault(tmp_path, deleted: bool = False):
    home, vault = tmp_path / "home", tmp_path / "v"
    for n in range(4):
        _session(home, f"{n + 1:08x}-0000-4000-8000-000000000000", f"question {n}")
    args = ("--vault", vault, "--home", home, "--timezone", "UTC")
    assert _run(*args).exit_code == 0
    if deleted:
        note = next((vault / "AI Sessions").rglob("*00000002.md"))
        note.unlink()
        assert _run(*args).exit_code == 0  # (recorded as deleted by the person)
    os.rename(vault / "AI Sessions", vault / "AI Chats")
    return args


def test_a_renamed_folder_is_the_reason_its_notes_are_rendered_again(tmp_path):
    args = _renamed_vault(tmp_path)
    for dry in (("--dry-run",), ()):
        result = _run(*args, *dry)
        assert result.exit_code == 0, result.output
        assert (
            '4 notes rendered again: their folder "AI Sessions" was renamed or moved to '
            '"AI Chats" in the vault, and they were followed there' in result.stdout
        )
        assert "templates, settings or redaction rules changed" not in result.output
    # the next run reads nothing again, and says nothing of it
    assert "rendered again" not in _run(*args).stdout


def test_a_setting_changed_with_the_folder_renamed_is_still_said_as_before(tmp_path):
    args = _renamed_vault(tmp_path)
    result = _run(*args, "--thinking", "hidden")
    assert result.exit_code == 0, result.output
    assert "4 notes rendered again: the templates, settings or redaction rules changed" in (
        result.stdout
    )


def test_a_dry_run_lists_a_note_left_deleted_in_the_folder_the_notes_are_in_now(tmp_path):
    args = _renamed_vault(tmp_path, deleted=True)
    result = _run(*args, "--dry-run")
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.stdout.splitlines() if "leave deleted" in line]
    assert line.startswith("would leave deleted: AI Chats/claude-code/app/"), line
