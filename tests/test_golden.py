"""Golden notes: the demo home exported, compared byte for byte with tests/golden/.

Refresh after an intended change, then review the diff:

    pytest tests/test_golden.py --update-golden && git diff tests/golden
"""

from __future__ import annotations

import shutil
from datetime import UTC
from pathlib import Path

from conftest import EXAMPLES_HOME, TESTS, note_files

from exporter.export import ExportOptions, run_export

GOLDEN = TESTS / "golden" / "demo-vault"


def export_demo(vault: Path) -> None:
    report = run_export(ExportOptions(vault=vault, home=EXAMPLES_HOME, timezone=UTC))
    assert not report.failed, report.problems


def test_demo_notes_match_the_golden_files(tmp_path, update_golden):
    vault = tmp_path / "vault"
    export_demo(vault)
    produced = note_files(vault, index=True)
    if update_golden:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for rel, data in produced.items():
            (GOLDEN / rel).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / rel).write_bytes(data)
    expected = note_files(GOLDEN, index=True)
    assert sorted(produced) == sorted(expected), "notes were added or removed"
    for rel, data in produced.items():
        assert data.decode() == expected[rel].decode(), f"{rel} differs from its golden file"


def test_demo_home_is_what_the_generator_writes(tmp_path):
    from make_demo_home import write_demo_home

    fresh = tmp_path / "home"
    write_demo_home(fresh)
    made = {
        p.relative_to(fresh).as_posix(): p.read_bytes()
        for p in sorted(fresh.rglob("*"))
        if p.is_file()
    }
    committed = {
        p.relative_to(EXAMPLES_HOME).as_posix(): p.read_bytes()
        for p in sorted(EXAMPLES_HOME.rglob("*"))
        if p.is_file()
    }
    assert made == committed, "examples/home is stale: run python tests/make_demo_home.py"
