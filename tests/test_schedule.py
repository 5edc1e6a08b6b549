"""The nightly schedule on every system, each installer pointed at a temporary folder or a
fake program; and cron for real on this machine."""

from __future__ import annotations

import configparser
import os
import plistlib
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME

from exporter import schedule
from exporter.schedule import (
    CRON_TAG,
    CronScheduler,
    LaunchdScheduler,
    SchtasksScheduler,
    SystemdScheduler,
    install,
    nightly_command,
    remove,
    status,
)


class Recorder:
    """A stand-in for systemctl, launchctl and schtasks: records calls, answers success."""

    def __init__(self, answers: dict[str, subprocess.CompletedProcess[str]] | None = None) -> None:
        self.calls: list[list[str]] = []
        self.answers = answers or {}

    def __call__(self, args, stdin=None):
        self.calls.append(list(args))
        return self.answers.get(
            args[1] if len(args) > 1 else "", subprocess.CompletedProcess(args, 0, "", "")
        )


def cron_fields(line: str) -> tuple[list[str], list[str]]:
    fields = line.split(None, 5)
    return fields[:5], shlex.split(fields[5].replace(CRON_TAG, ""))


def test_cron_install_is_idempotent_and_remove_leaves_nothing(no_real_schedulers, tmp_path):
    store = no_real_schedulers  # the conftest's stand-in crontab keeps its table here
    store.write_text("0 9 * * 1 /usr/bin/backup --weekly\n")
    cron = CronScheduler()
    vault = tmp_path / "vault"
    install(cron, vault, "02:30")
    install(cron, vault, "03:15")  # again, at another time: still one entry
    lines = store.read_text().splitlines()
    ours = [line for line in lines if line.endswith(CRON_TAG)]
    assert len(ours) == 1 and lines[0] == "0 9 * * 1 /usr/bin/backup --weekly"
    timing, command = cron_fields(ours[0])
    assert timing == ["15", "3", "*", "*", "*"]
    assert command == nightly_command(vault)
    assert command[1:] == [
        "-m",
        "exporter",
        "--vault",
        str(vault),
        "--quiet",
        "--log-file",
        str(vault / ".ccexport" / "nightly.log"),
    ]
    assert "Installed (cron)" in status(cron, vault) and "Last run: none yet" in status(cron, vault)
    assert remove(cron) == "Removed the nightly export (cron)."
    assert store.read_text() == "0 9 * * 1 /usr/bin/backup --weekly\n"
    assert remove(cron) == "Nothing was installed." and "No nightly export" in status(cron, vault)


def test_cron_round_trips_through_the_crontab_program_on_path(tmp_path, no_real_schedulers):
    """The scheduler found on PATH is used (the conftest stand-in, never the real one)."""
    s = schedule.scheduler({"CCEXPORT_SCHEDULER": "cron"})
    assert isinstance(s, CronScheduler)
    install(s, tmp_path / "vault", "02:30")
    install(s, tmp_path / "vault", "02:30")
    listed = subprocess.run(["crontab", "-l"], capture_output=True, text=True, check=True).stdout
    assert listed == no_real_schedulers.read_text()  # it was the stand-in that answered
    ours = [line for line in listed.splitlines() if line.endswith(CRON_TAG)]
    assert len(ours) == 1 and cron_fields(ours[0])[0] == ["30", "2", "*", "*", "*"]
    assert cron_fields(ours[0])[1] == nightly_command(tmp_path / "vault")
    remove(s)
    assert CRON_TAG not in no_real_schedulers.read_text()


def test_a_percent_sign_in_a_path_is_escaped_for_cron(tmp_path):
    vault = tmp_path / "50%off" / "vault"
    line = CronScheduler.line(nightly_command(vault), 2, 30)
    assert "50\\%off" in line and "50%off" not in line.replace("\\%", "")
    # cron reads "\%" as a literal %: undone, the command is exactly the nightly command.
    assert cron_fields(line.replace("\\%", "%"))[1] == nightly_command(vault)


