"""The summary's words (review15 F5, F7): each source's line adds up to its "found" as the
first line does, and a ``--project`` that matches nothing is told where the projects are."""

from __future__ import annotations

import re
from pathlib import Path

from claude_builder import ClaudeSession
from codex_builder import CodexRollout
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()
CLAUDE = ["c1c1c1c1-0000-4000-8000-00000000000" + str(i) for i in range(3)]
CODEX = ["0199aaaa-0000-7000-8000-00000000000" + str(i) for i in range(3)]


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _claude(home: Path, i: int, turns: int) -> None:
    cwd = ("/home/dev/work/webshop", "/home/dev/work/api-server")[i % 2]
    s = ClaudeSession(CLAUDE[i], cwd, start=f"2026-05-0{1 + i}T10:00:00Z")
    for t in range(turns):
        s.user(f"claude question {t} of {i}")
        s.assistant(f"claude answer {t} of {i}")
    s.write(home / ".claude" / "projects" / f"-p{i % 2}" / f"{CLAUDE[i]}.jsonl")


def _codex(home: Path, i: int, turns: int) -> None:
    r = CodexRollout(CODEX[i], "/home/dev/work/api-server", start=f"2026-05-0{1 + i}T12:00:00Z")
    for t in range(turns):
        r.user(f"codex question {t} of {i}")
        r.assistant(f"codex answer {t} of {i}")
    r.write(home / ".codex")


def _home(home: Path, grown: tuple[int, ...] = ()) -> None:
    for i in range(3):
        _claude(home, i, 3 if i in grown else 2)
        _codex(home, i, 3 if i in grown else 2)


def _note(vault: Path, source: str, ident: str) -> Path:
    (found,) = [
        p
        for p in (vault / "AI Sessions" / source).rglob("*.md")
        if f"session_id: {ident}" in p.read_text() or f"session_id: '{ident}'" in p.read_text()
    ]
    return found


def _edit_inside(note: Path) -> None:
    """An edit inside the generated part: the next update saves it aside (a conflict)."""
    text = note.read_text()
    marker = "%% ccexport:end"
    assert marker in text
    note.write_text(text.replace(marker, f"MY EDIT INSIDE\n\n{marker}", 1))


def _adds_up(line: str) -> None:
    counts = line.split(":", 1)[1] if line.startswith("  ") else line
    counts = re.sub(r" in \d+\.\d s$", "", counts.split(";")[0])
    numbers = [int(n) for n in re.findall(r"(?:^|, )\s*(\d+) ", counts)]
    assert len(numbers) >= 2 and numbers[0] == sum(numbers[1:]), line


def test_each_source_line_adds_up_to_its_found_with_a_conflict_and_a_deleted_note(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    _home(home)
    args = ("--vault", vault, "--home", home, "--timezone", "UTC")
    assert run(*args).exit_code == 0
    for source, ids in (("claude-code", CLAUDE), ("codex", CODEX)):
        _edit_inside(_note(vault, source, ids[0]))  # its session grows next: a conflict
        _note(vault, source, ids[1]).unlink()  # deleted in the vault, left deleted
    _home(home, grown=(0, 1))
    result = run(*args)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if " found, " in line]
    assert len(lines) == 3, result.stdout
    first, claude, codex = lines
    assert first.startswith("6 sessions found, 0 created, 0 updated, 2 unchanged, 2 conflicts, ")
    for source, line in (("claude-code", claude), ("codex", codex)):
        assert line == (
            f"  {source}: 3 found, 1 unchanged, 1 conflict, 1 deleted in the vault (left deleted)"
        )
    for line in lines:
        _adds_up(line)


def test_the_per_source_line_keeps_the_first_lines_order_and_leaves_out_zeros():
    from exporter.outcome import SourceCounts
    from exporter.report import SAVED, source_line

    counts = SourceCounts(found=9, created=1, updated=1, unchanged=1, skipped=1, conflicts=2)
    counts.saved, counts.failed, counts.deleted, counts.empty = 1, 1, 1, 4
    assert source_line("codex", counts) == (
        f"  codex: 9 found, 1 created, 1 updated, 2 unchanged, 2 conflicts, 1 {SAVED}, "
        "1 failed, 1 deleted in the vault (left deleted); 4 more without a conversation (no note)"
    )
    assert source_line("codex", SourceCounts(found=2, unchanged=2)) == (
        "  codex: 2 found, 2 unchanged"
    )


# -- --project matching nothing ----------------------------------------------------------------


def _exported_then_filtered(tmp_path: Path, project: str):
    """``_home``'s sessions exported, then a run with ``--project project``: its result."""
    home, vault = tmp_path / "home", tmp_path / "v"
    _home(home)
    args = ("--vault", vault, "--home", home, "--timezone", "UTC")
    assert run(*args).exit_code == 0
    return run(*args, "--project", project)


def test_a_project_that_matches_nothing_is_given_the_names_that_come_close(tmp_path):
    typo = _exported_then_filtered(tmp_path, "webshp")
    assert typo.exit_code == 0
    assert "No session matched the filters (project 'webshp'); did you mean 'webshop'?" in (
        typo.stdout
    )
    assert "ccexport sources" not in typo.stdout


def test_a_project_near_none_is_told_where_the_projects_are_listed(tmp_path):
    far = _exported_then_filtered(tmp_path, "zzzz")
    assert far.exit_code == 0 and "ccexport sources" not in far.stdout
    assert (
        "No session matched the filters (project 'zzzz'); AI Sessions/Projects.md lists this "
        "vault's projects: api-server, webshop." in far.stdout
    )


def test_a_project_on_a_vault_with_none_yet_is_pointed_to_a_dry_run(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    _home(home)
    first = run("--vault", vault, "--home", home, "--project", "zzzz")
    assert first.exit_code == 0 and "ccexport sources" not in first.stdout
    dry_run = f"`ccexport --vault {vault} --home {home} --dry-run` without --project lists"
    assert f"{dry_run} the notes a run would write" in first.stdout


def test_a_known_project_left_out_by_another_filter_gets_no_project_hint(tmp_path):
    """--project webshop --since tomorrow: the project is right; the sources hint stays."""
    home, vault = tmp_path / "home", tmp_path / "v"
    _home(home)
    args = ("--vault", vault, "--home", home, "--timezone", "UTC")
    assert run(*args).exit_code == 0
    result = run(*args, "--project", "webshop", "--source", "codex")
    assert "did you mean" not in result.stdout and "lists this vault's projects" not in (
        result.stdout
    )


def test_aider_without_its_paths_is_told_it_needs_them(tmp_path):
    """``--source aider`` with no ``[paths] aider``: Aider keeps a log per repository and no
    list of them, and the run said only "`ccexport sources` lists what there is" (review48
    L3)."""
    empty = tmp_path / "empty home"
    empty.mkdir()
    result = run("--vault", tmp_path / "v", "--home", empty, "--source", "aider")
    assert result.exit_code == 0
    said = " ".join(result.stdout.split())
    assert "No session matched the filters (sources aider); Aider keeps one log" in said
    assert '[paths] aider = ["~/src"]' in said


def test_the_json_options_help_says_where_the_summary_goes():
    """``--json``'s help said "nothing else", while the summary still goes to stderr (L2)."""
    from typer.testing import CliRunner

    from exporter.cli import app

    shown = " ".join(CliRunner().invoke(app, ["--help"]).stdout.split())
    assert "nothing else there (the summary goes to stderr)" in shown
