"""A Markdown blockquote the model wrote in a reply (``> `` lines without the two spaces
Aider ends each message of its own with) stays in the reply, quoted: not Aider's output
(review21 F2)."""

from __future__ import annotations

from aider_builder import AiderLog
from test_aider_adapter import load, utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)

from exporter.model import ToolCallPart, ToolResultPart

QUOTE = "> Simple is better than complex.\n> Flat is better than nested."


def test_a_blockquote_in_a_reply_stays_in_the_reply(tmp_path):
    log = AiderLog().run("2026-01-05 10:00:00").prompt("explain the zen")
    log.reply(f"Here is a quote:\n\n{QUOTE}\n\nThat is the Zen.")
    log.tokens("1.2k", "20", "0.01", "0.01")
    log.prompt("and a note?").reply(f"> **Note:** it is a poem.\n\n{QUOTE}")
    log.aider("Applied edit to zen.txt")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    replies = [p.text for m in session.messages if m.role == "assistant" for p in m.parts]
    assert replies == [
        f"Here is a quote:\n\n{QUOTE}\n\nThat is the Zen.",
        f"> **Note:** it is a poem.\n\n{QUOTE}",
    ]
    calls = [p for m in session.messages for p in m.parts if isinstance(p, ToolCallPart)]
    results = [p.output for m in session.messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert [c.input for c in calls] == [{"path": "zen.txt"}]  # Aider's own line stays its own
    assert results == ["Applied edit to zen.txt"]
