"""A Codex ``spawn_agent`` call links the note of the subagent it started, as the rollout
says which (its output, or its ``collab_agent_spawn_end`` event); an image attached from a
file whose bytes the rollout does not hold is still said in the note (review18)."""

from __future__ import annotations

import base64
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import tiny_png
from codex_builder import CodexRollout
from conftest import load_sessions, note_files

from exporter.adapters import codex
from exporter.adapters.codex import CodexAdapter
from exporter.export import ExportOptions, run_export

PARENT = "019a0000-1111-7222-8333-444455556666"
CHILD = "019A0000-0000-7000-8000-00000000C41D"  # (upper case: a thread id is one either way)
TASK = "Review the diff in src/"


def _parent(output, *, spawned: str | None = None) -> CodexRollout:
    r = CodexRollout(PARENT)
    r.user("Review my diff with a helper agent")
    r.spawn_agent(TASK, output, agent_type="reviewer", spawned=spawned)
    r.assistant("The reviewer found nothing.")
    return r


def _child() -> CodexRollout:
    source = {"subagent": {"thread_spawn": {"parent_thread_id": PARENT, "depth": 1}}}
    child = CodexRollout(CHILD.lower(), source=source, start="2026-03-10T08:00:30Z")
    child.user(TASK)
    child.assistant("No issues.")
    return child


def _calls(home: Path) -> dict[str, list]:
    sessions, _ = load_sessions(CodexAdapter(), home)
    return {
        s.session_id: [p for m in s.messages for p in m.parts if p.kind == "tool_call"]
        for s in sessions
    }


def _export(home: Path) -> dict[str, str]:
    vault = home / "vault"
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    return {Path(rel).stem: b.decode() for rel, b in note_files(vault).items()}


@pytest.mark.parametrize("streamed", [False, True])
def test_a_spawn_agent_call_links_the_thread_its_output_names(tmp_path, monkeypatch, streamed):
    """syn7: the subagent's note was linked in the header and ``subagents``, but the call's
    own callout had no "Full transcript" link, as a Claude Code Task call's has."""
    if streamed:  # (the scan, read before the messages, is what knows the thread)
        monkeypatch.setattr(codex, "STREAM_FROM", 0)
    _parent({"agent_id": CHILD, "nickname": "Ada"}).write(tmp_path / ".codex")
    _child().write(tmp_path / ".codex")
    (call,) = _calls(tmp_path)[PARENT]
    assert call.name == "spawn_agent" and call.subagent_id == CHILD.lower()
    notes = _export(tmp_path)
    kid = next(stem for stem, text in notes.items() if "00000000c41d" in text.split("---")[1])
    parent = next(text for text in notes.values() if f"session_id: {PARENT}" in text)
    assert f"Full transcript: [[{kid}]]" in parent
    listed = parent.split("subagents:\n", 1)[1].split("\n")
    assert listed[0].startswith(f"- '[[{kid}") and not listed[1].startswith("- ")  # (once)


def test_the_spawn_end_event_links_a_call_whose_output_names_a_task(tmp_path):
    """Newer Codex answers ``spawn_agent`` with the agent's task name, not its thread; the
    thread is in the call's ``collab_agent_spawn_end`` event, when the rollout keeps it."""
    output = {"task_name": "/root/reviewer", "nickname": "Ada"}
    _parent(output, spawned=CHILD).write(tmp_path / ".codex")
    (call,) = _calls(tmp_path)[PARENT]
    assert call.subagent_id == CHILD.lower()


@pytest.mark.parametrize(
    "output",
    [
        {"task_name": "/root/reviewer", "nickname": "Ada"},  # a task, no thread: not guessed
        {"agent_id": "reviewer-1"},  # not a thread id
        "Agent depth limit reached. Solve the task yourself.",  # it failed: no agent
        {"agent_id": None, "nickname": None},
    ],
)
def test_a_spawn_agent_call_links_nothing_the_rollout_does_not_name(tmp_path, output):
    _parent(output).write(tmp_path / ".codex")
    _child().write(tmp_path / ".codex")  # (the parent's only child: still not guessed)
    (call,) = _calls(tmp_path)[PARENT]
    assert call.subagent_id is None


