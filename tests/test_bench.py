"""The benchmark script keeps working (its figures are read by people, not asserted)."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT


def test_the_benchmark_prints_every_figure(tmp_path):
    peer = tmp_path / "fake-peer"
    peer.write_text("#!/bin/sh\nexit 0\n")
    peer.chmod(0o755)
    out = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "bench" / "bench_export.py"),
         "--sessions", "30", "--repeat", "1", "--json", "--peer", str(peer)],
        check=True, capture_output=True, text=True, timeout=300,
    ).stdout  # fmt: skip
    figures = json.loads(out.splitlines()[-1])
    assert figures["sessions"] == 30 and figures["megabytes"] > 0
    for name in ("floor_s", "full_s", "one_process_s", "noop_s", "startup_s", "peer_s"):
        assert figures[name] > 0, name
    assert figures["noop_over_full"] < 1 and figures["peak_rss_mb"] > 10


def test_the_big_home_benchmark_prints_its_figures():
    out = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "bench" / "bench_big.py"),
         "--sessions", "20", "--big-turns", "30"],
        check=True, capture_output=True, text=True, timeout=300,
    ).stdout  # fmt: skip
    for figure in ("MB/s", "no-op re-run", "as a command", "peak memory", "longest line"):
        assert figure in out, figure
