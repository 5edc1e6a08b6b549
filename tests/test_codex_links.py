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


# -- multi-agent v2: an output naming the agent's task, not its thread ---------------------

TESTER = "019a0000-0000-7000-8000-0000000075e7"
OTHER_PARENT = "019a0000-9999-7222-8333-444455556666"
OTHER = "019a0000-0000-7000-8000-0000000a0a0a"


def _v2_child(
    thread: str, path: str | None, *, parent: str = PARENT, start: str, where: str = "spawn"
) -> CodexRollout:
    """A subagent's rollout as multi-agent v2 writes it: its ``thread_spawn`` source names
    its parent and its agent path (``where``: there, or beside it in ``session_meta``)."""
    spawn = {"parent_thread_id": parent, "depth": 1, "agent_role": "reviewer",
             "agent_nickname": "Ada"}  # fmt: skip
    if where == "spawn":
        spawn["agent_path"] = path
    child = CodexRollout(thread, source={"subagent": {"thread_spawn": spawn}}, start=start)
    if where == "meta":
        child.lines[0]["payload"]["agent_path"] = path
    child.user(TASK)
    child.assistant("No issues.")
    return child


def _v2_parent(*tasks: str) -> CodexRollout:
    r = CodexRollout(PARENT)
    r.user("Review my diff with helper agents")
    for task in tasks:
        r.spawn_agent(TASK, {"task_name": f"/root/{task}", "nickname": "Ada"}, task=task)
    r.assistant("The reviewers found nothing.")
    return r


@pytest.mark.parametrize(
    ("streamed", "where"), [(False, "spawn"), (True, "spawn"), (False, "meta")]
)
def test_a_task_named_spawn_links_the_child_of_that_parent_and_task(
    tmp_path, monkeypatch, streamed, where
):
    """Multi-agent v2 answers ``spawn_agent`` with ``{"task_name": "/root/reviewer"}`` and
    its rollout keeps no event naming the thread: the call linked nothing, though the
    child's rollout names both its parent and that task (its agent path)."""
    if streamed:
        monkeypatch.setattr(codex, "STREAM_FROM", 0)
    home = tmp_path / ".codex"
    _v2_parent("reviewer").write(home)
    _v2_child(TESTER, "/root/tester", start="2026-03-10T08:00:10Z").write(home)  # (another task)
    _v2_child(OTHER, "/root/reviewer", parent=OTHER_PARENT, start="2026-03-10T08:00:12Z").write(
        home
    )  # (the same task, of another parent)
    _v2_child(CHILD.lower(), "/root/reviewer", start="2026-03-10T08:00:30Z", where=where).write(
        home
    )
    (call,) = _calls(tmp_path)[PARENT]
    assert call.subagent_id == CHILD.lower()
    notes = _export(tmp_path)
    kid = next(stem for stem, text in notes.items() if "00000000c41d" in text.split("---")[1])
    parent = next(text for text in notes.values() if f"session_id: {PARENT}" in text)
    assert f"Full transcript: [[{kid}]]" in parent


def test_a_task_name_used_again_links_each_call_to_its_own_child(tmp_path):
    """An agent closed, its task name given to a new one: the n-th call, the n-th child."""
    home = tmp_path / ".codex"
    _v2_parent("reviewer", "reviewer").write(home)
    _v2_child(TESTER, "/root/reviewer", start="2026-03-10T08:05:00Z").write(home)  # (the later)
    _v2_child(CHILD.lower(), "/root/reviewer", start="2026-03-10T08:00:30Z").write(home)
    first, second = _calls(tmp_path)[PARENT]
    assert (first.subagent_id, second.subagent_id) == (CHILD.lower(), TESTER)


def test_a_task_named_spawn_whose_child_is_not_on_disk_links_nothing(tmp_path):
    """The fallback: no child of this parent holds the task (gone, never written, of
    another parent or task): the call is shown as it is, naming its task, and links none."""
    home = tmp_path / ".codex"
    _v2_parent("reviewer", "tester").write(home)
    _v2_child(TESTER, "/root/tester", start="2026-03-10T08:00:10Z").write(home)
    _v2_child(OTHER, "/root/reviewer", parent=OTHER_PARENT, start="2026-03-10T08:00:12Z").write(
        home
    )
    reviewer, tester = _calls(tmp_path)[PARENT]
    assert (reviewer.subagent_id, tester.subagent_id) == (None, TESTER)
    parent = next(t for t in _export(tmp_path).values() if f"session_id: {PARENT}" in t)
    callouts = parent.split("> [!")[1:]
    unlinked = next(c for c in callouts if "/root/reviewer" in c)
    assert unlinked.startswith("example]- `spawn_agent`") and "Full transcript" not in unlinked


