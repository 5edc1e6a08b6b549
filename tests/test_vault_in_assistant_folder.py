"""A vault at or below an assistant's own folder (``~/.claude/Notes``, ``~/.codex``, a
folder ``[paths]`` gives): ccexport only reads those, and the assistant's clean-up, or the
folder deleted, would take the notes with it (review48 M1). A new vault there is refused
(nothing is lost: choose another); a vault already made there by an earlier version is
exported, with a warning on each run saying how to move it: a nightly run does not stop."""

from __future__ import annotations

from datetime import UTC

import pytest
from claude_builder import ClaudeSession
from typer.testing import CliRunner

from exporter.cli import app
from exporter.config import resolve
from exporter.errors import ConfigError
from exporter.export import ExportOptions, run_export


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "me"
    s = ClaudeSession("00000001-0000-4000-8000-000000000000", "/home/dev/app",
                      start="2026-03-04T10:00:00Z")  # fmt: skip
    s.user("a question")
    s.assistant("an answer")
    s.write(home / ".claude" / "projects" / "-home-dev-app" / "s.jsonl")
    (home / ".codex").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "CCEXPORT_VAULT"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.mark.parametrize("below", [".claude/Notes", ".claude/projects/x", ".codex"])
def test_a_new_vault_in_an_assistants_folder_is_refused(home, below):
    vault = home / below
    result = CliRunner().invoke(app, ["--vault", str(vault)])
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert "own folder" in said and "choose a vault outside it" in said
    assert not (vault / ".ccexport").exists()


def test_a_folder_paths_gives_is_an_assistants_folder_too(home, tmp_path):
    backup = tmp_path / "claude-backup"
    (backup / "projects").mkdir(parents=True)
    with pytest.raises(ConfigError, match="claude-code's own folder"):
        resolve({"vault": str(backup / "Notes"), "paths": {"claude-code": str(backup)}})
    # Aider's [paths] are the person's projects: a vault among them is at home there
    assert resolve({"vault": str(backup / "Notes"), "paths": {"aider": str(backup)}}).vault


def test_a_vault_made_there_already_is_exported_with_a_warning(home):
    vault = home / ".claude" / "Notes"
    (vault / ".ccexport").mkdir(parents=True)
    assert resolve({"vault": str(vault)}).vault == vault
    report = run_export(ExportOptions(vault=vault, timezone=UTC))
    assert report.total("created") == 1 and not report.failed
    (said,) = [p for p in report.problems if "own folder" in p.message]
    assert said.path == str(vault) and "Move the vault out of it" in said.message


def test_a_vault_elsewhere_in_the_home_is_not_refused(home):
    for vault in (home / "Notes", home / ".obsidian-vaults" / "x", home / "Documents"):
        assert resolve({"vault": str(vault)}).vault == vault
