"""Sessions.base lists a session once, as the index notes count it: not a subagent's note,
nor a long session's later part (review35 7: "2 sessions" in Projects.md, 3 rows in the base).
Its filters are read here as Obsidian documents them (help.obsidian.md, "Bases syntax",
"Functions": ``and``, ``not``, ``file.hasTag``, ``file.hasProperty``)."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path

import yaml
from conftest import EXAMPLES_HOME

from exporter.bases import BASE_NAME
from exporter.export import ExportOptions, run_export

OLD_FILTERS = {"and": ['file.hasTag("ai-session")']}  # (what versions before wrote)
LIMIT = 4 * 1024  # small enough that some of the demo's sessions continue in parts


def export(vault: Path) -> None:
    options = ExportOptions(
        vault=vault, home=EXAMPLES_HOME, timezone=UTC, workers=1, note_max_bytes=LIMIT
    )
    assert not run_export(options).failed


def matches(rule, props: dict) -> bool:
    """Does a note with the properties ``props`` pass the Bases filter ``rule``?"""
    if isinstance(rule, dict):
        ((how, items),) = rule.items()
        found = [matches(item, props) for item in items]
        return all(found) if how == "and" else any(found) if how == "or" else not any(found)
    call = re.fullmatch(r'file\.(hasTag|hasProperty)\("([^"]+)"\)', rule)
    assert call, f"a filter this test does not read: {rule}"
    name, value = call.groups()
    if name == "hasProperty":
        return value in props
    return any(t == value or t.startswith(value + "/") for t in props.get("tags") or [])


def notes(vault: Path) -> list[dict]:
    found = []
    for path in (vault / "AI Sessions").rglob("*.md"):
        text = path.read_text()
        if text.startswith("---\n"):
            found.append(yaml.safe_load(text.split("---\n")[1]) or {})
    return found


def test_the_base_lists_each_session_once_as_the_index_notes_count_them(tmp_path):
    vault = tmp_path / "v"
    export(vault)
    every = notes(vault)
    assert any("parent" in n for n in every) and any(n.get("part") == 2 for n in every)
    counted = sum(n["sessions"] for n in every if "sessions" in n and "project" in n)
    base = yaml.safe_load((vault / "AI Sessions" / BASE_NAME).read_text())
    rows = [n for n in every if matches(base["filters"], n)]
    assert len(rows) == counted
    assert all("parent" not in n and n.get("part", 1) == 1 for n in rows)
    # A long session's row holds its tokens (its first part carries them).
    assert any(n.get("part") == 1 and n.get("tokens") for n in rows)


def test_a_base_with_the_filters_ccexport_wrote_before_gets_the_new_ones(tmp_path):
    vault = tmp_path / "v"
    export(vault)
    path = vault / "AI Sessions" / BASE_NAME
    doc = yaml.safe_load(path.read_text())
    ours = doc["filters"]
    assert ours != OLD_FILTERS
    doc["filters"] = OLD_FILTERS
    doc["views"].append({"type": "table", "name": "Mine", "order": ["file.name"]})
    path.write_text("# my comment\n" + yaml.safe_dump(doc, sort_keys=False))
    (vault / ".ccexport" / "state.json").unlink()  # (so that the next run writes notes)
    export(vault)
    text = path.read_text()
    after = yaml.safe_load(text)
    assert after["filters"] == ours and "# my comment" in text
    assert after["views"][-1]["name"] == "Mine"
    # Filters of the person's own are theirs.
    after["filters"] = {"and": ['file.hasTag("ai-session")', 'source == "codex"']}
    path.write_text(yaml.safe_dump(after, sort_keys=False))
    (vault / ".ccexport" / "state.json").unlink()
    export(vault)
    assert yaml.safe_load(path.read_text())["filters"] == after["filters"]
