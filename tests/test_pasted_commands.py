"""A command a run tells the person to paste acts on the vault (and home) the run used
(review40 M1): with a configured vault and a second one given by --vault, "run ccexport
--restore" pasted as said wrote again, into the configured vault, every note deleted
there on purpose, while the vault the hint was about stayed stuck."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

from typer.testing import CliRunner
from vault_builder import write_session

from exporter.cli import app
from exporter.pasted import completed

runner = CliRunner()
SIDS = [f"91e00000-0000-4000-8000-00000000000{n}" for n in range(4)]


def _sessions(home: Path) -> None:
    for n, sid in enumerate(SIDS):
        write_session(home, [f"first {n}"], sid=sid)


def _configure(vault: Path) -> None:
    """The user's config names ``vault`` (the "real" one)."""
    folder = Path.home() / ".config" / "ccexport"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(f'vault = "{vault}"\n')


def run(*args: object):
    return runner.invoke(app, [*(str(a) for a in args), "--timezone", "UTC"])


def test_the_stop_for_notes_gone_names_the_vault_and_home_the_run_was_given(tmp_path):
    home, real, second = tmp_path / "backup", tmp_path / "Notes", tmp_path / "Notes X"
    _sessions(home)
    _configure(real)
    assert run("--vault", second, "--home", home).exit_code == 0
    shutil.rmtree(second / "AI Sessions")
    said = run("--vault", second, "--home", home)
    assert said.exit_code == 1
    words = f"--vault {shlex.quote(str(second))} --home {shlex.quote(str(home))}"
    assert f"run ccexport {words} --restore;" in said.stderr, said.stderr
    assert f"run ccexport {words} --accept-deleted once" in said.stderr
    # pasted as said (without the --timezone the tests add), it acts on that vault
    pasted = shlex.split(said.stderr.split("run ccexport ")[1].split(";")[0])
    assert runner.invoke(app, pasted).exit_code == 0
    assert (second / "AI Sessions").is_dir() and not real.exists()


def test_doctor_names_the_vault_and_home_in_what_it_says_to_paste(tmp_path):
    """review43 H2: doctor's "run ccexport --restore", pasted, restored into the config's
    vault the notes deleted there on purpose; the vault doctor spoke of stayed stuck."""
    home, real, second = tmp_path / "backup", tmp_path / "Notes", tmp_path / "Notes X"
    _sessions(home)
    _configure(real)
    assert run("--vault", second, "--home", home).exit_code == 0
    shutil.rmtree(second / "AI Sessions")
    said = runner.invoke(app, ["doctor", "--vault", str(second), "--home", str(home)])
    words = f"--vault {shlex.quote(str(second))} --home {shlex.quote(str(home))}"
    assert f"run ccexport {words} --restore;" in said.stdout, said.stdout
    checks = json.loads(
        runner.invoke(app, ["doctor", "--vault", str(second), "--home", str(home), "--json"]).stdout
    )["checks"]
    assert any(f"run ccexport {words} --restore;" in c["message"] for c in checks)
    pasted = shlex.split(said.stdout.split("run ccexport ")[1].split(";")[0])
    assert runner.invoke(app, pasted).exit_code == 0
    assert (second / "AI Sessions").is_dir() and not real.exists()


def test_the_deleted_note_warning_names_the_vault_also_under_json(tmp_path):
    home, second = tmp_path / "backup", tmp_path / "second"
    _sessions(home)
    _configure(tmp_path / "Notes")
    assert run("--vault", second, "--home", home).exit_code == 0
    next((second / "AI Sessions").rglob("*first 0*.md")).unlink()
    said = run("--vault", second, "--home", home, "--json")
    (warning,) = [w for w in json.loads(said.stdout)["warnings"] if "deleted" in w["message"]]
    words = f"--vault {second} --home {home}"
    assert f"(`ccexport {words} --restore` writes it again)" in warning["message"]
    assert f"`ccexport {words} --restore`" in said.stderr


def test_a_vault_from_the_config_file_needs_no_words(tmp_path, monkeypatch):
    home, real = tmp_path / "backup", tmp_path / "Notes"
    _sessions(home)
    _configure(real)
    monkeypatch.setenv("HOME", str(Path.home()))  # (the sessions: the config's own home)
    shutil.copytree(home / ".claude", Path.home() / ".claude")
    assert run().exit_code == 0
    next((real / "AI Sessions").rglob("*first 0*.md")).unlink()
    said = run()
    assert "(`ccexport --restore` writes it again)" in said.stderr, said.stderr


def test_a_vault_from_the_environment_is_named_too(tmp_path, monkeypatch):
    home, vault = tmp_path / "backup", tmp_path / "env vault"
    _sessions(home)
    monkeypatch.setenv("CCEXPORT_VAULT", str(vault))
    assert run("--home", home).exit_code == 0
    next((vault / "AI Sessions").rglob("*first 0*.md")).unlink()
    said = run("--home", home)
    assert f"`ccexport --vault {shlex.quote(str(vault))} --home {home} --restore`" in said.stderr


def test_only_commands_are_completed():
    words = "--vault /v"
    assert completed("ccexport never changes it", words) == "ccexport never changes it"
    assert completed("the notes ccexport wrote", words) == "the notes ccexport wrote"
    assert completed("`ccexport --vault /w --restore`", words) == "`ccexport --vault /w --restore`"
    assert completed("`ccexport sources` lists", words) == "`ccexport --vault /v sources` lists"
    assert completed("run ccexport --force", "") == "run ccexport --force"


def test_the_summary_s_own_hints_name_them_too(tmp_path):
    empty, vault = tmp_path / "backup", tmp_path / "v"
    empty.mkdir()
    said = run("--vault", vault, "--home", empty)
    assert said.exit_code == 0
    assert f"`ccexport --vault {vault} --home {empty} sources` lists where" in said.stdout
    assert completed(completed("ccexport --force", "--home /h"), "--home /h") == (
        "ccexport --home /h --force"
    )  # (completed twice: as once)
