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
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME

from exporter import schedule
from exporter.errors import ConfigError, ExporterError
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
        "-P",  # the working folder (cron's is $HOME) is not searched for modules
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
    # each scheduler's preview reads on from "Would" (it read "Would install (cron) a line
    # added to your crontab (crontab):")
    assert said.startswith("Dry run, nothing installed. Would write these systemd user units")
    cron = install(CronScheduler(), tmp_path / "vault", "03:15", dry_run=True)
    assert cron.startswith("Dry run, nothing installed. Would add this line to your crontab:\n")


def test_remove_dry_run_names_what_would_go_and_removes_nothing(
    tmp_path, monkeypatch, no_real_schedulers
):
    """review29: a careful person can preview a removal as they can an install."""
    from typer.testing import CliRunner

    from exporter.cli import app

    no_real_schedulers.write_text("0 9 * * 1 /usr/bin/backup --weekly\n")
    cron = CronScheduler()
    assert remove(cron, dry_run=True).startswith("Dry run: nothing is installed")
    install(cron, tmp_path / "vault", "03:15")
    table = no_real_schedulers.read_text()
    ours = next(line for line in table.splitlines() if line.endswith(CRON_TAG))
    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    for words in (["schedule", "remove", "--dry-run"], ["--dry-run", "schedule", "remove"]):
        result = CliRunner().invoke(app, words)
        assert result.exit_code == 0, result.output
        assert result.output.startswith("Dry run, nothing removed. Would remove (cron):")
        assert "--vault" in result.output and str(tmp_path / "vault") in result.output
        assert no_real_schedulers.read_text() == table and ours in table
    assert remove(cron) == "Removed the nightly export (cron)."


def test_install_makes_no_vault_and_refuses_a_missing_parent(tmp_path, no_real_schedulers):
    """review29 F5, for the schedule too: a vault on a drive not mounted now is refused,
    naming the parent, and nothing is installed or made. review35 3: the vault itself is
    not made either (the first nightly run makes it), so a mistyped one leaves nothing."""
    cron = CronScheduler()
    with pytest.raises(ConfigError, match="does not exist"):
        install(cron, tmp_path / "media" / "USB" / "Notes", "02:30")
    assert not (tmp_path / "media").exists() and not no_real_schedulers.exists()
    said = install(cron, tmp_path / "Notes", "02:30")
    assert not (tmp_path / "Notes").exists() and no_real_schedulers.exists()
    assert f"Note: {tmp_path / 'Notes'} has not been exported to yet" in said


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
    vault.mkdir()  # (launchd is refused a vault not made yet: its log's folder must be there)
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
    Path("C:/Users/me").mkdir(parents=True)  # (the vault's parent is there: it is not made)
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
    # 39: on the real home, Aider is read only from configured folders ([paths] aider).
    assert "exit 0: 39 sessions found, 39 created" in log.read_text()
    broken = home / ".config" / "Cursor" / "User" / "workspaceStorage" / "broken"
    broken.mkdir(parents=True)
    (broken / "state.vscdb").write_bytes(b"not a database" * 50)
    failed = subprocess.run(nightly_command(vault), env=env, capture_output=True, text=True)
    assert failed.returncode == 1 and "not a readable SQLite database" in failed.stderr
    entries = [line for line in log.read_text().splitlines() if line.startswith("[")]
    assert len(entries) == 2 and " exit 1: " in entries[-1]
    cron_line = f"30 2 * * * {shlex.join(nightly_command(vault))} {CRON_TAG}"

    class Installed(CronScheduler):
        def _read(self):
            return [cron_line]

    said = status(Installed(), None)  # the last entry, with the errors under it
    written = log.read_text().rstrip("\n")
    assert said.endswith(written[written.index(entries[-1]) :])
    assert "\n  error: " in said.partition(entries[-1])[2]


def test_bad_time_is_a_usage_error(tmp_path):
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


