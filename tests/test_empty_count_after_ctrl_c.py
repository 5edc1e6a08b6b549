"""The count of units without a conversation after a Ctrl-C (cli10 2): a stopped run prints
no summary, yet it remembered the empty files it had read as done, so the next run skipped
them and its summary counted only the empty files the stopped run had not reached ("1 more
without a conversation" of 4). They are now read again by the next run, which counts them
all, and then remembered as any run's."""

from __future__ import annotations

from datetime import UTC

import pytest
from vault_builder import export, write_session

from exporter.export import ExportOptions, Interrupted, run_export

EMPTY = 4
SESSIONS = 6


def _home_with_empty_files(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    for n in range(SESSIONS):
        sid = f"7c000000-0000-4000-8000-00000000000{n}"
        write_session(home, [f"question {n}"], sid=sid, start=f"2026-03-0{n + 1}T10:00:00Z")
    project = home / ".claude" / "projects" / "-home-dev-work-app"
    for n in range(EMPTY):  # (files a session was never written into)
        (project / f"7d000000-0000-4000-8000-00000000000{n}.jsonl").write_text("")
    return home, vault


def _stopped_after(vault, home, units: int) -> None:
    def progress(done: int, total: int) -> None:
        if done == units:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted):
        run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1), progress)


@pytest.mark.parametrize("units", [2, 5, 8, 9])
def test_the_run_after_a_ctrl_c_counts_every_file_without_a_conversation(tmp_path, units):
    home, vault = _home_with_empty_files(tmp_path)
    _stopped_after(vault, home, units)
    after = export(vault, home)
    assert after.total("found") == SESSIONS
    assert after.total("empty") == EMPTY, f"stopped after {units} units"
    assert len(after.empty_units) == EMPTY
    again = export(vault, home)  # (said once, as by a run never stopped)
    assert again.total("found") == SESSIONS and again.total("empty") == 0


def test_a_run_never_stopped_says_them_once(tmp_path):
    home, vault = _home_with_empty_files(tmp_path)
    assert export(vault, home).total("empty") == EMPTY
    assert export(vault, home).total("empty") == 0
