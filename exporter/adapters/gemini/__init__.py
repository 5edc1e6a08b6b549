"""Gemini CLI: ``~/.gemini/tmp/<project>/chats/session-*.json[l]`` (FORMATS.md §6.1).

Where: ``<home>/.gemini/tmp``; on the real home also ``$GEMINI_CLI_HOME/.gemini/tmp``
(the variable replaces the home folder). Each project folder (a slug, or in old builds the
SHA-256 of the project root) holds:

- ``chats/session-<time>-<8 chars of the id>.json|.jsonl``: one session may have several
  files (a legacy ``.json`` and the ``.jsonl`` it was migrated to, or one file per resume);
  they are one discovery unit, grouped by the 8 characters, with the subagent sessions in
  ``chats/<session id>/<agent id>.jsonl`` (their own notes, linked through the parent's
  ``toolCalls[].agentId``);
- ``checkpoint-<tag>.json`` (``/chat save <tag>``): a note of its own titled by the tag,
  linked (``forked_from``) to the session whose prompts it holds, when one is on disk;
- ``logs.json``: every prompt of every session. Gives notes only to sessions with no chat
  file left (pruned by the CLI's 30-day retention, or never written): their notes hold the
  prompts alone. A session with a chat file takes its prompts from that file; the log only
  tells a "Please continue." the person typed from the one the CLI sends itself.

The project root comes from the folder's ``.project_root`` marker, else ``projects.json``,
else (hashed folders) a path whose SHA-256 equals the folder name. Restore checkpoints
(``checkpoints/``) repeat the session up to a tool call and are not read.

A chat of JSONL files of ``STREAM_FROM`` bytes or more is indexed, not held (chatfiles.py's
``StreamedRecords``): its messages are a MessageStream read again when needed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import unquote

from ...errors import Problem
from ...model import Message, MessageStream, NoticePart, Session, usage_per_model
from .._jsonl import parse_timestamp
from .._times import Times
from ..base import (
    STREAM_FROM,
    FileStamp,
    LoadResult,
    SessionRef,
    SourceContext,
    listed,
    project_name,
)

if TYPE_CHECKING:
    from .chatfiles import Chat

# The parsers (chatfiles.py, chat.py, stores.py) are imported by the functions that read a
# session, so that finding none costs nothing; they take the source's name from here.
SOURCE = "gemini"
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
CHAT = "chat"
CHECKPOINT = "checkpoint"
PROMPT_LOG = "logs"


class GeminiAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Gemini CLI"
    env_vars: ClassVar[tuple[str, ...]] = ("GEMINI_CLI_HOME",)
    # A unit's sessions depend on its files and, read only, on its project folder and the
    # registry beside it: a worker reads a unit ahead as the main process would.
    reads_alone: ClassVar[bool] = True

    def __init__(self) -> None:
        self._registries: dict[Path, dict[str, str]] = {}

    def roots(self, ctx: SourceContext) -> list[Path]:
        configured_paths = ctx.configured(SOURCE, "tmp")
        if configured_paths:
            return configured_paths
        roots: list[Path] = []
        configured = ctx.env.get("GEMINI_CLI_HOME") if ctx.real_home else None
        if configured:
            roots.append(Path(configured).expanduser() / ".gemini" / "tmp")
        roots.append(ctx.home / ".gemini" / "tmp")
        return list(dict.fromkeys(roots))

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        for root in self.roots(ctx):
            if not root.is_dir():
                continue
            for project in listed(root):
                if project.is_dir():
                    yield from _discover_project(Path(project.path))

    def load(self, ref: SessionRef) -> LoadResult:
        result = LoadResult()
        kind = ref.fact("kind")
        folder = _project_folder(ref)
        registry = self._registry(folder.parent.parent / "projects.json")
        if kind == AGENTS:
            load_orphan_agents(ref, folder, registry, result)
        elif kind == CHECKPOINT:
            from .saved import load_checkpoint

            load_checkpoint(ref, folder, registry, result)
        elif kind == PROMPT_LOG:
            _load_prompt_log(ref, folder, registry, result)
        else:
            _load_chat(ref, folder, registry, result)
        return result

    def count_sessions(self, ref: SessionRef) -> int:
        """Sessions a unit holds, for ``ccexport sources``: a chat and its subagents; the
        sessions of a prompt log that have no chat file."""
        from .stores import read_prompt_log

        kind = ref.fact("kind")
        if kind == PROMPT_LOG:
            sessions = read_prompt_log(ref.main.path, []) or {}
            on_disk = _chat_keys(_project_folder(ref))
            return sum(1 for sid in sessions if sid[:8].lower() not in on_disk)
        if kind == CHECKPOINT:
            return 1
        if kind == AGENTS:
            return 1 + len(ref.related)
        return 1 + sum(1 for s in ref.related if s.path.parent != ref.main.path.parent)

    def _registry(self, path: Path) -> dict[str, str]:
        if path not in self._registries:
            from .stores import read_registry

            self._registries[path] = read_registry(path)
        return self._registries[path]


def _project_folder(ref: SessionRef) -> Path:
    """``<tmp>/<project>`` of a unit, by where its main file lies in it: a chat file in
    ``chats/``, a subagent's in ``chats/<session id>/``, a saved chat or the prompt log in
    the folder itself. Never by a folder's name: a project named "chats" (a repository of
    that name) has a folder of that name, holding its own ``chats/``."""
    depth = {CHAT: 2, AGENTS: 3}.get(ref.fact("kind") or "", 1)
    return ref.main.path.parents[depth - 1]


def chat_key(name: str) -> str | None:
    """The 8 characters of the session id a chat file name carries."""
    if not name.startswith("session-") or not name.endswith((".json", ".jsonl")):
        return None
    stem = name.removeprefix("session-").rsplit(".", 1)[0]
    if _UUID.fullmatch(stem):
        return stem[:8].lower()
    tail = stem.rsplit("-", 1)[-1]
    return tail.lower() if tail else None


def _discover_project(folder: Path) -> Iterator[SessionRef]:
    chats = folder / "chats"
    groups: dict[str, list[os.DirEntry[str]]] = {}
    agent_dirs: list[os.DirEntry[str]] = []
    if chats.is_dir():
        for entry in listed(chats):
            if entry.is_dir():
                # Subagents live in a folder named by their session's id; any other folder
                # (a link back to ``chats`` itself) would list the chats as subagents.
                if _UUID.fullmatch(entry.name):
                    agent_dirs.append(entry)
            elif (key := chat_key(entry.name)) and entry.is_file():
                groups.setdefault(key, []).append(entry)
    for key, entries in groups.items():
        # The .jsonl a legacy file migrates to (or the latest resume) is the main file.
        entries.sort(key=lambda e: (e.name.endswith(".jsonl"), e.name))
        main, *others = reversed(entries)
        related = [FileStamp.of(e) for e in reversed(others)]
        for agents in agent_dirs:
            if agents.name.lower().startswith(key):
                related += [
                    FileStamp.of(e)
                    for e in listed(agents.path)
                    if e.name.endswith(".jsonl") and e.is_file()
                ]
        yield SessionRef(SOURCE, key, FileStamp.of(main), tuple(related), (f"kind={CHAT}",))
    for agents in agent_dirs:  # with no chat file to list them: their own unit
        if not any(agents.name.lower().startswith(key) for key in groups):
            yield from orphan_agents(agents)
    for entry in listed(folder):
        if (
            entry.name.startswith("checkpoint-")
            and entry.name.endswith(".json")
            and entry.is_file()
        ):
            tag = unquote(entry.name.removeprefix("checkpoint-").removesuffix(".json"))
            yield SessionRef(
                SOURCE,
                f"{folder.name}/checkpoint/{tag}",
                FileStamp.of(entry),
                extra=(f"kind={CHECKPOINT}",),
            )
        elif entry.name == "logs.json" and entry.is_file():
            yield SessionRef(
                SOURCE, f"{folder.name}/logs", FileStamp.of(entry), extra=(f"kind={PROMPT_LOG}",)
            )


def _load_chat(ref: SessionRef, folder: Path, registry: dict[str, str], result: LoadResult) -> None:
    from .chatfiles import read_chat
    from .stores import path_candidates, project_root

    # The session's own files lie beside its main file; its subagents' in a folder below.
    chats = ref.main.path.parent
    own = [s.path for s in ref.related if s.path.parent == chats]
    size = ref.main.size + sum(s.size for s in ref.related if s.path.parent == chats)
    chat = read_chat([*own, ref.main.path], result.problems, index=size >= STREAM_FROM)
    if chat is None:
        return
    # Tells the CLI's prompts from typed ones; read (if there) only when a chat needs it
    chat.prompt_log = folder / "logs.json"
    session_id = _str(chat.meta.get("sessionId"))
    lost = session_id is None and _header_lost(ref.main.path, chat, result.problems)
    if lost and not chat.records:
        why = (
            "the file is empty (or nothing of it could be read): left out with its "
            "subagents, any note of them kept"
        )
        result.problems.append(Problem(str(ref.main.path), why, source=SOURCE))
        result.unreadable = True  # said: not also a file "without a conversation"
        return
    if lost or session_id is None and "sessionId" in chat.meta:
        # The header (the first line: the session's id and title) is lost or damaged for
        # good: what can be read is exported, under the full id another file gives.
        from .damage import header_damage

        session_id, why = header_damage(ref, chat, lost, folder / "logs.json")
        result.problems.append(Problem(str(ref.main.path), why, source=SOURCE))
    elif (summary := chat.meta.get("summary")) is not None and not isinstance(summary, str):
        from .._values import json_kind

        why = f"its title (summary) is {json_kind(summary)}, not text: titled by its first prompt"
        result.problems.append(Problem(str(ref.main.path), why, source=SOURCE))
    session_id = session_id or ref.session_id  # (a file written with no header line)
    children: list[Session] = []
    links: dict[str, str] = {}
    for stamp in ref.related:
        if stamp.path.parent == chats:
            continue
        child_chat = read_chat([stamp.path], result.problems)
        if child_chat is None:
            continue
        agent = _str(child_chat.meta.get("sessionId")) or stamp.path.stem
        child = _session(child_chat, f"{session_id}/agent-{agent}", stamp.path, result.problems, {})
        if child.messages:  # only a subagent with a note of its own is linked
            links[agent] = child.session_id
            children.append(child)
    main = _session(chat, session_id, ref.main.path, result.problems, links)
    cwd = project_root(
        folder,
        registry,
        chat.meta.get("projectHash"),
        path_candidates(chat.meta, chat.records.values()),
    )
    project = _project(folder, cwd)
    exported = [c.session_id for c in children]
    main = _with(main, cwd=cwd, project=project, subagent_ids=tuple(exported))
    if main.messages:
        result.sessions.append(main)
    names = _agent_names(chat) if children else {}
    for child in children:
        agent = child.session_id.rsplit("/agent-", 1)[-1]
        result.sessions.append(
            _with(
                child, cwd=cwd, project=project, parent_id=session_id, agent_label=names.get(agent)
            )
        )


def _header_lost(path: Path, chat: Chat, problems: list[Problem]) -> bool:
    """Did a JSONL chat lose its header line (damaged, or the file emptied), rather than
    never have one (files some tools write start with the first message)?"""
    if not chat.meta and not chat.records:
        return True
    lost = (str(path), 1)
    return path.suffix == ".jsonl" and any((p.path, p.line) == lost for p in problems)


def _agent_names(chat: Chat) -> dict[str, str]:
    """Subagent id -> the name of the tool call that started it."""
    names = {}
    for rec in chat.records.values():
        calls = rec.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and _str(call.get("agentId")):
                names[call["agentId"]] = (
                    _str(call.get("displayName")) or _str(call.get("name")) or "tool"
                )
    return names


def _messages_again(chat: Chat, path: Path, links: dict[str, str]) -> Iterator[Message]:
    """A streamed chat's messages, read again from its index."""
    from .chat import Built, iter_messages

    return iter_messages(chat, path, [], links, Built())


