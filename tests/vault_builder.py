"""Small homes and vaults for the vault tests: one Claude Code session per call, grown or
shrunk by rewriting it with more or fewer prompts."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession
from conftest import ROOT, note_files

from exporter import notefile, vaultmerge
from exporter.export import ExportOptions, ExportReport, run_export

SID = "0a1b2c3d-0000-4000-8000-00000000000a"


def write_session(
    home: Path,
    prompts: list[str],
    sid: str = SID,
    cwd: str = "/home/dev/work/app",
    start: str = "2026-03-04T10:00:00Z",
    ai_title: str | None = None,
) -> Path:
    """``home`` holds one session with a reply to each prompt (rewritten, never appended),
    titled by Claude Code's ``ai-title`` line where given."""
    s = ClaudeSession(sid, cwd, start=start)
    for prompt in prompts:
        s.user(prompt)
        s.assistant(f"reply to {prompt}")
    if ai_title:
        s.meta("ai-title", sessionId=sid, aiTitle=ai_title)
    folder = "-" + cwd.strip("/").replace("/", "-").replace(".", "-")
    return s.write(home / ".claude" / "projects" / folder / f"{sid}.jsonl")


def export(vault: Path, home: Path, **kw) -> ExportReport:
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, **kw))


def the_note(vault: Path) -> Path:
    (path,) = [vault / rel for rel in note_files(vault)]
    return path


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """ccexport in a process of its own (a hang fails the test instead of the suite)."""
    return subprocess.run(
        [sys.executable, "-m", "exporter", *args, "--timezone", "UTC"],
        capture_output=True, text=True, timeout=timeout, cwd=ROOT,
    )  # fmt: skip


def updated_note(parsed: notefile.NoteText, ours: dict, owned: str, record, scrub) -> str:
    """A note as an update writes it, through the merge alone (no export): our keys and
    region rewritten, every other byte kept, as ``vault.py`` composes it."""
    yaml_text = vaultmerge.updated_yaml(parsed, ours, record, scrub)
    return notefile.recompose(parsed, yaml_text, owned)


class LastWrite:
    """What the state recorded of a note's last writing, as ``updated_note`` reads it: the
    tags ccexport wrote, and its properties (by default every name it owns); no tag the
    person removed while ccexport wrote it no more."""

    def __init__(self, tags: list[str], keys: tuple[str, ...] = vaultmerge.OWNED_KEYS) -> None:
        self.tags = tags
        self.keys = list(keys)
        self.removed_tags: list[str] = []
