"""Index notes per project (across sources) and of all projects; --since, --project."""

from __future__ import annotations

import os
import re
import time
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession
from codex_builder import CodexRollout
from conftest import note_files, stamps

from exporter.export import ExportOptions, run_export
from exporter.report import print_report, summary_line


def two_source_home(home: Path) -> None:
    for i, day in enumerate(("2026-04-01", "2026-04-03")):
        s = ClaudeSession(
            f"1ndex000-0000-4000-8000-00000000000{i}",
            "/home/dev/work/shop",
            start=f"{day}T09:00:00Z",
        )
        s.user(f"claude question {i}")
        s.assistant(f"claude answer {i}")
        s.write(home / ".claude" / "projects" / "-home-dev-work-shop" / f"{s.session_id}.jsonl")
    r = CodexRollout(
        "019a9999-0000-7000-8000-00000000c0de", "/home/dev/work/shop", start="2026-04-02T10:00:00Z"
    )
    r.user("codex question")
    r.assistant("codex answer")
    r.write(home / ".codex")
    other = ClaudeSession(
        "1ndex000-0000-4000-8000-0000000000ff", "/home/dev/work/blog", start="2026-03-01T09:00:00Z"
    )
    other.user("blog question")
    other.assistant("blog answer")
    other.write(home / ".claude" / "projects" / "-home-dev-work-blog" / f"{other.session_id}.jsonl")


def add_later_session(home: Path, session_id: str, start: str) -> None:
    late = ClaudeSession(session_id, "/home/dev/work/shop", start=start)
    late.user("a later question")
    late.assistant("a later answer")
    late.write(home / ".claude" / "projects" / "-home-dev-work-shop" / f"{session_id}.jsonl")


def export(vault: Path, home: Path, **kw):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, **kw))


