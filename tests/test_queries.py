"""The README's queries, run against the demo vault the way Dataview and Bases read it:
`FROM #ai-session` takes a note when one of its tags is ai-session or below it; GROUP BY
model and sums over the numeric properties; a daily note's `FROM [[]]` (or Bases'
`file.hasLink(this.file)`) takes the sessions whose `day` links to it."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from datetime import UTC
from pathlib import Path

import frontmatter
import pytest
from conftest import EXAMPLES_HOME

from exporter.export import ExportOptions, run_export


def in_tag(tags, tag: str) -> bool:
    return any(t == tag or str(t).startswith(tag + "/") for t in tags or [])


@pytest.fixture(scope="module")
def vault(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("home")
    shutil.copytree(EXAMPLES_HOME, home, dirs_exist_ok=True)
    v = tmp_path_factory.mktemp("vault")
    (v / ".obsidian").mkdir()
    (v / ".obsidian" / "daily-notes.json").write_text(json.dumps({"folder": "Daily"}))
    run_export(ExportOptions(vault=v, home=home, timezone=UTC, workers=1))
    return v


def pages(vault: Path) -> list[tuple[Path, dict]]:
    return [(p, frontmatter.loads(p.read_text()).metadata) for p in sorted(vault.rglob("*.md"))]


def test_from_ai_session_takes_sessions_and_no_index_note(vault):
    taken = [(p, fm) for p, fm in pages(vault) if in_tag(fm.get("tags"), "ai-session")]
    assert taken and all("session_id" in fm for _, fm in taken)
    assert all(not in_tag(fm.get("tags"), "ai-session") for _, fm in pages(vault)
               if "ccexport_index" in fm)  # fmt: skip


def test_sessions_grouped_by_model_with_active_minutes_tokens_and_cost(vault):
    # TABLE length(rows) AS sessions, sum(nonnull(rows.active)) AS "active (min)",
    #   sum(nonnull(rows.tokens)) AS tokens, sum(nonnull(rows.cost)) AS "cost (USD)"
    # FROM #ai-session WHERE !parent GROUP BY model
    groups: dict[str, list[dict]] = defaultdict(list)
    for _, fm in pages(vault):
        if in_tag(fm.get("tags"), "ai-session") and not fm.get("parent"):
            groups[fm.get("model")].append(fm)
    assert len([m for m in groups if m]) >= 3  # a session naming no model groups under null
    table = {
        model: (
            len(rows),
            sum(r["active"] for r in rows if r.get("active") is not None),
            sum(r["tokens"] for r in rows if r.get("tokens") is not None),
            sum(r["cost"] for r in rows if r.get("cost") is not None),
        )
        for model, rows in groups.items()
    }
    assert len(table) >= 3
    assert all(isinstance(v, int | float) for row in table.values() for v in row)
    assert any(row[1] > 0 for row in table.values()) and any(row[3] > 0 for row in table.values())


def test_a_daily_note_lists_that_day_s_sessions(vault):
    # in Daily/<date>.md:  LIST FROM [[]] AND #ai-session   (Bases: file.hasLink(this.file))
    by_day: dict[Path, list[str]] = defaultdict(list)
    for _, fm in pages(vault):
        if "day" in fm:
            target = fm["day"].removeprefix("[[").removesuffix("]]").split("|")[0]
            by_day[vault / f"{target}.md"].append(fm["title"])
            assert target == f"Daily/{fm['created']:%Y-%m-%d}"
    assert by_day and all(p.parent == vault / "Daily" for p in by_day)
