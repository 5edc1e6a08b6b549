"""Demo data: a small synthetic Cursor Agent history under ``<home>/.cursor`` (FORMATS.md §3.7).

- an IDE Agent conversation in a Windows project (``C:\\Users\\dev\\source\\win-app``) that
  delegates to a subagent, with tool calls, a ``[REDACTED]`` thinking step, unicode, and a
  title from ``ai-tracking/ai-code-tracking.db``;
- a ``cursor-agent`` CLI chat whose title and model come from its ``store.db``, with tool
  results written on user lines.

Every prompt carries a ``<timestamp>`` tag, so the notes do not depend on file times.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from cursor_agent_builder import AgentChat, store_db, summaries_db, tool

IDE_CHAT = "5b7e9d2c-3a41-4f60-8e2d-7c1b0a9f8e63"
SUBAGENT = "e4d3c2b1-9f8e-4a7b-8c6d-5e4f3a2b1c0d"
CLI_CHAT = "0c9d8e7f-6a5b-4c3d-9e2f-1a0b9c8d7e6f"
WIN_APP = "C:\\Users\\dev\\source\\win-app"
API = "/home/dev/work/api"


def write(home: Path) -> None:
    """Write the demo conversations into ``home``."""
    _ide_conversation(home)
    _cli_chat(home)


def _ide_conversation(home: Path) -> None:
    start = datetime(2026, 4, 28, 7, 15, tzinfo=UTC)
    chat = AgentChat(home, WIN_APP, IDE_CHAT)
    chat.user(
        "Die Übersetzung der Fehlermeldungen fehlt — bitte für 日本語 ergänzen",
        start, 2, info=True, attached=WIN_APP + "\\src\\i18n.rs",
    )  # fmt: skip
    chat.reply(
        "Ich schaue mir zuerst die vorhandenen Meldungen an.",
        tool("Read", path=WIN_APP + "\\src\\i18n.rs"),
    )
    chat.reply("[REDACTED]")
    chat.reply(
        tool(
            "Task",
            description="Collect the message keys",
            subagent_type="explore",
            prompt="List every message key in src\\i18n.rs",
        )
    )
    chat.reply(
        "Die Schlüssel sind vollständig; ich ergänze die japanischen Texte.",
        tool("Shell", command="cargo test i18n", description="Run the i18n tests",
             working_directory=WIN_APP),
    )  # fmt: skip
    chat.reply("Fertig: `ja.rs` enthält jetzt 12 Meldungen, z. B. 「ファイルが見つかりません」.")
    chat.turn_ended()
    chat.write()
    child = chat.subagent(SUBAGENT)
    child.user("List every message key in src\\i18n.rs", start.replace(minute=16), 2)
    child.reply(tool("Grep", pattern="msg_", path=WIN_APP + "\\src"))
    child.reply("12 keys: `msg_not_found`, `msg_denied`, …")
    child.write()
    summaries_db(
        home,
        [{"conversationId": IDE_CHAT, "title": "Japanische Fehlermeldungen ergänzen",
          "tldr": "Added ja.rs", "model": "claude-4.5-sonnet", "mode": "agent",
          "updatedAt": int(start.timestamp() * 1000) + 600_000}],
    )  # fmt: skip


def _cli_chat(home: Path) -> None:
    start = datetime(2026, 5, 2, 18, 40, tzinfo=UTC)
    chat = AgentChat(home, API, CLI_CHAT)
    chat.user("why does `GET /users?limit=0` return 500?", start, -4)
    chat.reply(
        "Let me look at the handler.",
        tool("Grep", pattern="limit", path=API + "/src/routes/users.py"),
    )
    chat.results("42:    page = items[: 100 // limit]")
    chat.reply("`limit=0` divides by zero on line 42; I'll treat 0 as the default page size.")
    chat.user("ok, do it", start.replace(minute=44), -4)
    chat.reply(tool("Write", path=API + "/src/routes/users.py", contents="limit = limit or 20\n"))
    chat.results("wrote 1 file")
    chat.reply("Done: `limit=0` now means 20 items.")
    chat.write()
    store_db(
        chat.chat_folder(),
        {"agentId": CLI_CHAT, "name": "Division by zero in GET /users", "mode": "default",
         "createdAt": int(start.timestamp() * 1000), "lastUsedModel": "gpt-5",
         "latestRootBlobId": "0" * 64},
    )  # fmt: skip
