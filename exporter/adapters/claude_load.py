"""Claude Code: a discovered unit loaded (``ClaudeCodeAdapter.load``), imported with the
first session read so that a run that reads none (nothing new) never imports the parser.

One pass over a main file's lines (claude_mainfile.py) turns each line into parts of
messages; subagents are linked to their Task calls (claude_subagents.py); a file of
``STREAM_FROM`` bytes or more is streamed, its messages read again when needed. The
module docstring of claude_code.py tells the layouts and the titles.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import partial
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING

from ..errors import Problem
from ..model import Message, MessageStream, Session, TextPart
from ._times import Times
from .base import LoadResult, MessageSink, SessionRef, project_name
from .claude_client import client_facts, entrypoint
from .claude_discovery import SOURCE, agent_session_id, file_session_id, leading_summaries
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
    AgentMeta,
    AgentTask,
    TaskIndex,
    agent_id,
    child_session_ids,
    read_agent_meta,
    sidechain_groups,
    task_of_agent_file,
    task_prompt,
)
from .claude_transcript import Transcript, TranscriptBuilder
from .claude_uuids import LineUuids, report_reused

if TYPE_CHECKING:
    from .claude_code import ClaudeCodeAdapter


def load_unit(adapter: ClaudeCodeAdapter, ref: SessionRef, keep: MessageSink | None) -> LoadResult:
    """A discovered unit's sessions (``ClaudeCodeAdapter.load``): its main file read once,
    its subagents linked to their Task calls, a long file streamed."""
    result = LoadResult()
    # A Cowork task's (its transcripts' cwd is sandboxed); its fallback only where no run
    # recorded one (its sidecar cannot be read: ``claude_code._with_desktop_facts``).
    project = ref.fact("project") or ref.fact("project-fallback")
    if ref.session_id.startswith("agent-") or "/" in ref.session_id:
        return _lone_agent(ref, project, result)
    path = ref.main.path
    # One pass over the file: each line becomes parts of messages and is let go, so a
    # long session is held as its messages, never as its parsed JSON.
    stream = adapter.streams(ref)
    # A resumed or forked session starts with a copy of the one it continues: that copy
    # is the other session's note; this one links to it (forked_from).
    copied, origin = adapter.replays.copied(path, adapter.context)
    meta = FileMeta()
    times = Times(lambda: meta.lines)
    main = MainFile(stream, keep if stream else None, times)
    for rec in without_lines(copied, read_records(path, result.problems, meta)):
        # The session is the sessionId inside, not the file name: two folders may hold
        # files of the same name, and a copied transcript keeps its id.
        if main.session_id is None and (found := file_session_id((rec,))):
            main.session_id = found
            main.older = adapter.copies.newer(path, found)
        main.add(rec)
    main_id = main.session_id or path.stem
    newer = main.older if main.session_id else adapter.copies.newer(path, main_id)
    if newer is not None:
        why = _copy_of(adapter, path, newer, main_id)
        result.problems.append(Problem(str(path), why, source=SOURCE))
        result.copy = True
        return result
    times.report(result.problems, path, SOURCE)
    main.sidechains.report(result.problems, path, SOURCE)
    links = main.tasks.links
    children = _related_children(ref, main_id, main.tasks, result.problems)
    inline, warmup, inline_lines = _inline_sidechains(main, main_id, path)
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
        again = FileMeta()
        records = without_lines(warmup | copied, read_records(path, [], again, meta.lines))
        transcript, count = transcribe(records, child_links, stream, lambda: again.lines)
    # One warning for the file's lines kept although their uuid was an earlier line's: in
    # its conversation (the second reading's when there is one: it holds every line the
    # first held) and in its sidechain agents.
    readings = [r for r in (transcript.lines, *inline_lines) if r is not None]
    report_reused(result.problems, path, SOURCE, readings, main.side_line)
    if not count:
        return result
    child_ids = list(dict.fromkeys([*(c.session_id for c in children + inline), *listed]))
    title = (
        ref.fact("title") or meta.title or _summary_title(adapter, path.parent, meta, transcript)
    )
    session = _session(
        transcript, main_id, path, title, extra_children=child_ids, started_in=main.entrypoint
    )
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


def _copy_of(adapter: ClaudeCodeAdapter, path: Path, newer: Path, session_id: str) -> str:
    """Why a file is not exported: another copy of its session is."""
    how = adapter.copies.how(path, newer)
    if how == "same":  # (the file name breaks the tie: the same one is exported each run)
        return f"a copy of session {session_id}, the same as {newer}, which is exported"
    if how == "as new":
        return f"a copy of session {session_id} as recent as {newer}, which is exported"
    return f"an older copy of session {session_id}; the newest copy, {newer}, is exported"


def _related_children(
    ref: SessionRef, main_id: str, tasks: TaskIndex, problems: list[Problem]
) -> list[Session]:
    metas = _sidecars(ref)
    tasks.links.update({m.tool_use_id: agent for agent, m in metas.items() if m.tool_use_id})
    by_agent = {agent: call for call, agent in tasks.links.items()}
    children = []
    for stamp in ref.related:
        if stamp.path.suffix != ".jsonl":
            continue
        agent = agent_id(stamp.path.stem)
        call = by_agent.get(agent)
        description, label = tasks.descriptions.get(call or "", (None, None))
        # The sidecar repeats what the Task call said: it says it for a call not found
        # (cut from the transcript), and says it alike once the transcript is gone.
        sidecar = metas.get(agent, AgentMeta())
        description, label = description or sidecar.description, label or sidecar.agent_type
        task = (description, label, task_prompt(tasks, call))
        try:
            child = _load_agent_file(stamp.path, main_id, problems, task)
        except OSError as exc:  # costs this subagent's note, not its parent's
            why = f"could not be read ({exc.strerror or exc}); this subagent's note is left out"
            problems.append(Problem(str(stamp.path), why, severity="error", source=SOURCE))
            continue
        if child:
            children.append(child)
    return children


def _sidecars(ref: SessionRef) -> dict[str, AgentMeta]:
    """Agent id -> what its ``agent-<id>.meta.json`` among the unit's files says."""
    return {
        agent_id(stamp.path.name.removesuffix(".meta.json")): read_agent_meta(stamp.path)
        for stamp in ref.related
        if stamp.path.name.endswith(".meta.json")
    }


