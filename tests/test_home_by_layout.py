"""``--home`` is refused as "a source folder itself" by the folder's layout, not by its name
alone (review43 L5): a backup home kept in a folder named ``src`` (the name of the folder
Aider's histories are looked for in) was refused, though it held ``.claude/`` and more."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from exporter.cli import app
from exporter.errors import ConfigError
from exporter.options import check_home

runner = CliRunner()


def _folder(root: Path, *files: str) -> Path:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    return root


@pytest.mark.parametrize(
    "home_file",
    [
        ".claude/projects/-home-me-work-alpha/s.jsonl",
        ".codex/sessions/2026/01/02/rollout.jsonl",
        ".gemini/tmp/abc/chats/session.json",
        ".config/Code/User/workspaceStorage/x/state.vscdb",
        "src/weather-cli/.aider.chat.history.md",
    ],
)
def test_a_backup_home_in_a_folder_named_like_a_source_folder_is_taken(
    tmp_path: Path, home_file: str
) -> None:
    for name in ("src", ".config", ".claude"):
        home = _folder(tmp_path / home_file.split("/")[0] / name, home_file)
        check_home(home)  # a home's layout: not refused
    result = runner.invoke(app, ["--vault", str(tmp_path / "v"), "--home", str(home)])
    assert "looks like a source folder" not in result.output, result.output
    assert result.exit_code in (0, 1), result.output


@pytest.mark.parametrize(
    ("folder", "inside"),
    [
        ("src", "weather-cli/.aider.chat.history.md"),
        (".claude", "projects/-home-me-work-alpha/s.jsonl"),
        (".codex", "sessions/2026/01/02/rollout.jsonl"),
        (".config", "Code/User/workspaceStorage/x/state.vscdb"),
    ],
)
def test_a_source_folder_itself_is_still_refused(tmp_path: Path, folder: str, inside: str) -> None:
    source = _folder(tmp_path / "home" / folder, inside)
    with pytest.raises(ConfigError, match=r"looks like a source folder itself"):
        check_home(source)
    result = runner.invoke(app, ["--vault", str(tmp_path / "v"), "--home", str(source)])
    assert result.exit_code == 2 and f"--home {tmp_path / 'home'}" in result.output
