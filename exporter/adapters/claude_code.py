"""Claude Code: ``~/.claude/projects/<encoded-cwd>/<session-id>.jsonl`` (FORMATS.md §1).

Where: ``<home>/.claude/projects``; on the real home also ``$CLAUDE_CONFIG_DIR/projects``.
The encoded folder name is lossy, so the project always comes from the ``cwd`` field.

Subagents come in three layouts, each exported as its own session linked to its parent:

- before 2.0.28, inline in the session file as ``isSidechain`` lines (grouped by their root
  line; linked to the Task call whose prompt they answer);
- until ~2.1, ``agent-<id>.jsonl`` beside the sessions (the ``sessionId`` inside names the
  parent; the parent's Task result carries ``agentId``);
- now ``<session>/subagents/agent-<id>.jsonl`` with an ``agent-<id>.meta.json`` sidecar
  whose ``toolUseId`` names the Task call.

A session file and its ``subagents/`` folder are one discovery unit, loaded together. The
"Warmup" agents Claude Code 2.0 starts to prime its cache are not conversations and are
skipped.

Titles: the last ``custom-title``, else the last ``ai-title``, else a ``summary`` whose
``leafUuid`` lies in the session (often written into a later file of the same project, so
the leading summary lines of the project's files are indexed once per run).

Finding the files is in claude_discovery.py, linking subagents to their Task calls in
claude_subagents.py; this module loads a discovered session and builds its sessions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, ClassVar

import orjson

from ..errors import Problem
from ..model import Session
from ._jsonl import iter_jsonl
from .base import LoadResult, SessionRef, SourceContext
from .claude_discovery import SOURCE, NewerCopies, discover_project, file_session_id
from .claude_subagents import (
    WARMUP_PROMPT,
    agent_id,
    child_session_ids,
    meta_tool_use_id,
    sidechain_groups,
    task_links,
)
from .claude_transcript import CONVERSATIONAL, Transcript, build_transcript

KNOWN_TYPES = CONVERSATIONAL | {
    "summary", "custom-title", "ai-title", "tag", "last-prompt", "agent-name",
    "agent-setting", "mode", "permission-mode", "pr-link", "bridge-session",
    "file-history-snapshot", "queue-operation", "turn_end", "worktree-state",
    "frame-link", "relocated", "started", "result", "atis-latch",
}  # fmt: skip


class ClaudeCodeAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Claude Code"
    env_vars: ClassVar[tuple[str, ...]] = ("CLAUDE_CONFIG_DIR",)

    def __init__(self) -> None:
        self._summary_index: dict[Path, dict[str, str]] = {}
        self._copies = NewerCopies()

    def roots(self, ctx: SourceContext) -> list[Path]:
        configured_paths = ctx.configured(SOURCE, "projects")
        if configured_paths:
            return configured_paths
        roots: list[Path] = []
        configured = ctx.env.get("CLAUDE_CONFIG_DIR") if ctx.real_home else None
        if configured:
            roots.append(Path(configured).expanduser() / "projects")
        roots.append(ctx.home / ".claude" / "projects")
        return list(dict.fromkeys(roots))

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        for root in self.roots(ctx):
            if not root.is_dir():
                continue
            for project in sorted(os.scandir(root), key=lambda e: e.name):
                if project.is_dir():
                    try:
                        yield from discover_project(Path(project.path))
                    except PermissionError:
                        continue  # reported by the pipeline as an unreadable folder

    def load(self, ref: SessionRef) -> LoadResult:
        result = LoadResult()
        if ref.session_id.startswith("agent-") or "/" in ref.session_id:
            child = self._load_agent_file(ref.main.path, None, result.problems)
            if child:
                result.sessions.append(child)
            return result
        records, meta = _read(ref.main.path, result.problems)
        # The session is the sessionId inside, not the file name: two folders may hold
        # files of the same name, and a copied transcript keeps its id.
        main_id = file_session_id(records) or ref.main.path.stem
        newer = self._copies.newer(ref.main.path, main_id)
        if newer is not None:
            why = f"an older copy of session {main_id}; the newest copy, {newer}, is exported"
            result.problems.append(Problem(str(ref.main.path), why, source=SOURCE))
            return result
        links, descriptions = task_links(records)
        children = self._related_children(ref, main_id, links, descriptions, result.problems)
        inline = _inline_sidechains(records, main_id, ref.main.path, links, descriptions)
        conversation = [r for r in records if not r.get("isSidechain")] if inline else records
        # Link only to subagents that will have a note: loaded here, or an agent file beside.
        exported = {c.session_id for c in children + inline}
        folder = ref.main.path.parent
        child_links = {
            call: child
            for call, child in child_session_ids(links, main_id).items()
            if child in exported or (folder / f"agent-{links[call]}.jsonl").is_file()
        }
        transcript = build_transcript(conversation, child_links)
        if not transcript.messages:
            return result
        child_ids = list(
            dict.fromkeys([*(c.session_id for c in children + inline), *child_links.values()])
        )
        title = meta.title or self._summary_title(ref.main.path.parent, meta, transcript)
        main = _session(transcript, main_id, ref.main.path, title, extra_children=child_ids)
        result.sessions.append(main)
        # A subagent works for its parent's project, even from a subfolder of it.
        result.sessions.extend(replace(c, project=main.project) for c in children + inline)
        return result

    def _related_children(
        self,
        ref: SessionRef,
        main_id: str,
        links: dict[str, str],
        descriptions: dict[str, tuple[str | None, str | None]],
        problems: list[Problem],
    ) -> list[Session]:
        meta_links: dict[str, str] = {}
        for stamp in ref.related:
            if stamp.path.name.endswith(".meta.json"):
                call_id = meta_tool_use_id(stamp.path)
                if call_id:
                    meta_links[call_id] = agent_id(stamp.path.name.removesuffix(".meta.json"))
        links.update(meta_links)
        by_agent = {agent: call for call, agent in links.items()}
        children = []
        for stamp in ref.related:
            if stamp.path.suffix != ".jsonl":
                continue
            agent = agent_id(stamp.path.stem)
            description, label = descriptions.get(by_agent.get(agent, ""), (None, None))
            child = self._load_agent_file(stamp.path, main_id, problems, description, label)
            if child:
                children.append(child)
        return children

    def _load_agent_file(
        self,
        path: Path,
        parent_id: str | None,
        problems: list[Problem],
        description: str | None = None,
        label: str | None = None,
    ) -> Session | None:
        records, meta = _read(path, problems)
        if parent_id is None:
            parent_id = next(
                (r["sessionId"] for r in records if isinstance(r.get("sessionId"), str)), None
            )
        transcript = build_transcript(records, {})
        if not transcript.messages or transcript.first_prompt == WARMUP_PROMPT:
            return None
        agent = agent_id(path.stem)
        session_id = f"{parent_id}/agent-{agent}" if parent_id else f"agent-{agent}"
        return _session(
            transcript, session_id, path, meta.title or description, parent_id=parent_id,
            agent_label=label,
        )  # fmt: skip

    def _summary_title(self, folder: Path, meta: _Meta, transcript: Transcript) -> str | None:
        """A ``summary`` line whose leaf lies in this session, here or in a sibling file."""
        for leaf, summary in reversed(meta.summaries):
            if leaf in transcript.uuids:
                return summary
        index = self._summary_index.get(folder)
        if index is None:
            index = self._summary_index[folder] = _leading_summaries(folder)
        for leaf, summary in index.items():
            if leaf in transcript.uuids:
                return summary
        return None


class _Meta:
    """Session metadata lines (titles, summaries) seen while reading a file."""

    __slots__ = ("custom_title", "ai_title", "summaries")

    def __init__(self) -> None:
        self.custom_title: str | None = None
        self.ai_title: str | None = None
        self.summaries: list[tuple[str, str]] = []

    @property
    def title(self) -> str | None:
        return self.custom_title or self.ai_title


def _read(path: Path, problems: list[Problem]) -> tuple[list[dict[str, Any]], _Meta]:
    records: list[dict[str, Any]] = []
    meta = _Meta()
    unknown: dict[str, int] = {}
    for number, obj in iter_jsonl(path, problems, SOURCE):
        if not isinstance(obj, dict):
            problems.append(
                Problem(str(path), "not a JSON object, line skipped", number, source=SOURCE)
            )
            continue
        kind = obj.get("type")
        if kind == "custom-title" and isinstance(obj.get("customTitle"), str):
            meta.custom_title = obj["customTitle"].strip() or meta.custom_title
        elif kind == "ai-title" and isinstance(obj.get("aiTitle"), str):
            meta.ai_title = obj["aiTitle"].strip() or meta.ai_title
        elif kind == "summary" and isinstance(obj.get("summary"), str):
            meta.summaries.append((str(obj.get("leafUuid")), obj["summary"]))
        elif not isinstance(kind, str) or kind not in KNOWN_TYPES:
            unknown[str(kind)[:80]] = unknown.get(str(kind)[:80], 0) + 1
            if not isinstance(kind, str):
                continue  # a damaged line: nothing below can tell what it is
        if "toolUseResult" in obj:
            # Only its agentId is read; the rest repeats the tool's output (about half the
            # bytes of a real transcript), so it is not kept in memory.
            rich = obj["toolUseResult"]
            agent = rich.get("agentId") if isinstance(rich, dict) else None
            obj["toolUseResult"] = {"agentId": agent} if isinstance(agent, str) else None
        records.append(obj)
    for kind, count in unknown.items():
        problems.append(
            Problem(
                str(path), f"unknown record type {kind!r} ({count} lines) skipped", source=SOURCE
            )
        )
    return records, meta


def _leading_summaries(folder: Path) -> dict[str, str]:
    """leafUuid -> summary from the summary lines that open each file of a project."""
    index: dict[str, str] = {}
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if not entry.name.endswith(".jsonl") or not entry.is_file():
            continue
        try:
            with open(entry.path, "rb") as f:
                # Summary lines are short: a longer line is cut, fails to parse, ends the file.
                while raw := f.readline(1 << 20):
                    if b'"summary"' not in raw[:40] and b'"type":"summary"' not in raw:
                        break
                    obj = orjson.loads(raw)
                    if not isinstance(obj, dict) or obj.get("type") != "summary":
                        break  # any other line, even a JSON array that names "summary"
                    if isinstance(obj.get("summary"), str):
                        index[str(obj.get("leafUuid"))] = obj["summary"]
        except (OSError, orjson.JSONDecodeError):
            continue
    return index


def _inline_sidechains(
    records: list[dict[str, Any]],
    main_id: str,
    path: Path,
    links: dict[str, str],
    descriptions: dict[str, tuple[str | None, str | None]],
) -> list[Session]:
    """Sessions for sidechain lines written into the main file (Claude Code < 2.0.28)."""
    sessions = []
    for agent, call, transcript in sidechain_groups(records, links):
        description, label = descriptions.get(call or "", (None, None))
        sessions.append(
            _session(
                transcript, f"{main_id}/agent-{agent}", path, description,
                parent_id=main_id, agent_label=label,
            )
        )  # fmt: skip
    return sessions


def project_name(cwd: str | None) -> str | None:
    """The last folder of a working directory, POSIX or Windows shaped."""
    if not cwd:
        return None
    windows = re.match(r"^[A-Za-z]:[\\/]", cwd) or ("\\" in cwd and "/" not in cwd)
    name = (PureWindowsPath(cwd) if windows else PurePosixPath(cwd)).name
    return name or None


def _session(
    transcript: Transcript,
    session_id: str,
    path: Path,
    title: str | None,
    *,
    parent_id: str | None = None,
    agent_label: str | None = None,
    extra_children: list[str] | None = None,
) -> Session:
    return Session(
        source=SOURCE,
        session_id=session_id,
        messages=tuple(transcript.messages),
        source_path=path,
        title=title,
        project=project_name(transcript.cwd),
        cwd=transcript.cwd,
        git_branch=transcript.git_branch,
        models=tuple(transcript.models),
        started_at=transcript.started,
        ended_at=transcript.ended,
        usage=transcript.usage,
        parent_id=parent_id,
        subagent_ids=tuple(extra_children or ()),
        agent_label=agent_label,
    )
