"""A first export given ``--timezone`` says once how to keep that zone (review40 L5: the vault
kept the machine's zone, and the next plain run wrote every note again in it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app
from exporter.config import user_config_path

runner = CliRunner()
ADVICE = 'to keep America/New_York, put timezone = "America/New_York"'


@pytest.fixture(autouse=True)
def machine_in_utc(monkeypatch):
    monkeypatch.setenv("TZ", "Etc/UTC")  # (the zone the vault keeps from its first export)


def _export(vault: Path, *args: str):
    result = runner.invoke(app, ["--vault", str(vault), "--home", str(EXAMPLES_HOME), *args])
    assert result.exit_code == 0, result.output
    return result


def test_a_first_export_with_another_zone_says_how_to_keep_it_and_that_keeps_it(tmp_path):
    vault = tmp_path / "Notes"
    first = _export(vault, "--timezone", "America/New_York")
    assert first.stdout.count(ADVICE) == 1
    assert "a run without it dates them in Etc/UTC" in first.stdout
    config = vault / ".ccexport" / "config.toml"
    assert f"{ADVICE} in {config}." in first.stdout
    again = _export(vault, "--timezone", "America/New_York")  # (still true: cli8)
    assert "dates them in Etc/UTC (the zone this vault keeps from its first export)" in again.stdout
    config.write_text('timezone = "America/New_York"\n', encoding="utf-8")  # as it says
    plain = _export(vault)
    assert "0 created, 0 updated, 41 unchanged" in plain.stdout  # no note written again


def test_without_the_advice_the_next_plain_run_writes_every_note_again(tmp_path):
    """What the advice is for (and that it is true)."""
    vault = tmp_path / "Notes"
    _export(vault, "--timezone", "America/New_York")
    plain = _export(vault)
    assert "0 created, 41 updated" in plain.stdout


def test_the_advice_is_in_json_and_not_under_quiet(tmp_path):
    doc = json.loads(_export(tmp_path / "a", "--timezone", "America/New_York", "--json").stdout)
    assert ADVICE in doc["timezone_advice"]
    assert ADVICE not in _export(tmp_path / "b", "--timezone", "America/New_York", "-q").output
    later = json.loads(_export(tmp_path / "a", "--json").stdout)
    assert later["timezone_advice"] is None


@pytest.mark.parametrize(
    "args", [["--timezone", "Etc/UTC"], [], ["--timezone", "UTC"], ["--timezone", "Etc/Universal"]]
)  # (review41 L-1: UTC is the machine's Etc/UTC by another name: nothing would be written again)
def test_nothing_is_said_when_later_runs_keep_the_zone(tmp_path, args):
    assert "--timezone;" not in _export(tmp_path / "Notes", *args).stdout


def test_a_zone_in_the_config_is_the_one_later_runs_use(tmp_path):
    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('timezone = "Europe/Berlin"\n', encoding="utf-8")
    said = _export(tmp_path / "Notes", "--timezone", "America/New_York").stdout
    assert f"dates them in Europe/Berlin (the timezone of your user config ({user}))" in said
    assert f"{ADVICE} there." in said
    user.write_text('timezone = "America/New_York"\n', encoding="utf-8")
    assert "--timezone;" not in _export(tmp_path / "Other", "--timezone", "America/New_York").stdout


def test_a_dry_run_says_it_too_and_a_run_that_makes_no_vault_does_not(tmp_path):
    dry = _export(tmp_path / "Notes", "--timezone", "America/New_York", "--dry-run")
    assert ADVICE in dry.stdout
    empty = tmp_path / "empty-home"
    empty.mkdir()
    result = runner.invoke(app, ["--vault", str(tmp_path / "V"), "--home", str(empty),
                                 "--timezone", "America/New_York"])  # fmt: skip
    assert ADVICE not in result.output and not (tmp_path / "V").exists()
