"""Adapters hand over plain values; how text looks is the note's decision (no Markdown)."""

from __future__ import annotations

from codex_builder import CodexRollout
from conftest import load_sessions

from exporter.adapters.codex import CodexAdapter
from exporter.model import TextPart

TID = "019a0000-0000-7000-8000-00000000abcd"


def test_a_codex_review_is_plain_text(tmp_path):
    rollout = CodexRollout(TID)
    rollout.turn().user("review my change")
    rollout.event(
        {
            "type": "exited_review_mode",
            "review_output": {
                "overall_explanation": "Two problems.",
                "findings": [
                    {"title": "Off by one in __init__.py", "body": "Use range(n)."},
                    {"title": "Unused **kwargs", "body": ""},
                ],
            },
        }
    )
    rollout.write(tmp_path / ".codex")
    sessions, _ = load_sessions(CodexAdapter(), tmp_path)
    texts = [p.text for m in sessions[0].messages for p in m.parts if isinstance(p, TextPart)]
    assert texts[-1] == (
        "Two problems.\n\nOff by one in __init__.py\nUse range(n).\n\nUnused **kwargs"
    )
