"""The speed-ups of the note builder change nothing: the demo home and the corpus, exported
through the optimised path and through the reference path (``CCEXPORT_REFERENCE_RENDER=1``),
give the same bytes in every file of the vault."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pytest
from conftest import EXAMPLES_HOME
from corpus_home import build_codex_home, build_corpus_home
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter import markdown_code, notes, turns
from exporter.export import ExportOptions, run_export
from exporter.markdown_code import REFERENCE_ENV, read_reference_switch
from exporter.model import Message, TextPart
from exporter.state import STATE_DIR


def _vault_files(vault: Path) -> dict[str, bytes]:
    """Every file of the vault but the exporter's own records (they hold stat times)."""
    return {
        str(p.relative_to(vault)): p.read_bytes()
        for p in sorted(vault.rglob("*"))
        if p.is_file() and STATE_DIR not in p.relative_to(vault).parts
    }


def _export_both(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    vaults = {}
    for path in ("reference", "optimised"):  # the reference first: no cache is warm for it
        if path == "reference":
            monkeypatch.setenv(REFERENCE_ENV, "1")
        else:
            monkeypatch.delenv(REFERENCE_ENV)
        vault = tmp_path / path
        report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
        assert not report.failed, [str(p) for p in report.problems][:3]
        vaults[path] = _vault_files(vault)
    return vaults["reference"], vaults["optimised"]


def _assert_same(reference: dict[str, bytes], optimised: dict[str, bytes]) -> None:
    assert sorted(optimised) == sorted(reference)
    different = [name for name in reference if reference[name] != optimised[name]]
    assert not different, different[:5]


def test_the_demo_home_gives_the_same_bytes_both_ways(tmp_path, monkeypatch):
    reference, optimised = _export_both(EXAMPLES_HOME, tmp_path, monkeypatch)
    assert sum(name.endswith(".md") for name in reference) >= 10
    _assert_same(reference, optimised)


def test_the_corpus_gives_the_same_bytes_both_ways(corpus, tmp_path, monkeypatch):
    home = tmp_path / "home"
    build_corpus_home(corpus, home)
    build_codex_home(corpus, home)
    reference, optimised = _export_both(home, tmp_path, monkeypatch)
    assert sum(name.endswith(".md") for name in reference) >= 50
    _assert_same(reference, optimised)


def test_a_run_reads_the_reference_switch_as_it_starts(tmp_path, monkeypatch):
    """The identity tests compare something: a run begun with the variable set takes the
    reference path throughout (Jinja, no scan), though the switch was off before it."""
    used = []
    real_body, real_scan = notes.session_body, markdown_code.scan
    monkeypatch.setattr(notes, "session_body", lambda c: used.append("body") or real_body(c))
    monkeypatch.setattr(markdown_code, "scan", lambda t: used.append("scan") or real_scan(t))
    monkeypatch.delenv(REFERENCE_ENV, raising=False)
    read_reference_switch()
    monkeypatch.setenv(REFERENCE_ENV, "1")
    options = ExportOptions(vault=tmp_path / "r", home=EXAMPLES_HOME, timezone=UTC, workers=1)
    assert run_export(options).total("created") >= 10
    assert not used
    monkeypatch.delenv(REFERENCE_ENV)
    options = ExportOptions(vault=tmp_path / "o", home=EXAMPLES_HOME, timezone=UTC, workers=1)
    assert run_export(options).total("created") >= 10
    assert {"body", "scan"} <= set(used)


def test_a_prompt_is_cleaned_once_and_the_reference_path_cleans_it_again(monkeypatch):
    calls = []
    real = turns.clean.clean_user_text
    monkeypatch.setattr(
        turns.clean,
        "clean_user_text",
        lambda text, source: calls.append(text) or real(text, source),
    )
    monkeypatch.delenv(REFERENCE_ENV, raising=False)
    read_reference_switch()
    message = Message("user", [TextPart("<system-reminder>x</system-reminder>Fix `a<b` please")])
    first, second = (
        turns.clean_parts(message, "claude-code"),
        turns.clean_parts(message, "claude-code"),
    )
    assert first == second and len(calls) == 1
    monkeypatch.setenv(REFERENCE_ENV, "1")
    assert (
        turns.clean_parts(message, "claude-code") == first and len(calls) == 1
    )  # the switch not read yet
    read_reference_switch()  # as a run or a note's build does first
    assert turns.clean_parts(message, "claude-code") == first and len(calls) == 2


def test_the_cache_of_cleaned_prompts_is_bounded(monkeypatch):
    monkeypatch.setattr(turns, "CLEANED_MAX_CHARS", 1000)
    monkeypatch.delenv(REFERENCE_ENV, raising=False)
    read_reference_switch()
    for n in range(50):
        turns.clean_parts(Message("user", [TextPart(f"prompt {n} " + "x" * 90)]), "claude-code")
    assert sum(len(t) for t in turns._CLEANED) <= 1000


@settings(max_examples=300, deadline=None)
@given(st.datetimes(timezones=st.just(UTC)), st.dates())
def test_a_turns_time_reads_as_strftime_writes_it(when, first_day):
    expected = when.strftime("%H:%M" if when.date() == first_day else "%Y-%m-%d %H:%M")
    assert turns._when(when, first_day) == expected
    assert turns._when(when, when.date()) == when.strftime("%H:%M")
