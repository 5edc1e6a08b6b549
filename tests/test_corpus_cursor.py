"""Both real Cursor databases in ../shared/corpus/cursor export without a crash, and every
user and assistant text in them is in the notes."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC

import pytest
from conftest import normalize, note_files

from exporter.adapters.cursor import lexical_text
from exporter.export import ExportOptions, run_export

pytestmark = pytest.mark.corpus


def corpus_texts(db) -> tuple[list[str], list[str]]:
    """(user texts, assistant texts) of every generation a database holds."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    users, replies = [], []

    def add(kind, text):
        if isinstance(text, str) and text.strip():
            (users if kind in (1, "user") else replies).append(text)

    if "cursorDiskKV" in tables:
        for (value,) in conn.execute("SELECT value FROM cursorDiskKV WHERE key LIKE 'bubbleId:%'"):
            b = json.loads(value)
            add(b.get("type"), b.get("text") or lexical_text(b.get("richText")))
    for key, value in conn.execute("SELECT key, value FROM ItemTable"):
        if key == "workbench.panel.aichat.view.aichat.chatdata":
            for tab in json.loads(value).get("tabs", []):
                for b in tab.get("bubbles", []):
                    add(b.get("type"), b.get("text") or lexical_text(b.get("initText")))
        elif key == "composer.composerData":
            for c in json.loads(value).get("allComposers", []):
                for b in c.get("conversation") or []:
                    add(b.get("type"), b.get("text"))
    conn.close()
    return users, replies


def test_both_cursor_databases_export_and_nothing_is_lost(corpus, tmp_path):
    user = tmp_path / "home" / ".config" / "Cursor" / "User"
    (user / "globalStorage").mkdir(parents=True)
    shutil.copyfile(
        corpus / "cursor" / "git-ai-project__git-ai__cursor_test.vscdb",
        user / "globalStorage" / "state.vscdb",
    )
    ws = user / "workspaceStorage" / "f87f6e0b2cf1ae8645cc0c5ffaa99529"
    ws.mkdir(parents=True)
    shutil.copyfile(corpus / "cursor" / "slevin48__cursor-history__state.vscdb", ws / "state.vscdb")
    (ws / "workspace.json").write_text(json.dumps({"folder": "file:///c%3A/Users/dev/mobilechat"}))
    report = run_export(
        ExportOptions(
            vault=tmp_path / "v", home=tmp_path / "home", sources=["cursor"], timezone=UTC
        )
    )
    assert not report.failed, report.problems
    notes = note_files(tmp_path / "v")
    assert len(notes) >= 30
    everything = normalize("\n".join(b.decode() for b in notes.values()))
    checked, missing = 0, []
    for db in (user / "globalStorage" / "state.vscdb", ws / "state.vscdb"):
        users, replies = corpus_texts(db)
        for text, markdown in [(t, False) for t in users] + [(t, True) for t in replies]:
            checked += 1
            if normalize(text, escaped=markdown) not in everything:
                missing.append(text[:100])
    assert checked > 100 and missing == []
