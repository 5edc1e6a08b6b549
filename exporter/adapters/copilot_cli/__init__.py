"""GitHub Copilot CLI: ``~/.copilot/session-state/<id>/events.jsonl`` (FORMATS.md §6.6).

Where: ``<home>/.copilot`` (on the real home ``$COPILOT_HOME`` instead, when set), in
``session-state/`` and ``history-session-state/``: the current ``<id>/events.jsonl`` beside
a ``workspace.yaml`` (its top-level ``name`` is the title the user sees), and the legacy flat
``<id>.jsonl``. Every line is an event ``{type, id, timestamp, parentId, ephemeral?,
agentId?, data}``, read in file order.

Prompts are ``user.message.content`` (never ``transformedContent``, the model-facing copy);
replies ``assistant.message`` with their ``toolRequests``; reasoning ``assistant.reasoning``
and ``reasoningText`` (opaque/encrypted reasoning is never shown). A tool call pairs with
``tool.execution_complete`` by ``toolCallId``; a ``tool.execution_start`` with no request
before it (older builds) stands in for the request, and one after a request that gave no
arguments gives them (the ones the call ran with). Events of a sub-agent (envelope
``agentId``, or the older ``data.parentToolCallId``) become a session of their own, linked
both ways with the delegating call. Titles: ``workspace.yaml`` ``name``, else the last
``session.title_changed``. Token totals come from ``session.shutdown.modelMetrics`` (one per
run of the CLI; a resumed session's runs are added), else from the replies' ``outputTokens``.
System prompts, notifications, hooks, permission and skill events, ephemeral events and the
other bookkeeping types are dropped (a question of a permission left unanswered only says, of
a call of the last reply, that it waits for the person, and one refused that the call was
refused, where the log gives no result of it: ``permissions.py``); unknown types
are reported once per file.

A log of ``STREAM_FROM`` bytes or more is never held: a first reading keeps the totals, the
sub-agents' messages and, of each tool call, what linking needs; the main session's
messages are a MessageStream that reads the log again, as far as the first reading went.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from ...errors import Problem, SourceChanged
from ...model import Message, MessageStream, linked_message
from .._jsonl import NOT_UTF8, iter_jsonl, not_utf8
from .._unanswered import last_reply_marked
from .._values import json_kind
from ..base import (
    STREAM_FROM,
    FileStamp,
    LoadResult,
    SessionRef,
    SourceContext,
    cannot_read,
    listed,
    read_regular,
)
from .permissions import Asked, refusals
from .values import aside

SOURCE = "copilot-cli"  # before the parser (events.py) is imported: it takes the name from here
STATE_DIRS = ("session-state", "history-session-state")


class CopilotCliAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Copilot CLI"
    env_vars: ClassVar[tuple[str, ...]] = ("COPILOT_HOME",)
    # A log's sessions depend on its file and its workspace.yaml alone: a worker reads a
    # unit ahead as the main process would (``readahead``).
    reads_alone: ClassVar[bool] = True

    def roots(self, ctx: SourceContext) -> list[Path]:
        configured_paths = ctx.configured(SOURCE)
        if configured_paths:
            return configured_paths
        configured = ctx.env.get("COPILOT_HOME") if ctx.real_home else None
        return [Path(configured).expanduser() if configured else ctx.home / ".copilot"]

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        for root in self.roots(ctx):
            for name in STATE_DIRS:
                folder = root / name
                if folder.is_dir():
                    yield from _discover_state(folder)

    def load(self, ref: SessionRef) -> LoadResult:
        from .events import EventLog  # the parser: imported when a session is read
        from .sessions import agent_links, log_sessions

        result = LoadResult()
        workspace = next((s.path for s in ref.related if s.path.name == "workspace.yaml"), None)
        facts = _workspace(workspace, result.problems) if workspace else {}
        beside = ref.main.path.with_name("workspace.yaml")
        if not workspace and ref.main.path.name == "events.jsonl" and beside.exists():
            if not beside.is_file():  # (a folder, say: passed over at discovery)
                _workspace(beside, result.problems)  # (says why it cannot be read)
        stream = ref.main.size >= STREAM_FROM
        path = ref.main.path
        log = EventLog(ref.session_id, path, result.problems, slim=stream)
        asked = Asked()
        reached = 0
        for number, obj in _events(path, result.problems):
            reached = number
            log.event(obj, number)
            asked.event(obj)
            if stream:  # let the main thread's messages go: they are read again when needed
                log.main.messages.clear()
        log.report_unknown()
        log.times.report(result.problems, path, SOURCE)
        sessions = [
            replace(s, messages=tuple(_marked(refusals(s.messages, asked), asked)))
            for s in log_sessions(log, facts)
        ]
        if stream and log.main.seen:
            read = partial(_main_messages, ref.session_id, path, reached, agent_links(log))
            sessions[0] = replace(sessions[0], messages=MessageStream(read))
        result.sessions.extend(sessions)
        return result


def _events(
    path: Path, problems: list[Problem], stop: int | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, event)`` for every event of a log (with ``stop``, up to that line)."""
    for number, obj in iter_jsonl(path, problems, SOURCE):
        if stop is not None and number > stop:
            return
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            why = "not an event (no type), line skipped"
            problems.append(Problem(str(path), why, number, source=SOURCE, left_out=True))
            continue
        yield number, obj


