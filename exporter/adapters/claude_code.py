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
from .base import FileStamp, LoadResult, SessionRef, SourceContext
from .claude_transcript import CONVERSATIONAL, Transcript, build_transcript

SOURCE = "claude-code"
WARMUP_PROMPT = "Warmup"
KNOWN_TYPES = CONVERSATIONAL | {
    "summary", "custom-title", "ai-title", "tag", "last-prompt", "agent-name",
    "agent-setting", "mode", "permission-mode", "pr-link", "bridge-session",
    "file-history-snapshot", "queue-operation", "turn_end", "worktree-state",
    "frame-link", "relocated", "started", "result", "atis-latch",
}  # fmt: skip
_AGENT_ID_TAIL = re.compile(r"agentId: ([0-9a-zA-Z_-]+)")


class ClaudeCodeAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Claude Code"
    env_vars: ClassVar[tuple[str, ...]] = ("CLAUDE_CONFIG_DIR",)

    def __init__(self) -> None:
        self._summary_index: dict[Path, dict[str, str]] = {}
        self._project_folders: dict[Path, list[str]] = {}
        self._jsonl_names: dict[str, set[str]] = {}  # a project folder -> its .jsonl names

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
                        yield from _discover_project(Path(project.path))
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
        main_id = _file_session_id(records) or ref.main.path.stem
        newer = self._newer_copy(ref.main.path, main_id)
        if newer is not None:
            why = f"an older copy of session {main_id}; the newest copy, {newer}, is exported"
            result.problems.append(Problem(str(ref.main.path), why, source=SOURCE))
            return result
        links, descriptions = _task_links(records)
        children = self._related_children(ref, main_id, links, descriptions, result.problems)
        inline = _inline_sidechains(records, main_id, ref.main.path, links, descriptions)
        conversation = [r for r in records if not r.get("isSidechain")] if inline else records
        # Link only to subagents that will have a note: loaded here, or an agent file beside.
        exported = {c.session_id for c in children + inline}
        folder = ref.main.path.parent
        child_links = {
            call: child
            for call, child in _child_links(links, main_id).items()
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
                call_id = _meta_tool_use_id(stamp.path)
                if call_id:
                    meta_links[call_id] = _agent_id(stamp.path.name.removesuffix(".meta.json"))
        links.update(meta_links)
        by_agent = {agent: call for call, agent in links.items()}
        children = []
        for stamp in ref.related:
            if stamp.path.suffix != ".jsonl":
                continue
            agent = _agent_id(stamp.path.stem)
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
        agent = _agent_id(path.stem)
        session_id = f"{parent_id}/agent-{agent}" if parent_id else f"agent-{agent}"
        return _session(
            transcript, session_id, path, meta.title or description, parent_id=parent_id,
            agent_label=label,
        )  # fmt: skip

    def _newer_copy(self, path: Path, session_id: str) -> Path | None:
        """Another copy of the same session (a file of the same name, or named by its id, in
        another project folder) whose content is newer, if there is one."""
        projects = path.parent.parent
        names = {path.name, f"{session_id}.jsonl"}
        mine = (_last_timestamp(path), path.stat().st_size, str(path))
        best: tuple[str, int, str] | None = None
        folders = self._project_folders.get(projects)
        if folders is None:
            try:
                folders = [e.path for e in os.scandir(projects) if e.is_dir()]
            except OSError:
                folders = []
            self._project_folders[projects] = folders
        for folder in folders:
            for name in names & self._names_in(folder):
                other = Path(folder) / name
                try:
                    if other == path or "/" in name or not other.is_file():
                        continue
                except OSError:
                    continue  # a name no file can have (an id too long, say)
                if _file_session_id(_head_records(other)) != session_id:
                    continue  # a different session that happens to share the name
                rank = (_last_timestamp(other), other.stat().st_size, str(other))
                if rank > mine and (best is None or rank > best):
                    best = rank
        return Path(best[2]) if best else None

    def _names_in(self, folder: str) -> set[str]:
        """The ``.jsonl`` names in a project folder, listed once: looking for copies of every
        session in every folder by name would stat sessions x folders paths."""
        found = self._jsonl_names.get(folder)
        if found is None:
            try:
                found = {e.name for e in os.scandir(folder) if e.name.endswith(".jsonl")}
            except OSError:
                found = set()
            self._jsonl_names[folder] = found
        return found

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


def _discover_project(folder: Path) -> Iterator[SessionRef]:
    files: dict[str, os.DirEntry[str]] = {}
    dirs: dict[str, os.DirEntry[str]] = {}
    for entry in os.scandir(folder):
        if entry.is_dir():
            dirs[entry.name] = entry
        elif entry.name.endswith(".jsonl") and entry.is_file():
            files[entry.name] = entry
    mains = sorted(n for n in files if not n.startswith("agent-"))
    for name in mains:
        stem = name.removesuffix(".jsonl")
        related = _subagent_files(folder / stem) if stem in dirs else ()
        yield SessionRef(SOURCE, stem, FileStamp.of(files[name]), related)
    for stem in sorted(dirs):
        if f"{stem}.jsonl" not in files:  # the session file was pruned; its agents remain
            for stamp in _subagent_files(folder / stem):
                if stamp.path.suffix == ".jsonl":
                    yield SessionRef(SOURCE, f"{stem}/{stamp.path.stem}", stamp)
    for name in sorted(n for n in files if n.startswith("agent-")):
        stem = name.removesuffix(".jsonl")
        yield SessionRef(SOURCE, stem, FileStamp.of(files[name]))


def _file_session_id(records: list[dict[str, Any]]) -> str | None:
    """The session a main file belongs to: the first ``sessionId`` outside a subagent."""
    for rec in records:
        if _plausible_id(rec.get("sessionId")) and not rec.get("agentId"):
            return str(rec["sessionId"])
    return None


def _plausible_id(value: Any) -> bool:
    """An id that can name a file: a damaged line may hold megabytes or a path."""
    return isinstance(value, str) and 0 < len(value) <= 200 and not re.search(r"[/\\\0]", value)


def _head_records(path: Path, limit: int = 50) -> list[dict[str, Any]]:
    """The first records of a file, enough to find its ``sessionId``."""
    found: list[dict[str, Any]] = []
    try:
        with open(path, "rb") as f:
            while raw := f.readline(1 << 20):  # bounded: a first line may be gigabytes
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict):
                    found.append(obj)
                    if _plausible_id(obj.get("sessionId")) and not obj.get("agentId"):
                        break
                if len(found) >= limit:
                    break
    except OSError:
        pass
    return found


