"""A session title holding Markdown or link syntax (backticks, ``|``, ``]``, ``#``, ``^``),
as its project's index note links it. Obsidian reads a line from left to right: a ``[[``
opens a link that runs to the first ``]]``, before any code span inside it is looked for
(a title ``The Never `!` Type`` links in Obsidian), and its alias is shown as text. So the
link must reach its note's file, its alias hold no ``|`` or ``]`` (that would end or split
it) and show the title as typed otherwise (``#`` and ``^`` too), without a backslash
escape; a lone backtick must not matter."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession

from exporter.export import ExportOptions, run_export

TITLES = {
    "Fix the ` key in the parser": "Fix the ` key in the parser",
    "use `x` and `y` here": "use `x` and `y` here",
    "pipe a | b then ] c # d ^e": "pipe a b then c # d ^e",
    "the `]]` bit and ``` fences": "the ` ` bit and ``` fences",
}


def _links(line: str) -> list[tuple[str, str]]:
    """``(target, alias)`` of each ``[[…]]`` of a line, read as Obsidian reads it."""
    return [
        (inner.partition("|")[0], inner.partition("|")[2] or inner.partition("|")[0])
        for inner in re.findall(r"\[\[(.*?)\]\]", line)
    ]


def test_titles_with_markdown_link_their_notes_and_show_as_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for n, prompt in enumerate(TITLES):
        sid = f"0000abcd-0000-4000-8000-00000000{n:04d}"
        s = ClaudeSession(sid, "/home/dev/work/titles")
        s.user(prompt)
        s.assistant("ok")
        s.write(home / ".claude" / "projects" / "-w-titles" / f"{sid}.jsonl")
    vault = tmp_path / "v"
    assert not run_export(ExportOptions(vault=vault, home=home, timezone=UTC)).failed
    folder = vault / "AI Sessions"
    stems = {p.stem for p in (folder / "claude-code").rglob("*.md")}
    index = (folder / "Projects" / "titles.md").read_text(encoding="utf-8")
    lines = [line for line in index.splitlines() if line.startswith("- 2026")]
    shown = {}
    for line in lines:
        ((target, alias),) = _links(line)
        assert target in stems, line  # the link reaches its note
        assert "\\" not in alias and "|" not in alias, line
        shown[alias] = line
    assert sorted(shown) == sorted(TITLES.values())
