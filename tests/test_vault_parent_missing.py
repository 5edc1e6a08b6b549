"""A ``--vault`` whose parent folder is missing (a drive or share not mounted) is not made
with its parents, which put a second vault on the internal disk: exit 2, naming the
parent (review29 F5). The vault folder itself is still made."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT
from vault_builder import run_cli, write_session


def test_an_export_into_a_vault_whose_parent_is_missing_stops_naming_it(tmp_path):
    home = tmp_path / "home"
    write_session(home, ["q"])
    vault = tmp_path / "media" / "USB" / "Notes"
    done = run_cli("--vault", str(vault), "--home", str(home))
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path / 'media' / 'USB'} does not exist" in done.stderr
    assert "not mounted" in done.stderr
    assert not (tmp_path / "media").exists()


def test_the_vault_folder_itself_is_still_made(tmp_path):
    home = tmp_path / "home"
    write_session(home, ["q"])
    done = run_cli("--vault", str(tmp_path / "Notes"), "--home", str(home), "-q")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "Notes" / "AI Sessions").is_dir()


def test_templates_init_into_a_vault_whose_parent_is_missing_stops_too(tmp_path):
    vault = tmp_path / "media" / "USB" / "Notes"
    done = subprocess.run(
        [sys.executable, "-m", "exporter", "templates", "init", "--vault", str(vault)],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path / 'media' / 'USB'} does not exist" in done.stderr
    assert not (tmp_path / "media").exists()