def _session(
    chat: Chat, session_id: str, path: Path, problems: list[Problem], links: dict[str, str]
) -> Session:
    from .chat import Built, build_messages, iter_messages
    from .chatfiles import StreamedRecords

    if isinstance(chat.records, StreamedRecords):
        # Read for its times, models and tokens; its messages are read again when needed.
        built = Built()
        count = sum(1 for _ in iter_messages(chat, path, problems, links, built))
        again = partial(_messages_again, chat, path, links)  # a worker's result is pickled
        messages: tuple[Message, ...] | MessageStream = MessageStream(again) if count else ()
    else:
        built = build_messages(chat, path, problems, links)
        messages = tuple(built.messages)
    start, update = chat.meta.get("startTime"), chat.meta.get("lastUpdated")
    started = parse_timestamp(start) or built.times.unread(start, "startTime") or built.first
    if started and built.first and built.first < started:
        started = built.first  # a session in several files: each gives its own startTime
    ended = parse_timestamp(update) or built.times.unread(update, "lastUpdated")
    ended = ended or built.last or started
    built.times.report(problems, path, SOURCE)
    return Session(
        source=SOURCE,
        session_id=session_id,
        messages=messages,
        source_path=path,
        title=_str(chat.meta.get("summary")),
        models=tuple(built.models),
        started_at=started,
        ended_at=max(ended, built.last) if ended and built.last else ended,
        usage=built.usage,
        model_usage=usage_per_model(built.per_model),
    )