def _lone_agent(ref: SessionRef, project: str | None, result: LoadResult) -> LoadResult:
    """An agent file that is a unit of its own: an older ``agent-<id>.jsonl`` beside the
    sessions, or a ``<session>/subagents/`` agent whose session file is gone (Claude Code's
    cleanup, or the person, deleted it). The second's note keeps what the session gave it:
    its title and type from its sidecar (they are the Task call's), and the session's
    project (the project folder's, which the session's start folder is named after)."""
    sidecar = next(iter(_sidecars(ref).values()), AgentMeta())
    task: AgentTask = (sidecar.description, sidecar.agent_type, None)
    if task == (None, None, None) and ref.main.path.parent.name != "subagents":
        # An older agent file beside its session: the Task call it answered is there.
        task = task_of_agent_file(ref.main.path, agent_session_id(ref.main.path))
    child = _load_agent_file(ref.main.path, None, result.problems, task)
    if child:
        if project is None and "/" in ref.session_id:
            project = _session_project(child.cwd, ref.main.path, ref.session_id.split("/")[0])
        result.sessions.append(replace(child, project=project or child.project))
    return result


def _session_project(cwd: str | None, path: Path, session: str) -> str | None:
    """The project of the session whose ``subagents/`` folder holds ``path``, told without
    its transcript: the folder of the agent's ``cwd`` (or of one above it: an agent may work
    in a subfolder) whose encoded path (FORMATS.md §1: every character but an ASCII letter
    or digit becomes ``-``) is the project folder's name. None when none is (a name cut to
    200 characters and hashed, say): the agent's own ``cwd`` then names it."""
    folder = next(
        (
            p.parent.parent
            for p in path.parents
            if p.name == "subagents" and p.parent.name == session
        ),
        None,
    )
    if not cwd or folder is None:
        return None
    windows = re.match(r"^[A-Za-z]:[\\/]", cwd) or ("\\" in cwd and "/" not in cwd)
    where = PureWindowsPath(cwd) if windows else PurePosixPath(cwd)
    for above in (where, *where.parents):
        if re.sub(r"[^A-Za-z0-9]", "-", str(above)) == folder.name:
            return project_name(str(above))
    return None


