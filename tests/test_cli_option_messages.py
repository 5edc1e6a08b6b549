"""Bad option values are refused in ccexport's own words (review22 F9): a time zone
mistyped gets the name it may have meant, as a source or a setting does."""

from __future__ import annotations

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
