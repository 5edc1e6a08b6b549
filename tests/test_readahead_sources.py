"""Units of every source that reads alone are read ahead by the worker pool, and the vault
is the one a run reading every unit in the main process writes: the demo home (a session
of each source with its subagents, checkpoints, prompt logs, SDK sessions, the old
database layout, a damaged line, secrets) beside enough short Copilot CLI logs to start
the pool, exported with ``--jobs 1`` and with two workers."""

from __future__ import annotations

import shutil
from collections import Counter
from datetime import UTC
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME, note_files
from copilot_cli_builder import CopilotCliSession
from vscode_builder import workspace

from exporter import readahead
from exporter.adapters import ADAPTERS, copilot_cli, gemini
from exporter.export import ExportOptions, run_export
from exporter.workers import PARALLEL_FROM

SECRET = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"  # a made-up GitHub token

# The sources whose adapters declare ``reads_alone`` (all of them today), each in the demo
# home: a source added with it is checked here too.
READ_ALONE = [a.name for a in ADAPTERS if getattr(a, "reads_alone", False)]


@pytest.fixture
def read_ahead(monkeypatch) -> Counter[str]:
    """Sessions that came from a unit read ahead, by source, and units whose reading failed
    there (``"failed there"``: a result that cannot be sent back fails its whole job)
    (counted in the main process)."""
    seen: Counter[str] = Counter()
    take = readahead.ReadAhead.take

    def counting_take(self, unit, wanted=True):
        handed_over = unit in self._tickets
        read = take(self, unit, wanted)
        if handed_over and wanted and read is None:
            seen["failed there"] += 1
        for found in read.sessions if read is not None else ():
            seen[found.session.source] += 1
        return read

    monkeypatch.setattr(readahead.ReadAhead, "take", counting_take)
    return seen


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "demo"
    shutil.copytree(EXAMPLES_HOME, home)
    for n in range(PARALLEL_FROM + 8):
        s = CopilotCliSession(f"{n:08x}-0c11-4000-8000-000000000000", f"/home/dev/work/p{n % 3}")
        s.user(f"Why does step {n} fail?" + (f" The token is {SECRET}." if n == 5 else ""))
        s.assistant(f"Step {n} reads `a_b` before it is set.")
        s.write(home / ".copilot")
    # Trae workspaces with nothing in them, and the agent's encrypted store, which each
    # adapter reports once: a worker's adapter as well as the main process's.
    trae = home / ".config" / "Trae"
    for n in range(6):
        workspace(trae / "User", f"ws-empty-{n}", f"file:///home/dev/work/e{n}", {})
    encrypted = trae / "ModularData" / "ai-agent" / "database.db"
    encrypted.parent.mkdir(parents=True)
    encrypted.write_bytes(bytes(range(256)) * 8)
    return home


def _export(vault: Path, home: Path, jobs: int):
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=jobs))
    return report


@pytest.mark.parametrize("streamed", [False, True], ids=["held", "streamed"])
def test_every_source_that_reads_alone_is_read_ahead_into_the_same_vault(
    tmp_path, read_ahead, monkeypatch, streamed
):
    if streamed:  # Copilot CLI logs and Gemini chats of the demo home are streamed, not held
        monkeypatch.setattr(copilot_cli, "STREAM_FROM", 2_000)
        monkeypatch.setattr(gemini, "STREAM_FROM", 2_000)
    home = _home(tmp_path)
    one = _export(tmp_path / "one", home, 1)
    assert not read_ahead  # one process reads every unit itself
    two = _export(tmp_path / "two", home, 2)
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert one.as_dict() == two.as_dict()
    assert one.redactions and two.redactions == one.redactions
    assert any("line" in str(p) for p in one.problems)  # the demo's damaged line, reported
    assert sum("encrypted" in p.message for p in two.problems) == 1
    assert not read_ahead["failed there"], read_ahead
    missing = [source for source in READ_ALONE if not read_ahead[source]]
    assert not missing, read_ahead
    assert read_ahead["copilot-cli"] >= PARALLEL_FROM, read_ahead
