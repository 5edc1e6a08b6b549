"""A source that shrank never erases a richer note: an older backup restored, a transcript
pruned by its tool, a partial copy. The note is kept and the run says so; ``force`` (the
``--force`` flag) overwrites it."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import note_files
from vault_builder import SID, export, run_cli, the_note, write_session

from exporter.export import ExportOptions, run_export
from exporter.notespec import TurnView
from exporter.vault import SHRUNK


def test_a_shrunk_source_keeps_the_note_and_says_so(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1", "q2", "q3"])
    export(vault, home)
    before = note_files(vault)
    write_session(home, ["q1"])  # a strict prefix: the older backup
    report = export(vault, home)
    assert note_files(vault) == before
    (change,) = report.changes
    assert change.action.value == "kept" and change.message.startswith(SHRUNK)
    assert not report.failed and any(SHRUNK in p.message for p in report.problems)
    assert report.as_dict()["warnings"] and report.total("unchanged") == 1


def test_fewer_messages_of_other_content_also_keeps_the_note(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1", "q2"])
    export(vault, home)
    before = note_files(vault)
    write_session(home, ["something else"])
    assert export(vault, home).changes[0].action.value == "kept"
    assert note_files(vault) == before


def test_force_overwrites_the_richer_note(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1", "q2", "q3"])
    export(vault, home)
    write_session(home, ["q1"])
    export(vault, home)  # kept, and the unit is remembered as read
    report = export(vault, home, force=True)  # read again even though it is unchanged
    assert report.total("updated") == 1
    text = the_note(vault).read_text()
    assert "q1" in text and "reply to q3" not in text


def test_a_grown_source_still_updates_and_a_dry_run_lists_the_kept_note(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1", "q2"])
    export(vault, home)
    write_session(home, ["q1"])
    assert export(vault, home, dry_run=True).changes[0].action.value == "kept"
    write_session(home, ["q1", "q2", "q3"])
    assert export(vault, home).total("updated") == 1


def test_the_command_line_keeps_then_forces(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1", "q2", "q3"])
    run_cli("--vault", str(vault), "--home", str(home))
    write_session(home, ["q1"])
    kept = run_cli("--vault", str(vault), "--home", str(home))
    assert kept.returncode == 0 and SHRUNK in kept.stderr, kept.stderr
    assert "reply to q3" in the_note(vault).read_text()
    forced = run_cli("--vault", str(vault), "--home", str(home), "--force")
    assert forced.returncode == 0 and "1 updated" in forced.stdout, forced.stdout
    assert "reply to q3" not in the_note(vault).read_text()


def _cut_inside_last_reply(home, blocks) -> tuple[Path, str]:
    """A session whose last reply is ``blocks``, one line each as Claude Code writes them;
    returns its file and the text of the copy cut before that reply's last line."""
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-04T10:00:00Z")
    s.user("look at the config loader")
    s.assistant(blocks)
    path = s.write(home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID}.jsonl")
    return path, "".join(path.read_text().splitlines(keepends=True)[:-1])


@pytest.mark.parametrize("view", [TurnView(), TurnView(thinking="hidden")], ids=["same", "other"])
def test_a_copy_cut_inside_the_last_reply_keeps_the_richer_note(tmp_path, view):
    """As many messages, but the reply's last call gone (a backup taken mid-answer): the
    note that shows the call is kept, and the run says what it holds more of; also in a run
    with other settings (the whole vault rendered again by this same version: review19)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    path, cut = _cut_inside_last_reply(home, [
        {"type": "text", "text": "Reading it first."},
        tool_use("Bash", {"command": "cat loader_config.py"}, "toolu_cut_1"),
    ])  # fmt: skip
    export(vault, home)
    before = note_files(vault)
    assert "loader_config.py" in the_note(vault).read_text()
    path.write_text(cut)
    report = export(vault, home, view=view)
    (change,) = report.changes
    assert change.action.value == "kept" and change.message.startswith(SHRUNK)
    assert "1 tool calls, the source now 0" in change.message
    assert note_files(vault) == before and "loader_config.py" in the_note(vault).read_text()
    assert export(vault, home, force=True).total("updated") == 1
    assert "loader_config.py" not in the_note(vault).read_text()


def test_a_copy_cut_inside_the_last_reply_before_later_text_keeps_the_note(tmp_path):
    """As many messages and calls, but the reply's last text gone: its end is earlier."""
    home, vault = tmp_path / "home", tmp_path / "v"
    path, cut = _cut_inside_last_reply(home, [
        {"type": "text", "text": "The loader reads `settings_path` once."},
        {"type": "text", "text": "So the cache_file is never refreshed."},
    ])  # fmt: skip
    export(vault, home)
    path.write_text(cut)
    (change,) = export(vault, home).changes
    assert change.action.value == "kept" and "end at 10:00:" in change.message, change.message
    assert "cache_file is never refreshed" in the_note(vault).read_text()