@pytest.mark.parametrize(
    "words",
    [
        ["schedule", "install", "--home", "{home}", "--vault", "{vault}"],
        ["--home", "{home}", "schedule", "install", "--vault", "{vault}"],
    ],
)
def test_schedule_install_with_home_says_where_another_home_goes(
    tmp_path, monkeypatch, no_real_schedulers, words
):
    """`schedule install --home X` was click's "No such option: --home", and `--home X
    schedule install` "--home does not apply": neither said that the nightly run exports
    this user's home, or how to export another folder every night ([paths])."""
    from typer.testing import CliRunner

    from exporter.cli import app

    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    args = [w.format(home=tmp_path / "h", vault=tmp_path / "v") for w in words]
    refused = CliRunner().invoke(app, args)
    assert refused.exit_code == 2, refused.output
    assert "takes no --home" in refused.stderr and "[paths]" in refused.stderr
    assert not no_real_schedulers.exists() and not (tmp_path / "v").exists()
    shown = CliRunner().invoke(app, ["schedule", "install", "--help"]).output
    assert "--home" not in shown  # refused, so not offered


# A crontab program that keeps its table as bytes (the conftest's stand-in reads text).
_BYTES_CRONTAB = """#!{python}
import os, sys
store = os.environ["CCEXPORT_TEST_CRONTAB"]
if sys.argv[1:] == ["-l"]:
    if not os.path.exists(store):
        sys.stderr.write("no crontab for tester\\n"); sys.exit(1)
    sys.stdout.buffer.write(open(store, "rb").read())
elif sys.argv[1:] == ["-"]:
    open(store, "wb").write(sys.stdin.buffer.read())
"""


def test_the_users_crontab_lines_are_kept_byte_for_byte(tmp_path, no_real_schedulers):
    program = tmp_path / "crontab-bytes"
    program.write_text(_BYTES_CRONTAB.format(python=sys.executable))
    program.chmod(0o755)
    # A Latin-1 comment, lines ending in CR LF, a line separator (U+2028) inside a comment.
    theirs = b"# caf\xe9 backup\r\n0 9 * * 1 /usr/bin/backup --weekly\r\n# a\xe2\x80\xa8b\n"
    no_real_schedulers.write_bytes(theirs)
    cron = CronScheduler(str(program))
    install(cron, tmp_path / "vault", "02:30")
    install(cron, tmp_path / "vault", "03:30")
    table = no_real_schedulers.read_bytes()
    assert table.startswith(theirs) and table.count(b"\n") == theirs.count(b"\n") + 1
    assert remove(cron) == "Removed the nightly export (cron)."
    assert no_real_schedulers.read_bytes() == theirs


def test_status_reads_the_log_whatever_the_vault_path_holds(tmp_path):
    vault = tmp_path / "50% off $HOME 'q' \"d\" caf\u00e9" / "vault"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "nightly.log").write_text("[2026-12-01T02:30:00+00:00] exit 0: ok\n")
    cron = CronScheduler()
    systemd = SystemdScheduler(tmp_path / "units", Recorder())
    launchd = LaunchdScheduler(tmp_path / "agents", Recorder())
    for s in (cron, systemd, launchd):
        install(s, vault, "02:30")
        assert s.entry().command == nightly_command(vault), s.kind
        # No vault given: the log is found from the installed command alone.
        assert status(s, None).endswith("Last run: [2026-12-01T02:30:00+00:00] exit 0: ok")


def test_a_windows_task_is_read_back_with_its_backslashes_and_quotes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the Windows path is a relative name here
    Path("C:/Users/me").mkdir(parents=True)  # (the vault's parent is there: it is not made)
    work = tmp_path / "work"

    def runner(args, stdin=None):
        if args[1] == "/Query":
            if not (work / "ccexport-nightly.xml").exists():  # (no task yet)
                return subprocess.CompletedProcess(args, 1, "", "ERROR: not found")
            xml = (work / "ccexport-nightly.xml").read_text(encoding="utf-16")
            return subprocess.CompletedProcess(args, 0, xml, "")
        return subprocess.CompletedProcess(args, 0, "", "")

    tasks = SchtasksScheduler(runner, work)
    vault = Path('C:\\Users\\me\\My "Notes" & more\\')
    install(tasks, vault, "02:30")
    assert tasks.entry().command == nightly_command(vault)
    log = Path(nightly_command(vault)[-1])
    log.parent.mkdir(parents=True)  # (by the first run: install makes no vault)
    log.write_text("[2026-12-01T02:30:00+00:00] exit 0: ok\n")
    assert status(tasks, None).endswith("Last run: [2026-12-01T02:30:00+00:00] exit 0: ok")
    tricky = ["C:\\a b\\", 'x"y', "", 'a\\\\"b', "plain", "tab\there", "\\\\server\\share"]
    assert schedule._windows_words(subprocess.list2cmdline(tricky)) == tricky


