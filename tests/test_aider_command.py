"""The command line that started an Aider run is the note's ``command`` property (review12
F6: it was dropped, though it tells a ``--dry-run`` or a ``--msg`` run), its program named
without its folder, and redacted as the rest of the note: a key given on the command line
does not reach the vault."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import yaml
from aider_builder import AiderLog
from conftest import note_files
from test_aider_adapter import utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)

from exporter.export import ExportOptions, run_export

KEY = "sk-ant-api03-" + "q7W2e9R4t6Y1u3I8o5P0" * 5 + "AA"  # (synthetic, an Anthropic key's shape)


def frontmatter(vault: Path) -> dict:
    (text,) = [b.decode() for p, b in note_files(vault).items() if "/aider/" in p]
    return yaml.safe_load(text.split("---\n")[1])


def export(tmp_path: Path, command: str) -> dict:
    log = AiderLog().run("2025-03-01 09:15:00", command=command).prompt("add a greeting")
    log.reply("Added.").tokens("1,000", "20", "0.01", "0.01")
    home = tmp_path / "home"
    log.write(home / "src" / "greeter")
    vault = tmp_path / "vault"
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, sources=["aider"]))
    assert not report.failed, report.problems
    return frontmatter(vault)


def test_the_command_line_is_a_property_without_the_programs_folder(tmp_path):
    props = export(tmp_path, "/home/me/.venv/bin/aider --model sonnet HISTORY.md --dry-run")
    assert props["command"] == "aider --model sonnet HISTORY.md --dry-run"


def test_a_key_on_the_command_line_is_redacted(tmp_path):
    props = export(tmp_path, f"aider --anthropic-api-key {KEY} --model sonnet")
    assert KEY not in props["command"] and "[REDACTED" in props["command"]
    assert props["command"].startswith("aider --anthropic-api-key ")
