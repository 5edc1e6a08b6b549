"""A unit some of whose sessions ``--since`` (or ``since`` in the config, which applies to
every run) or ``--project`` leaves out is skipped by a later run whose filters keep no more
of it, while its files stay the same. Before, it was read again by every run: an Aider log,
a Cursor or OpenCode database holding an old conversation was read every night, its warnings
repeated, and a change of settings never finished (review15 finding 1)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from aider_builder import AiderLog
from conftest import note_files

from exporter.adapters import aider
from exporter.export import ExportOptions, ExportReport, run_export
from exporter.notespec import TurnView
from exporter.state import State

SINCE = datetime(2025, 1, 1, tzinfo=UTC)
HIDDEN = TurnView(thinking="hidden")  # a change of settings: every note is to be rendered again


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The Aider units (one per run in a log: ``…history.md#<line>``) read, in order."""
    calls: list[str] = []
    original = aider.AiderAdapter.load

    def counting(self, ref):
        calls.append(f"{ref.main.path.parent.name}/{ref.main.path.name}")
        return original(self, ref)

    monkeypatch.setattr(aider.AiderAdapter, "load", counting)
    return calls


def _home(tmp_path):
    """``greeter``'s log: a run in 2024 and one in November 2026; ``other``'s: one recent run."""
    log = AiderLog()
    log.run("2024-08-12 10:00:00").prompt("old question about parse_config").reply("Old answer.")
    log.run("2026-11-30 09:00:00").prompt("new question about load_cache").reply("New answer.")
    home = tmp_path / "home"
    log.write(home / "src" / "greeter")
    other = AiderLog().run("2026-11-29 08:00:00").prompt("q about other").reply("A.")
    other.write(home / "src" / "other")
    return home


def _export(vault, home, **kw) -> ExportReport:
    options = ExportOptions(vault=vault, home=home, timezone=UTC, local_zone=UTC,
                            sources=["aider"], **kw)  # fmt: skip
    return run_export(options)


def _after(reads: list[str], step) -> list[str]:
    reads.clear()
    step()
    return sorted(reads)


OLD = "greeter/.aider.chat.history.md#1"  # the 2024 run, which SINCE leaves out


def test_a_unit_read_with_since_is_skipped_by_the_next_run_with_since(tmp_path, reads):
    home, vault = _home(tmp_path), tmp_path / "v"
    assert _export(vault, home).total("created") == 3
    # A change of settings under ``since``: every unit is read once (the old run's too)
    assert len(_after(reads, lambda: _export(vault, home, since=SINCE, view=HIDDEN))) == 3
    # The next nightly run, its window a little later: nothing is read, nothing is said
    later = SINCE + timedelta(days=1)
    again: list[ExportReport] = []
    assert _after(reads, lambda: again.append(_export(vault, home, since=later, view=HIDDEN))) == []
    assert again[0].total("skipped") == 2 and not again[0].problems
    # An earlier window could keep the old run, and no window keeps it: read again, once
    assert _after(reads, lambda: _export(vault, home, since=SINCE - timedelta(days=900),
                                         view=HIDDEN)) == [OLD]  # fmt: skip
    assert _after(reads, lambda: _export(vault, home, view=HIDDEN)) == []  # (read whole above)
    assert len(note_files(vault)) == 3


def test_without_since_the_old_unit_is_read_and_its_note_rendered_anew(tmp_path, reads):
    home, vault = _home(tmp_path), tmp_path / "v"
    _export(vault, home)
    _export(vault, home, since=SINCE, view=HIDDEN)
    assert _after(reads, lambda: _export(vault, home, view=HIDDEN)) == [OLD]
    assert _after(reads, lambda: _export(vault, home, view=HIDDEN)) == []


def test_a_unit_read_with_project_is_skipped_by_the_same_project_only(tmp_path, reads):
    home, vault = _home(tmp_path), tmp_path / "v"
    assert len(_after(reads, lambda: _export(vault, home, since=SINCE, project="greeter"))) == 3
    assert _after(reads, lambda: _export(vault, home, since=SINCE, project="greeter")) == []
    # Without --project, the units it left out are read again (``other``'s, which it left
    # out whole, and the old run, which SINCE leaves out still); then skipped
    assert _after(reads, lambda: _export(vault, home, since=SINCE)) == sorted(
        [OLD, "other/.aider.chat.history.md#1"]
    )
    assert _after(reads, lambda: _export(vault, home, since=SINCE)) == []
    assert len(note_files(vault)) == 2


def test_the_notes_of_sessions_left_out_stay_the_units(tmp_path):
    """A unit remembered with its filters keeps naming the notes of the sessions they left
    out (a run that skips it looks at them for a deletion, a restore, a replaced file)."""
    home, vault = _home(tmp_path), tmp_path / "v"
    _export(vault, home)
    before = State.load(vault).sources
    _export(vault, home, since=SINCE, view=HIDDEN)
    after = State.load(vault).sources
    assert {u: r["notes"] for u, r in after.items()} == {u: r["notes"] for u, r in before.items()}
    filtered = [r["fingerprint"][1] for r in after.values() if r["fingerprint"][1][0] == "filtered"]
    # (its one note was left out: rendered with the first run's settings, as it says)
    made = [r["fingerprint"][0] for u, r in before.items() if u.endswith("#1") and "greeter" in u]
    assert filtered == [["filtered", SINCE.isoformat(), "", *made]]
