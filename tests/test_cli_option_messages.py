"""Bad option values are refused in ccexport's own words (review22 F9): a time zone
mistyped gets the name it may have meant, as a source or a setting does; ``--jobs`` out of
its range is one ``Error: command line: --jobs …`` line, not click's usage text with
pydantic's "Input should be greater than or equal to 1"."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()


def refused(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return result.stderr


@pytest.mark.parametrize(
    ("zone", "meant"),
    [("Europe/Berln", "Europe/Berlin"), ("europe/berlin", "Europe/Berlin"),
     ("America/New York", "America/New_York")],
)  # fmt: skip
def test_a_mistyped_time_zone_gets_a_did_you_mean(tmp_path, zone, meant):
    said = refused("--vault", str(tmp_path / "v"), "--timezone", zone)
    assert said == (
        f"Error: command line: --timezone is not a known time zone: {zone!r} "
        f"(did you mean {meant}?)\n"
    )
    assert not (tmp_path / "v").exists()


def test_a_mistyped_time_zone_in_the_config_gets_a_did_you_mean_too(tmp_path):
    config = tmp_path / "v" / ".ccexport" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('folder = "AI"\ntimezone = "Europe/Berln"\n', encoding="utf-8")
    said = refused("config", "show", "--vault", str(tmp_path / "v"))
    assert f"{config}), line 2: 'timezone' is not a known time zone: 'Europe/Berln' " in said
    assert said.endswith("(did you mean Europe/Berlin?)\n")


def test_a_zone_like_no_other_is_refused_without_a_guess(tmp_path):
    said = refused("--vault", str(tmp_path / "v"), "--timezone", "Mars/Olympus")
    assert said == "Error: command line: --timezone is not a known time zone: 'Mars/Olympus'\n"


@pytest.mark.parametrize(
    ("args", "value"),
    [(["-j", "0"], "0"), (["--jobs", "0"], "0"), (["--jobs=65"], "65"), (["-j", "-1"], "-1"),
     (["export", "VAULT", "--jobs", "0"], "0"),
     (["-j", "abc"], "'abc'"), (["--jobs", "2.5"], "'2.5'"),  # (words: pydantic's before)
     (["-j", "1_6"], "'1_6'"), (["-j", "\u0663"], "'\u0663'")],  # (int() read 16 and 3)
)  # fmt: skip
def test_jobs_out_of_range_is_said_as_other_bad_values_are(tmp_path, args, value):
    vault = ["--vault", str(tmp_path / "v")]
    args = [*vault, *args] if "VAULT" not in args else [*args[:1], *vault, *args[2:]]
    said = refused(*args)
    assert said == (
        f"Error: command line: --jobs must be a number of processes from 1 to 64, not {value}\n"
    )
    assert not (tmp_path / "v").exists()


def test_jobs_out_of_range_under_json_is_one_document(tmp_path):
    result = runner.invoke(app, ["--json", "--vault", str(tmp_path / "v"), "-j", "0"])
    doc = json.loads(result.stdout)
    assert result.exit_code == doc["exit_code"] == 2
    assert doc["error"] == "command line: --jobs must be a number of processes from 1 to 64, not 0"


@pytest.mark.parametrize("jobs", ["1", "64"])
def test_jobs_within_range_runs(tmp_path, jobs):
    home = tmp_path / "empty"
    home.mkdir()
    result = runner.invoke(app, ["--vault", str(tmp_path / "v"), "--home", str(home), "-j", jobs])
    assert result.exit_code == 0, result.output
