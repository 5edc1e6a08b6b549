"""What Claude Code's IDE extension sends with a prompt (``<ide_opened_file>``,
``<ide_selection>``) is shown as other sources' editor context is, "Open in the editor" /
"Selected in the editor", not dropped without a trace (review26 F4): the replies below
a prompt often reason from it. Synthetic text only."""

from __future__ import annotations

from claude_builder import ClaudeSession
from conftest import the_exported_note

from exporter import clean
from exporter.model import AttachmentPart, TextPart

OPENED = (
    "<ide_opened_file>The user opened the file /home/dev/shop/cart.py in the IDE. This may "
    "or may not be related to the current task.</ide_opened_file>"
)
SELECTED = (
    "<ide_selection>The user selected the lines 3 to 4 from /home/dev/shop/cart.py:\n"
    "    def total(self):\n        return sum(self.items)\n\n"
    "This may or may not be related to the current task.</ide_selection>"
)


def _cleaned(text: str) -> list:
    return clean.clean_user_text(text, clean.CLAUDE_CODE)


def test_the_open_file_is_named_and_the_prompt_kept():
    opened, prompt = _cleaned(f"{OPENED}\nwhy is the total wrong?")
    assert opened == AttachmentPart(
        "text/plain", None, "/home/dev/shop/cart.py", origin="editor-file"
    )
    assert prompt == TextPart("why is the total wrong?")


def test_the_selection_keeps_its_lines_and_its_code():
    (selection,) = _cleaned(SELECTED)
    assert selection.origin == "editor-selection"
    assert selection.name == "/home/dev/shop/cart.py:3-4"
    assert selection.data == b"    def total(self):\n        return sum(self.items)"


def test_one_line_selected_and_a_wording_not_known():
    one = "<ide_selection>The user selected the lines 7 to 7 from C:\\shop\\a.py:\nx = 1\n"
    (selection,) = _cleaned(one + "</ide_selection>")
    assert (selection.name, selection.data) == ("C:\\shop\\a.py:7", b"x = 1")
    (other,) = _cleaned("<ide_opened_file>Opened: a.py</ide_opened_file>")
    assert (other.origin, other.name, other.data) == ("editor-file", None, b"Opened: a.py")


def test_the_note_says_what_the_editor_sent(tmp_path):
    sid = "ed17ed17-1111-4222-8333-444444444444"
    s = ClaudeSession(sid, "/home/dev/shop")
    s.user([{"type": "text", "text": OPENED}, {"type": "text", "text": SELECTED},
            {"type": "text", "text": "why is the total wrong?"}])  # fmt: skip
    s.assistant("The selected total sums the items, not their prices.")
    s.write(tmp_path / ".claude" / "projects" / "-home-dev-shop" / f"{sid}.jsonl")
    note = the_exported_note(tmp_path, "claude-code")
    assert "*Open in the editor `/home/dev/shop/cart.py`, not stored in the session.*" in note
    assert "> [!cite] Selected in the editor `/home/dev/shop/cart.py:3-4`" in note
    assert ">         return sum(self.items)" in note
    assert "may or may not be related" not in note and "why is the total wrong?" in note


# Newer Claude Code writes the editor's context as attachment lines after the prompt's line
# (``opened_file_in_ide``, ``selected_lines_in_ide``), not as tags in its text.
SID_LINES = "ed17ed17-1111-4222-8333-555555555555"


def _with_attachment_lines(folder, *attachments) -> ClaudeSession:
    s = ClaudeSession(SID_LINES, "/home/dev/shop")
    s.user("why is the total wrong?")
    for attachment in attachments:
        s.raw(s._envelope("attachment", attachment=attachment))
    s.assistant("The selected total sums the items, not their prices.")
    s.user("and the tax?")
    s.assistant("Tax is added once, at checkout.")
    s.write(folder / ".claude" / "projects" / "-home-dev-shop" / f"{SID_LINES}.jsonl")
    return s


OPENED_LINE = {"type": "opened_file_in_ide", "filename": "/home/dev/shop/cart.py"}
SELECTED_LINE = {
    "type": "selected_lines_in_ide",
    "ideName": "Visual Studio Code",
    "filename": "/home/dev/shop/cart.py",
    "lineStart": 3,
    "lineEnd": 4,
    "content": "    def total(self):\n        return sum(self.items)",
}


def test_attachment_lines_are_the_prompts_editor_context(tmp_path):
    _with_attachment_lines(tmp_path, OPENED_LINE, SELECTED_LINE)
    note = the_exported_note(tmp_path, "claude-code")
    opened = "*Open in the editor `/home/dev/shop/cart.py`, not stored in the session.*"
    selected = "> [!cite] Selected in the editor `/home/dev/shop/cart.py:3-4`"
    assert opened in note and selected in note and ">         return sum(self.items)" in note
    # at the person's turn, before what they typed (as the older tags stand), said once
    first_turn = note.split("### User", 2)[1]
    assert first_turn.index(opened) < first_turn.index(selected)
    assert first_turn.index(selected) < first_turn.index("why is the total wrong?")
    assert note.count("Open in the editor") == 1 and note.count("### User") == 2
    assert "\nprompts: 2\n" in note and "\nmessages: 4\n" in note


def test_attachment_lines_read_as_a_long_session_is_streamed(tmp_path):
    from claude_builder import both_readings

    _with_attachment_lines(tmp_path, OPENED_LINE, SELECTED_LINE)
    path = tmp_path / ".claude" / "projects" / "-home-dev-shop" / f"{SID_LINES}.jsonl"
    streamed, whole = both_readings(path)
    assert streamed == whole
    origins = [getattr(p, "origin", None) for p in whole[0].parts]
    assert origins == ["editor-file", "editor-selection", None]


def test_a_prompt_that_holds_the_tag_too_shows_the_file_once(tmp_path):
    s = ClaudeSession(SID_LINES, "/home/dev/shop")
    s.user([{"type": "text", "text": OPENED}, {"type": "text", "text": "why?"}])
    s.raw(s._envelope("attachment", attachment=OPENED_LINE))
    s.assistant("Because.")
    s.write(tmp_path / ".claude" / "projects" / "-home-dev-shop" / f"{SID_LINES}.jsonl")
    note = the_exported_note(tmp_path, "claude-code")
    assert note.count("Open in the editor `/home/dev/shop/cart.py`") == 1


def test_a_selection_line_without_its_lines_is_named_by_its_file():
    from exporter.adapters.claude_editor import editor_context

    part = editor_context({"type": "selected_lines_in_ide", "filename": "a.py", "content": "x"})
    assert (part.name, part.data, part.origin) == ("a.py", b"x", "editor-selection")
    assert editor_context({"type": "selected_lines_in_ide", "filename": ""}) is None
    assert editor_context({"type": "skill_listing", "filename": "a.py"}) is None