def test_a_linked_spawn_agent_callout_shows_its_task(tmp_path):
    """Linked, the call is shown as a subagent's, whose task was read from ``prompt`` or
    ``objective`` only: Codex's ``message`` went from the parent's note."""
    _parent({"agent_id": CHILD, "nickname": "Ada"}).write(tmp_path / ".codex")
    _child().write(tmp_path / ".codex")
    parent = next(t for t in _export(tmp_path).values() if f"session_id: {PARENT}" in t)
    assert TASK in parent.split("Full transcript")[0].split("spawn_agent")[1]


def _png_url(color=(200, 10, 10)) -> tuple[bytes, str]:
    png = tiny_png(color)
    return png, "data:image/png;base64," + base64.b64encode(png).decode()


def _prompts(home: Path):
    (session,), _ = load_sessions(CodexAdapter(), home)
    return session, [m for m in session.messages if m.role == "user"]


def _prompted(home: Path, text: str, urls: list, **kw):
    """A rollout of one prompt with images attached from files, and a reply: its prompts."""
    r = CodexRollout(PARENT)
    r.context()
    r.user_with_local_images(text, urls, **kw)
    r.assistant("An answer.")
    r.write(home / ".codex")
    return _prompts(home)


def test_a_local_image_with_no_model_copy_is_named_not_copied(tmp_path):
    """Review18 (fixture …000000000014 line 71): a UI copy naming an image by its path,
    with no model copy holding its bytes, left no word of it in the note."""
    _, (prompt,) = _prompted(tmp_path, "why is this button grey?", [None, None], model_copy=False)
    assert [p.kind for p in prompt.parts] == ["text", "attachment", "attachment"]
    assert [(p.name, p.data, p.media_type) for p in prompt.parts[1:]] == [
        ("/tmp/codex-clipboard-1.png", None, "image/png"),
        ("/tmp/codex-clipboard-2.png", None, "image/png"),
    ]
    text = next(iter(_export(tmp_path).values()))
    assert "*Attached `/tmp/codex-clipboard-1.png`, not stored in the session.*" in text
    assert "*Attached `/tmp/codex-clipboard-2.png`, not stored in the session.*" in text


@pytest.mark.parametrize("event_first", [False, True])
def test_a_local_image_codex_could_not_read_is_named_and_the_prompt_kept_once(
    tmp_path, event_first
):
    """The model's copy says, in place of an image, that Codex could not read its file: that
    text made the two copies differ, so the prompt was written twice (once with the text),
    and the image was said nowhere."""
    png, url = _png_url()
    session, (prompt,) = _prompted(tmp_path, "compare these", [url, None], event_first=event_first)
    assert [m.role for m in session.messages] == ["user", "assistant"]
    assert [p.kind for p in prompt.parts] == ["text", "attachment", "attachment"]
    assert prompt.parts[0].text == "compare these"
    assert (prompt.parts[1].data, prompt.parts[1].name) == (png, None)
    assert (prompt.parts[2].data, prompt.parts[2].name) == (None, "/tmp/codex-clipboard-2.png")
    text = next(iter(_export(tmp_path).values()))
    assert "could not read the local image" not in text
    assert "*Attached `/tmp/codex-clipboard-2.png`, not stored in the session.*" in text


def test_a_prompt_whose_images_were_all_held_gains_no_notice(tmp_path):
    (png, url), (other, url2) = _png_url(), _png_url((10, 200, 10))
    r = CodexRollout(PARENT)
    r.user_with_local_images("why is this button grey?", [url, url2])
    r.assistant("It is disabled.")
    r.write(tmp_path / ".codex")
    _, (prompt,) = _prompts(tmp_path)
    assert [p.data for p in prompt.parts[1:]] == [png, other]


def test_a_prompt_that_merely_quotes_the_placeholder_keeps_its_words(tmp_path):
    """Only a content item of its own that is Codex's placeholder, whole, is an image."""
    said = "Why does Codex say `could not read the local image at` for my file?"
    r = CodexRollout(PARENT)
    r.user(said)
    r.assistant("The file was gone when the prompt was sent.")
    r.write(tmp_path / ".codex")
    _, (prompt,) = _prompts(tmp_path)
    assert [p.kind for p in prompt.parts] == ["text"] and prompt.parts[0].text == said
