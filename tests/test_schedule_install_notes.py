"""What ``schedule install`` says beside what it installs (review35 2-4): the vault whose
nightly run it replaces, a vault not exported to yet (and not made), sessions recorded from
outside this user's home. Each said by the dry run too. The stand-in crontab of conftest and
a recording systemctl: never the real ones."""

from __future__ import annotations

import shutil
import subprocess

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app
from exporter.schedule import (
    CRON_TAG,
    CronScheduler,
    LaunchdScheduler,
    SystemdScheduler,
    install,
)

runner = CliRunner()


def recorder(args, stdin=None):  # a systemctl that answers success
    return subprocess.CompletedProcess(args, 0, "", "")


def test_a_second_vault_names_the_nightly_export_it_replaces(tmp_path, no_real_schedulers):
    """One nightly export per user (each scheduler holds one entry of ours): installing for
    another vault says whose run goes, in the dry run too, and how to put it back."""
    first, second = tmp_path / "vault1", tmp_path / "demo-vault"
    cron = CronScheduler()
    assert "replaces" not in install(cron, first, "02:30")
    assert "replaces" not in install(cron, first, "03:00")  # the same vault: nothing replaced
    preview = install(cron, second, "02:30", dry_run=True)
    assert f"This replaces the nightly export of {first}" in preview
    assert str(first) in no_real_schedulers.read_text()  # (the dry run changed nothing)
    said = install(cron, second, "02:30")
    assert f"This replaces the nightly export of {first}" in said
    assert f"`ccexport schedule install --vault {first}` puts it back" in said
    ours = [line for line in no_real_schedulers.read_text().splitlines() if CRON_TAG in line]
    assert len(ours) == 1 and str(second) in ours[0]
    systemd = SystemdScheduler(tmp_path / "units", recorder)
    install(systemd, first, "02:30")
    assert f"replaces the nightly export of {first}" in install(systemd, second, "02:30")


def test_a_vault_not_exported_to_yet_is_not_made_and_is_said(tmp_path, no_real_schedulers):
    """review35 3: `schedule install --vault Noets` made an empty vault, which the nightly
    run then filled; now nothing is made, and the install and its dry run say so."""
    typo = tmp_path / "Noets"
    for dry in (True, False):
        said = install(CronScheduler(), typo, "02:30", dry_run=dry)
        assert f"Note: {typo} has not been exported to yet" in said
        assert "makes the folder" in said and not typo.exists()
        assert "(the install makes nothing there)" in said
    exported = tmp_path / "Notes"
    (exported / ".ccexport").mkdir(parents=True)
    (exported / ".ccexport" / "state.json").write_text("{}")
    assert "not been exported" not in install(CronScheduler(), exported, "02:30")


def test_launchd_says_it_makes_the_log_s_folder_in_a_vault_not_exported_to_yet(tmp_path):
    """review36 3: launchd's install makes ``.ccexport`` in a folder that exists (its log's
    folder), and said "nothing has been made there"."""
    vault = tmp_path / "Notes"
    vault.mkdir()
    said = install(LaunchdScheduler(tmp_path / "agents", recorder), vault, "02:30")
    assert "(the install makes only .ccexport/ there, for the nightly log)" in said
    assert (vault / ".ccexport").is_dir() and "makes nothing" not in said


def test_the_cli_install_leaves_no_folder_for_a_mistyped_vault(
    tmp_path, no_real_schedulers, monkeypatch
):
    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    result = runner.invoke(app, ["schedule", "install", "--vault", str(tmp_path / "Noets")])
    assert result.exit_code == 0, result.output
    assert "has not been exported to yet" in result.stdout
    assert not (tmp_path / "Noets").exists()


def test_sessions_recorded_outside_the_home_are_said_at_install(
    tmp_path, isolated_home, no_real_schedulers, monkeypatch
):
    """review35 4: a vault exported with --home DIR gets the advice ``schedule status`` and
    ``doctor`` give after a night that found nothing, at install already."""
    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    vault = tmp_path / "v"
    other = tmp_path / "fakehome"
    shutil.copytree(EXAMPLES_HOME / ".codex", other / ".codex")
    filled = runner.invoke(app, ["--vault", str(vault), "--home", str(other), "--source", "codex"])
    assert "4 created" in filled.output, filled.output
    for dry in (["--dry-run"], []):
        said = runner.invoke(app, ["schedule", "install", "--vault", str(vault), *dry])
        assert said.exit_code == 0, said.output
        (line,) = [x for x in said.stdout.splitlines() if x.startswith("Attention: ")]
        assert f"records 4 sessions read outside this user's home ({isolated_home})" in line
        assert str(other / ".codex" / "sessions") in line
        assert f"[paths] in {vault / '.ccexport' / 'config.toml'}" in line
    # named in [paths]: the nightly run finds them, nothing to say
    (vault / ".ccexport" / "config.toml").write_text(f'[paths]\ncodex = ["{other / ".codex"}"]\n')
    said = runner.invoke(app, ["schedule", "install", "--vault", str(vault)])
    assert said.exit_code == 0 and "Attention" not in said.stdout, said.output
    # exported from this home: nothing to say either
    (vault / ".ccexport" / "config.toml").unlink()
    shutil.move(other / ".codex", isolated_home / ".codex")
    home_vault = tmp_path / "home-vault"
    runner.invoke(app, ["--vault", str(home_vault), "--source", "codex"])
    said = runner.invoke(app, ["schedule", "install", "--vault", str(home_vault)])
    assert said.exit_code == 0 and "Attention" not in said.stdout, said.output
