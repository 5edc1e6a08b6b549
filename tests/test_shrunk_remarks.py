"""An upgrade past 2026-12-07.19 counts one message fewer in a Cursor transcript's or a
Copilot chat's note, and one past 2026-12-07.21 in the note of a Gemini session whose prompt
log alone remains: ccexport's own remark on what the source keeps (a notification) is no
longer a message. A note an older version wrote holds that one more; it is written, not kept
as if its source had shrunk ("fewer turns; kept" until --force). Any other drop, one from a
version that already left the source's remark uncounted, and a note of a source ccexport
makes no remark on, still keeps the note."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path

import pytest
from cursor_agent_builder import AgentChat, tool
from gemini_builder import project_folder, write_prompt_log
from vault_builder import write_session

from exporter import render
from exporter.export import ExportOptions, run_export
from exporter.vault import SHRUNK

CHAT = "3f2a9c1e-7b4d-4e8f-9a6b-0c1d2e3f4a5b"


def _cursor(home: Path) -> None:
    chat = AgentChat(home, "/w/app", CHAT).user("read it")
    chat.reply(tool("Read", path="/w/app/a.txt")).reply("It is empty.").write()


def _gemini(home: Path) -> None:
    """Two prompts in the prompt log, and no chat file: the note says only they remain."""
    folder = project_folder(home, "/home/dev/work/api", "api")
    write_prompt_log(
        folder,
        [
            (CHAT, "2026-04-01T09:00:00Z", "Why does the build fail?"),
            (CHAT, "2026-04-01T09:05:00Z", "And on Windows?"),
        ],
    )


def _claude(home: Path) -> None:
    write_session(home, ["q1"])  # two messages, as the Cursor chat has three


def _the_note(vault: Path) -> Path:
    (note,) = [p for p in (vault / "AI Sessions").rglob("*/*/*.md") if "Projects" not in p.parts]
    return note


def _messages(note: Path, more: int = 0) -> int:
    text = note.read_text(encoding="utf-8")
    count = int(re.search(r"^messages: (\d+)$", text, re.MULTILINE)[1])
    if more:
        note.write_text(text.replace(f"messages: {count}\n", f"messages: {count + more}\n", 1))
    return count


@pytest.mark.parametrize(
    ("source", "made_by", "more", "kept"),
    [
        (_cursor, "2026-12-07.18", 1, False),  # counted its remark: one more is that
        (_cursor, "2026-12-06.3", 1, False),
        (_cursor, "2026-12-07.18", 2, True),  # more than a remark: the source shrank
        (_cursor, "2026-12-07.20", 1, True),  # another version, counting as this one does
        (_gemini, "2026-12-07.20", 1, False),  # Gemini's remark counted a revision longer
        (_gemini, "2026-12-06.3", 1, False),
        (_gemini, "2026-12-07.20", 2, True),
        (_gemini, "2026-12-07.21", 1, True),  # the first not counting it
        (_claude, "2026-12-07.18", 1, True),  # no remark of ccexport's in its notes
    ],
)
def test_a_note_of_a_version_counting_remarks_may_hold_one_message_more(
    tmp_path, monkeypatch, source, made_by, more, kept
):
    home, vault = tmp_path / "home", tmp_path / "v"
    source(home)
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=1)
    monkeypatch.setattr(render, "NOTES_REVISION", made_by)
    run_export(options)
    note = _the_note(vault)
    counted = _messages(note, more)
    monkeypatch.setattr(render, "NOTES_REVISION", "2026-12-08.1")
    report = run_export(options)
    (change,) = [c for c in report.changes if c.relpath == str(note.relative_to(vault))]
    if kept:
        assert change.action.value == "kept" and change.message.startswith(SHRUNK)
    else:
        assert change.action.value == "updated" and not report.problems, report.problems
        assert _messages(note) == counted


def test_gemini_s_remark_that_only_the_prompts_remain_is_no_message(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    _gemini(home)
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    note = _the_note(vault)
    assert "Only the prompts remain" in note.read_text(encoding="utf-8")
    assert _messages(note) == 2  # the two prompts


def test_no_remark_cutoff_is_past_the_revision_this_code_writes():
    """A cutoff names the revision that stopped counting a source's remark: one past this
    code's own would keep the notes this code writes as counting it."""
    from exporter.notecopies import REMARKS_UNCOUNTED

    date, _, number = render.NOTES_REVISION.partition(".")
    assert all(cut <= (date, int(number)) for cut in REMARKS_UNCOUNTED.values())
