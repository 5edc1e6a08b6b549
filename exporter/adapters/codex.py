"""OpenAI Codex CLI: ``$CODEX_HOME/sessions/**/rollout-*.jsonl`` (FORMATS.md §2).

Where: ``<home>/.codex`` (and ``$CODEX_HOME`` on the real home), in ``sessions/`` and
``archived_sessions/``, at any depth. Four generations, recognised line by line: the
TypeScript CLI's whole-document ``rollout-<date>-<id>.json``; early Rust JSONL (a bare
header line, bare Responses items, ``record_type`` filler); the current
``{timestamp, type, payload}`` envelope; and ``.jsonl.zst`` files compressed in place (the
plain file wins when both exist).

A rollout records the conversation twice: as ``response_item`` (what the model saw) and as
``event_msg`` (what the UI showed). Prompts come from ``event_msg/user_message`` where the
file has any (the model's copy carries injected context); replies and reasoning arrive in
both streams and are kept once (a text from one stream cancels its twin from the other).
Reasoning is only ever its readable summary, never ``encrypted_content``.

Titles come from ``session_index.jsonl`` (newest line per id wins), read at discovery and
put in the fingerprint, so a rename re-exports just that session. Subagent rollouts
(``session_meta.source.subagent``) name their parent thread. A fork (``forked_from_id``, or
a second ``session_meta`` of another thread) starts by replaying its origin: when the
origin's rollout is on disk, that replayed prefix is dropped and the note links to the
origin instead; when it is not, nothing is dropped.

A rollout of ``STREAM_FROM`` bytes or more is never held: its records are scanned for what
must be known before they are read in order, read again for the session's totals, and its
messages are a MessageStream that reads them a last time, as far as the scan went. Given a
``keep`` sink (in a worker reading ahead), the second reading hands it each message, so
that the last is not needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..collector import collector_paused
from ..errors import Problem, SourceChanged, how_many
from ..model import Message, MessageStream, Session
from ._jsonl import parse_timestamp
from ._unanswered import last_reply_marked
from .base import (
    STREAM_FROM,
    FileStamp,
    LoadResult,
    MessageSink,
    SessionRef,
    SourceContext,
    project_name,
)
from .codex_document import placed_in_document
from .codex_files import (
    SOURCE,
    id_from_name,
    iter_records,
    rollout_files,
    rollout_records,
    subagent_meta,
)
from .codex_index import read_titles
from .codex_meta import client, priced_usage

if TYPE_CHECKING:
    from .codex_prompts import CustomPrompt
    from .codex_rollout import Rollout, RolloutBuilder
    from .codex_scan import ChildLookup, RolloutLookup, Scan

KNOWN_KINDS = {
    "session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state",
    "inter_agent_communication", "inter_agent_communication_metadata",
}  # fmt: skip


class CodexAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Codex"
    env_vars: ClassVar[tuple[str, ...]] = ("CODEX_HOME",)
    # A rollout's session depends on its file and, for a fork, on the rollout it copied,
    # looked up under the roots of the run's context: a worker told that context
    # (``use_context``) reads a unit ahead as the main process would (``readahead``).
    reads_alone: ClassVar[bool] = True
    # ``load`` hands a streamed rollout's messages to a ``keep`` sink as it reads them.
    keeps_streamed: ClassVar[bool] = True

    def __init__(self) -> None:
        self._rollouts: dict[str, Path] | None = None
        self._ctx: SourceContext | None = None
        self._prompts: list[CustomPrompt] | None = None  # the custom prompts, read once
        # Each thread's last prompt in history.jsonl, read once (when a rollout has no end)
        self._prompt_times: dict[str, datetime] | None = None
        # The subagents' rollouts by parent thread (codex_children.py), read once if needed
        self._children: dict[str, list[tuple[str | None, str]]] | None = None

    def roots(self, ctx: SourceContext) -> list[Path]:
        configured_paths = ctx.configured(SOURCE)
        if configured_paths:
            return configured_paths
        roots: list[Path] = []
        configured = ctx.env.get("CODEX_HOME") if ctx.real_home else None
        if configured:
            roots.append(Path(configured).expanduser())
        roots.append(ctx.home / ".codex")
        return list(dict.fromkeys(roots))

    def use_context(self, ctx: SourceContext) -> None:
        """Where forked threads' origins and the custom prompts are looked up."""
        self._ctx, self._prompts, self._prompt_times, self._children = ctx, None, None, None

    def _custom_prompts(self) -> list[CustomPrompt]:
        from .codex_prompts import read_prompts  # (read when a session is: re2 with it)

        if self._prompts is None:
            roots = self.roots(self._ctx) if self._ctx is not None else []
            self._prompts = read_prompts([root / "prompts" for root in roots])
        return self._prompts

    def _ended_by_history(self, session: Session, problems: list[Problem]) -> Session:
        """A session whose rollout has no time past its start (the early formats) ends at
        its thread's last prompt in ``history.jsonl``, when that is later than the start.
        The history is read once, when the first such rollout is; what is wrong with it is
        reported with that rollout."""
        from .codex_history import ended_by, last_prompts

        if self._prompt_times is None:
            roots = self.roots(self._ctx) if self._ctx is not None else []
            self._prompt_times = last_prompts(roots, problems)
        return ended_by(session, self._prompt_times)

    def held_size(self, ref: SessionRef) -> int:
        """The bytes reading the unit holds: a compressed rollout's expanded, a streamed
        one's nothing."""
        return sum(0 if _streamed(f) else _expanded(f) for f in ref.files)

    def streams(self, ref: SessionRef) -> bool:
        """Is the unit's rollout streamed (never held)?"""
        return _streamed(ref.main)

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        self.use_context(ctx)
        for root in self.roots(ctx):
            titles, unread = read_titles(root / "session_index.jsonl")
            for path in rollout_files(root):
                session_id = id_from_name(path.name)
                title = titles.get(session_id or "")
                extra = (f"title={title}",) if title else ()
                stamp = FileStamp.listed(path)
                if stamp is not None:
                    yield SessionRef(SOURCE, session_id or path.stem, stamp, (), extra, unread)

    def spawned_by(self, ref: SessionRef) -> tuple[str, str] | None:
        """``(thread, parent thread)`` of a subagent's rollout, from its first record alone:
        a rollout is a unit of its own, and only the child's names its parent, so the run
        asks before the parent's note is written (else written again to link the child).
        None for any other rollout; a first line that cannot be read is the load's to say."""
        from .codex_rollout import spawning_thread

        meta = subagent_meta(ref.main.path)
        parent = spawning_thread(meta) if meta is not None else None
        if meta is None or parent is None:
            return None
        thread = meta.get("id") if isinstance(meta.get("id"), str) else ref.session_id
        return str(thread).lower(), parent

    def _children_of(self, parent: str) -> list[tuple[str | None, str]]:
        """The subagents' rollouts naming ``parent`` their parent, as (agent path, thread),
        in the order they began: every rollout's first line is read for it once, when a
        ``spawn_agent`` call first names its agent by task alone."""
        if self._children is None:
            from .codex_children import index_children

            roots = self.roots(self._ctx) if self._ctx is not None else []
            paths = [path for root in roots for path in rollout_files(root)]
            self._children = index_children(
                (subagent_meta(path), id_from_name(path.name), str(path)) for path in paths
            )
        return self._children.get(parent, [])

    def load(self, ref: SessionRef, keep: MessageSink | None = None) -> LoadResult:
        # A held rollout is many new containers and no cycle among them: the collector,
        # woken every few hundred, would walk them again and again (as for Claude Code).
        with collector_paused():
            return self._load(ref, keep)

    def _load(self, ref: SessionRef, keep: MessageSink | None) -> LoadResult:
        # The parser: imported when a session is read
        from .codex_prompts import typed_command, typed_step
        from .codex_rollout import RolloutBuilder, build_rollout
        from .codex_scan import scan_rollout

        result = LoadResult()
        path, prompts = ref.main.path, self._custom_prompts()
        if not _streamed(ref.main):
            records = rollout_records(path, result.problems)
            rollout = build_rollout(records, self._origin_signatures, *self._lookups())
            kinds = {r[1]: r[0] for r in reversed(records)}  # kind -> its first line
            count = len(rollout.messages)
        else:
            # Read three times, never held: for what must be known before the records are
            # read in order, for the session's totals, and (as a MessageStream) for its
            # messages when its notes are written.
            prefix = iter_records(path, [])
            scan = scan_rollout(
                prefix,
                iter_records(path, result.problems),
                self._origin_signatures,
                *self._lookups(),
            )
            prefix.close()
            builder, count = RolloutBuilder(scan), 0
            for message in _stream_messages(path, scan, builder):
                count += 1
                if keep is not None:  # kept, so that the last reading is not needed
                    keep.add((typed_command(message, prompts),))
            if keep is not None:
                keep.end({})  # (a rollout's calls start no subagent session)
            rollout, kinds = builder.out, scan.kinds
        for number, why in rollout.skipped:
            result.problems.append(
                Problem(str(path), f"unexpected shape ({why}), line skipped", number,
                        source=SOURCE, left_out=True)
            )  # fmt: skip
        for number, why in rollout.odd:
            result.problems.append(Problem(str(path), why, number, source=SOURCE))
        for kind in sorted(kinds.keys() - KNOWN_KINDS - {"skip"}):
            why = f"unknown record type {kind!r} skipped (the first here)"
            result.problems.append(Problem(str(path), why, kinds[kind], source=SOURCE))
        for kind, (first, seen) in sorted(rollout.unknown.items()):
            why = f"unknown item type {kind!r}{how_many(seen, 'line')} skipped"
            result.problems.append(Problem(str(path), why, first, source=SOURCE))
        rollout.times.report(result.problems, path, SOURCE)
        if path.suffix == ".json":  # the TypeScript CLI's document: its records are items
            result.problems = [placed_in_document(p, str(path)) for p in result.problems]
        if count:
            session = _session(rollout, ref, ref.fact("title"))
            if session.ended_at is None:
                session = self._ended_by_history(session, result.problems)
            if _streamed(ref.main):
                stream = MessageStream(partial(_stream_messages, path, scan))
                session = replace(
                    session, messages=stream.mapped(typed_step(prompts)) if prompts else stream
                )
            elif prompts:  # a prompt that is a custom prompt filled in: the command typed
                typed = tuple(typed_command(m, prompts) for m in session.messages)
                session = replace(session, messages=typed)
            result.sessions.append(session)
        return result

    def _lookups(self) -> tuple[ChildLookup, RolloutLookup]:
        return self._children_of, self._rollout_of

    def _rollout_of(self, thread: str) -> Path | None:
        """The rollout of ``thread`` under the run's sources, if one is on disk."""
        if self._rollouts is None:
            self._rollouts = {}
            for root in self.roots(self._ctx) if self._ctx else []:
                for path in rollout_files(root):
                    if found := id_from_name(path.name):
                        self._rollouts.setdefault(found, path)
        return self._rollouts.get(thread.lower())

    def _origin_signatures(self, origin_id: str) -> list[tuple[str, str]] | None:
        """The conversation of the thread a fork copied, if its rollout is on disk."""
        path = self._rollout_of(origin_id)
        if path is None:
            return None
        from .codex_scan import signatures

        records = rollout_records(path, [])
        if self._ctx is not None and self._ctx.since is not None:
            # An origin --since leaves out has no note: the fork's keeps the replay. Its end
            # is its last time (as the rollout's); a doubt (no time) keeps it too.
            ended = next((t for r in reversed(records) if (t := parse_timestamp(r[3]))), None)
            if ended is None or self._ctx.left_out(path, ended):
                return None
        return signatures(records)


