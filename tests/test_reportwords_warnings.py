"""Warnings that say what is so (review15 F4, F6): a ``[frontmatter] add`` expression that
fails names the note it is left out of; a Claude Code transcript copied byte for byte under
another name is "a copy", not "an older copy", and not a file "without a conversation"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from claude_builder import ClaudeSession
from codex_builder import CodexRollout, write_generation
from conftest import note_files
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def said(result) -> str:
    return result.output  # (stdout and stderr as printed)


# -- [frontmatter] add: the note a failed expression is left out of ---------------------------


def _early_rollouts(home: Path, n: int) -> None:
    """Early Codex rollouts (the bare JSONL): one time, the header's, so no end is known."""
    for i in range(n):
        r = CodexRollout(f"019a0000-1111-7222-8333-44445555666{i}", start=f"2026-03-1{i}T08:00:00Z")
        r.user(f"question {i}")
        r.assistant(f"answer {i}")
        write_generation(r, home / ".codex" / "sessions" / "2026" / "03" / f"1{i}", "bare")


def _config(vault: Path) -> None:
    path = vault / ".ccexport" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[frontmatter]\nadd = { last = \"{{ updated.strftime('%Y-%m-%d') }}\" }\n")


def test_a_failed_added_property_names_the_note_it_is_left_out_of(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    _early_rollouts(home, 2)
    _config(vault)
    result = run("--vault", vault, "--home", home, "--timezone", "UTC")
    assert result.exit_code == 0, said(result)
    notes = [p for p in note_files(vault) if "/codex/" in p]
    assert len(notes) == 2
    lines = [line for line in said(result).splitlines() if "frontmatter.add.last" in line]
    assert len(lines) == 2, said(result)
    for note in notes:
        assert (
            f"warning: config frontmatter.add.last: expression error: 'None' has no attribute "
            f"'strftime': left out of {note} (its session's end is not known)" in lines
        ), lines


def test_a_note_rendered_ahead_in_a_worker_is_named_by_its_path_too(tmp_path, monkeypatch):
    """A worker renders a lone session's note before its path is chosen: its warning named
    the session's file, one line for every session of an Aider log. It names the path."""
    from datetime import UTC

    from exporter import workers
    from exporter.export import ExportOptions, run_export

    monkeypatch.setattr(workers, "PARALLEL_FROM", 1)  # a pool, and units read ahead
    home, vault = tmp_path / "home", tmp_path / "v"
    _early_rollouts(home, 3)
    add = {"last": "{{ updated.strftime('%Y-%m-%d') }}"}
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=2, frontmatter_add=add)
    report = run_export(options)
    notes = sorted(p for p in note_files(vault) if "/codex/" in p)
    messages = sorted(p.message for p in report.problems if "frontmatter.add" in p.path)
    assert len(notes) == 3 and len(messages) == 3, messages
    for note, message in zip(notes, messages, strict=True):
        assert message.endswith(f"left out of {note} (its session's end is not known)")


def test_past_a_few_notes_the_rest_are_counted_in_one_line(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    _early_rollouts(home, 7)
    _config(vault)
    args = ("--vault", vault, "--home", home, "--timezone", "UTC")
    result = run(*args)
    lines = [line for line in said(result).splitlines() if "frontmatter.add.last" in line]
    assert len(lines) == 6, lines
    assert lines[-1] == (
        "warning: config frontmatter.add.last: 2 more warnings (--verbose lists every one)"
    )
    verbose = run(*args, "--force", "--verbose")
    named = [line for line in said(verbose).splitlines() if "frontmatter.add.last" in line]
    assert len(named) == 7 and all("left out of AI Sessions/codex/" in n for n in named)


# -- Claude Code: a copy of a transcript under another name ------------------------------------

SID = "fed8ce56-0000-4000-8000-000000000001"


def _transcript(home: Path, turns: int = 2) -> Path:
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-05-01T10:00:00Z")
    for t in range(turns):
        s.user(f"question {t}")
        s.assistant(f"answer {t}")
    return s.write(home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID}.jsonl")


@pytest.mark.parametrize("copy_name", ["99999999-8888-4777-8666-555555555555", "0000"])
def test_an_identical_copy_is_a_copy_and_not_a_file_without_a_conversation(tmp_path, copy_name):
    home, vault = tmp_path / "home", tmp_path / "v"
    original = _transcript(home)
    copy = Path(shutil.copyfile(original, original.with_name(f"{copy_name}.jsonl")))
    result = run("--vault", vault, "--home", home, "--timezone", "UTC", "--json", "--verbose")
    assert result.exit_code == 0, said(result)
    doc = json.loads(result.stdout)
    assert doc["totals"]["found"] == doc["totals"]["created"] == 1
    assert doc["totals"]["empty"] == 0
    assert "without a conversation" not in said(result)
    assert "no conversation (claude-code)" not in said(result)
    # Which file is exported is as before: of two alike, the one whose path sorts last.
    exported, other = sorted([original, copy], key=str, reverse=True)
    (warning,) = [w for w in doc["warnings"] if "copy of session" in w["message"]]
    assert warning["path"] == str(other)
    assert (
        warning["message"] == f"a copy of session {SID}, the same as {exported}, which is exported"
    )
    assert "older" not in said(result)
    assert len([p for p in note_files(vault) if "/claude-code/" in p]) == 1


def test_an_older_copy_is_still_called_so_and_is_not_without_a_conversation(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    original = _transcript(home, turns=1)
    older = Path(shutil.copyfile(original, original.with_name("99999999-0000.jsonl")))
    _transcript(home, turns=2)  # the original goes on: the copy is behind it
    result = run("--vault", vault, "--home", home, "--timezone", "UTC")
    assert result.exit_code == 0, said(result)
    assert (
        f"warning: {older}: an older copy of session {SID}; the newest copy, {original}, "
        "is exported" in said(result)
    )
    assert "without a conversation" not in said(result)
    assert "1 session found, 1 created" in result.stdout


def test_a_copy_whose_name_sorts_after_the_original_is_not_counted_as_found(tmp_path):
    """A byte copy named so that it is read after the original (``ffffffff-…``) reaches the
    pipeline as the same session again and is skipped; it was still counted: "2 sessions
    found, 1 created, 0 updated, 0 unchanged", a line that did not add up."""
    home, vault = tmp_path / "home", tmp_path / "v"
    original = _transcript(home)
    copy = Path(shutil.copyfile(original, original.with_name("ffffffff-0000.jsonl")))
    for run_number in (1, 2):
        result = run("--vault", vault, "--home", home, "--timezone", "UTC", "--json")
        assert result.exit_code == 0, said(result)
        doc = json.loads(result.stdout)
        totals, counts = doc["totals"], doc["sources"]["claude-code"]
        assert totals["found"] == 1 and counts["found"] == 1
        assert totals["created" if run_number == 1 else "unchanged"] == 1
        skipped = [w["path"] for w in doc["warnings"] if "this copy is skipped" in w["message"]]
        assert skipped == ([str(copy)] if run_number == 1 else [])  # (then known, not read)
    assert len([p for p in note_files(vault) if "/claude-code/" in p]) == 1


def test_an_empty_transcript_is_still_counted_without_a_conversation(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    _transcript(home)
    folder = home / ".claude" / "projects" / "-home-dev-work-app"
    (folder / "aaaaaaaa-0000-4000-8000-000000000000.jsonl").write_text("")
    result = run("--vault", vault, "--home", home, "--timezone", "UTC")
    assert "1 more without a conversation (no note)" in result.stdout
