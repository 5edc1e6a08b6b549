"""``schedule install`` checks its own arguments before it says that no scheduler is found
(review22 F9: ``--at 25:00 --dry-run`` on a machine without cron or systemd said "no
scheduler found", and only once one was there, that --at takes HH:MM). No real crontab or
systemd is touched: no program is found on PATH here."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from exporter import schedule
from exporter.errors import ConfigError, ExporterError

runner = CliRunner()


@pytest.fixture
def no_scheduler_here(monkeypatch):
    """A Linux machine with neither crontab nor systemctl (nothing is run: none is found)."""
    monkeypatch.setattr(schedule.shutil, "which", lambda name: None)
    monkeypatch.setattr(schedule.sys, "platform", "linux")
    monkeypatch.delenv("CCEXPORT_SCHEDULER", raising=False)


@pytest.mark.parametrize("dry_run", [["--dry-run"], []])
@pytest.mark.parametrize("at", ["25:00", "2:5", "noon"])
def test_a_bad_at_is_said_before_no_scheduler_is_found(tmp_path, no_scheduler_here, at, dry_run):
    from exporter.cli import app

    vault = tmp_path / "v"
    result = runner.invoke(
        app, ["schedule", "install", "--vault", str(vault), "--at", at, *dry_run]
    )
    assert result.exit_code == 2, result.output
    assert result.stderr == f"Error: --at takes a time of day as HH:MM, not {at!r}\n"
    assert not (vault / ".ccexport").exists()


def test_a_good_at_on_a_machine_without_a_scheduler_is_still_refused_clearly(
    tmp_path, no_scheduler_here
):
    from exporter.cli import app

    vault = tmp_path / "v"
    result = runner.invoke(app, ["schedule", "install", "--vault", str(vault)])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: no scheduler found here") and "apt install cron" in (
        result.stderr
    )
    assert not (vault / ".ccexport").exists()


def test_a_dry_run_without_a_scheduler_shows_the_cron_line_then_says_none_is_here(
    tmp_path, no_scheduler_here
):
    """cli10 1: the dry run answered only "Error: no scheduler found here" (exit 1); it
    shows the line cron would be given, then that no scheduler is here (exit 0: the plan
    was shown; the install itself still refuses)."""
    from exporter.cli import app

    vault = tmp_path / "v"
    result = runner.invoke(
        app, ["schedule", "install", "--vault", str(vault), "--at", "03:15", "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert (
        lines[0] == "Dry run, nothing installed. With cron, it would add this line to your crontab:"
    )
    assert lines[1].startswith("15 3 * * * ") and f"--vault {vault} " in lines[1]
    assert lines[1].endswith(schedule.CRON_TAG)
    assert (
        lines[-1].startswith("Attention: no scheduler found here")
        and "apt install cron" in (lines[-1])
    )
    assert not vault.exists() and result.stderr == ""


def test_a_dry_run_with_a_chosen_scheduler_missing_shows_that_schedulers_plan(
    tmp_path, no_scheduler_here, monkeypatch
):
    monkeypatch.setenv("CCEXPORT_SCHEDULER", "systemd")
    said = schedule.install(schedule.scheduler(), tmp_path / "v", "02:30", dry_run=True, env={})
    assert said.startswith("Dry run, nothing installed. With systemd, it would write these")
    assert "[Timer]\nOnCalendar=*-*-* 02:30:00" in said
    assert said.splitlines()[-1].startswith(
        "Attention: CCEXPORT_SCHEDULER=systemd, but systemctl is not found"
    )
    assert not (tmp_path / "v").exists()


def test_install_checks_at_before_the_scheduler_it_is_given(tmp_path, no_scheduler_here):
    found = schedule.scheduler({})
    with pytest.raises(ConfigError, match="HH:MM"):
        schedule.install(found, tmp_path, "25:99", dry_run=True, env={})
    with pytest.raises(ConfigError, match="line break"):
        schedule.install(found, tmp_path / "a\nb", "02:30", dry_run=True, env={})
    with pytest.raises(ExporterError, match="no scheduler found here"):
        schedule.install(found, tmp_path / "v", "02:30", env={})
    assert not (tmp_path / "v").exists()


def test_status_remove_and_doctor_still_say_no_scheduler(tmp_path, no_scheduler_here):
    from exporter.cli import app
    from exporter.doctor import schedule_checks

    for args in (["schedule", "status"], ["schedule", "remove"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith("Error: no scheduler found here")
    (check,) = schedule_checks(None)
    assert check.status == "info" and check.message.startswith("no scheduler found here")
