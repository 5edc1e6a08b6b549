"""The command line, in-process with an isolated HOME (conftest)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from claude_builder import ClaudeSession
from conftest import EXAMPLES_HOME, note_files, stamps
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_export_prints_a_summary_and_writes_notes(tmp_path):
    result = run("--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME), "--timezone", "UTC")
    assert result.exit_code == 0, result.output
    assert (
        "41 sessions found, 41 created, 0 updated, 0 unchanged; "
        "3 more without a conversation (no note)" in result.output
    )
    assert "  codex: 4 found, 4 created" in result.output
    # claude-code's line too: not among the sessions it counts (they read as empty notes)
    assert "  claude-code: 7 found, 7 created; 3 more without a conversation (no note)\n" in (
        result.output
    )
    assert len(note_files(tmp_path / "v")) == 41


def test_export_subcommand_is_the_same(tmp_path):
    result = run("export", "--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME))
    assert result.exit_code == 0 and len(note_files(tmp_path / "v")) == 41


def test_second_run_changes_nothing(tmp_path):
    vault = tmp_path / "v"
    run("--vault", str(vault), "--home", str(EXAMPLES_HOME))
    before, times = note_files(vault), stamps(vault)
    result = run("--vault", str(vault), "--home", str(EXAMPLES_HOME))
    assert "41 sessions found, 0 created, 0 updated, 41 unchanged" in result.output
    assert note_files(vault) == before and stamps(vault) == times


def test_json_summary_ends_stdout(tmp_path):
    result = run("--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME), "--json")
    summary = json.loads(result.stdout)  # the whole of stdout
    assert summary["totals"]["found"] == 41 and summary["totals"]["written"] == 41
    created = {source: counts["created"] for source, counts in summary["sources"].items()}
    assert created == {
        "claude-code": 7, "codex": 4, "cursor": 6, "trae": 1, "copilot": 2, "gemini": 5,
        "antigravity": 1, "copilot-cli": 3, "opencode": 3, "kilo": 1, "cline": 3,
        "roo-code": 1, "zoo-code": 1, "kilo-code": 1, "aider": 2,
    }  # fmt: skip
    assert summary["sources"]["claude-code"]["empty"] == 3
    assert summary["errors"] == []
    assert any("not valid JSON" in w["message"] and w["line"] == 7 for w in summary["warnings"])


def test_dry_run_writes_nothing(tmp_path):
    vault = tmp_path / "v"
    result = run("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--dry-run")
    assert result.exit_code == 0
    assert (
        "would create: AI Sessions/claude-code/rust-parser/2026-11-20 Returning vectors in Rust a3359d8f.md"
        in result.output
    )
    assert not vault.exists()


def test_quiet_prints_only_errors(tmp_path):
    result = run("--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME), "--quiet")
    assert result.exit_code == 0 and result.stdout == ""


def test_a_session_that_fails_exits_1_and_the_rest_are_written(tmp_path, monkeypatch):
    home = tmp_path / "other-home"
    shutil.copytree(EXAMPLES_HOME, home)
    bad = home / ".claude" / "projects" / "-x" / "bad.jsonl"
    ClaudeSession("bad").write(bad)
    bad.write_text(
        '{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u","timestamp":"2026-01-01T00:00:00Z"}\n'
    )
    from exporter.adapters import claude_code

    original = claude_code.ClaudeCodeAdapter.load

    def load(self, ref):
        if ref.main.path.name == "bad.jsonl":
            raise PermissionError(13, "Permission denied", str(ref.main.path))
        return original(self, ref)

    monkeypatch.setattr(claude_code.ClaudeCodeAdapter, "load", load)
    result = run("--vault", str(tmp_path / "v"), "--home", str(home))
    assert result.exit_code == 1
    # The reason once, without Python's errno or the path again (the line names the file).
    line = next(ln for ln in result.stderr.splitlines() if "bad.jsonl" in ln)
    assert line.endswith(
        "bad.jsonl: could not be read: Permission denied; its sessions are read again next run"
    )
    assert len(note_files(tmp_path / "v")) == 41


def test_usage_errors_exit_2(tmp_path):
    assert run("--home", str(EXAMPLES_HOME)).exit_code == 2  # no vault
    bad = run("--vault", str(tmp_path / "v"), "--source", "nonsense")
    assert bad.exit_code == 2
    assert "--source names 'nonsense', not a source; choose from claude-code, codex" in bad.stderr
    assert run("--vault", str(tmp_path / "v"), "--timezone", "Mars/Olympus").exit_code == 2
    assert run("--no-such-flag").exit_code == 2


def test_sources_lists_what_was_found_where(tmp_path):
    result = run("sources", "--home", str(EXAMPLES_HOME))
    assert result.exit_code == 0
    line = next(line for line in result.output.splitlines() if line.startswith("claude-code"))
    assert " 8 " in line and str(EXAMPLES_HOME / ".claude" / "projects") in line
    line = next(line for line in result.output.splitlines() if line.startswith("codex"))
    assert " 4 " in line and str(EXAMPLES_HOME / ".codex") in line
    rows = json.loads(run("sources", "--home", str(EXAMPLES_HOME), "--json").stdout)["sources"]
    found: dict[str, int] = {}
    for r in rows:
        found[r["source"]] = found.get(r["source"], 0) + r["sessions"]
    assert found == {
        "claude-code": 8, "codex": 4, "cursor": 6, "trae": 1, "copilot": 2, "gemini": 5,
        "antigravity": 1, "copilot-cli": 2, "opencode": 3, "kilo": 1, "cline": 2,
        "roo-code": 1, "zoo-code": 1, "kilo-code": 1, "aider": 2,
    }  # fmt: skip


def test_sources_names_only_the_folders_that_hold_a_sources_sessions(tmp_path):
    """An editor's User folder kept for other extensions (VSCodium for Zoo Code) held no
    Copilot chats, yet `sources` listed it as "copilot 0 0 B" beside the one that did, and
    doctor named it among Copilot's folders. It is still walked for unreadable folders."""
    home = tmp_path / "h"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    codium = home / ".config" / "VSCodium" / "User"
    loop = codium / "globalStorage" / "github.copilot-chat" / "loop"
    loop.parent.mkdir(parents=True)
    loop.symlink_to(loop)  # a link that cannot be followed: said, though nothing is listed
    result = run("sources", "--home", str(home))
    copilot = [ln for ln in result.output.splitlines() if ln.startswith("copilot ")]
    assert len(copilot) == 1 and str(home / ".config" / "Code" / "User") in copilot[0]
    assert str(loop) in result.stderr
    rows = json.loads(run("sources", "--home", str(home), "--json").stdout)["sources"]
    assert [r["path"] for r in rows if r["source"] == "copilot"] == [
        str(home / ".config" / "Code" / "User")
    ]
    doctor = run("doctor", "--vault", str(tmp_path / "v"), "--home", str(home))
    line = next(ln for ln in doctor.output.splitlines() if "copilot: " in ln)
    assert str(codium) not in line and str(home / ".config" / "Code" / "User") in line
    assert str(loop) in doctor.output