def _load_prompt_log(
    ref: SessionRef, folder: Path, registry: dict[str, str], result: LoadResult
) -> None:
    from .stores import project_root, prompt_messages, read_prompt_log

    sessions = read_prompt_log(ref.main.path, result.problems)
    if not sessions:
        return
    unread = Times()
    on_disk = _chat_keys(folder)
    cwd = project_root(folder, registry, None, [])
    project = _project(folder, cwd)
    note = NoticePart(  # ccexport's remark on what is left: not a message of the session
        "remark",
        "Only the prompts remain: Gemini CLI's chat file for this session is gone, "
        "so they come from its prompt log (logs.json).",
    )
    for session_id, entries in sessions.items():
        if session_id[:8].lower() in on_disk:
            continue  # the chat file is richer
        messages = prompt_messages(entries, unread)
        if not messages:
            continue
        times = [m.timestamp for m in messages if m.timestamp]
        result.sessions.append(
            Session(
                SOURCE,
                session_id,
                (Message("system", (note,)), *messages),
                ref.main.path,
                project=project,
                cwd=cwd,
                started_at=min(times, default=None),
                ended_at=max(times, default=None),
            )
        )
    unread.report(result.problems, ref.main.path, SOURCE)


def _chat_keys(folder: Path) -> set[str | None]:
    chats = folder / "chats"
    return {chat_key(e.name) for e in os.scandir(chats)} if chats.is_dir() else set()


def _project(folder: Path, cwd: str | None) -> str | None:
    """The root's folder name; without a root, the project folder's slug (never a hash)."""
    from .stores import HASH_DIR

    return project_name(cwd) or (None if HASH_DIR.fullmatch(folder.name) else folder.name)


def _with(session: Session, **changes: Any) -> Session:
    return replace(session, **changes)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


from .agents import AGENTS, load_orphan_agents, orphan_agents  # noqa: E402 (it uses the above)
