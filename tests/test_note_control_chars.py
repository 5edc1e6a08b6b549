"""No control character from a session reaches a note: a NUL made git and grep take the
note for a binary file, and ESC or BEL are nothing a reader can see. Prose and tool
outputs were cleaned before; a tool's name, a command, a model's id, a title were not."""

from __future__ import annotations

import re
from datetime import UTC

from claude_builder import ClaudeSession, tool_use
from hypothesis import given
from hypothesis import strategies as st

from exporter import markdown
from exporter.export import ExportOptions, run_export

# What a note may not hold: every C0 control but tab and line feed, and DEL.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_pieces = st.one_of(
    st.sampled_from(["\x00", "\x1b[31m", "\x07", "\r", "\x7f", "\x0c", "`", "[[", "\n", "*"]),
    st.text(st.characters(codec="utf-8"), max_size=3),
)
_texts = st.lists(_pieces, max_size=12).map("".join)


@given(_texts)
def test_no_filter_lets_a_control_character_through(text):
    outputs = [
        markdown.escape_prose(text),
        markdown.escape_prose(text, literal=True),
        markdown.escape_inline(text),
        markdown.fence(text, "sh"),
        markdown.code_span(text),
        markdown.clipped_code(text + "…", "…"),
        markdown.wikilink("note", text),
    ]
    assert not [out for out in outputs if CONTROL.search(out)]


def test_a_session_holding_them_in_every_field_makes_clean_notes(tmp_path):
    s = ClaudeSession("0ff0f0f0-1111-4222-8333-444444444444", "/w/proj")
    s.user("hello \x00 there")
    call = {"command": "echo a\x00b\x1b[1m", "description": "say\x07it"}
    s.assistant([tool_use("Bash", call, "t1")], model="claude-\x00x")
    s.tool_result("t1", "out\x00put")
    s.assistant([tool_use("Wr\x00ite", {"file_path": "/a\x00b.txt", "content": "x\x00y"}, "t2")])
    s.tool_result("t2", "ok")
    s.assistant("done \x00 now")
    s.raw({"type": "custom-title", "customTitle": "My\x00 ti\x1b[31mtle\x07", "sessionId": s.session_id})  # fmt: skip
    s.write(tmp_path / "home" / ".claude" / "projects" / "-w-proj" / f"{s.session_id}.jsonl")
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", timezone=UTC))
    notes = {p.relative_to(tmp_path / "v").as_posix(): p.read_text()
             for p in (tmp_path / "v").rglob("*.md")}  # fmt: skip
    assert len(notes) == 3  # the session, its project's index and the list of projects
    assert not {name: CONTROL.findall(text) for name, text in notes.items() if CONTROL.search(text)}
    (session,) = [text for name, text in notes.items() if "/claude-code/" in name]
    assert "# My title\n" in session and "echo ab" in session and "`Write`" in session
    assert "/claude-code/proj/2026-11-20 My title 0ff0f0f0.md" in "".join(notes)


_long_texts = st.tuples(
    st.text(st.characters(), min_size=250, max_size=600),  # lone surrogates too
    st.integers(min_value=0, max_value=600),
    st.sampled_from(["", "\x00", "\x1b", "\r", "\x7f", "\x1f", "\x0b", "\t", "\n", "\u0085"]),
).map(lambda t: t[0][: t[1]] + t[2] + t[0][t[1] :])


@given(_long_texts)
def test_a_long_text_is_judged_as_a_short_one(text):
    """A text of 256 characters or more is read as bytes (a translate, then memchr), not by
    the character class: both must find the same control characters wherever they stand."""
    assert markdown.has_hidden(text) == (CONTROL.search(text) is not None)
    assert CONTROL.search(markdown.escape_prose(text)) is None
    assert CONTROL.search(markdown.fence(text)) is None
