"""An image a tool returned (Claude Code's ``Read`` of a PNG, Codex's ``view_image``) is the
call's output: it is shown in the call's folded callout, not after it in the reply's prose as
if the assistant had posted it. A failed subagent call's output is what the tool said, shown
as code like any failed call's; a subagent's reply stays prose."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from claude_builder import ClaudeSession, image_block, tiny_png, tool_use
from codex_builder import CodexRollout
from conftest import load_sessions

from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.adapters.codex import CodexAdapter
from exporter.notes import NoteSettings, build_note
from exporter.notespec import TurnView
from exporter.render import REFERENCE_ENV, fresh_templates

SID = "7a7a7a7a-1111-4222-8333-444444444444"
TID = "019a0000-1111-7222-8333-777777777777"
PNG = tiny_png((10, 200, 30))
EMBED = re.compile(r"^(> )?!\[\[(attachments/ccexport/[0-9a-f]{16}\.png)\]\]$", re.M)


def _claude(home: Path, build) -> object:
    s = ClaudeSession(SID, "/w/imgp")
    build(s)
    s.write(home / ".claude" / "projects" / "-w-imgp" / f"{SID}.jsonl")
    (session,) = load_sessions(ClaudeCodeAdapter(), home)[0]
    return session


def _read_png(s: ClaudeSession, then_prompt: bool = False) -> None:
    s.user("What does the screenshot show?")
    s.assistant([tool_use("Read", {"file_path": "/w/imgp/shot.png"}, "toolu_1")])
    s.tool_result("toolu_1", [image_block(PNG)])
    if then_prompt:  # the call and its image are then the whole of the assistant's turn
        s.user("Thanks")
    s.assistant("A green square.")


def _codex(home: Path) -> object:
    r = CodexRollout(TID)
    r.user("look at the chart")
    r.view_image("chart.png", PNG)
    r.assistant("A green square.")
    r.write(home / ".codex")
    (session,) = load_sessions(CodexAdapter(), home)[0]
    return session


def _note(session, monkeypatch, *, reference: bool = False, **settings):
    if reference:
        monkeypatch.setenv(REFERENCE_ENV, "1")
    else:
        monkeypatch.delenv(REFERENCE_ENV, raising=False)
    fresh_templates()
    try:
        return build_note(session, "n.md", NoteSettings(**settings), lambda key: None)
    finally:
        fresh_templates()


def _callout_of(body: str, title_start: str) -> list[str]:
    """The lines of the callout whose title starts so (its "> " lines)."""
    lines = body.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(title_start))
    out = []
    for line in lines[start + 1 :]:
        if not line.startswith(">"):
            break
        out.append(line)
    return out


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "jinja"])
@pytest.mark.parametrize("source", ["claude", "codex"])
def test_an_image_a_tool_returned_is_shown_in_its_call(tmp_path, monkeypatch, reference, source):
    session = _claude(tmp_path, _read_png) if source == "claude" else _codex(tmp_path)
    note = _note(session, monkeypatch, reference=reference)
    embeds = EMBED.findall(note.body)
    assert len(embeds) == 1, note.body
    quoted, path = embeds[0]
    assert quoted == "> ", "the image sits outside its call's callout"
    title = "> [!example]- `Read`" if source == "claude" else "> [!example]- `view_image`"
    assert f"> ![[{path}]]" in _callout_of(note.body, title)
    # copied once, its bytes as the tool returned them
    assert [(a.relpath, a.data) for a in note.attachments] == [(path, PNG)]


def test_both_renderers_write_the_same_note(tmp_path, monkeypatch):
    for session in (_claude(tmp_path / "c", _read_png), _codex(tmp_path / "x")):
        fast = _note(session, monkeypatch).body
        assert _note(session, monkeypatch, reference=True).body == fast


@pytest.mark.parametrize(
    ("view", "shown"),
    [
        (TurnView(), True),
        (TurnView(tool_output="head", tool_output_lines=1), True),  # an image has no lines
        (TurnView(tool_output="none"), False),
        (TurnView(tools="summary"), False),
        (TurnView(tools="hidden"), False),
    ],
    ids=["full", "head", "output-none", "tools-summary", "tools-hidden"],
)
@pytest.mark.parametrize("reference", [False, True], ids=["fast", "jinja"])
def test_the_settings_show_or_leave_out_such_an_image_as_the_output_it_is(
    tmp_path, monkeypatch, view, shown, reference
):
    session = _claude(tmp_path, _read_png)
    note = _note(session, monkeypatch, reference=reference, view=view)
    embeds = EMBED.findall(note.body)
    assert [q for q, _ in embeds] == (["> "] if shown else []), note.body
    # a file the note does not show is not copied
    assert len(note.attachments) == (1 if shown else 0)
    assert "A green square." in note.body


def test_an_image_of_a_result_without_its_call_is_still_shown(tmp_path, monkeypatch):
    def unpaired(s: ClaudeSession) -> None:
        s.user("What does the screenshot show?")
        s.assistant("Looking.")
        s.tool_result("toolu_gone", [{"type": "text", "text": "shot.png"}, image_block(PNG)])
        s.assistant("A green square.")

    note = _note(_claude(tmp_path, unpaired), monkeypatch)
    assert [q for q, _ in EMBED.findall(note.body)] == [""]
    assert "> [!example]- Tool output" in note.body
    assert len(note.attachments) == 1


def test_a_template_written_before_still_shows_the_image(tmp_path, monkeypatch):
    """A template that knows no ``attachments`` field shows the image's own item, where it
    showed it before; the file is copied once."""
    mine = tmp_path / "templates"
    mine.mkdir()
    (mine / "session.md.j2").write_text(
        '{% for turn in turns %}{% for item in turn["items"] %}'
        "{% if item.kind == 'tool_call' %}call {{ item.name }}\n"
        "{% elif item.kind == 'attachment' %}![[{{ item.path }}]]\n{% endif %}"
        "{% endfor %}{% endfor %}"
    )
    session = _claude(tmp_path, _read_png)
    note = _note(session, monkeypatch, templates=mine)
    (path,) = [a.relpath for a in note.attachments]
    assert note.body.endswith(f"call Read\n![[{path}]]\n")


def test_a_template_that_hides_calls_hides_their_images_and_their_empty_turn(tmp_path, monkeypatch):
    mine = tmp_path / "templates"
    mine.mkdir()
    (mine / "session.md.j2").write_text(
        '{% set hide = ["tool_call"] %}{% extends "default/session.md.j2" %}'
    )
    session = _claude(tmp_path, lambda s: _read_png(s, then_prompt=True))
    body = _note(session, monkeypatch, templates=mine).body
    assert "![[" not in body
    assert body.count("### Assistant") == 1, body  # the turn of only the call is gone


@pytest.mark.parametrize(
    "override",
    [
        "{% block tool_call %}- my call {{ item.name }}\n{% endblock %}",
        "{% block item %}{% if item.kind == 'tool_call' %}- my call {{ item.name }}\n"
        "{% else %}{{ super() }}{% endif %}{% endblock %}",
    ],
    ids=["tool_call block", "item block"],
)
def test_a_template_that_shows_calls_its_own_way_still_shows_the_image(
    tmp_path, monkeypatch, override
):
    """A template of the person's that extends ours and overrides the block a call is shown
    by: our loop left the marked image item out, their block did not show it, and the image
    was in no note. It comes after the call, as before, and once."""
    mine = tmp_path / "templates"
    mine.mkdir()
    (mine / "session.md.j2").write_text('{% extends "default/session.md.j2" %}' + override)
    session = _claude(tmp_path, _read_png)
    note = _note(session, monkeypatch, templates=mine)
    (path,) = [a.relpath for a in note.attachments]
    assert note.body.count(f"![[{path}]]") == 1, note.body
    assert note.body.index("- my call Read") < note.body.index(f"![[{path}]]")


def test_a_template_that_overrides_another_block_keeps_the_image_in_the_call(tmp_path, monkeypatch):
    mine = tmp_path / "templates"
    mine.mkdir()
    (mine / "session.md.j2").write_text(
        '{% extends "default/session.md.j2" %}{% block header %}# Mine\n{% endblock %}'
    )
    session = _claude(tmp_path, _read_png)
    note = _note(session, monkeypatch, templates=mine)
    (path,) = [a.relpath for a in note.attachments]
    assert f"> ![[{path}]]" in note.body and note.body.count(f"![[{path}]]") == 1


SUBAGENT_ERROR = (
    "<tool_use_error>InputValidationError: Task failed due to the following issue:\n"
    "The required parameter `prompt` is missing</tool_use_error>"
)


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "jinja"])
def test_a_failed_subagent_call_shows_its_error_as_code_and_a_reply_stays_prose(
    tmp_path, monkeypatch, reference
):
    def calls(s: ClaudeSession) -> None:
        s.user("Look into the flaky test")
        task = {"description": "Find flake", "subagent_type": "general-purpose"}
        s.assistant([tool_use("Task", task, "toolu_bad")])
        s.tool_result("toolu_bad", SUBAGENT_ERROR, is_error=True)
        s.assistant([tool_use("Task", {**task, "prompt": "Find the flaky test"}, "toolu_ok")])
        s.tool_result("toolu_ok", [{"type": "text", "text": "The **race** is in `sync_test.py`."}])
        s.assistant("Done.")

    body = _note(_claude(tmp_path, calls), monkeypatch, reference=reference).body
    failed = "\n".join(_callout_of(body, "> [!failure]- Subagent"))
    expected = "> ```text\n> " + SUBAGENT_ERROR.replace("\n", "\n> ") + "\n> ```"
    assert expected in failed, failed
    assert "\\<tool_use_error>" not in body
    replied = "\n".join(_callout_of(body, "> [!abstract]- Subagent"))
    assert "> The **race** is in `sync_test.py`." in replied


def test_an_unchanged_copy_of_our_template_writes_the_same_note(tmp_path, monkeypatch):
    """``templates init``'s copy defines every block itself: it was taken for a template
    overriding ``item`` and ``tool_call``, and its image went after the call (review19)."""
    from exporter.render import init_templates

    mine = tmp_path / "templates"
    init_templates(mine)
    session = _claude(tmp_path, _read_png)
    ours = _note(session, monkeypatch, reference=True)
    copy = _note(session, monkeypatch, templates=mine)
    assert copy.body == ours.body and "> ![[" in copy.body
