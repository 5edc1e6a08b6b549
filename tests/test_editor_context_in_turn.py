"""Claude Code's IDE extension may send the editor's context on its own (a user line of
only ``<ide_opened_file>`` or ``<ide_selection>``) while an assistant's call awaits its
output. It is no prompt of the person's: shown as the editor's context is with a prompt
("Open in the editor", "Selected in the editor"), within the assistant's turn, no "User"
heading splitting it."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_harness_step_in_turn import claude_home
from test_unanswered import notes

SID = "0a7e5c11-0000-4000-8000-0000000000e1"
OPENED = (
    "<ide_opened_file>The user opened the file /home/dev/work/project/app.py in the IDE. "
    "This may or may not be related to the current task.</ide_opened_file>"
)
SELECTED = (
    "<ide_selection>The user selected the lines 3 to 4 from /home/dev/work/project/app.py:\n"
    "def main():\n    run()\n\nThis may or may not be related to the current task."
    "</ide_selection>"
)


def _home(home: Path, context: str, before_output: bool) -> Path:
    """The context sent by the editor between the call and its output, or after it."""
    return claude_home(home, before_output, step=context, sid=SID)


def _body(note: str) -> str:
    return note.split("%% ccexport:begin", 1)[1]


@pytest.mark.parametrize(
    "context, said", [(OPENED, "Open in the editor"), (SELECTED, "Selected in the editor")]
)
def test_the_editors_context_between_a_call_and_its_output_stays_in_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, context: str, said: str
) -> None:
    (note,) = notes(_home(tmp_path / "home", context, True), "claude-code", monkeypatch).values()
    body = _body(note)
    assert body.count("### User") == 1 and body.count("### Assistant") == 1, body
    assert "ide_opened_file" not in body and "ide_selection" not in body, body
    order = [body.index(s) for s in ("Let me look.", "b.py", said, "There are two files.")]
    assert order == sorted(order), body


def test_the_editors_context_after_the_output_is_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(The call answered: the context comes with no call waiting, as a person's turn.)"""
    (note,) = notes(_home(tmp_path / "home", OPENED, False), "claude-code", monkeypatch).values()
    assert _body(note).count("### User") == 2, note


def test_the_reference_render_gives_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``CCEXPORT_REFERENCE_RENDER=1`` (Jinja, no speed-up) writes the same note."""
    fast = notes(_home(tmp_path / "a", SELECTED, True), "claude-code", monkeypatch)
    monkeypatch.setenv("CCEXPORT_REFERENCE_RENDER", "1")
    reference = notes(_home(tmp_path / "b", SELECTED, True), "claude-code", monkeypatch)
    assert list(reference.values()) == list(fast.values())
