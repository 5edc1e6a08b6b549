"""A real, non-editable install: the wheel carries the templates and the command works."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
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

    # A fresh environment that sees the dependencies but not this checkout. The running
    # interpreter's site-packages are added as plain paths (a .pth line), so this works from
    # a venv too; .pth files found there are not run, so the editable install stays out.
    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=False, with_pip=True)
    py = env_dir / "bin" / "python"
    own_site = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    outer = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    (Path(own_site) / "zz_outer_site.pth").write_text("\n".join(outer) + "\n")
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


def test_property_tests_carry_no_deadline_that_a_loaded_machine_would_miss():
    """The README's `pytest` failed on a busy machine with hypothesis's DeadlineExceeded
    (271 ms against 200 ms in test_frontmatter_fast); conftest loads a profile without a
    deadline, which a test's own ``@settings`` keeps."""
    from hypothesis import settings

    assert settings().deadline is None
    assert settings(max_examples=5).deadline is None


def test_the_source_package_holds_every_file_the_readme_links_to(tmp_path):
    """review50 L5: the sdist left out ``docs/``, so its README's links led nowhere."""
    import re
    import tarfile

    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(dist)],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {
        link.split("#")[0]
        for link in re.findall(r"\]\(([^)\s]+)\)", readme)
        if not re.match(r"[a-z]+:", link) and not link.startswith("#")
    }
    linked = {link for link in linked if (ROOT / link).is_file()}
    assert any(link.startswith("docs/") for link in linked)
    assert sorted(linked - names) == []