def test_install_dry_run_prints_exactly_what_would_be_installed_and_installs_nothing(
    tmp_path, no_real_schedulers
):
    s = CronScheduler()
    said = install(s, tmp_path / "vault", "03:15", dry_run=True)
    assert said.startswith("Dry run, nothing installed.")
    assert CronScheduler.line(nightly_command(tmp_path / "vault"), 3, 15) in said
    assert not no_real_schedulers.exists() and not (tmp_path / "vault").exists()
    units = tmp_path / "units"
    said = install(SystemdScheduler(units, Recorder()), tmp_path / "vault", "03:15", dry_run=True)
    assert "OnCalendar=*-*-* 03:15:00" in said and not units.exists()


def test_no_scheduler_here_is_one_clear_line(monkeypatch):
    from typer.testing import CliRunner

    from exporter.cli import app

    monkeypatch.setattr(schedule.shutil, "which", lambda name: None)
    monkeypatch.setattr(schedule.sys, "platform", "linux")
    for args in (["schedule", "status"], ["schedule", "install", "--vault", "v"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 1, result.output
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
        assert "no scheduler found here" in result.stderr and "apt install cron" in result.stderr


def test_systemd_user_timer_files_parse_and_remove_cleans_up(tmp_path):
    recorder = Recorder()
    units = tmp_path / "systemd" / "user"
    systemd = SystemdScheduler(units, recorder)
    vault = tmp_path / "my vault"
    install(systemd, vault, "02:30")
    install(systemd, vault, "02:30")
    assert sorted(p.name for p in units.iterdir()) == [
        "ccexport-nightly.service",
        "ccexport-nightly.timer",
    ]
    service, timer = (
        configparser.ConfigParser(interpolation=None),
        configparser.ConfigParser(interpolation=None),
    )
    service.read(units / "ccexport-nightly.service")
    timer.read(units / "ccexport-nightly.timer")
    assert service["Service"]["Type"] == "oneshot"
    assert shlex.split(service["Service"]["ExecStart"]) == nightly_command(vault)
    assert (
        timer["Timer"]["OnCalendar"] == "*-*-* 02:30:00" and timer["Timer"]["Persistent"] == "true"
    )
    assert timer["Install"]["WantedBy"] == "timers.target"
    assert ["systemctl", "--user", "enable", "--now", "ccexport-nightly.timer"] in recorder.calls
    assert "Installed (systemd user timer)" in status(systemd, vault)
    remove(systemd)
    assert list(units.iterdir()) == []
    assert ["systemctl", "--user", "disable", "--now", "ccexport-nightly.timer"] in recorder.calls


def test_launchd_agent_plist_parses_and_remove_cleans_up(tmp_path):
    recorder = Recorder()
    agents = tmp_path / "LaunchAgents"
    launchd = LaunchdScheduler(agents, recorder)
    vault = tmp_path / "vault"
    install(launchd, vault, "23:05")
    install(launchd, vault, "23:05")
    (plist,) = agents.iterdir()
    with open(plist, "rb") as f:
        data = plistlib.load(f)
    assert data["Label"] == "com.ccexport.nightly" and data["ProgramArguments"] == nightly_command(
        vault
    )
    assert data["StartCalendarInterval"] == {"Hour": 23, "Minute": 5}
    assert data["StandardErrorPath"] == str(vault / ".ccexport" / "nightly.log")
    assert ["launchctl", "load", "-w", str(plist)] in recorder.calls
    remove(launchd)
    assert (
        list(agents.iterdir()) == [] and ["launchctl", "unload", "-w", str(plist)] in recorder.calls
    )


def test_windows_task_xml_parses_and_is_replaced_not_duplicated(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a Windows path is relative here: keep it out of the checkout
    recorder = Recorder()
    tasks = SchtasksScheduler(recorder, tmp_path / "work")
    vault = Path("C:/Users/me/Notes")
    install(tasks, vault, "02:30")
    creates = [c for c in recorder.calls if c[1] == "/Create"]
    assert all("/F" in c for c in creates)  # /F: an existing task is replaced, never doubled
    xml = tmp_path / "work" / "ccexport-nightly.xml"
    root = ET.fromstring(xml.read_text(encoding="utf-16"))
    ns = {"t": "http://schemas.microsoft.com/windows/2004/02/mit/task"}
    assert root.find(".//t:StartBoundary", ns).text.endswith("T02:30:00")
    assert root.find(".//t:DaysInterval", ns).text == "1"
    assert root.find(".//t:Command", ns).text == sys.executable
    assert (
        "-m exporter --vault C:/Users/me/Notes --quiet --log-file"
        in root.find(".//t:Arguments", ns).text
    )
    remove(tasks)
    assert ["schtasks", "/Delete", "/TN", "ccexport-nightly", "/F"] in recorder.calls


def test_the_scheduled_command_exports_logs_and_fails_loudly(tmp_path):
    home = tmp_path / "nightly-home"
    shutil.copytree(EXAMPLES_HOME, home)
    vault = tmp_path / "vault"
    env = {**os.environ, "HOME": str(home)}
    done = subprocess.run(nightly_command(vault), env=env, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == ""  # --quiet
    log = vault / ".ccexport" / "nightly.log"
    # 38: on the real home, Aider is read only from configured folders ([paths] aider).
    assert "exit 0: 38 sessions found, 38 created" in log.read_text()
    broken = home / ".config" / "Cursor" / "User" / "workspaceStorage" / "broken"
    broken.mkdir(parents=True)
    (broken / "state.vscdb").write_bytes(b"not a database" * 50)
    failed = subprocess.run(nightly_command(vault), env=env, capture_output=True, text=True)
    assert failed.returncode == 1 and "not a readable SQLite database" in failed.stderr
    entries = [line for line in log.read_text().splitlines() if line.startswith("[")]
    assert len(entries) == 2 and " exit 1: " in entries[-1]
    cron_line = f"30 2 * * * {shlex.join(nightly_command(vault))} {CRON_TAG}"

    class Installed(CronScheduler):
        def installed(self):
            return cron_line

    assert status(Installed(), None).endswith(entries[-1])


def test_bad_time_is_a_usage_error(tmp_path):
    from exporter.errors import ConfigError

    with pytest.raises(ConfigError, match="HH:MM"):
        install(CronScheduler("false"), tmp_path, "25:99")


def test_the_cli_commands(tmp_path, monkeypatch, no_real_schedulers):
    from typer.testing import CliRunner

    from exporter.cli import app

    store = no_real_schedulers
    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    runner = CliRunner()
    vault = tmp_path / "v"
    assert (
        runner.invoke(
            app, ["schedule", "install", "--vault", str(vault), "--at", "04:00"]
        ).exit_code
        == 0
    )
    assert runner.invoke(app, ["schedule", "install", "--vault", str(vault)]).exit_code == 0
    assert len(store.read_text().splitlines()) == 1
    shown = runner.invoke(app, ["schedule", "status", "--vault", str(vault)]).output
    assert "Installed (cron)" in shown and "Last run: none yet" in shown
    assert runner.invoke(app, ["schedule", "remove"]).output.startswith("Removed")
    assert store.read_text() == ""
    assert runner.invoke(app, ["schedule", "install"]).exit_code == 2  # no vault


def test_options_before_the_subcommand_are_honoured_not_dropped(
    tmp_path, monkeypatch, no_real_schedulers
):
    from typer.testing import CliRunner

    from exporter.cli import app

    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    runner = CliRunner()
    vault = tmp_path / "v"
    result = runner.invoke(app, ["--dry-run", "--vault", str(vault), "schedule", "install"])
    assert result.exit_code == 0, result.output
    assert "Dry run, nothing installed" in result.output and not no_real_schedulers.exists()
    # An option that means nothing to the subcommand is refused, not silently ignored.
    refused = runner.invoke(app, ["--quiet", "schedule", "install", "--vault", str(vault)])
    assert refused.exit_code == 2 and "--quiet does not apply" in refused.stderr
    assert not no_real_schedulers.exists()
