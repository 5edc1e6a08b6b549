"""Small edges of the command line (review35 9 and 15): a group named alone does its
harmless command, --quiet with --verbose is refused, --since takes years, watch's help
speaks of watch, --force's help says a note can lose turns, and the systemd dry run does not
hand the person a step that install does itself (and says how a user timer fires while
logged out)."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta

import pytest
from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app
from exporter.config_values import parse_since
from exporter.errors import ConfigError
from exporter.schedule import install
from exporter.schedulers import SystemdScheduler


def _run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_config_alone_shows_the_settings(tmp_path):
    alone = _run("--vault", tmp_path / "v", "config")
    assert alone.exit_code == 0, alone.output
    assert alone.stdout == _run("config", "show", "--vault", tmp_path / "v").stdout
    assert "folder " in alone.stdout and '"AI Sessions"' in alone.stdout


@pytest.mark.parametrize(
    "words", [("config", "--vault", "V"), ("config", "--vault", "V", "show"),
              ("config", "show", "--vault", "V"), ("--vault", "W", "config", "--vault", "V")],
)  # fmt: skip
def test_config_takes_the_vault_after_its_own_name(tmp_path, words):
    """`ccexport config --vault X` was "No such option: --vault": only `ccexport --vault X
    config` and `config show --vault X` took it."""
    vault = tmp_path / "V"
    shown = _run(*[vault if w == "V" else tmp_path / "W" if w == "W" else w for w in words])
    assert shown.exit_code == 0, shown.output
    first = shown.stdout.splitlines()[0].split()
    assert first[:2] == ["vault", f'"{vault}"'] and first[-1] == "--vault"


def test_schedule_takes_the_vault_after_its_own_name(tmp_path, monkeypatch, no_real_schedulers):
    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    alone = _run("schedule", "--vault", tmp_path / "v")
    assert alone.exit_code == 0, alone.output
    assert alone.stdout == _run("schedule", "status", "--vault", tmp_path / "v").stdout


def test_schedule_alone_is_its_status(tmp_path, monkeypatch, no_real_schedulers):
    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    alone = _run("schedule")
    assert alone.exit_code == 0, alone.output
    assert alone.stdout == "No nightly export is installed (cron).\n"


def test_templates_alone_prints_its_help_and_copies_nothing(tmp_path):
    alone = _run("--vault", tmp_path / "v", "templates")
    assert alone.exit_code == 0, alone.output
    assert "init" in alone.stdout and "Usage: " in alone.stdout
    assert not (tmp_path / "v").exists()


@pytest.mark.parametrize("command", [(), ("export",), ("watch",)])
def test_quiet_and_verbose_together_is_a_usage_error(tmp_path, monkeypatch, command):
    from exporter import watch

    def one_round(options, events, interval, gone):  # (a watch taken as asked stops at once)
        raise KeyboardInterrupt

    monkeypatch.setattr(watch, "watch", one_round)
    result = _run(*command, "--vault", tmp_path / "v", "--home", EXAMPLES_HOME, "-q", "-v")
    assert result.exit_code == 2, result.output
    assert "--quiet and --verbose" in result.stderr and not (tmp_path / "v").exists()


@pytest.mark.parametrize("years", [1, 2])
def test_since_takes_years(years):
    when = parse_since(f"{years}y")
    expected = datetime.now(UTC) - timedelta(days=365 * years)
    assert abs(when - expected) < timedelta(minutes=1)


def test_since_in_years_is_refused_for_a_word_still():
    with pytest.raises(ConfigError, match=r"3mo, 1y\)"):
        parse_since("1year")


def test_watch_help_speaks_of_watch_the_same_way_everywhere():
    own = _run("watch", "--help").stdout
    assert "(for cron)" not in own
    listed = next(line for line in _run("--help").stdout.splitlines() if "  watch " in line)
    assert listed.split("watch", 1)[1].strip().rstrip(".") in " ".join(own.split())


def test_force_help_says_notes_can_lose_turns():
    said = " ".join(_run("--help").stdout.split())
    assert "--force Read every source again" in said
    assert "lose the turns" in said


def test_the_systemd_dry_run_leaves_no_step_to_the_person_and_names_lingering(tmp_path):
    def never(args, stdin):  # (a dry run runs no systemctl)
        raise AssertionError(args)

    said = install(SystemdScheduler(tmp_path / "units", never), tmp_path / "v", "02:30", True, {})
    assert "then run:" not in said
    assert "then start the timer itself" in said
    assert "loginctl enable-linger" in said and not (tmp_path / "units").exists()


def test_the_systemd_install_itself_names_lingering_once(tmp_path):
    """The timer fires only while the user is logged in without lingering: the install says
    so, not only its dry run (each once)."""
    ran = []

    def systemctl(args, stdin):
        ran.append(args)
        return subprocess.CompletedProcess(args, 0, "", "")

    units = tmp_path / "units"
    said = install(SystemdScheduler(units, systemctl), tmp_path / "v", "02:30", False, {})
    assert said.startswith("Installed the nightly export at 02:30")
    assert said.count("loginctl enable-linger") == 1 and (units / "ccexport-nightly.timer").exists()
    dry = install(SystemdScheduler(units, systemctl), tmp_path / "v", "02:30", True, {})
    assert dry.count("loginctl enable-linger") == 1


def test_config_show_lines_up_every_value(tmp_path):
    """`frontmatter.project_tag` is wider than the names' column was (17): its value stood
    a column right of every other."""
    shown = _run("config", "show", "--vault", tmp_path / "v")
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.split("\n\n")[0].splitlines()  # (the rows: the files named follow)
    assert any(line.startswith("frontmatter.project_tag ") for line in lines)
    starts = {len(line) - len(line.split(" ", 1)[1].lstrip(" ")) for line in lines}
    assert len(starts) == 1, lines
