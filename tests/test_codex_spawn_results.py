"""A ``spawn_agent`` call's output is the agent it started, in words (its nickname, task and
thread), not the JSON Codex wrote; when no note of that agent can be linked, the output says
why (its rollout is not on disk, or the rollout names no thread). The call's callout showed
``{"task_name": "/root/reviewer", "nickname": "Ada"}`` and no word of the missing link."""

from __future__ import annotations

import pytest
from codex_builder import CodexRollout
from conftest import load_sessions
from test_codex_links import CHILD, PARENT, _child, _export, _parent

from exporter.adapters import codex
from exporter.adapters.codex import CodexAdapter


def _outputs(home) -> list[str]:
    sessions, _ = load_sessions(CodexAdapter(), home)
    parent = next(s for s in sessions if s.session_id == PARENT)
    return [p.output for m in parent.messages for p in m.parts if p.kind == "tool_result"]


@pytest.mark.parametrize("streamed", [False, True])
@pytest.mark.parametrize(
    ("output", "child", "said"),
    [
        ({"agent_id": CHILD, "nickname": "Ada"}, True,
         f"Spawned Ada (thread {CHILD.lower()})."),
        ({"agent_id": CHILD, "nickname": "Ada"}, False,
         f"Spawned Ada (thread {CHILD.lower()}).\n\nNo link to its transcript: no rollout of "
         f"thread {CHILD.lower()} is on disk."),
        ({"task_name": "/root/reviewer", "nickname": "Ada"}, True,
         "Spawned Ada (task /root/reviewer).\n\nNo link to its transcript: its output names "
         "the agent by its task alone, and no rollout on disk names this session its parent "
         "and /root/reviewer its agent path."),
        ({"task_name": "/root/reviewer"}, False,
         "Spawned /root/reviewer.\n\nNo link to its transcript: its output names the agent "
         "by its task alone, and no rollout on disk names this session its parent and "
         "/root/reviewer its agent path."),
        ({"agent_id": "reviewer-1"}, True,
         "Spawned an agent (id reviewer-1).\n\nNo link to its transcript: the rollout names "
         "no thread it started."),
        ("Agent depth limit reached. Solve the task yourself.", True,
         "Agent depth limit reached. Solve the task yourself."),  # (it says what happened)
        ({"agent_id": CHILD, "nickname": "Ada", "status": "ok"}, False,
         f'{{"agent_id": "{CHILD}", "nickname": "Ada", "status": "ok"}}\n\nNo link to its '
         f"transcript: no rollout of thread {CHILD.lower()} is on disk."),  # (more: as written)
    ],
    ids=["linked", "thread not on disk", "task only", "task hidden", "no thread id",
         "failed", "more in it"],
)  # fmt: skip
def test_a_spawn_agent_output_says_the_agent_and_why_it_is_not_linked(
    tmp_path, monkeypatch, streamed, output, child, said
):
    if streamed:
        monkeypatch.setattr(codex, "STREAM_FROM", 0)
    _parent(output).write(tmp_path / ".codex")
    if child:  # (a child naming this parent, but not the task the output names)
        _child().write(tmp_path / ".codex")
    assert _outputs(tmp_path) == [said]


def test_the_thread_an_event_names_counts_for_an_output_naming_a_task(tmp_path):
    _parent({"task_name": "/root/reviewer", "nickname": "Ada"}, spawned=CHILD).write(
        tmp_path / ".codex"
    )
    assert _outputs(tmp_path) == [
        f"Spawned Ada (task /root/reviewer, thread {CHILD.lower()}).\n\nNo link to its "
        f"transcript: no rollout of thread {CHILD.lower()} is on disk."
    ]


def test_the_note_shows_the_words_and_the_reason(tmp_path):
    _parent({"task_name": "/root/reviewer", "nickname": "Ada"}).write(tmp_path / ".codex")
    (note,) = (t for t in _export(tmp_path).values() if f"session_id: {PARENT}" in t)
    callout = note.split("[!example]- `spawn_agent`")[1].split("\n\n", 1)[0]
    assert '"task_name"' not in callout
    assert "> Spawned Ada (task /root/reviewer)." in callout


def test_a_linked_call_shows_its_result_in_words(tmp_path):
    _parent({"agent_id": CHILD, "nickname": "Ada"}).write(tmp_path / ".codex")
    _child().write(tmp_path / ".codex")
    (note,) = (t for t in _export(tmp_path).values() if f"session_id: {PARENT}" in t)
    result = note.split("Result:")[1].split("Full transcript")[0]
    assert f"Spawned Ada (thread {CHILD.lower()})." in result and "agent_id" not in result


def test_a_child_rollout_of_another_parent_is_no_reason_to_link(tmp_path):
    """(The child's rollout is on disk under the run's sources whichever parent it names:
    the thread was named, so the link is the note's to resolve.)"""
    other = CodexRollout(CHILD.lower(), start="2026-03-10T08:00:30Z")
    other.user("hello")
    other.write(tmp_path / ".codex")
    _parent({"agent_id": CHILD, "nickname": "Ada"}).write(tmp_path / ".codex")
    assert _outputs(tmp_path) == [f"Spawned Ada (thread {CHILD.lower()})."]