def test_a_commented_out_or_disabled_entry_is_not_called_running(tmp_path, no_real_schedulers):
    cron = CronScheduler()
    install(cron, tmp_path / "vault", "02:30")
    (line,) = no_real_schedulers.read_text().splitlines()
    no_real_schedulers.write_text(f"#{line}\n")  # the user turned it off by hand
    said = status(cron, None)
    assert "Not running: its crontab line is commented out" in said
    install(cron, tmp_path / "vault", "02:30")  # installing again turns it back on, once
    assert no_real_schedulers.read_text() == f"{line}\n"

    def disabled(args, stdin=None):
        off = args[2:3] == ["is-enabled"]
        return subprocess.CompletedProcess(args, int(off), "disabled\n" if off else "", "")

    units = tmp_path / "units"
    install(SystemdScheduler(units, Recorder()), tmp_path / "vault", "02:30")
    assert "Not running: the timer is disabled" in status(SystemdScheduler(units, disabled), None)
    assert "Not running" not in status(SystemdScheduler(units, Recorder()), None)
    # A second ExecStart= (systemd allows it) is read as systemd does, not refused.
    service = units / "ccexport-nightly.service"
    service.write_text(service.read_text() + 'ExecStart="/bin/true"\n')
    assert 'Installed (systemd user timer): "/bin/true"' in status(
        SystemdScheduler(units, Recorder()), None
    )
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "com.ccexport.nightly.plist").write_bytes(b"<plist><dict><key>")
    assert "not a readable property list" in status(LaunchdScheduler(agents, Recorder()), None)


def test_a_timer_systemd_would_not_enable_is_an_error_not_installed(tmp_path):
    def refusing(args, stdin=None):
        failed = "enable" in args
        return subprocess.CompletedProcess(
            args, int(failed), "", "Failed to connect to bus: No medium found" if failed else ""
        )

    with pytest.raises(ExporterError, match="enable --now ccexport-nightly.timer failed"):
        install(SystemdScheduler(tmp_path / "units", refusing), tmp_path / "vault", "02:30")

    def load_failed(args, stdin=None):  # launchctl load reports failure on stderr, exit 0
        return subprocess.CompletedProcess(args, 0, "", "Load failed: 5: Input/output error")

    (tmp_path / "vault").mkdir()  # (launchd needs the vault made: its log's folder)
    with pytest.raises(ExporterError, match="not loaded"):
        install(LaunchdScheduler(tmp_path / "agents", load_failed), tmp_path / "vault", "02:30")


