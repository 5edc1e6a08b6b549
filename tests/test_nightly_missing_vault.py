"""A nightly run into a vault that does not exist (a mistyped ``--vault``) that finds no
session does not make the vault just to write its log in ``.ccexport/``: it says so on
stderr (cron mails it) and exits as a run that finds nothing does. A run that exports makes
the vault, and logs, as before."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from vault_builder import ROOT, run_cli, write_session

from exporter.schedule import nightly_command, nightly_environment

NOT_MADE = "does not exist, and this run exported nothing into it: it was not made"


def test_the_installed_nightly_command_finding_nothing_makes_no_vault(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "Noets"
    home.mkdir(exist_ok=True)
    moved = nightly_environment()  # (a variable that moves a source to this machine's own)
    env = {k: v for k, v in os.environ.items() if k not in moved}
    env.update(HOME=str(home), USERPROFILE=str(home))
    done = subprocess.run(nightly_command(vault), capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not vault.exists()
    assert f"{vault} {NOT_MADE}" in done.stderr
    assert "ccexport schedule install --vault" in done.stderr
    assert done.stdout == ""  # (--quiet: the one line is the mail's)


def test_a_failing_run_into_a_missing_vault_makes_no_vault_for_its_log(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "Noets"
    home.mkdir(exist_ok=True)
    log = vault / ".ccexport" / "nightly.log"
    done = run_cli("--vault", str(vault), "--home", str(home), "--since", "someday",
                   "--quiet", "--log-file", str(log))  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert not vault.exists() and NOT_MADE in done.stderr


def test_a_run_that_exports_makes_the_vault_and_logs_as_before(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "Notes"
    write_session(home, ["q"])
    log = vault / ".ccexport" / "nightly.log"
    done = run_cli("--vault", str(vault), "--home", str(home), "--quiet", "--log-file", str(log))
    assert done.returncode == 0 and NOT_MADE not in done.stderr
    assert "exit 0: 1 session found, 1 created" in log.read_text()


def test_a_run_into_an_existing_empty_vault_still_logs(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "Notes"
    home.mkdir(exist_ok=True)
    vault.mkdir()
    log: Path = vault / ".ccexport" / "nightly.log"
    done = run_cli("--vault", str(vault), "--home", str(home), "--quiet", "--log-file", str(log))
    assert done.returncode == 0 and "exit 0: 0 sessions found" in log.read_text()


def test_status_says_the_installed_vault_does_not_exist():
    from exporter.schedule import CronScheduler, install, status

    vault = Path.home().parent / "Noets"
    install(CronScheduler(), vault, "02:30")
    assert not vault.exists()
    said = status(CronScheduler(), None)
    assert f"Attention: {vault} does not exist: a nightly run makes it only when" in said
    vault.mkdir()
    assert "does not exist" not in status(CronScheduler(), None)