_TIMESTAMP = re.compile(rb'"timestamp"\s*:\s*"([^"]{10,40})"')


def _last_timestamp(path: Path) -> str:
    """The newest record time in a file's tail (ISO text compares in time order)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, path.stat().st_size - (256 << 10)))
            tail = f.read()
    except OSError:
        return ""
    return max(
        (m.group(1).decode("ascii", "replace") for m in _TIMESTAMP.finditer(tail)), default=""
    )


def _subagent_files(session_dir: Path) -> tuple[FileStamp, ...]:
    found: list[FileStamp] = []
    base = session_dir / "subagents"
    if not base.is_dir():
        return ()
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for name in sorted(filenames):
            if name.startswith("agent-") and name.endswith((".jsonl", ".meta.json")):
                found.append(FileStamp.of(Path(dirpath) / name))
    return tuple(found)


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


def _task_links(
    records: list[dict[str, Any]],
) -> tuple[dict[str, str], dict[str, tuple[str | None, str | None]]]:
    """Task call id -> agent id (from results), and call id -> (description, agent type)."""
    links: dict[str, str] = {}
    descriptions: dict[str, tuple[str | None, str | None]] = {}
    for rec in records:
        message = rec.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("name") in ("Task", "Agent"):
                data = block.get("input") if isinstance(block.get("input"), dict) else {}
                descriptions[str(block.get("id"))] = (
                    data.get("description"),
                    data.get("subagent_type"),
                )
            elif block.get("type") == "tool_result":
                agent = _result_agent_id(rec.get("toolUseResult"), block.get("content"))
                if agent:
                    links[str(block.get("tool_use_id"))] = agent
    return links, descriptions


def _result_agent_id(rich: Any, content: Any) -> str | None:
    if isinstance(rich, dict) and isinstance(rich.get("agentId"), str):
        return str(rich["agentId"])
    text = content if isinstance(content, str) else ""
    if isinstance(content, list):
        text = " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    m = _AGENT_ID_TAIL.search(text) if "agentId:" in text else None
    return m.group(1) if m else None


def _child_links(links: dict[str, str], main_id: str) -> dict[str, str]:
    return {call: f"{main_id}/agent-{agent}" for call, agent in links.items()}


def _inline_sidechains(
    records: list[dict[str, Any]],
    main_id: str,
    path: Path,
    links: dict[str, str],
    descriptions: dict[str, tuple[str | None, str | None]],
) -> list[Session]:
    """Sessions for sidechain lines written into the main file (Claude Code < 2.0.28)."""
    side = [r for r in records if r.get("isSidechain") and isinstance(r.get("uuid"), str)]
    if not side or all(
        r.get("isSidechain") for r in records if r.get("type") in ("user", "assistant")
    ):
        return []
    parent_of = {r["uuid"]: r.get("parentUuid") for r in side}
    groups: dict[str, list[dict[str, Any]]] = {}
    for rec in side:
        root = rec["uuid"]
        hops = 0
        while parent_of.get(root) in parent_of and hops < len(side):
            root = parent_of[root]
            hops += 1
        groups.setdefault(root, []).append(rec)
    prompts = {_prompt_of(r): call for call, r in _task_inputs(records).items()}
    sessions = []
    for root, group in groups.items():
        transcript = build_transcript(group, {})
        if not transcript.messages or transcript.first_prompt == WARMUP_PROMPT:
            continue
        agent = next((r["agentId"] for r in group if isinstance(r.get("agentId"), str)), root[:8])
        call = prompts.get((transcript.first_prompt or "").strip())
        if call:
            links[call] = agent
        description, label = descriptions.get(call or "", (None, None))
        sessions.append(
            _session(
                transcript, f"{main_id}/agent-{agent}", path, description,
                parent_id=main_id, agent_label=label,
            )
        )  # fmt: skip
    return sessions


def _task_inputs(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    calls: dict[str, dict[str, Any]] = {}
    for rec in records:
        if rec.get("type") != "assistant" or rec.get("isSidechain"):
            continue
        content = (rec.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("name") in ("Task", "Agent"):
                if isinstance(block.get("input"), dict):
                    calls[str(block.get("id"))] = block["input"]
    return calls


def _prompt_of(task_input: dict[str, Any]) -> str:
    prompt = task_input.get("prompt")
    return prompt.strip() if isinstance(prompt, str) else ""


def _meta_tool_use_id(path: Path) -> str | None:
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    value = data.get("toolUseId") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def _agent_id(stem: str) -> str:
    return stem.removeprefix("agent-")


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