def test_the_sub_agent_activity_event_links_a_task_named_spawn(tmp_path):
    """Newer builds persist the spawn's ``sub_agent_activity`` event (``started``, the call's
    id as its ``event_id``): it names the thread, whether or not its rollout is on disk."""
    r = CodexRollout(PARENT)
    r.user("Review my diff with a helper agent")
    r.spawn_agent(TASK, {"task_name": "/root/reviewer"}, task="reviewer",
                  activity=(CHILD, "/root/reviewer"))  # fmt: skip
    r.write(tmp_path / ".codex")
    (call,) = _calls(tmp_path)[PARENT]
    assert call.subagent_id == CHILD.lower()


def test_the_subagents_rollouts_are_read_only_for_a_call_naming_a_task(tmp_path, monkeypatch):
    """Every rollout's first line is read to find a child by its task: only when a call
    needs it, not for each parent (nor for each rollout, for a first version's output)."""
    from exporter.adapters import codex_children

    read = []
    real = codex_children.index_children
    monkeypatch.setattr(codex_children, "index_children", lambda r: read.append(1) or real(r))
    home = tmp_path / ".codex"
    _parent({"agent_id": CHILD, "nickname": "Ada"}).write(home)
    _child().write(home)
    _calls(tmp_path)
    assert read == []
    _v2_parent("reviewer").write(home)  # (a thread of its own, started later)
    second = _v2_parent("tester")
    second.thread_id = OTHER_PARENT
    second.lines[0]["payload"]["id"] = OTHER_PARENT
    second.write(home)
    _calls(tmp_path)  # (one adapter reading every rollout: the first lines read once)
    assert read == [1]


def test_a_child_rollout_written_after_the_parents_note_is_linked_by_the_next_run(tmp_path):
    """The parent's rollout does not change when its child's appears: the run that finds
    the child writes the parent's note again (a new subagent), reading the call's link."""
    home = tmp_path / ".codex"
    _v2_parent("reviewer").write(home)
    first = _export(tmp_path)
    assert "Full transcript" not in next(iter(first.values()))
    _v2_child(CHILD.lower(), "/root/reviewer", start="2026-03-10T08:00:30Z").write(home)
    notes = _export(tmp_path)
    kid = next(stem for stem, text in notes.items() if "00000000c41d" in text.split("---")[1])
    parent = next(text for text in notes.values() if f"session_id: {PARENT}" in text)
    assert f"Full transcript: [[{kid}]]" in parent


def _notices(home: Path) -> list[tuple[str, str]]:
    (session,), problems = load_sessions(CodexAdapter(), home)
    assert problems == []
    return [(m.role, p.text) for m in session.messages for p in m.parts if p.kind == "notice"]


@pytest.mark.parametrize("streamed", [False, True])
def test_an_inter_agent_communication_record_is_the_message_it_carries(
    tmp_path, monkeypatch, streamed
):
    """Multi-agent v2 builds persist a message between agents (a subagent's task, its report
    back) as an ``inter_agent_communication`` record alone, no ``agent_message`` item: it
    was passed over in silence (its kind is known), and with it what the agents said."""
    if streamed:
        monkeypatch.setattr(codex, "STREAM_FROM", 0)
    r = _v2_parent("reviewer")
    report = {"author": "/root/reviewer", "recipient": "/root", "other_recipients": [],
              "content": "No issues in src/.", "trigger_turn": True}  # fmt: skip
    r.envelope("inter_agent_communication", report)
    r.envelope("inter_agent_communication", {**report, "content": "", "encrypted_content": "gA"})
    r.assistant("Merged.")
    r.write(tmp_path / ".codex")
    assert _notices(tmp_path) == [
        ("system", "Message from /root/reviewer to /root:\n\nNo issues in src/."),
    ]


def test_a_message_written_both_as_a_record_and_as_an_item_is_shown_once(tmp_path):
    r = _v2_parent("reviewer")
    report = {"author": "/root/reviewer", "recipient": "/root", "content": "Done.",
              "trigger_turn": True}  # fmt: skip
    r.envelope("inter_agent_communication", report)
    r.item({"type": "agent_message", "author": "/root/reviewer", "recipient": "/root",
            "content": [{"type": "input_text", "text": "Done."}]})  # fmt: skip
    r.envelope("inter_agent_communication", {**report, "content": "Done again."})
    r.write(tmp_path / ".codex")
    assert [text.split("\n\n")[1] for _, text in _notices(tmp_path)] == ["Done.", "Done again."]
