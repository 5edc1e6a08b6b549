"""The subagents' rollouts on disk, by the thread that spawned them (FORMATS.md §2.3), for
a newer ``spawn_agent`` call whose output names its agent by task alone (``{"task_name":
"/root/reviewer"}``, multi-agent v2): the child's ``session_meta`` names its parent thread
(``source.subagent.thread_spawn.parent_thread_id``) and that same task as its agent path
(``thread_spawn.agent_path``, and ``agent_path`` beside it), so the call is linked to the
child holding both (codex_scan.by_task)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from ._jsonl import parse_timestamp
from .codex_rollout import spawning_thread

Children = dict[str, list[tuple[str | None, str]]]  # parent -> [(agent path, thread)]


def agent_path(meta: dict[str, Any]) -> str | None:
    """The agent path a subagent's ``session_meta`` gives it (``/root/reviewer``), if any."""
    source = meta.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    found = spawn.get("agent_path") if isinstance(spawn, dict) else None
    found = found if isinstance(found, str) else meta.get("agent_path")
    return found if isinstance(found, str) and found else None


def index_children(rollouts: Iterable[tuple[dict[str, Any] | None, str | None, str]]) -> Children:
    """``rollouts``: each rollout's first ``session_meta`` (None: none, or no subagent's),
    the thread id in its file name, and its path. Each parent's children come in the order
    they began (their ``session_meta`` time; one with none last), then by path."""
    found: dict[str, list[tuple[datetime, str, str | None, str]]] = {}
    for meta, named, path in rollouts:
        parent = spawning_thread(meta) if meta is not None else None
        if meta is None or parent is None:
            continue
        thread = meta.get("id") if isinstance(meta.get("id"), str) else named
        if not thread:
            continue
        began = parse_timestamp(meta.get("timestamp")) or _UNKNOWN
        found.setdefault(parent, []).append((began, path, agent_path(meta), thread.lower()))
    return {
        parent: [(path, thread) for _, _, path, thread in sorted(kids, key=lambda k: k[:2])]
        for parent, kids in found.items()
    }


_UNKNOWN = datetime.max.replace(tzinfo=UTC)
