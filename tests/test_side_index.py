"""An index beside the sessions (titles, working folders, models) that cannot be read for
one run: a warning naming it, and the notes keep what the last run read from it. Before,
nothing was said, the title fell back to the first prompt, and the next run put it back:
each flip re-exported the session and left the fallback behind as an alias."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC
from pathlib import Path
from types import SimpleNamespace

import cline_builder as cb
import pytest
import yaml
from codex_builder import CodexRollout
from conftest import EXAMPLES_HOME, note_files

from exporter.adapters import _sqlite, vscode
from exporter.doctor import source_checks
from exporter.export import ExportOptions, run_export
from exporter.outcome import ExportReport

TID = "019a0000-1111-7222-8333-444455556666"


def export(home: Path, vault: Path, source: str) -> ExportReport:
    return run_export(ExportOptions(vault=vault, home=home, sources=[source], timezone=UTC))


def frontmatter(vault: Path) -> dict:
    (note,) = note_files(vault).values()
    return yaml.safe_load(note.decode().split("---\n")[1])


def warnings(report: ExportReport) -> list[tuple[str, str]]:
    return [(p.path, p.message) for p in report.problems if p.severity == "warning"]


def counts(report: ExportReport, source: str) -> tuple[int, int, int]:
    c = report.per_source[source]
    return c.skipped, c.updated, c.failed


# --- an index made unreadable for a while ---------------------------------------------------


@contextmanager
def locked(db: Path) -> Iterator[None]:
    """Held by the running tool (the busy timeout is shortened by each test)."""
    holder = sqlite3.connect(db)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        holder.rollback()
        holder.close()


@contextmanager
def truncated(path: Path) -> Iterator[None]:
    """Caught while the tool rewrites it: half a JSON document."""
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    yield
    path.write_bytes(whole)


@contextmanager
def a_folder(path: Path) -> Iterator[None]:
    aside = path.with_name(path.name + ".aside")
    path.rename(aside)
    path.mkdir()
    yield
    path.rmdir()
    aside.rename(path)


@contextmanager
def no_permission(path: Path) -> Iterator[None]:
    path.chmod(0)
    yield
    path.chmod(0o644)


AS_ROOT = not hasattr(os, "geteuid") or os.geteuid() == 0  # root reads whatever the mode


# --- Cline 4: db/sessions.db held locked by the running Cline ----------------------------


def cline_session(data: Path, replies: int = 1) -> None:
    messages = [cb.message("user", "Summarise the README", n=0)]
    messages += [cb.message("assistant", cb.text(f"Reply {n}."), n=n + 1) for n in range(replies)]
    cb.sdk_session(data, "sdk-1", messages)


def test_a_locked_cline_session_index_keeps_the_titles_of_the_last_run(tmp_path, monkeypatch):
    monkeypatch.setattr(_sqlite, "BUSY_TIMEOUT_MS", 100)
    home, vault = tmp_path / "sessions", tmp_path / "v"
    data = home / ".cline" / "data"
    cline_session(data)
    db = cb.sessions_db(data, [{"session_id": "sdk-1", "cwd": "/w/project", "model": "m1",
                                "metadata_json": json.dumps({"title": "README summary"})}])  # fmt: skip
    export(home, vault, "cline")
    first = frontmatter(vault)
    assert (first["title"], first["cwd"]) == ("README summary", "/w/project")
    with locked(db):
        unchanged = export(home, vault, "cline")
        ((path, why),) = warnings(unchanged)
        assert path == str(db) and "locked" in why and "kept from the last run" in why
        assert counts(unchanged, "cline") == (1, 0, 0)  # its transcript did not change
        cline_session(data, replies=2)  # the session goes on while the index is locked
        grown = export(home, vault, "cline")
        assert counts(grown, "cline") == (0, 1, 0) and len(warnings(grown)) == 1
    after = frontmatter(vault)
    assert after["messages"] > first["messages"]
    assert (after["title"], after["aliases"], after["cwd"]) == (
        "README summary", first["aliases"], "/w/project",
    )  # fmt: skip
    readable = export(home, vault, "cline")
    assert warnings(readable) == [] and counts(readable, "cline") == (1, 0, 0)
    assert frontmatter(vault)["aliases"] == first["aliases"] == ["README summary"]


def test_a_session_first_seen_while_the_index_is_locked_gets_its_own_files_values(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(_sqlite, "BUSY_TIMEOUT_MS", 100)
    home, vault = tmp_path / "sessions", tmp_path / "v"
    data = home / ".cline" / "data"
    cline_session(data)
    db = cb.sessions_db(data, [{"session_id": "sdk-1",
                                "metadata_json": json.dumps({"title": "README summary"})}])  # fmt: skip
    with locked(db):
        report = export(home, vault, "cline")
    assert [path for path, _ in warnings(report)] == [str(db)]
    assert frontmatter(vault)["title"] == "Summarise the README"  # nothing better is known


# --- Codex: session_index.jsonl that cannot be read ---------------------------------------


def codex_session(home: Path, replies: int = 1) -> None:
    rollout = CodexRollout(TID)
    rollout.user("Add a health endpoint")
    for n in range(replies):
        rollout.assistant(f"Reply {n}.")
    rollout.write(home / ".codex")


@pytest.mark.parametrize(
    "unreadable",
    [pytest.param(no_permission, marks=pytest.mark.skipif(AS_ROOT, reason="root reads it")),
     a_folder],
)  # fmt: skip
def test_an_unreadable_codex_session_index_keeps_the_titles_of_the_last_run(tmp_path, unreadable):
    home, vault = tmp_path / "sessions", tmp_path / "v"
    codex_session(home)
    index = home / ".codex" / "session_index.jsonl"
    index.write_text(json.dumps({"id": TID, "thread_name": "Health endpoint"}) + "\n")
    export(home, vault, "codex")
    first = frontmatter(vault)
    assert first["title"] == "Health endpoint"
    with unreadable(index):
        unchanged = export(home, vault, "codex")
        ((path, why),) = warnings(unchanged)
        assert path == str(index) and "could not be read" in why and "titles" in why
        assert counts(unchanged, "codex") == (1, 0, 0)
        codex_session(home, replies=2)  # the thread goes on while its index is unreadable
        grown = export(home, vault, "codex")
        assert counts(grown, "codex") == (0, 1, 0) and len(warnings(grown)) == 1
    after = frontmatter(vault)
    assert after["messages"] > first["messages"]
    assert (after["title"], after["aliases"]) == ("Health endpoint", first["aliases"])
    readable = export(home, vault, "codex")
    assert warnings(readable) == [] and counts(readable, "codex") == (1, 0, 0)
    assert frontmatter(vault)["aliases"] == first["aliases"] == ["Health endpoint"]


# --- an index the tool's version does not write is no problem ------------------------------


def test_an_index_that_is_not_there_is_not_reported(tmp_path):
    home = tmp_path / "sessions"
    cline_session(home / ".cline" / "data")
    codex_session(home)
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home, timezone=UTC,
                                      sources=["cline", "codex"]))  # fmt: skip
    assert report.problems == [] and report.total("created") == 2


def test_doctor_names_an_index_that_cannot_be_read(tmp_path):
    home = tmp_path / "sessions"
    codex_session(home)
    index = home / ".codex" / "session_index.jsonl"
    index.mkdir()
    checks = source_checks(SimpleNamespace(sources=["codex"], paths={}), home)
    assert [c.status for c in checks if c.message.startswith(f"codex: {index}: ")] == ["attention"]


# --- every index of the example home, damaged for one run -----------------------------------


GENERATION_A = ".config/Code/User/globalStorage/saoudrizwan.claude-dev/state/taskHistory.json"


@pytest.mark.parametrize(
    ("source", "relpath", "damaged"),
    [
        ("cline", ".cline/data/db/sessions.db", locked),
        ("cline", GENERATION_A, truncated),
        ("codex", ".codex/session_index.jsonl", a_folder),
        ("copilot", ".config/Code/User/globalStorage/state.vscdb", locked),
        ("cursor", ".cursor/ai-tracking/ai-code-tracking.db", locked),
        ("antigravity", ".gemini/antigravity-cli/cache/last_conversations.json", truncated),
    ],
)
def test_a_run_with_an_index_unreadable_changes_no_note(
    tmp_path, monkeypatch, source, relpath, damaged
):
    monkeypatch.setattr(_sqlite, "BUSY_TIMEOUT_MS", 100)
    monkeypatch.setattr(vscode, "BUSY_TIMEOUT_MS", 100)
    home, vault = tmp_path / "sessions", tmp_path / "v"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    export(home, vault, source)
    notes = note_files(vault)
    index = home / relpath
    with damaged(index):
        report = export(home, vault, source)
        told = [why for path, why in warnings(report) if path == str(index)]
        assert len(told) == 1 and "kept from the last run" in told[0], warnings(report)
        assert note_files(vault) == notes and report.per_source[source].written == 0
    report = export(home, vault, source)
    assert str(index) not in {path for path, _ in warnings(report)}
    assert note_files(vault) == notes and report.per_source[source].written == 0
