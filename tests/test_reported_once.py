"""A file that failed (a database locked) is reported once: the warning another unit gives
of the same file is folded into its error (review44 L7)."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC

import pytest
from conftest import EXAMPLES_HOME
from hypothesis import given
from hypothesis import strategies as st

from exporter.adapters import vscode
from exporter.errors import Problem
from exporter.export import ExportOptions, run_export
from exporter.problemfold import folded

LOCKED = "the database is locked by another program (database is locked); skipped, try again later"


@pytest.mark.parametrize(
    ("database", "consequence"),
    [
        (".config/Cursor/User/globalStorage/state.vscdb", "the working folders it gives"),
        (".local/share/opencode/opencode.db", "the legacy tree beside it waits"),
    ],
)
def test_a_locked_database_is_one_error_naming_what_waits_on_it(
    tmp_path, monkeypatch, database, consequence
):
    monkeypatch.setattr(vscode, "BUSY_TIMEOUT_MS", 50)
    monkeypatch.setattr("exporter.adapters._sqlite.BUSY_TIMEOUT_MS", 50)
    home = tmp_path / "sources"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    holder = sqlite3.connect(home / database, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        report = run_export(ExportOptions(vault=tmp_path / "v", home=home, timezone=UTC))
    finally:
        holder.close()
    about = [p for p in report.problems if p.path == str(home / database)]
    assert len(about) == 1, [(p.severity, p.message) for p in about]
    assert about[0].severity == "error"
    assert about[0].message.startswith(LOCKED) and consequence in about[0].message


texts = st.text("ab; ", max_size=12)


@given(st.lists(st.tuples(st.sampled_from("xy"), texts, st.booleans()), max_size=8))
def test_folding_keeps_every_error_and_drops_only_warnings_an_error_says(items):
    problems = [
        Problem(path, message, severity="error" if error else "warning")
        for path, message, error in items
    ]
    out = folded(problems)
    errors = [p for p in problems if p.severity == "error"]
    assert [(p.path, p.severity) for p in out if p.severity == "error"] == [
        (p.path, p.severity) for p in errors
    ]
    for p in problems:
        if p.severity == "warning" and p not in out:
            assert any(e.path == p.path and p.message.startswith(f"{e.message}; ") for e in errors)
            assert any(e.path == p.path and p.message[len(e.message) + 2 :] in e.message
                       for e in out if e.severity == "error")  # fmt: skip