def _load_agent_file(
    path: Path,
    parent_id: str | None,
    problems: list[Problem],
    task: AgentTask = (None, None, None),
) -> Session | None:
    """An agent file's session; ``task``: what the Task call that started it said (its
    description, agent type and prompt, each None when not known)."""
    description, label, prompt = task
    meta = FileMeta()
    times = Times(lambda: meta.lines)
    builder = TranscriptBuilder(times)
    started_in = None
    for rec in read_records(path, problems, meta):
        if parent_id is None and isinstance(rec.get("sessionId"), str):
            parent_id = rec["sessionId"]
        started_in = started_in or entrypoint(rec)
        builder.add(rec)
    times.report(problems, path, SOURCE)
    builder.report_reused(problems, path, SOURCE)
    transcript = builder.finish({})
    if not transcript.messages or transcript.first_prompt == WARMUP_PROMPT:
        return None
    if prompt and _starts_unprompted(transcript):
        # Its file begins with the agent's reply (its prompt line not written): the task is
        # what the Task call asked, as the parent agent gave it, when the agent began.
        task_message = Message("user", (TextPart(prompt),), None, transcript.started)
        transcript.messages.insert(0, task_message)
    agent = agent_id(path.stem)
    session_id = f"{parent_id}/agent-{agent}" if parent_id else f"agent-{agent}"
    return _session(
        transcript, session_id, path, meta.title or description, parent_id=parent_id,
        agent_label=label, started_in=started_in,
    )  # fmt: skip


def _starts_unprompted(transcript: Transcript) -> bool:
    """Does the conversation begin with a reply, no prompt before it?"""
    first = next((m for m in transcript.messages if m.role in ("user", "assistant")), None)
    return first is not None and first.role == "assistant"


def _summary_title(
    adapter: ClaudeCodeAdapter, folder: Path, meta: FileMeta, transcript: Transcript
) -> str | None:
    """A ``summary`` line whose leaf lies in this session, here or in a sibling file."""
    for leaf, summary in reversed(meta.summaries):
        if leaf in transcript.uuids:
            return summary
    index = adapter.summary_index.get(folder)
    if index is None:
        index = adapter.summary_index[folder] = leading_summaries(folder)
    for leaf, summary in index.items():
        if leaf in transcript.uuids:
            return summary
    return None


def _inline_sidechains(
    main: MainFile, main_id: str, path: Path
) -> tuple[list[Session], set[str], list[LineUuids | None]]:
    """Sessions for sidechain lines written into the main file (Claude Code < 2.0.28), the
    uuids of the lines of Warmup agents (in no conversation, the parent's neither), and
    the lines each agent read, by uuid (to report those that reuse one)."""
    sessions = []
    groups, warmup = sidechain_groups(main.side, main.tasks, main.main_conversation)
    for agent, call, transcript in groups:
        description, label = main.tasks.descriptions.get(call or "", (None, None))
        sessions.append(
            _session(
                transcript, f"{main_id}/agent-{agent}", path, description,
                parent_id=main_id, agent_label=label, started_in=main.entrypoint,
            )
        )  # fmt: skip
    return sessions, warmup, [transcript.lines for _, _, transcript in groups]


def _session(
    transcript: Transcript,
    session_id: str,
    path: Path,
    title: str | None,
    *,
    parent_id: str | None = None,
    agent_label: str | None = None,
    extra_children: list[str] | None = None,
    started_in: str | None = None,
) -> Session:
    """``started_in``: the ``entrypoint`` its lines name, the app it ran in (``client``)."""
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
        model_usage=transcript.model_usage,
        parent_id=parent_id,
        subagent_ids=tuple(extra_children or ()),
        agent_label=agent_label,
        extra=client_facts(started_in),
    )
