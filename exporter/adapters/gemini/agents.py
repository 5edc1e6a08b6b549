"""Gemini CLI subagents whose session has no chat file beside them (``chats/<session id>/``
with no ``session-…-<8 chars>.json[l]``: deleted, or damaged into something that is no
file): their own notes, said, rather than lost with the file that would have listed them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ...errors import Problem
from .._values import quoted
from ..base import FileStamp, LoadResult, SessionRef, listed
from . import SOURCE, _project, _session, _str, _with

AGENTS = "agents"


def orphan_agents(entry: os.DirEntry[str]) -> Iterator[SessionRef]:
    """The unit of the subagent files in ``chats/<session id>/``, if it holds any."""
    files = sorted(
        (e for e in listed(entry.path) if e.name.endswith(".jsonl") and e.is_file()),
        key=lambda e: e.name,
    )
    if files:
        main, *others = (FileStamp.of(e) for e in files)
        unit = f"{entry.name}/{AGENTS}"
        yield SessionRef(SOURCE, unit, main, tuple(others), (f"kind={AGENTS}",))


def load_orphan_agents(
    ref: SessionRef, folder: Path, registry: dict[str, str], result: LoadResult
) -> None:
    from .chatfiles import read_chat
    from .stores import path_candidates, project_root

    parent = ref.session_id.removesuffix(f"/{AGENTS}")
    why = (
        f"no chat file of session {quoted(parent)} beside this folder (gone, or not a file): "
        "its subagents are exported alone"
    )
    result.problems.append(Problem(str(ref.main.path.parent), why, source=SOURCE))
    for stamp in (ref.main, *ref.related):
        chat = read_chat([stamp.path], result.problems)
        if chat is None:
            continue
        agent = _str(chat.meta.get("sessionId")) or stamp.path.stem
        child = _session(chat, f"{parent}/agent-{agent}", stamp.path, result.problems, {})
        if child.messages:
            found = path_candidates(chat.meta, chat.records.values())
            cwd = project_root(folder, registry, chat.meta.get("projectHash"), found)
            project = _project(folder, cwd)
            result.sessions.append(_with(child, cwd=cwd, project=project, parent_id=parent))
