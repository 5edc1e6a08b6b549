"""A subagent's first prompt ("Parent agent") is the task the agent that started it wrote:
a model's Markdown, rendered as the assistant's replies are (its emphasis, lists and code
kept, made safe the same way), not escaped as what a person typed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from message_builder import msg
from message_builder import session as build_session

from exporter.model import Session, TextPart
from exporter.notes import NoteSettings, build_note

SID = "7d1e0c2a-4b5f-4c6d-8e9f-0a1b2c3d4e5f"


def _subagent(task: str, reply: str) -> Session:
    return build_session(
        msg("user", TextPart(task), minute=1),
        msg("assistant", TextPart(reply), minute=2),
        session_id=f"{SID}/agent-a1",
        parent_id=SID,
    )


def _shown(task: str, reply: str) -> tuple[str, str]:
    """The task's Markdown under "Parent agent" and the reply's under "Assistant"."""
    body = build_note(_subagent(task, reply), "n.md", NoteSettings(), lambda key: None).body
    head, rest = body.split("### Parent agent · 09:01\n\n", 1)
    shown_task, shown_reply = rest.split("\n\n### Assistant · 09:02\n\n", 1)
    return shown_task.rstrip("\n"), shown_reply.rstrip("\n")


def test_a_task_keeps_its_emphasis_lists_and_code():
    task = (
        "Find **every** caller of `retry()` in *src/*:\n\n- list each file\n- say why\n\n"
        "```py\nretry(3)\n```"
    )
    shown_task, shown_reply = _shown(task, task)
    assert "Find **every** caller of `retry()` in *src/*:" in shown_task
    assert "\\*" not in shown_task and "- list each file\n- say why" in shown_task
    assert shown_task == shown_reply


# Markdown a model writes: emphasis, lists, quotes, code, headings, links, and the marks
# a person's text would have escaped (``*``, ``_``, backslashes, HTML).
_pieces = st.sampled_from(
    ["a", "b c", "*", "**", "_", "`", "```", "\n", "\n\n", "- ", "1. ", "> ", "# ", "\\",
     "[x](https://e.org)", "<b>", "|", "~~", "$", "==", "#tag", "  ", "\t", "é"]
)  # fmt: skip
_markdown = st.lists(_pieces, min_size=1, max_size=16).map("".join)


@settings(max_examples=300, deadline=None)
@given(_markdown)
def test_a_task_renders_as_the_same_text_in_an_assistant_reply_would(text):
    # (a prompt's text is cleaned of the blanks around it, as every prompt's is)
    text = ("Task: " + text).strip()
    shown_task, shown_reply = _shown(text, text)
    assert shown_task == shown_reply
