"""ccexport's own remark on what a source keeps not (a Cursor transcript without times or
tool output, Copilot's edits pending when the chat was saved) is shown, but is no message
of the session: ``messages`` and the index's count leave it out (review33 1)."""

from __future__ import annotations

from datetime import UTC

import yaml
from conftest import note_files
from cursor_agent_builder import AgentChat, tool

from exporter.export import ExportOptions, run_export

CHAT = "3f2a9c1e-7b4d-4e8f-9a6b-0c1d2e3f4a5b"


def test_a_cursor_transcript_counts_its_prompt_and_replies_not_the_remark_before_them(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    chat = AgentChat(home, "/w/app", CHAT).user("read it")
    chat.reply(tool("Read", path="/w/app/a.txt")).reply("It is empty.").write()
    run_export(ExportOptions(vault=vault, home=home, sources=["cursor"], timezone=UTC))
    (note,) = [body.decode() for body in note_files(vault).values()]
    assert "> [!info] Notification\n>\n> The transcript records no times" in note
    assert yaml.safe_load(note.split("---\n", 2)[1])["messages"] == 3
    index = (vault / "AI Sessions" / "Projects" / "app.md").read_text(encoding="utf-8")
    assert " · 3 messages" in index and " · 4 messages" not in index


def test_errors_is_left_out_where_no_call_kept_its_output(tmp_path):
    """Cursor's transcript keeps no tool output: how many calls failed is not known, and
    ``errors: 0`` would call them clean; where a result is kept, it counts (review33 7)."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    chat = AgentChat(home, "/w/app", CHAT).user("read it")
    chat.reply(tool("Read", path="/w/app/a.txt")).reply("It is empty.").write()
    run_export(ExportOptions(vault=vault, home=home, sources=["cursor"], timezone=UTC))
    (note,) = [body.decode() for body in note_files(vault).values()]
    fm = yaml.safe_load(note.split("---\n", 2)[1])
    assert fm["tool_calls"] == 1 and "errors" not in fm
    chat.results("").write()
    run_export(ExportOptions(vault=vault, home=home, sources=["cursor"], timezone=UTC))
    (note,) = [body.decode() for body in note_files(vault).values()]
    assert yaml.safe_load(note.split("---\n", 2)[1])["errors"] == 0
