"""Antigravity: text ``truncated_fields`` says the log cut to nothing, and tool calls it cut
short, are said so, as a reply cut short is (adapters11)."""

from __future__ import annotations

from conftest import load_sessions
from test_antigravity_adapter import rendered, step, transcript

from exporter.adapters.antigravity import AntigravityAdapter

CUT = ["content"]


def said(part):
    """A part as (kind, text); ccexport's remark as ("cut", what it says was cut and how)."""
    if part.kind == "notice" and part.notice == "remark":
        return ("cut", part.text.removeprefix("Antigravity's log cut this ").partition(":")[0])
    return (part.kind, getattr(part, "text", getattr(part, "output", None)))


def test_a_text_cut_to_nothing_is_said_so(tmp_path):
    """A prompt, reply, thinking, summary and notice whose field is there but empty, and
    listed in ``truncated_fields``, still say the log cut them: to nothing."""
    transcript(
        tmp_path,
        [
            step(0, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nFirst\n</USER_REQUEST>"),
            step(1, "PLANNER_RESPONSE", content="Done."),
            step(2, "USER_INPUT", "USER_EXPLICIT", content="", truncated_fields=CUT),
            step(3, "PLANNER_RESPONSE", thinking="", content=" ",
                 truncated_fields=["thinking", "content"]),
            step(4, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\n", truncated_fields=CUT),
            step(5, "CHECKPOINT", "SYSTEM", content="", truncated_fields=CUT),
            step(6, "EPHEMERAL_MESSAGE", "SYSTEM", content="", truncated_fields=CUT),
            # (not cut: an empty prompt is no prompt, as it was)
            step(7, "USER_INPUT", "USER_EXPLICIT", content=""),
        ],
    )  # fmt: skip
    (session,), problems = load_sessions(AntigravityAdapter(), tmp_path)
    assert problems == []
    assert [(m.role, [said(p) for p in m.parts]) for m in session.messages] == [
        ("user", [("text", "First")]),
        ("assistant", [("text", "Done.")]),
        ("user", [("cut", "prompt to nothing")]),
        ("assistant", [("cut", "thinking to nothing"), ("cut", "reply to nothing")]),
        ("user", [("cut", "prompt to nothing")]),
        ("system", [("cut", "summary to nothing")]),
        ("system", [("cut", "notice to nothing")]),
    ]
    assert session.messages[2].parts[0].text == (
        "Antigravity's log cut this prompt to nothing: none of it is in it."
    )
    body = rendered(tmp_path)
    for what in ("prompt", "thinking", "reply", "summary", "notice"):
        assert f"Antigravity's log cut this {what} to nothing: none of it is in it." in body


def test_tool_calls_the_log_cut_short_are_said_so(tmp_path):
    """``tool_calls`` in ``truncated_fields``: the calls are kept as far as they go (an
    argument cut mid-way stays as the log has it) and followed by ccexport's remark."""
    cut_call = {"name": "view_file", "args": {"AbsolutePath": '"/tmp/repo/a.t'}}
    transcript(
        tmp_path,
        [
            step(0, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nLook\n</USER_REQUEST>"),
            step(1, "PLANNER_RESPONSE", content="Looking.", tool_calls=[cut_call],
                 truncated_fields=["tool_calls"]),
            step(2, "VIEW_FILE", content="1: hello\n"),
            step(3, "PLANNER_RESPONSE", tool_calls=[
                {"name": "list_dir", "args": {"DirectoryPath": '"/tmp/repo"'}}, cut_call,
            ], truncated_fields=["tool_calls"]),
            step(4, "LIST_DIRECTORY", content="a.txt\n"),
            step(5, "PLANNER_RESPONSE", content="Stopped.", tool_calls=[],
                 truncated_fields=["tool_calls"]),
            step(6, "PLANNER_RESPONSE", content="Whole.", tool_calls=[cut_call]),
        ],
    )  # fmt: skip
    (session,), problems = load_sessions(AntigravityAdapter(), tmp_path)
    assert problems == []
    assert [[said(p) for p in m.parts] for m in session.messages if m.role == "assistant"] == [
        [("text", "Looking."), ("tool_call", None), ("cut", "tool call short")],
        [("tool_call", None), ("tool_call", None), ("cut", "step's tool calls short")],
        [("text", "Stopped."), ("cut", "step's tool calls to nothing")],
        [("text", "Whole."), ("tool_call", None)],  # (not listed: not said, whatever it holds)
    ]
    first = session.messages[1]
    assert first.parts[1].input == {"AbsolutePath": '"/tmp/repo/a.t'}
    # The cut call still takes its output: the remark answers no call.
    results = [p for m in session.messages for p in m.parts if p.kind == "tool_result"]
    assert results[0].call_id == first.parts[1].call_id
    body = rendered(tmp_path)
    assert "Antigravity's log cut this tool call short: the rest is not in it." in body
    assert "Antigravity's log cut this step's tool calls short: the rest is not in it." in body