def test_project_index_lists_every_session_from_every_source_newest_first(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    two_source_home(home)
    export(vault, home)
    index = (vault / "AI Sessions" / "Projects" / "shop.md").read_text()
    body = index.split("%% ccexport:begin")[1]
    lines = [line for line in body.splitlines() if line.startswith("- ")]
    assert [line.split(" · ")[0] for line in lines] == [
        "- 2026-04-03",
        "- 2026-04-02",
        "- 2026-04-01",
    ]
    assert ["Claude Code" in lines[0], "Codex" in lines[1], "Claude Code" in lines[2]] == [
        True,
        True,
        True,
    ]
    stems = {Path(p).stem for p in note_files(vault)}
    links = re.findall(r"\[\[([^\]|]+)\|", "\n".join(lines))
    assert len(links) == 3 and set(links) <= stems  # every link resolves to a session note
    top = (vault / "AI Sessions" / "Projects.md").read_text()
    assert "[[AI Sessions/Projects/shop|shop]] · 3 sessions · Claude Code, Codex" in top
    assert "[[AI Sessions/Projects/blog|blog]] · 1 session" in top
    assert "```dataview" not in index


def test_index_notes_are_idempotent_and_keep_the_users_text(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    two_source_home(home)
    export(vault, home)
    index = vault / "AI Sessions" / "Projects" / "shop.md"
    index.write_text(index.read_text() + "Shop roadmap: see [[Roadmap]].\n")
    times = stamps(vault)
    export(vault, home)  # nothing changed: nothing written, indexes included
    assert stamps(vault) == times
    add_later_session(home, "1ndex000-0000-4000-8000-0000000000aa", "2026-05-01T09:00:00Z")
    export(vault, home)
    text = index.read_text()
    assert "- 2026-05-01 · [[" in text and text.endswith("Shop roadmap: see [[Roadmap]].\n")


def test_deleting_a_projects_only_note_leaves_no_dangling_link_in_the_indexes(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    two_source_home(home)
    export(vault, home)
    (blog,) = [vault / p for p in note_files(vault) if "blog question" in p]
    blog.unlink()
    report = export(vault, home)
    assert "left deleted" in report.problems[-1].message
    index = (vault / "AI Sessions" / "Projects" / "blog.md").read_text()
    generated = index.split("%% ccexport:begin")[1]
    assert "[[" not in generated and "\nsessions: 0\n" in index  # listing none
    assert "blog" not in (vault / "AI Sessions" / "Projects.md").read_text()
    times = stamps(vault)
    export(vault, home)  # and it stays so: nothing written again
    assert stamps(vault) == times


def test_an_edit_inside_an_index_notes_generated_part_is_reported_as_a_conflict(tmp_path, capsys):
    home, vault = tmp_path / "home", tmp_path / "v"
    two_source_home(home)
    export(vault, home)
    index = vault / "AI Sessions" / "Projects" / "shop.md"
    index.write_text(index.read_text().replace("newest first.", "newest first. MY EDIT"))
    add_later_session(home, "1ndex000-0000-4000-8000-0000000000aa", "2026-05-01T09:00:00Z")
    report = export(vault, home)
    saved = list((vault / "AI Sessions" / "Conflicts").iterdir())
    assert len(saved) == 1 and "MY EDIT" in saved[0].read_text()
    assert report.total("conflicts") == 1 and summary_line(report).endswith(", 1 conflict")
    listed = report.as_dict()["conflicts"]
    assert [c["path"] for c in listed] == ["AI Sessions/Projects/shop.md"]
    print_report(report, quiet=True)
    assert "conflict: AI Sessions/Projects/shop.md: your edit" in capsys.readouterr().err


def test_dataview_block_is_an_opt_in_extra(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    two_source_home(home)
    export(vault, home, index_dataview=True)
    index = (vault / "AI Sessions" / "Projects" / "shop.md").read_text()
    assert "```dataview" in index and 'WHERE project = "shop"' in index
    assert "- 2026-04-03 · [[" in index  # the plain list stays


def test_project_filter(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    two_source_home(home)
    report = export(vault, home, project="blo")
    assert [Path(p).parts[2] for p in note_files(vault)] == ["blog"] and report.total(
        "created"
    ) == 1
    # the units the filter left out are read again by an unfiltered run
    report = export(vault, home)
    assert report.total("created") == 3 and len(note_files(vault)) == 4


def test_since_filter_skips_old_files_without_reading_them(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    two_source_home(home)
    old = next((home / ".claude" / "projects" / "-home-dev-work-blog").glob("*.jsonl"))
    month_ago = time.time() - 40 * 86400
    os.utime(old, (month_ago, month_ago))
    from typer.testing import CliRunner

    from exporter.cli import app

    result = CliRunner().invoke(
        app, ["--vault", str(vault), "--home", str(home), "--since", "7d", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert "blog" not in " ".join(note_files(vault))
    assert (
        CliRunner().invoke(app, ["--vault", str(vault), "--since", "yesterday-ish"]).exit_code == 2
    )
    iso = CliRunner().invoke(
        app, ["--vault", str(tmp_path / "v2"), "--home", str(home), "--since", "2026-04-02"]
    )
    assert iso.exit_code == 0
    names = " ".join(note_files(tmp_path / "v2"))
    assert (
        "claude question 1" in names
        and "codex question" in names
        and "claude question 0" not in names
    )


def test_a_note_whose_created_became_a_date_in_obsidian_is_listed(tmp_path):
    """Set to the Date type in Obsidian, ``created`` is written as a YAML date: the index
    notes still list the note (by that day), instead of failing on every later run."""
    home, vault = tmp_path / "home", tmp_path / "v"
    two_source_home(home)
    export(vault, home)
    (note,) = [n for n in note_files(vault) if "claude question 1" in n]
    path = vault / note
    path.write_text(re.sub(r"(?m)^created: .*$", "created: 2026-04-09", path.read_text()))
    add_later_session(home, "1ndex000-0000-4000-8000-0000000000bb", "2026-04-05T09:00:00Z")
    report = export(vault, home)
    assert not report.problems, report.problems
    index = (vault / "AI Sessions" / "Projects" / "shop.md").read_text()
    body = index.split("%% ccexport:begin")[1]
    lines = [line for line in body.splitlines() if line.startswith("- ")]
    assert [line.split(" · ")[0] for line in lines][:2] == ["- 2026-04-09", "- 2026-04-05"]
    top = (vault / "AI Sessions" / "Projects.md").read_text()
    # (dated by the project's last message, as its index's updated: the session of the 5th)
    assert "· 4 sessions · Claude Code, Codex · latest 2026-04-05" in top
