"""Output to a pipe its reader closed (``ccexport sources | head -1``, a cron job's
``… 2>&1 | head``) is dropped: the command exits with its own status, with no traceback
and no word. Click ended it with exit 1 ("some sessions could not be exported") and
nothing said, which a script under ``set -o pipefail`` took for a failure (review48 M2)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import EXAMPLES_HOME

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pipe's EPIPE")


def _run_into_closed_pipe(tmp_path, *args: str, stderr_too: bool) -> int:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line (deterministic EPIPE)
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    env.pop("CCEXPORT_CONFIG", None)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "exporter", *args],
            stdout=write,
            stderr=write if stderr_too else subprocess.PIPE,
            env=env,
            timeout=120,
        )
    finally:
        os.close(write)
    assert not done.stderr or b"Traceback" not in done.stderr, done.stderr
    return done.returncode


def test_sources_into_a_closed_pipe_exits_0(tmp_path):
    code = _run_into_closed_pipe(tmp_path, "sources", "--home", str(EXAMPLES_HOME),
                                 stderr_too=False)  # fmt: skip
    assert code == 0


def test_an_export_into_a_closed_pipe_exits_0_and_is_complete(tmp_path):
    vault = tmp_path / "v"
    args = ["--vault", str(vault), "--home", str(EXAMPLES_HOME), "-v"]
    assert _run_into_closed_pipe(tmp_path, *args, stderr_too=True) == 0
    assert (vault / ".ccexport" / "state.json").is_file()
    assert not (vault / ".ccexport" / "running").exists()


def test_watch_into_a_closed_pipe_stops(tmp_path):
    """``ccexport watch | head -3``: once its reader is gone, watch stops (exit 0) rather
    than exporting on, every few seconds, into the null device (it ran until the 120 s
    timeout here)."""
    code = _run_into_closed_pipe(tmp_path, "watch", "--vault", str(tmp_path / "v"),
                                 "--home", str(EXAMPLES_HOME), stderr_too=True)  # fmt: skip
    assert code == 0
