"""Daily notes: Moment.js formats, the plugin's settings, and a `day` link that resolves to
the daily note's file in a vault with the plugin configured."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import frontmatter
import pytest

from exporter import config
from exporter.daily import DailyNotes, daily_notes, format_date
from exporter.errors import ConfigError
from exporter.export import ExportOptions, run_export
from exporter.model import Message, Session, TextPart
from exporter.notes import NoteSettings, build_note
from exporter.stats import PropertySettings

DAY = date(2026, 11, 3)  # a Tuesday


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("YYYY-MM-DD", "2026-11-03"),
        ("YY.M.D", "26.11.3"),
        ("DD/MM/YYYY", "03/11/2026"),
        ("dddd, MMMM Do YYYY", "Tuesday, November 3rd 2026"),
        ("ddd D MMM", "Tue 3 Nov"),
        ("YYYY/MM/YYYY-MM-DD", "2026/11/2026-11-03"),
        ("[Week of] YYYY-MM-DD [at] D", "Week of 2026-11-03 at 3"),
        ("YYYY-[Q]Q", "2026-Q4"),
    ],
)
def test_moment_formats(pattern, text):
    assert format_date(DAY, pattern) == text


@pytest.mark.parametrize(("day", "suffix"), [(1, "1st"), (2, "2nd"), (11, "11th"), (12, "12th"),
                                             (13, "13th"), (22, "22nd"), (23, "23rd"), (31, "31st")])  # fmt: skip
def test_ordinals(day, suffix):
    assert format_date(date(2026, 1, day), "Do") == suffix


def plugin(vault: Path, settings: dict, core=None) -> None:
    (vault / ".obsidian").mkdir(parents=True, exist_ok=True)
    (vault / ".obsidian" / "daily-notes.json").write_text(json.dumps(settings))
    if core is not None:
        (vault / ".obsidian" / "core-plugins.json").write_text(json.dumps(core))


def test_plugin_settings_turn_it_on(tmp_path):
    plugin(tmp_path, {"folder": "Journal/", "format": "YYYY/MM-DD", "template": "t"})
    assert daily_notes(tmp_path, None, None, None) == DailyNotes("Journal", "YYYY/MM-DD")
    assert daily_notes(tmp_path, False, None, None) is None  # daily_notes = false wins


def test_without_the_plugin_off_unless_the_config_asks(tmp_path):
    assert daily_notes(tmp_path, None, None, None) is None
    assert daily_notes(tmp_path, True, None, None) == DailyNotes("", "YYYY-MM-DD")
    assert daily_notes(tmp_path, None, "Daily", None) == DailyNotes("Daily", "YYYY-MM-DD")


def test_plugin_switched_off_in_core_plugins_is_not_used(tmp_path):
    plugin(tmp_path, {"folder": "J"}, core={"daily-notes": False, "bases": True})
    assert daily_notes(tmp_path, None, None, None) is None
    plugin(tmp_path, {"folder": "J"}, core=["file-explorer"])  # the older list form
    assert daily_notes(tmp_path, None, None, None) is None


def test_broken_plugin_file_is_as_if_absent(tmp_path):
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "daily-notes.json").write_text("{not json")
    assert daily_notes(tmp_path, None, None, None) is None


def test_config_keys(tmp_path):
    s = config.Settings()
    config._apply(s, {"daily": {"folder": "Log", "format": "DD-MM-YYYY"}}, "f", allow_vault=False,
                  base=tmp_path)  # fmt: skip
    assert (s.daily_folder, s.daily_format, s.daily_notes) == ("Log", "DD-MM-YYYY", None)
    config._apply(s, {"daily_notes": False}, "f", allow_vault=False, base=tmp_path)
    assert s.daily_notes is False
    with pytest.raises(ConfigError, match="daily.folder"):
        config._apply(s, {"daily": {"folder": "../out"}}, "f", allow_vault=False, base=tmp_path)
    with pytest.raises(ConfigError, match="daily_notes"):
        config._apply(s, {"daily_notes": "yes"}, "f", allow_vault=False, base=tmp_path)


def _resolve(vault: Path, link: str) -> Path:
    """Where Obsidian opens a path-qualified wikilink: ``<vault>/<path>.md``."""
    target = link.removeprefix("[[").removesuffix("]]").split("|", 1)[0]
    return vault / f"{target}.md"


def test_day_link_resolves_to_the_daily_note_in_a_vault_with_the_plugin(tmp_path):
    vault = tmp_path / "vault"
    plugin(vault, {"folder": "Journal", "format": "YYYY/MM/dddd, MMMM Do YYYY"})
    started = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    # the daily note the plugin would have created for that day
    daily = vault / "Journal" / "2026" / "11" / "Friday, November 20th 2026.md"
    daily.parent.mkdir(parents=True)
    daily.write_text("# Friday\n")
    options = ExportOptions(vault=vault, timezone=UTC)
    session = Session("claude-code", "s1", (Message("user", (TextPart("hi"),), timestamp=started),),
                      Path("/x"), started_at=started)  # fmt: skip
    note = build_note(session, "n.md", options.note_settings(), lambda key: None)
    assert _resolve(vault, note.frontmatter["day"]) == daily


def test_day_property_in_exported_notes(tmp_path):
    from conftest import EXAMPLES_HOME, note_files

    vault = tmp_path / "vault"
    plugin(vault, {"format": "YYYY-MM-DD"})
    run_export(ExportOptions(vault=vault, home=EXAMPLES_HOME, timezone=UTC, workers=1))
    for text in note_files(vault).values():
        fm = frontmatter.loads(text.decode()).metadata
        assert fm["day"] == f"[[{fm['created']:%Y-%m-%d}]]"


def test_no_day_without_daily_notes():
    session = Session("codex", "s", (Message("user", (TextPart("x"),)),), Path("/x"),
                      started_at=datetime(2026, 1, 1, tzinfo=UTC))  # fmt: skip
    fm = build_note(session, "n.md", NoteSettings(properties=PropertySettings()), lambda k: None)
    assert "day" not in fm.frontmatter
