"""Every GitHub Copilot CLI sample in ../shared/corpus (``copilot-cli/`` and the real
``copilot/…copilot_cli_session_events.jsonl``) exports end to end: each typed prompt and
each main-agent reply is in the notes, the sub-agent sample gets a linked note, and a second
run reads nothing."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import pytest
from conftest import normalize, note_files
from corpus_home import build_copilot_cli_home as copilot_home

from exporter.export import ExportOptions, run_export

pytestmark = pytest.mark.corpus


def typed_and_said(path: Path) -> tuple[list[str], list[str]]:
    """Prompts as typed, and the main agent's replies, as the file has them."""
    prompts, replies = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        data = event.get("data") or {}
        content = data.get("content")
        if not isinstance(content, str) or not content.strip() or event.get("ephemeral"):
            continue
        if event["type"] == "user.message":
            prompts.append(content)
        elif event["type"] == "assistant.message" and not data.get("parentToolCallId"):
            replies.append(content)
    return prompts, replies


def test_every_copilot_cli_sample_exports_with_its_prompts_and_replies(corpus, tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    files = copilot_home(corpus, home)
    options = ExportOptions(vault=vault, home=home, sources=["copilot-cli"], timezone=UTC)
    report = run_export(options)
    assert not report.failed, [str(p) for p in report.problems if p.severity == "error"]
    notes = {rel: b.decode() for rel, b in note_files(vault).items()}
    assert len(files) == 5
    assert len(notes) == 6  # five sessions and the small sample's sub-agent
    everything = normalize("\n".join(notes.values()))
    checked = 0
    for path in files:
        prompts, replies = typed_and_said(path)
        for text, markdown in [(t, False) for t in prompts] + [(t, True) for t in replies]:
            checked += 1
            assert normalize(text, escaped=markdown) in everything, (path.name, text[:80])
    assert checked >= 15
    real = next(t for t in notes.values() if "session_id: 301561f1" in t)
    assert "git_branch: master" in real and "tool_calls: 1" in real
    assert "Created file /Users/test/project/hello.py" in real  # the 1.0.45 result shape
    assert sum("parent: '[[" in t for t in notes.values()) == 1
    again = run_export(options)
    assert again.total("skipped") == report.total("found") and again.total("written") == 0


def test_token_counts_and_remotes_as_the_cli_recorded_them(corpus, tmp_path):
    """The 1.0.77 sample keeps its totals in session.shutdown.tokenDetails (its modelMetrics
    hold request counts alone): 100 in, 15 out, 5 cache read. The drift sample's
    modelMetrics inputTokens (1000) holds its 800 cache reads: 200 are input. The 1.0.11
    sample names no host for its GitHub remote: github.com, as the others write it."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    copilot_home(corpus, home)
    options = ExportOptions(vault=vault, home=home, sources=["copilot-cli"], timezone=UTC)
    assert not run_export(options).failed
    notes = {Path(rel).name: b.decode() for rel, b in note_files(vault).items()}
    small = notes["2025-12-18 List the files stage0co.md"]
    assert "tokens_in: 100\n" in small and "tokens_out: 15\n" in small
    assert "tokens_cache_read: 5\n" in small
    drift = notes["2025-12-18 Untitled session stage0co.md"]
    assert "tokens_in: 200\n" in drift and "tokens_cache_read: 800\n" in drift
    assert "tokens: 1050\n" in drift
    remotes = {
        line for t in notes.values() for line in t.splitlines() if line.startswith("git_remote:")
    }
    assert remotes == {"git_remote: github.com/example/repo", "git_remote: github.com/test/repo"}