def test_sources_lists_every_folder_of_a_source_that_found_nothing(tmp_path):
    for editor in ("Code", "VSCodium"):
        (tmp_path / ".config" / editor / "User").mkdir(parents=True)
    result = run("sources", "--home", str(tmp_path), "--source", "copilot")
    copilot = [ln for ln in result.output.splitlines() if ln.startswith("copilot ")]
    assert len(copilot) == 2 and all(" 0 " in ln for ln in copilot)


def test_sources_on_an_empty_home_says_not_found(tmp_path):
    result = run("sources", "--home", str(tmp_path))
    assert "(not found)" in result.output


def test_a_source_with_nowhere_to_look_and_a_home_with_nothing_say_so(isolated_home, tmp_path):
    """On a home of its own (no --home), Aider has no folder to search until [paths] aider
    names one: `sources` printed its folder as "." "(not found)", doctor "nothing found
    (looked in nowhere)" after its hint, and then "All good." with nothing to export."""
    shown = run("sources", "--source", "aider", "--source", "codex")
    aider = next(line for line in shown.output.splitlines() if line.startswith("aider"))
    assert "[paths] aider" in aider and " . " not in aider and "(not found)" not in aider
    rows = json.loads(run("sources", "--source", "aider", "--json").stdout)["sources"]
    assert [(r["path"], r["exists"]) for r in rows] == [(None, False)]
    doctor = run("doctor", "--vault", str(tmp_path / "v"), "--json")
    said = [c["message"] for c in json.loads(doctor.stdout)["checks"]]
    assert not any("looked in nowhere" in m for m in said)
    assert any(m.startswith("no sessions found in this home folder") for m in said)
    with_sessions = run("doctor", "--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME))
    assert "no sessions found" not in with_sessions.output
    (tmp_path / "h" / ".codex").mkdir(parents=True)
    asked = run("doctor", "--vault", str(tmp_path / "v"), "--home", str(tmp_path / "h"),
                "--source", "codex", "--source", "aider")  # fmt: skip
    assert f"no sessions of codex, aider found under {tmp_path / 'h'}" in asked.output
    assert "is --home right" not in asked.output


def test_default_home_is_the_users_home(isolated_home: Path, tmp_path):
    shutil.copytree(EXAMPLES_HOME / ".claude", isolated_home / ".claude")
    result = run("--vault", str(tmp_path / "v"))
    assert result.exit_code == 0 and "7 created" in result.output  # Claude Code only here


def test_many_warnings_of_one_file_are_counted_past_the_first_five():
    """A first export of a long Aider log printed 57 warnings of one file. Past five
    warnings of a file, one line counts the rest, where the sixth would have been; every
    error is listed, repeats are counted, and --verbose (like --json) lists every one."""
    from exporter.errors import Problem
    from exporter.report import problem_lines

    problems = [Problem("a.md", f"odd run {n}", n, severity="warning") for n in range(1, 9)]
    problems.insert(6, Problem("b.md", "bad line", 3, severity="warning"))
    problems += [Problem("a.md", "unreadable", 99, severity="error")] * 2
    problems.append(Problem("b.md", "bad line", 3, severity="warning"))
    assert problem_lines(problems, quiet=False, verbose=False) == [
        *(f"warning: a.md:{n}: odd run {n}" for n in range(1, 6)),
        "warning: a.md: 3 more warnings (--verbose lists every one)",
        "warning: b.md:3: bad line (2 times)",
        "error: a.md:99: unreadable (2 times)",
    ]
    every = problem_lines(problems, quiet=False, verbose=True)
    assert [x for x in every if "odd run" in x] == [
        f"warning: a.md:{n}: odd run {n}" for n in range(1, 9)
    ]
    assert problem_lines(problems, quiet=True, verbose=False) == [
        "error: a.md:99: unreadable (2 times)"
    ]


def test_a_note_that_cannot_be_written_says_why_once(tmp_path, monkeypatch):
    from exporter.vault import Vault

    def refuse(self, key, relpath, *args):
        raise PermissionError(13, "Permission denied", str(tmp_path / "v" / relpath))

    monkeypatch.setattr(Vault, "_write_note", refuse)
    result = run("--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME))
    assert result.exit_code == 1
    failed = [ln for ln in result.stderr.splitlines() if "could not be written" in ln]
    assert failed and all(ln.endswith("could not be written: Permission denied") for ln in failed)
    assert "Errno" not in result.stderr
