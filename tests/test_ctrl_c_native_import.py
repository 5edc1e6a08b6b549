"""A Ctrl-C while orjson's module starts crashed the command (SIGSEGV: 3 of 200 Ctrl-Cs sent
at random moments of an export's first 0.15 s; about half of those landing in `import
orjson` itself). The command imports it first, with Ctrl-C held back: the Ctrl-C then
arrives right after, and the run ends as any Ctrl-C ends it, "interrupted" and exit 130."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A fresh interpreter, where a finder looks at the signal mask as orjson is being imported
# and sends the process a Ctrl-C right then.
SCRIPT = """
import importlib.abc, os, signal, sys

# (a process started in the background may inherit Ctrl-C ignored: Python then leaves it so)
signal.signal(signal.SIGINT, signal.default_int_handler)

class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "orjson":
            held = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
            print("held" if held else "not held", flush=True)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Watch())
from exporter.command import console
sys.argv = ["ccexport", "--help"]
console()
"""


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_a_ctrl_c_during_orjsons_import_waits_and_ends_the_run_as_interrupted():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.splitlines()[:1] == ["held"], (done.stdout, done.stderr)
    assert done.returncode == 130 and done.stderr.strip() == "interrupted", done.stderr