def _expanded(file: FileStamp) -> int:
    """A rollout's size once read (a compressed one expands about tenfold)."""
    return file.size * 10 if file.path.name.endswith(".zst") else file.size


def _streamed(file: FileStamp) -> bool:
    """A rollout this large is streamed."""
    return _expanded(file) >= STREAM_FROM and file.path.suffix != ".json"


def _stream_messages(
    path: Path, scan: Scan, builder: RolloutBuilder | None = None
) -> Iterator[Message]:
    """A streamed rollout's messages as far as its scan went, the last reply marked as when
    held; ``builder`` keeps the session's totals (a new one each time, if not given)."""
    from .codex_rollout import RolloutBuilder

    builder = builder or RolloutBuilder(scan)
    return last_reply_marked(_read_messages(path, scan, builder), builder.out.waits)


def _read_messages(path: Path, scan: Scan, builder: RolloutBuilder) -> Iterator[Message]:
    last = 0
    for record in iter_records(path, [], scan.skip, scan.last_line):
        last = record[0]
        builder.add(record)
        yield from builder.out.messages
        builder.out.messages.clear()
    builder.flush()
    yield from builder.out.messages
    builder.out.messages.clear()
    if last < scan.last_line:  # cut short or replaced since: its notes would lose turns
        raise SourceChanged(path, last, scan.last_line)


