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

A file is read once, line by line: each line is turned into parts of messages and let go,
so memory holds a long session's messages, not its JSON (about half of which repeats tool
output). Only the sidechain lines of the old layout are kept until the file is read. A
session file of ``STREAM_FROM`` bytes or more is not held at all: the first reading keeps
only what describes the whole session (times, models, usage, titles, subagents), and its
messages are a MessageStream that reads the file again, as far as the first reading went,
each time they are needed (the note builder cuts them into part notes as they come). Given
a ``keep`` sink (``packed.PartPacker``, in a worker reading ahead), the first reading hands
it each message as it is closed, so that the file need not be read again.

Finding the files is in claude_discovery.py, one pass over a file's lines in
claude_mainfile.py, linking subagents to their Task calls in claude_subagents.py; this module
loads a discovered session and builds its sessions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache, partial
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import ClassVar

from ..collector import collector_paused
from ..errors import Problem
from ..model import MessageStream, Session
from ._times import Times
from .base import STREAM_FROM, LoadResult, MessageSink, SessionRef, SourceContext, listed
from .claude_desktop import CoworkHome, code_tab_titles, cowork_homes
from .claude_discovery import (
    SOURCE,
    NewerCopies,
    Replays,
    discover_project,
    file_session_id,
    leading_summaries,
)
from .claude_mainfile import (
    FileMeta,
    MainFile,
    read_messages,
    read_records,
    transcribe,
    without_lines,
)
from .claude_subagents import (
    WARMUP_PROMPT,
    agent_id,
    child_session_ids,
    meta_tool_use_id,
    sidechain_groups,
)
from .claude_transcript import Transcript, TranscriptBuilder


class ClaudeCodeAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Claude Code"
    env_vars: ClassVar[tuple[str, ...]] = ("CLAUDE_CONFIG_DIR",)
    # A unit's sessions depend on its files alone (and on folder listings and, for a
    # resumed session, the files of the sessions it continues, read the same way
    # anywhere): a worker may read it ahead (``readahead``).
    reads_alone: ClassVar[bool] = True
    # ``load`` hands a streamed session's messages to a ``keep`` sink as it reads them.
    keeps_streamed: ClassVar[bool] = True

    def __init__(self) -> None:
        self._summary_index: dict[Path, dict[str, str]] = {}
        self._copies = NewerCopies()
        self._replays = Replays()
        self._ctx: SourceContext | None = None  # the run's, for --since

    def held_size(self, ref: SessionRef) -> int:
        """The bytes reading the unit holds: a main file that is streamed, nothing."""
        return sum(f.size for f in ref.files if f is not ref.main or not self.streams(ref))

    def streams(self, ref: SessionRef) -> bool:
        """Is the unit's main file streamed (never held)?"""
        return ref.main.size >= STREAM_FROM

    def roots(self, ctx: SourceContext) -> list[Path]:
        return self._roots(ctx, cowork_homes(ctx))

    def _roots(self, ctx: SourceContext, cowork: list[CoworkHome]) -> list[Path]:
        configured_paths = ctx.configured(SOURCE, "projects")
        if configured_paths:
            return configured_paths
        roots: list[Path] = []
        configured = ctx.env.get("CLAUDE_CONFIG_DIR") if ctx.real_home else None
        if configured:
            roots.append(Path(configured).expanduser() / "projects")
        roots.append(ctx.home / ".claude" / "projects")
        roots += [home.projects for home in cowork]  # Claude Desktop's Cowork tasks
        return list(dict.fromkeys(roots))

    def use_context(self, ctx: SourceContext) -> None:
        """The run's context: a session --since leaves out is no copy to leave out."""
        self._ctx = ctx

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        self.use_context(ctx)
        # The Desktop app's facts (FORMATS.md §1.1): a Cowork task's title and project, a
        # Code tab session's title; in the fingerprint, so that a rename re-exports it.
        desktop = not ctx.configured(SOURCE, "projects")
        titles = code_tab_titles(ctx) if desktop else {}
        homes = cowork_homes(ctx) if desktop else []  # their sidecars read once a discovery
        cowork = {home.projects: home for home in homes}
        for root in self._roots(ctx, homes):
            if not root.is_dir():
                continue
            task = cowork.get(root)
            for project in listed(root):
                if project.is_dir():
                    try:
                        for ref in discover_project(Path(project.path)):
                            yield _with_desktop_facts(ref, titles, task)
                    except PermissionError:
                        continue  # reported by the pipeline as an unreadable folder

    def load(self, ref: SessionRef, keep: MessageSink | None = None) -> LoadResult:
        # A held session is tens of thousands of new containers (parts, tool inputs) and no
        # cycle among them: the collector, woken every few hundred, would walk them again
        # and again (a 100,000-line session: 1.8 -> 1.3 s). Values are the same either way.
        with collector_paused():
            return self._load(ref, keep)

    def _load(self, ref: SessionRef, keep: MessageSink | None) -> LoadResult:
        result = LoadResult()
        project = ref.fact("project")  # a Cowork task's (its transcripts' cwd is sandboxed)
        if ref.session_id.startswith("agent-") or "/" in ref.session_id:
            child = self._load_agent_file(ref.main.path, None, result.problems)
            if child:
                result.sessions.append(replace(child, project=project or child.project))
            return result
        path = ref.main.path
        # One pass over the file: each line becomes parts of messages and is let go, so a
        # long session is held as its messages, never as its parsed JSON.
        stream = self.streams(ref)
        # A resumed or forked session starts with a copy of the one it continues: that copy
        # is the other session's note; this one links to it (forked_from).
        copied, origin = self._replays.copied(path, self._ctx)
        meta = FileMeta()
        times = Times(lambda: meta.lines)
        main = MainFile(stream, keep if stream else None, times)
        for rec in without_lines(copied, read_records(path, result.problems, meta)):
            # The session is the sessionId inside, not the file name: two folders may hold
            # files of the same name, and a copied transcript keeps its id.
            if main.session_id is None and (found := file_session_id((rec,))):
                main.session_id = found
                main.older = self._copies.newer(path, found)
            main.add(rec)
        main_id = main.session_id or path.stem
        newer = main.older if main.session_id else self._copies.newer(path, main_id)
        if newer is not None:
            why = f"an older copy of session {main_id}; the newest copy, {newer}, is exported"
            result.problems.append(Problem(str(path), why, source=SOURCE))
            return result
        times.report(result.problems, path, SOURCE)
        links, descriptions = main.tasks.links, main.tasks.descriptions
        children = self._related_children(ref, main_id, links, descriptions, result.problems)
        inline, warmup = _inline_sidechains(main, main_id, path)
        # Every subagent a Task result names is linked from its call where it has a note, this
        # run's or an earlier run's (a subagent's file may be cleaned up before its parent's;
        # its note stays). The session lists those that will have one: loaded here, or an
        # agent file beside (read later, as a unit of its own).
        child_links = child_session_ids(links, main_id)
        exported = {c.session_id for c in children + inline}
        folder = path.parent
        listed = [
            child
            for call, child in child_links.items()
            if child in exported or (folder / f"agent-{links[call]}.jsonl").is_file()
        ]
        every_line = not inline and main.any_sidechain
        if not every_line:
            transcript = main.transcript.finish(child_links)
            count = main.let_go + len(transcript.messages)
            if main.keep is not None:  # (not ended otherwise: its messages are read again)
                main.keep.add(transcript.messages)
                main.keep.end(child_links)
        else:
            # Sidechain lines that make no subagent of their own stay in the conversation:
            # read the file once more (as far as the first pass went), every line this time.
            main.transcript = TranscriptBuilder()
            records = without_lines(warmup | copied, read_records(path, [], FileMeta(), meta.lines))
            transcript, count = transcribe(records, child_links, stream)
        if not count:
            return result
        child_ids = list(dict.fromkeys([*(c.session_id for c in children + inline), *listed]))
        title = (
            ref.fact("title") or meta.title or self._summary_title(path.parent, meta, transcript)
        )
        session = _session(transcript, main_id, path, title, extra_children=child_ids)
        if project or origin:
            session = replace(session, project=project or session.project, forked_from=origin)
        if stream:
            skip = warmup if every_line else None
            read = partial(read_messages, path, meta.lines, child_links, skip, copied)
            session = replace(session, messages=MessageStream(read))
        result.sessions.append(session)
        # A subagent works for its parent's project, even from a subfolder of it.
        result.sessions.extend(replace(c, project=session.project) for c in children + inline)
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
            try:
                child = self._load_agent_file(stamp.path, main_id, problems, description, label)
            except OSError as exc:  # costs this subagent's note, not its parent's
                why = f"could not be read ({exc.strerror or exc}); this subagent's note is left out"
                problems.append(Problem(str(stamp.path), why, severity="error", source=SOURCE))
                continue
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
        meta = FileMeta()
        times = Times(lambda: meta.lines)
        builder = TranscriptBuilder(times)
        for rec in read_records(path, problems, meta):
            if parent_id is None and isinstance(rec.get("sessionId"), str):
                parent_id = rec["sessionId"]
            builder.add(rec)
        times.report(problems, path, SOURCE)
        transcript = builder.finish({})
        if not transcript.messages or transcript.first_prompt == WARMUP_PROMPT:
            return None
        agent = agent_id(path.stem)
        session_id = f"{parent_id}/agent-{agent}" if parent_id else f"agent-{agent}"
        return _session(
            transcript, session_id, path, meta.title or description, parent_id=parent_id,
            agent_label=label,
        )  # fmt: skip

    def _summary_title(self, folder: Path, meta: FileMeta, transcript: Transcript) -> str | None:
        """A ``summary`` line whose leaf lies in this session, here or in a sibling file."""
        for leaf, summary in reversed(meta.summaries):
            if leaf in transcript.uuids:
                return summary
        index = self._summary_index.get(folder)
        if index is None:
            index = self._summary_index[folder] = leading_summaries(folder)
        for leaf, summary in index.items():
            if leaf in transcript.uuids:
                return summary
        return None


