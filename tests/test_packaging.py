"""A real, non-editable install: the wheel carries the templates and the command works."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

from conftest import EXAMPLES_HOME, ROOT


def test_wheel_installs_and_exports_the_demo(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = dist.glob("ccexport_vault-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "exporter/templates/session.md.j2" in names

    # A fresh environment that sees the dependencies but not this checkout.
    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=True)
    py = env_dir / "bin" / "python"
    subprocess.run(
        [py, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True
    )
    clean_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run(
        [py, "-c", "import exporter, sys; print(exporter.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env=clean_env,
    ).stdout.strip()
    assert Path(where).is_relative_to(env_dir), where
    result = subprocess.run(
        [
            env_dir / "bin" / "ccexport",
            "--vault",
            str(tmp_path / "v"),
            "--home",
            str(EXAMPLES_HOME),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=clean_env,
    )
    assert result.returncode == 0, result.stderr
    assert "sessions found" in result.stdout
    assert list((tmp_path / "v").rglob("*Returning vectors in Rust*.md"))
