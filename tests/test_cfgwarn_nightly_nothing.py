"""A nightly run that found no session at all, into a vault that records notes, is flagged
by ``schedule status`` and ``doctor`` (review15, finding 8): the vault was filled with
``--home``, or with a variable that moves a source, and the scheduled run exports this
user's home, where there is nothing. The log said "exit 0: 0 sessions found" and both
commands showed it as a plain success. The stand-in crontab of conftest: never the real one."""

from __future__ import annotations

import json

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app
from exporter.schedule import CronScheduler, install, nightly_command, status

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def nightly(vault):
    """The installed command's run, as the scheduler starts it (this home: empty)."""
    result = run(*nightly_command(vault)[4:])  # (after `python -P -m exporter`)
    assert result.exit_code == 0, result.output
    return (vault / ".ccexport" / "nightly.log").read_text()


def test_a_nightly_run_finding_nothing_into_a_vault_with_notes_is_flagged(
    isolated_home, tmp_path, monkeypatch
):
    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    vault = tmp_path / "v"
    filled = run("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--source", "codex")
    assert "4 created" in filled.output
    cron = CronScheduler()
    install(cron, vault, "02:30")
    assert "exit 0: 0 sessions found" in nightly(vault)

    said = status(cron, vault)
    assert "Last run: [" in said
    (attention,) = [line for line in said.splitlines() if line.startswith("Attention: ")]
    assert attention.startswith(
        "Attention: no session found, yet the vault records 4 session notes"
    )
    assert f"this user's home ({isolated_home})" in attention
    assert f"[paths] in {vault / '.ccexport' / 'config.toml'}" in attention

    doctor = run("doctor", "--vault", str(vault), "--json")
    assert doctor.exit_code == 1
    (check,) = [c for c in json.loads(doctor.stdout)["checks"] if c["area"] == "Schedule"
                and c["message"].startswith("last run:")]  # fmt: skip
    assert check["status"] == "attention" and "\n      no session found, yet" in check["message"]


def test_a_nightly_run_that_finds_sessions_or_has_a_filter_is_not_flagged(
    isolated_home, tmp_path, monkeypatch
):
    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    vault = tmp_path / "v"
    run("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--source", "codex")
    cron = CronScheduler()
    install(cron, vault, "02:30")
    # with `since`, a quiet day finds nothing: no attention for that
    (vault / ".ccexport" / "config.toml").write_text('since = "1d"\n')
    nightly(vault)
    assert "Attention" not in status(cron, vault)
    (vault / ".ccexport" / "config.toml").unlink()
    # the sources where the run looks: found, and said as a plain success
    (isolated_home / ".codex").symlink_to(EXAMPLES_HOME / ".codex")
    assert "exit 0: 4 sessions found" in nightly(vault).splitlines()[-1]
    assert "Attention" not in status(cron, vault)
    checks = json.loads(run("doctor", "--vault", str(vault), "--json").stdout)["checks"]
    (check,) = [c for c in checks if c["message"].startswith("last run:")]
    assert check["status"] == "ok"


def test_an_empty_vault_finding_nothing_is_not_flagged(isolated_home, tmp_path, monkeypatch):
    vault = tmp_path / "v"
    vault.mkdir()  # (one that does not exist is not made by a run finding nothing: said)
    cron = CronScheduler()
    install(cron, vault, "02:30")
    nightly(vault)
    assert "Attention" not in status(cron, vault)