def _session(rollout: Rollout, ref: SessionRef, title: str | None) -> Session:
    meta = rollout.meta
    session_id = meta.get("id") if isinstance(meta.get("id"), str) else ref.session_id
    git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
    started = parse_timestamp(meta.get("timestamp")) or rollout.started
    return Session(
        source=SOURCE,
        session_id=str(session_id).lower(),
        messages=tuple(last_reply_marked(rollout.messages, rollout.waits)),
        source_path=ref.main.path,
        title=title,
        project=project_name(rollout.cwd),
        cwd=rollout.cwd,
        git_branch=_str(git.get("branch")),
        git_commit=_str(git.get("commit_hash")),
        git_remote=_str(git.get("repository_url")),
        models=tuple(rollout.models),
        started_at=started,
        # The last line's time; none in the early formats (FORMATS.md §2.10: only their
        # header has a time, the start): then the thread's last prompt in history.jsonl,
        # if any (``_ended_by_history``), else the end is not known.
        ended_at=rollout.ended,
        usage=rollout.usage,
        model_usage=priced_usage(meta, rollout.per_model, rollout.usage, rollout.models),
        parent_id=rollout.parent_id,
        forked_from=rollout.forked_from,
        agent_label=rollout.agent_label,
        extra={"client": found} if (found := client(meta)) else {},  # (Codex Desktop, …)
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