def _with_desktop_facts(
    ref: SessionRef, titles: dict[str, str], task: CoworkHome | None
) -> SessionRef:
    """A session with the Desktop app's title for it and, in a Cowork task, the task's
    project (its subagents too) and title (its own transcript's)."""
    extra: list[str] = []
    title = titles.get(ref.session_id)
    if task is not None:
        if task.title and ref.session_id == task.session_id:
            title = title or task.title
        extra.append(f"project={task.project}")
    if title and not ref.session_id.startswith("agent-") and "/" not in ref.session_id:
        extra.insert(0, f"title={title}")
    return replace(ref, extra=(*ref.extra, *extra)) if extra else ref


def _inline_sidechains(main: MainFile, main_id: str, path: Path) -> tuple[list[Session], set[str]]:
    """Sessions for sidechain lines written into the main file (Claude Code < 2.0.28), and
    the uuids of the lines of Warmup agents (in no conversation, the parent's neither)."""
    sessions = []
    groups, warmup = sidechain_groups(main.side, main.tasks, main.main_conversation)
    for agent, call, transcript in groups:
        description, label = main.tasks.descriptions.get(call or "", (None, None))
        sessions.append(
            _session(
                transcript, f"{main_id}/agent-{agent}", path, description,
                parent_id=main_id, agent_label=label,
            )
        )  # fmt: skip
    return sessions, warmup


@lru_cache(maxsize=256)  # the sessions of a project share their cwd
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