def _main_messages(
    session_id: str, path: Path, stop: int, links: dict[str, str]
) -> Iterator[Message]:
    """A streamed log's main messages, read again as far as the first reading went (its
    last reply marked as a held log's is)."""
    asked = Asked()
    read = refusals(_main_read(session_id, path, stop, links, asked), asked)
    return _marked(read, asked)


def _marked(messages: Iterable[Message], asked: Asked) -> Iterator[Message]:
    """Each thread's last reply: a call no result answers says so, and a call still
    waiting for the person's approval says that."""
    return last_reply_marked(messages, asked=asked.asks, aside=aside)


def _main_read(
    session_id: str, path: Path, stop: int, links: dict[str, str], asked: Asked
) -> Iterator[Message]:
    from .events import EventLog

    log = EventLog(session_id, path, [], slim=True, keep_agents=False)
    reached = 0
    for number, obj in _events(path, [], stop):
        reached = number
        log.event(obj)
        asked.event(obj)
        if log.waiting(log.main):
            continue  # a reply whose call's arguments come with its start: held until then
        for message in log.main.messages:
            yield linked_message(message, links)
        log.main.messages.clear()
    for message in log.main.messages:  # (held to the end: no start came)
        yield linked_message(message, links)
    if reached < stop:  # cut short or replaced since: its notes would lose turns
        raise SourceChanged(path, reached, stop)


def _discover_state(folder: Path) -> Iterator[SessionRef]:
    for entry in listed(folder):
        if entry.is_dir():
            events = Path(entry.path) / "events.jsonl"
            if events.is_file():
                workspace = Path(entry.path) / "workspace.yaml"
                related = (FileStamp.of(workspace),) if workspace.is_file() else ()
                yield SessionRef(SOURCE, entry.name, FileStamp.of(events), related)
        elif entry.name.endswith(".jsonl") and entry.is_file():
            yield SessionRef(SOURCE, entry.name.removesuffix(".jsonl"), FileStamp.of(entry))


def _workspace(path: Path, problems: list[Problem]) -> dict[str, str]:
    """The top-level string keys of ``workspace.yaml`` (title ``name``, ``cwd``, …)."""
    import yaml  # only when a session has one

    try:
        raw = read_regular(path)
        doc = yaml.safe_load(raw.decode("utf-8", errors="replace"))
    except OSError as exc:
        why = f"{cannot_read(exc)}: its title and folder unread"
        problems.append(Problem(str(path), why, source=SOURCE))
        return {}
    except yaml.YAMLError as exc:
        problems.append(Problem(str(path), f"unreadable workspace file ({exc})", source=SOURCE))
        return {}
    if doc is not None and not isinstance(doc, dict):
        why = f"the workspace file is {json_kind(doc)}, not a mapping: its title and folder unread"
        problems.append(Problem(str(path), why, source=SOURCE))
        return {}
    if not_utf8(raw):
        problems.append(Problem(str(path), NOT_UTF8, source=SOURCE))
    facts = {}
    for key, value in doc.items() if doc else []:
        if isinstance(value, str) and value.strip():
            facts[str(key)] = value.strip()
        elif key in _FACTS and value is not None:
            why = f"its {key} is {json_kind(value)}, not text: left out"
            problems.append(Problem(str(path), why, source=SOURCE))
    return facts


_FACTS = ("name", "cwd", "branch")  # the keys of workspace.yaml that are read
