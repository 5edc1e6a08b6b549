"""Sessions.base: valid YAML with only documented Bases keys, written once, then only
extended with views ccexport never wrote; the user's views, edits and deletions kept."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES_HOME

from exporter.bases import BASE_NAME, base_document
from exporter.export import ExportOptions, run_export
from exporter.notes import SOURCE_LABELS

# From help.obsidian.md "Bases syntax" (top level, views) and the API's BasesSortConfig.
TOP_KEYS = {"filters", "formulas", "properties", "summaries", "views"}
VIEW_KEYS = {"type", "name", "limit", "groupBy", "filters", "order", "summaries", "sort"}
FILTER_KEYS = {"and", "or", "not"}
FIRST = ["claude-code", "codex", "cursor", "trae", "copilot"]  # the first run's sources


def check_filters(value) -> None:
    if isinstance(value, str):
        return
    assert isinstance(value, dict) and len(value) == 1 and set(value) <= FILTER_KEYS, value
    for item in next(iter(value.values())):
        check_filters(item)


def check_schema(doc: dict) -> None:
    assert set(doc) <= TOP_KEYS
    check_filters(doc["filters"])
    assert all(isinstance(f, str) for f in doc.get("formulas", {}).values())
    for prop in doc.get("properties", {}).values():
        assert set(prop) <= {"displayName"}
    names = [v["name"] for v in doc["views"]]
    assert len(names) == len(set(names))
    for view in doc["views"]:
        assert set(view) <= VIEW_KEYS and view["type"] == "table"
        if "filters" in view:
            check_filters(view["filters"])
        for sort in view.get("sort", []):
            assert set(sort) == {"property", "direction"} and sort["direction"] in ("ASC", "DESC")
        for column in view["order"]:
            assert not column.startswith("formula.") or column[8:] in doc["formulas"]


def export(vault: Path, home: Path = EXAMPLES_HOME, **kw) -> None:
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1, **kw))


@pytest.fixture
def vault(tmp_path) -> Path:
    v = tmp_path / "vault"
    export(v, sources=FIRST)
    return v


def sources_in(vault: Path) -> set[str]:
    import frontmatter
    from conftest import note_files

    return {frontmatter.loads(t.decode()).metadata["source"] for t in note_files(vault).values()}


def base_file(vault: Path) -> Path:
    return vault / "AI Sessions" / BASE_NAME


def test_the_base_parses_and_uses_only_documented_keys(vault):
    doc = yaml.safe_load(base_file(vault).read_text())
    check_schema(doc)
    views = {v["name"]: v for v in doc["views"]}
    labels = sorted({SOURCE_LABELS[s] for s in sources_in(vault)})
    assert list(views) == ["All sessions", *labels]
    assert {"Claude Code", "Codex", "Cursor"} <= set(labels)
    assert views["Codex"]["filters"] == {"and": ['source == "codex"']}
    assert views["All sessions"]["sort"] == [{"property": "created", "direction": "DESC"}]
    assert views["All sessions"]["order"] == [
        "created", "formula.session", "source", "project", "model", "active", "tokens", "cost",
    ]  # fmt: skip
    assert doc["filters"] == {
        "and": [
            'file.hasTag("ai-session")',
            {"not": ['file.hasProperty("parent")', 'file.hasProperty("previous_part")']},
        ]
    }


def test_every_property_the_base_shows_is_one_the_notes_have(vault):
    import frontmatter
    from conftest import note_files

    shown = {c for c in base_document(["codex"])["views"][0]["order"] if "." not in c}
    found = set()
    for text in note_files(vault).values():
        found |= set(frontmatter.loads(text.decode()).metadata)
    assert shown <= found


def test_index_notes_are_outside_the_session_tag(vault):
    import frontmatter

    index = frontmatter.loads((vault / "AI Sessions" / "Projects.md").read_text()).metadata
    assert not any(t == "ai-session" or t.startswith("ai-session/") for t in index["tags"])


def test_user_views_and_edits_are_kept_and_new_assistants_added(vault, tmp_path):
    path = base_file(vault)
    doc = yaml.safe_load(path.read_text())
    doc["views"] = [v for v in doc["views"] if v["name"] != "Trae"]  # the user deleted one
    doc["views"][0]["order"] = ["created", "formula.session"]  # and changed ours
    doc["views"].append({"type": "cards", "name": "Mine", "order": ["file.name"]})
    path.write_text("# my comment\n" + yaml.safe_dump(doc, sort_keys=False))
    # new assistants appear (the demo home has more sources): their views are added
    export(vault)
    text = path.read_text()
    after = yaml.safe_load(text)
    names = [v["name"] for v in after["views"]]
    assert "Trae" not in names  # deleted stays deleted
    new = sorted({SOURCE_LABELS[s] for s in sources_in(vault) - set(FIRST)})
    assert new and names[-len(new) - 1 :] == ["Mine", *new]
    assert after["views"][0]["order"] == ["created", "formula.session"]
    assert "# my comment" in text
    check_schema({**after, "views": [v for v in after["views"] if v["name"] != "Mine"]})


def test_an_unreadable_base_is_left_alone(vault):
    path = base_file(vault)
    path.write_text("views: [unclosed\n")
    export(vault, force=True)
    assert path.read_text() == "views: [unclosed\n"


def test_a_deleted_base_is_written_again_by_the_next_run_that_changes_notes(vault):
    base_file(vault).unlink()
    export(vault, sources=FIRST)
    assert not base_file(vault).exists()  # nothing changed: index notes and base not redone
    export(vault)  # more sources: notes change
    views = yaml.safe_load(base_file(vault).read_text())["views"]
    assert len(views) == 1 + len({SOURCE_LABELS[s] for s in sources_in(vault)})


def test_dry_run_writes_no_base(tmp_path):
    export(tmp_path / "v", dry_run=True)
    assert not base_file(tmp_path / "v").exists()


def test_the_index_notes_and_the_base_share_one_walk_of_the_vault(tmp_path, monkeypatch):
    """Both list every note of the vault: it is walked once for them, not once each (a
    20,000-note vault takes about 0.3 s to walk)."""
    from exporter.vault import Vault

    walks: list[int] = []
    notes = Vault.notes

    def counted(self, describe):
        walks.append(1)
        return notes(self, describe)

    monkeypatch.setattr(Vault, "notes", counted)
    report = run_export(ExportOptions(vault=tmp_path / "v", home=EXAMPLES_HOME, timezone=UTC))
    assert report.indexes and any(c.relpath.endswith(BASE_NAME) for c in report.indexes)
    assert len(walks) == 1
