"""A run that finds no session makes no vault: with a mistyped ``--vault`` (``~/Note`` for
``~/Notes``) it used to leave a second vault folder holding a Sessions.base and a state
(review15 finding 9). A vault that is there is run as before."""

from __future__ import annotations

from vault_builder import run_cli, write_session


def test_nothing_found_makes_no_vault(tmp_path):
    home, vault = tmp_path / "empty-home", tmp_path / "Note"
    home.mkdir()
    done = run_cli("--vault", str(vault), "--home", str(home))
    assert done.returncode == 0 and "No sessions found under" in done.stdout, done.stdout
    assert not vault.exists()


def test_a_session_found_makes_the_vault(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "Notes"
    write_session(home, ["q1"])
    assert run_cli("--vault", str(vault), "--home", str(home)).returncode == 0
    assert (vault / "AI Sessions" / "Sessions.base").is_file()
