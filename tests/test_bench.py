"""The benchmark script keeps working (its figures are read by people, not asserted)."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT


def test_the_benchmark_prints_every_figure(tmp_path):
    peer = tmp_path / "fake-peer"
    peer.write_text("#!/bin/sh\nsleep 0.3\n")  # a ratio to ours that rounds above 0
    peer.chmod(0o755)
    out = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "bench" / "bench_export.py"),
         "--sessions", "30", "--repeat", "1", "--json", "--peer", str(peer), "--real-copies", "0"],
        check=True, capture_output=True, text=True, timeout=300,
    ).stdout  # fmt: skip
    figures = json.loads(out.splitlines()[-1])
    assert figures["sessions"] == 30 and figures["megabytes"] > 0
    for name in ("floor_s", "full_s", "one_process_s", "noop_s", "startup_s", "peer_s",
                 "peer_paired_over_full"):  # fmt: skip
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


def test_the_benchmark_times_a_home_of_real_sessions(corpus, tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "bench" / "bench_export.py"),
         "--sessions", "5", "--repeat", "1", "--json", "--real-copies", "1",
         "--corpus", str(corpus)],
        check=True, capture_output=True, text=True, timeout=300,
    ).stdout  # fmt: skip
    figures = json.loads(out.splitlines()[-1])
    assert figures["real_megabytes"] > 10  # the corpus's Claude Code files, about 13 MB
    for name in ("real_floor_s", "real_full_s", "real_one_process_s", "real_full_mb_per_s"):
        assert figures[name] > 0, name


def test_each_copy_of_the_corpus_is_sessions_of_its_own(corpus, tmp_path):
    from corpus_home import build_corpus_copies

    from exporter.export import ExportOptions, run_export

    found = []
    for copies in (1, 2):
        home = tmp_path / f"home{copies}"
        build_corpus_copies(corpus, home, copies)
        report = run_export(ExportOptions(vault=tmp_path / f"vault{copies}", home=home))
        # No copy read as another's. The trimmed fixture's times are text, and its uuids
        # too (the copies renew them, one for one), shared by lines that say different
        # things: two warnings for each copy of it, nothing else.
        said = ("could not be read and were left out", "have the uuid of an earlier line")
        trimmed = [
            p for p in report.problems
            if "jazzyalex-agent-sessions" in p.path and any(s in p.message for s in said)
        ]  # fmt: skip
        assert len(trimmed) == 2 * copies
        others = [p for p in report.problems if p not in trimmed]
        assert not others, others[:3]
        found.append(report.total("found"))
    assert found[1] == 2 * found[0] > 20


def test_the_per_source_benchmark_prints_every_source():
    out = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "bench" / "bench_sources.py"),
         "--sessions", "30", "--repeat", "1", "--json"],
        check=True, capture_output=True, text=True, timeout=300,
    ).stdout  # fmt: skip
    figures = json.loads(out.splitlines()[-1])["sources"]
    assert len(figures) == 7 and "cursor" in figures and "opencode" in figures
    for source, f in figures.items():
        assert f["megabytes"] > 0.5 and f["wall_s"] > 0 and f["one_process_wall_s"] > 0, source
        assert 0 < f["main_cpu_s"] and f["all_cpu_s"] >= f["main_cpu_s"] - 0.05, source


def test_the_personal_vault_benchmark_prints_its_figures():
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "bench" / "bench_personal.py"),
         "--notes", "50", "--repeat", "1"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "50 notes of the person's: a first export" in result.stdout


def test_a_vault_is_set_aside_not_deleted(tmp_path):
    sys.path.insert(0, str(ROOT / "tests" / "bench"))
    from bench_export import set_aside

    for n in range(2):
        vault = tmp_path / "vault"
        (vault / "notes").mkdir(parents=True)
        (vault / "notes" / "a.md").write_text(f"note {n}")
        set_aside(vault)
        assert not vault.exists()  # the next export makes a new vault
    kept = sorted((tmp_path / "set-aside").iterdir())
    assert [(p / "notes" / "a.md").read_text() for p in kept] == ["note 0", "note 1"]
    set_aside(tmp_path / "never-made")  # nothing to move: no error


def test_the_benchmark_homes_export_without_a_warning(tmp_path):
    """What is timed is a clean export: every session's times readable, none past the clock
    (a home dated in this year's last months gave warnings, and dateless notes, once the
    clock's date came before them)."""
    sys.path.insert(0, str(ROOT / "tests" / "bench"))
    from bench_export import build_big_home, build_home

    from exporter.export import ExportOptions, run_export

    build_home(tmp_path / "home", 36)  # every month, and days up to the 28th
    build_big_home(tmp_path / "big", 36, big_files=1, big_turns=3)
    for home in ("home", "big"):
        report = run_export(ExportOptions(vault=tmp_path / f"vault-{home}", home=tmp_path / home))
        assert report.total("found") == 36 + (home == "big"), home
        assert not report.problems, report.problems[:3]
