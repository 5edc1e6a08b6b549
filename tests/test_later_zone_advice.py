"""A later run given ``--timezone`` says, as a first export does, that the next plain run
dates the notes in the vault's zone again and how to keep the flag's (cli8: a vault that
keeps Etc/UTC, run once with ``--timezone America/New_York``, flipped back on the next
plain run without a word)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()
NEW_YORK = "--timezone", "America/New_York"
ADVICE = 'to keep America/New_York, put timezone = "America/New_York"'
KEPT = "a run without it dates them in Etc/UTC (the zone this vault keeps from its first export)"


@pytest.fixture(autouse=True)
def machine_in_utc(monkeypatch):
    monkeypatch.setenv("TZ", "Etc/UTC")


def _export(vault: Path, *args: str):
    result = runner.invoke(app, ["--vault", str(vault), "--home", str(EXAMPLES_HOME), *args])
    assert result.exit_code == 0, result.output
    return result


def _exported(tmp_path: Path) -> Path:
    vault = tmp_path / "Notes"
    assert "--timezone;" not in _export(vault).stdout  # the vault keeps Etc/UTC
    return vault


def test_a_later_run_with_another_zone_says_the_next_plain_run_goes_back(tmp_path):
    vault = _exported(tmp_path)
    later = _export(vault, *NEW_YORK)
    assert "0 created, 41 updated" in later.stdout
    config = vault / ".ccexport" / "config.toml"
    line = f"Notes dated in America/New_York by --timezone; {KEPT} and writes them all again: "
    assert later.stdout.count(f"{line}{ADVICE} in {config}.") == 1
    plain = _export(vault)  # the flip it speaks of
    assert "0 created, 41 updated" in plain.stdout and "--timezone;" not in plain.stdout


def test_following_the_advice_keeps_the_zone(tmp_path):
    vault = _exported(tmp_path)
    _export(vault, *NEW_YORK)
    (vault / ".ccexport" / "config.toml").write_text('timezone = "America/New_York"\n')
    plain = _export(vault)
    assert "0 created, 0 updated, 41 unchanged" in plain.stdout
    assert "--timezone;" not in _export(vault, *NEW_YORK).stdout  # the config's zone now


def test_a_later_dry_run_says_how_to_keep_it_but_not_that_notes_are_written_again(tmp_path):
    vault = _exported(tmp_path)
    dry = _export(vault, *NEW_YORK, "--dry-run", "--json")
    advice = json.loads(dry.stdout)["timezone_advice"]
    assert advice.startswith("Notes would be dated in America/New_York by --timezone; ")
    assert KEPT in advice and ADVICE in advice and "again" not in advice


def test_the_kept_zone_not_the_machines_is_the_one_a_plain_run_uses(tmp_path, monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Berlin")
    vault = _exported(tmp_path)  # keeps Europe/Berlin
    monkeypatch.setenv("TZ", "Etc/UTC")  # (the laptop moved)
    assert "--timezone;" not in _export(vault, "--timezone", "Europe/Berlin").stdout
    said = _export(vault, "--timezone", "Etc/UTC").stdout
    assert "dates them in Europe/Berlin (the zone this vault keeps from its first export)" in said