def test_the_variables_that_move_sources_go_with_the_scheduled_run(
    tmp_path, monkeypatch, no_real_schedulers
):
    from claude_builder import ClaudeSession

    config = tmp_path / "claude config"  # Claude Code kept elsewhere, set in the login shell
    s = ClaudeSession("moved-session", "/home/dev/work/moved")
    s.user("a question kept under CLAUDE_CONFIG_DIR")
    s.write(config / "projects" / "-moved" / "moved-session.jsonl")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    vault, home = tmp_path / "vault", tmp_path / "home"
    install(CronScheduler(), vault, "02:30")
    (line,) = no_real_schedulers.read_text().splitlines()
    assert CronScheduler().entry().command == nightly_command(vault)
    # Run the line as cron would: sh, from $HOME, with none of the shell's variables. An
    # exporter.py there is not what runs.
    (home / "exporter.py").write_text("raise SystemExit('the wrong exporter ran')\n")
    command = line.split(None, 5)[5].removesuffix(CRON_TAG).replace("\\%", "%")
    cron_env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    done = subprocess.run(["sh", "-c", command], cwd=home, env=cron_env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert "1 session found, 1 created" in (vault / ".ccexport" / "nightly.log").read_text()
    units = tmp_path / "units"
    install(SystemdScheduler(units, Recorder()), vault, "02:30")
    unit = (units / "ccexport-nightly.service").read_text()
    assert f'Environment="CLAUDE_CONFIG_DIR={config}"\n' in unit
    install(LaunchdScheduler(tmp_path / "agents", Recorder()), vault, "02:30")
    with open(tmp_path / "agents" / "com.ccexport.nightly.plist", "rb") as f:
        assert plistlib.load(f)["EnvironmentVariables"] == {"CLAUDE_CONFIG_DIR": str(config)}


def test_a_vault_path_with_a_line_break_is_refused_clearly(tmp_path):
    with pytest.raises(ConfigError, match="line break"):
        install(CronScheduler("false"), tmp_path / "two\nlines", "02:30")


def test_a_chosen_scheduler_whose_program_is_missing_is_said_before_anything_is_written(
    monkeypatch, tmp_path
):
    monkeypatch.setattr(schedule.shutil, "which", lambda name: None)
    for kind, program in (("systemd", "systemctl"), ("launchd", "launchctl"), ("cron", "crontab")):
        chosen = schedule.scheduler({"CCEXPORT_SCHEDULER": kind})
        with pytest.raises(ExporterError, match=f"CCEXPORT_SCHEDULER={kind}, but {program}"):
            install(chosen, tmp_path / "v", "02:30", env={})
        # (a dry run shows the chosen scheduler's plan, then says the same: cli10 1)
        said = install(chosen, tmp_path / "v", "02:30", dry_run=True, env={})
        assert said.startswith(f"Dry run, nothing installed. With {kind}, it would ")
        assert f"Attention: CCEXPORT_SCHEDULER={kind}, but {program}" in said.splitlines()[-1]
    assert not (tmp_path / "v").exists()
    with pytest.raises(ExporterError, match="install cron"):  # not "neither systemd nor …"
        status(schedule.scheduler({"CCEXPORT_SCHEDULER": "cron"}), None)


def test_a_windows_task_leaves_no_temporary_folder_behind(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the Windows path is a relative name here
    Path("C:/Users/me").mkdir(parents=True)  # (the vault's parent is there: it is not made)
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    recorder = Recorder()
    install(SchtasksScheduler(recorder), Path("C:/Users/me/Notes"), "02:30")
    (create,) = [c for c in recorder.calls if c[1] == "/Create"]
    assert create[5].startswith(str(temp)) and list(temp.iterdir()) == []


def test_status_says_when_the_installed_python_is_gone(tmp_path, no_real_schedulers):
    vault = tmp_path / "vault"
    command = [str(tmp_path / "old-venv" / "bin" / "python"), *nightly_command(vault)[1:]]
    no_real_schedulers.write_text(CronScheduler.line(command, 2, 30) + "\n")
    said = status(CronScheduler(), vault)
    assert f"Not running: {command[0]} no longer exists" in said
    install(CronScheduler(), vault, "02:30")
    assert "Not running" not in status(CronScheduler(), vault)


def test_doctor_says_when_the_installed_entry_does_not_run(
    tmp_path, no_real_schedulers, monkeypatch
):
    from exporter.doctor import schedule_checks

    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    vault = tmp_path / "vault"
    install(CronScheduler(), vault, "02:30")
    assert [c.status for c in schedule_checks(vault)] == ["ok", "info"]  # not run yet
    (line,) = no_real_schedulers.read_text().splitlines()
    no_real_schedulers.write_text(f"#{line}\n")
    checks = schedule_checks(vault)
    assert (
        "attention",
        "it does not run: its crontab line is commented out, so cron skips it",
    ) in [(c.status, c.message) for c in checks]


def test_the_nightly_log_and_status_name_an_edit_saved_aside(
    tmp_path, no_real_schedulers, monkeypatch
):
    """A conflict copy goes to a hidden folder, and a nightly run prints nothing: its log
    entry, `schedule status` and `doctor` name the note and where the edit went."""
    from vault_builder import run_cli, the_note, write_session

    from exporter.doctor import schedule_checks

    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    home, vault = tmp_path / "home", tmp_path / "vault"
    write_session(home, ["q"])
    log = vault / ".ccexport" / "nightly.log"
    nightly = ["--vault", str(vault), "--home", str(home), "--quiet", "--log-file", str(log)]
    assert run_cli(*nightly).returncode == 0
    note = the_note(vault)
    note.write_text(note.read_text().replace("reply to q", "reply to q, fixed by me"))
    write_session(home, ["q", "q2"])
    assert run_cli(*nightly).returncode == 0
    relpath = note.relative_to(vault).as_posix()
    entry = log.read_text().splitlines()[-2:]
    assert "1 conflict" in entry[0]
    assert entry[1].startswith(f"  conflict: {relpath}: your edit inside the generated part ")
    install(CronScheduler(), vault, "02:30")
    said = status(CronScheduler(), vault)
    assert said.endswith("\n".join(entry))
    (check,) = [c for c in schedule_checks(vault) if "last run" in c.message]
    assert check.status == "attention" and entry[1] in check.message


def test_status_shows_at_most_ten_lines_of_the_last_run(tmp_path):
    log = tmp_path / "nightly.log"
    lines = [f"  error: file{i}.jsonl: could not be read" for i in range(14)]
    log.write_text("[2026-12-01T02:30:00] exit 0: fine\n[2026-12-02T02:30:00] exit 1: bad\n"
                   + "\n".join(lines) + "\n")  # fmt: skip
    shown = schedule.last_run(log).splitlines()
    assert shown[0] == "[2026-12-02T02:30:00] exit 1: bad"
    assert shown[1:11] == lines[:10] and shown[11] == f"  … 4 more in {log}"


def test_the_nightly_log_keeps_the_warnings_quiet_keeps_off_the_mail(tmp_path):
    """``--quiet`` prints only errors (cron mails what a run prints), so the log entry is the
    only place a nightly run can say a line was unreadable: its warnings go under it, after
    its errors, and ``status`` shows them."""
    from vault_builder import run_cli, write_session

    home, vault = tmp_path / "home", tmp_path / "vault"
    path = write_session(home, ["q", "q2"])
    with path.open("ab") as f:
        f.write(b'{"type": "user", "message": \n')  # a line cut short
    broken = len(path.read_bytes().splitlines())
    write_session(home, ["other"], sid="22222222-2222-4222-8222-222222222222")
    log = vault / ".ccexport" / "nightly.log"
    nightly = ["--vault", str(vault), "--home", str(home), "--quiet", "--log-file", str(log)]
    done = run_cli(*nightly)
    assert done.returncode == 0 and done.stdout == "" and "warning" not in done.stderr
    entry = log.read_text().splitlines()
    assert entry[0].split("] ", 1)[1].startswith("exit 0: 2 sessions found, 2 created")
    (warning,) = entry[1:]
    assert warning.startswith(f"  warning: {path}:{broken}: not valid JSON")
    assert schedule.last_run(log).splitlines()[1] == warning


def test_the_nightly_log_keeps_its_newest_entries_past_its_size(tmp_path, monkeypatch):
    """Warnings go into the log every night and nothing shortened it: past its size it
    keeps about its newest half, whole entries, the run's own last."""
    from exporter import report

    monkeypatch.setattr(report, "LOG_MAX_BYTES", 1500)
    log = tmp_path / "v" / ".ccexport" / "nightly.log"
    log.parent.mkdir(parents=True)
    old = "".join(f"[2026-11-{d:02}T02:30:00] exit 0: fine\n  warning: x.jsonl:{d}: bad\n"
                  for d in range(1, 29))  # fmt: skip
    log.write_text(old)
    assert len(old) > 1500
    report.append_log(log, None, 1, "the vault is busy")
    kept = log.read_text()
    assert len(kept) <= 850 and kept.startswith("[2026-11-")
    assert kept.splitlines()[-1].endswith("exit 1: the vault is busy")
    assert old.endswith(kept.rsplit("[", 1)[0])  # the newest entries, as they were
    before = log.read_text()
    report.append_log(log, None, 0, "fine")  # under the size: only appended
    assert log.read_text().startswith(before)


def test_one_long_entry_is_cut_at_a_line_not_emptied(tmp_path, monkeypatch):
    """review25 F2: an entry longer than the half kept (thousands of warnings of one run)
    left no entry's start in it, and the trim emptied the whole log."""
    from exporter import report

    monkeypatch.setattr(report, "LOG_MAX_BYTES", 1500)
    log = tmp_path / "nightly.log"
    lines = [f"  warning: x.jsonl:{n}: bad" for n in range(100)]
    log.write_text("[2026-11-01T02:30:00] exit 0: fine\n" + "\n".join(lines) + "\n")
    report.append_log(log, None, 1, "the vault is busy")
    kept = log.read_text().splitlines()
    assert kept[0] in lines and kept[-2] == lines[-1] and kept[-1].endswith("the vault is busy")
