"""A prompt or a reply that begins with indented lines (code pasted first, four spaces in)
keeps its first line's indentation where the source wraps it in a tag: Cursor's
``<user_query>`` and Antigravity's ``<USER_REQUEST>``, and a Cursor reply (found by the
evidence audit of the smaller sources). Stripped, the first line lost its indentation and
the rest kept theirs: ``x = 1`` then ``    y = 2``, as the person never typed it, and a
reply's indented code block became a paragraph."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import load_sessions

from exporter.adapters.antigravity import AntigravityAdapter
from exporter.adapters.cursor.transcripts import read_transcript
from exporter.model import TextPart, ThinkingPart

TYPED = "    x = 1\n    y = 2\nwhy does this fail?"
REPLY = "    pip install foo\n\nthen run it."


def _texts(messages, role: str, kind=TextPart) -> list[str]:
    return [p.text for m in messages if m.role == role for p in m.parts if isinstance(p, kind)]


def test_cursor_prompt_and_reply_keep_their_first_lines_indentation(tmp_path: Path):
    path = tmp_path / "t.jsonl"
    query = (
        "<timestamp>Tuesday, Apr 28, 2026, 10:15 AM (UTC+3)</timestamp>\n"
        f"<user_query>\n{TYPED}\n</user_query>\n"
    )
    reply = [
        {"type": "thinking", "thinking": f"\n{REPLY}\n"},
        {"type": "text", "text": f"\n{REPLY}\n\n[REDACTED]"},
    ]
    lines = [
        {"role": "user", "message": {"content": [{"type": "text", "text": query}]}},
        {"role": "assistant", "message": {"content": reply}},
        {"role": "user", "message": {"content": f"\n\n{TYPED}  \n"}},  # no wrapper at all
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    problems: list = []
    messages = read_transcript(path, problems).messages
    assert not problems
    assert _texts(messages, "user") == [TYPED, TYPED]
    assert _texts(messages, "assistant") == [REPLY]
    assert _texts(messages, "assistant", ThinkingPart) == [REPLY]


def test_cursor_prompt_of_two_queries_keeps_each_ones_indentation(tmp_path: Path):
    path = tmp_path / "t.jsonl"
    text = f"<user_query>\n{TYPED}\n</user_query>\n<user_query>\n    z = 3\n</user_query>"
    path.write_text(json.dumps({"role": "user", "message": {"content": text}}) + "\n")
    messages = read_transcript(path, []).messages
    assert _texts(messages, "user") == [f"{TYPED}\n\n    z = 3"]


def test_antigravity_prompt_keeps_its_first_lines_indentation(tmp_path: Path):
    logs = tmp_path / ".gemini/antigravity-cli/brain/c1/.system_generated/logs"
    logs.mkdir(parents=True)
    steps = [
        {"step_index": 0, "source": "USER_EXPLICIT", "type": "USER_INPUT", "status": "DONE",
         "created_at": "2026-07-01T10:00:00Z",
         "content": f"<USER_REQUEST>\n{TYPED}\n</USER_REQUEST>"},
        {"step_index": 1, "source": "MODEL", "type": "PLANNER_RESPONSE", "status": "DONE",
         "created_at": "2026-07-01T10:00:01Z", "content": REPLY},
        {"step_index": 2, "source": "USER_EXPLICIT", "type": "USER_INPUT", "status": "DONE",
         "created_at": "2026-07-01T10:00:02Z", "content": f"\n{TYPED}\n"},  # no wrapper
    ]  # fmt: skip
    (logs / "transcript.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
    (session,), problems = load_sessions(AntigravityAdapter(), tmp_path)
    assert not problems
    assert _texts(session.messages, "user") == [TYPED, TYPED]
    assert _texts(session.messages, "assistant") == [REPLY]