def _exported_with_a_call(tmp_path: Path) -> tuple[Path, Path]:
    """A session of one call and its result, exported: (home, vault)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    s = ClaudeSession(SID, "/home/dev/work/app", start="2026-03-04T10:00:00Z")
    s.user("look at the config loader")
    s.assistant([tool_use("Bash", {"command": "cat loader_config.py"}, "toolu_1")])
    s.tool_result("toolu_1", "cache_file = '~/.cache/app'")
    s.assistant("It caches in your home.")
    s.write(home / ".claude" / "projects" / "-home-dev-work-app" / f"{SID}.jsonl")
    export(vault, home)
    return home, vault


@pytest.mark.parametrize("view", [TurnView(tool_output="none"), TurnView(tools="hidden")])
def test_a_note_made_again_with_other_settings_or_zone_is_written(tmp_path, view):
    """Settings that show less, or another time zone (every time moves, its start too),
    give a shorter note of the same source: written, not kept."""
    home, vault = _exported_with_a_call(tmp_path)
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, view=view))
    assert report.total("updated") == 1 and not report.problems
    west = run_export(ExportOptions(vault=vault, home=home, timezone=ZoneInfo("America/Lima")))
    assert west.total("updated") == 1 and not west.problems
    assert "created: 2026-03-04T05:00:05" in the_note(vault).read_text()


def test_a_note_an_older_version_dated_or_counted_otherwise_is_written(tmp_path, monkeypatch):
    """After an upgrade a note may end later, or count more tool calls, than this version
    makes of the same source: Copilot CLI's end moved from its last event to its last
    message. Such notes were kept as if their source had been cut ("fewer turns; kept")
    and stayed stale until --force. Under another version, only messages decide."""
    from exporter import render

    home, vault = _exported_with_a_call(tmp_path)
    note = the_note(vault)
    text = note.read_text()
    updated = next(line for line in text.splitlines() if line.startswith("updated: "))
    calls = next(line for line in text.splitlines() if line.startswith("tool_calls: "))
    older = text.replace(updated, "updated: 2026-03-04T11:59:00Z").replace(calls, "tool_calls: 9")
    note.write_text(older + "\nmy own line\n")  # as the older version wrote it, and mine
    monkeypatch.setattr(render, "NOTES_REVISION", "after an upgrade")
    # A first run after the upgrade limited to another source moves the vault's render on:
    # each unit still knows the version that rendered it (review19).
    assert export(vault, home, sources=["codex"]).total("found") == 0
    report = export(vault, home)
    assert report.total("updated") == 1 and not report.problems, report.problems
    now = note.read_text()
    assert updated in now and calls in now and now.endswith("\nmy own line\n")


def test_the_warning_names_another_machines_fuller_copy_and_what_force_does(tmp_path):
    """In a synced vault the likely cause is a fuller copy another machine exported, which
    --force would replace with this machine's shorter one (review29 F10)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["a", "b", "c"])
    export(vault, home)
    write_session(home, ["a"])
    (change,) = export(vault, home).changes
    assert "another machine syncing this vault may have exported a fuller copy" in change.message
    assert "--force writes this machine's copy over the note, replacing a fuller one" in (
        change.message
    )
