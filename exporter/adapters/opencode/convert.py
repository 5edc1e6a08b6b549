"""One OpenCode session as stored (session info, messages, parts) -> a model ``Session``.

Both stores hold the same JSON objects (FORMATS.md §6.3): the database's ``message.data``
and ``part.data`` columns are the legacy tree's ``message/*.json`` and ``part/*.json``
files, so one converter serves both.

Tokens and cost are counted once per step: a ``step-finish`` part carries the step's
tokens and cost, the assistant message repeats their sum, the session row their total.
Steps are summed; a message without steps (older versions) counts its own totals.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...errors import Problem
from ...model import (
    CommandOutputPart,
    Message,
    NoticePart,
    Part,
    Role,
    Session,
    SummaryPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Usage,
    add_usage,
    usage_per_model,
)
from .._times import Times
from .._unanswered import last_reply_marked
from ..vscode import project_of_path
from .files import attachment
from .toolcall import tool_parts
from .values import is_number, text_of

# Part types that carry nothing to show: step boundaries, file-system snapshots, @agent
# mentions (the prompt's text already names the agent).
_SILENT = frozenset({"step-start", "snapshot", "agent"})
# A session's ``revert`` ({messageID, partID?, snapshot?, diff?}) is an /undo not yet
# settled: OpenCode restored the files, hides the messages from there on, and deletes them
# when the conversation goes on (or brings them back on /redo).
_UNDONE = (
    "The user undid what follows with /undo: OpenCode restored the files and hides it "
    "(it is deleted if the conversation goes on, restored on /redo)."
)
# The title OpenCode gives a session until the model names it: no title at all.
_DEFAULT_TITLE = re.compile(
    r"(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z"
)


@dataclass(slots=True)
class StoredSession:
    """A session as read from either store: ``info`` uses the legacy file's keys (``id``,
    ``parentID``, ``title``, ``directory``, ``time``), messages carry their parts in order."""

    info: dict[str, Any]
    messages: list[tuple[dict[str, Any], list[dict[str, Any]]]]
    path: Path
    worktree: str | None = None
    problems: list[Problem] = field(default_factory=list)


def to_session(
    source: str, stored: StoredSession, children: tuple[str, ...] = (), times: Times | None = None
) -> tuple[Session, list[Problem]]:
    """The model session and what was skipped (unknown part types, once per session).
    ``times`` counts the times that cannot be read, to be reported for the whole database;
    without it, they are reported with the session."""
    info = stored.info
    own = times is None
    builder = _Builder(times or Times(), f"session {info.get('id')}")
    revert = info.get("revert")
    builder.revert_at = text_of(revert.get("messageID")) if isinstance(revert, dict) else None
    problems = list(stored.problems)
    for data, parts in stored.messages:
        try:
            builder.add(data, parts)
        except (TypeError, AttributeError, ValueError) as exc:  # a value of another type
            problems.append(
                Problem(
                    str(stored.path),
                    f"session {info.get('id')}, message {data.get('id')!r}: unexpected shape"
                    f" ({type(exc).__name__}: {exc}), message skipped",
                    source=source,
                )
            )
    if builder.unknown:
        counted = ", ".join(f"{kind} ×{n}" for kind, n in sorted(builder.unknown.items()))
        problems.append(
            Problem(
                str(stored.path),
                f"session {info.get('id')}: skipped parts of unknown type: {counted}",
                source=source,
            )
        )
    stamps = info.get("time") if isinstance(info.get("time"), dict) else {}
    created = builder.time(stamps.get("created"), builder.session)
    updated = builder.time(stamps.get("updated"), builder.session)
    if own:
        builder.times.report(problems, stored.path, source)
    cwd = text_of(info.get("directory")) or builder.cwd or stored.worktree
    models = builder.models or [m for m in [_model_name(info.get("model"), "id")] if m]
    parent = text_of(info.get("parentID"))
    title = text_of(info.get("title"))
    dated = [m.timestamp for m in builder.messages if m.timestamp]
    session = Session(
        source=source,
        session_id=str(info.get("id")),
        messages=tuple(last_reply_marked(builder.messages, lambda c: c.call_id in builder.running)),
        source_path=stored.path,
        title=None if _DEFAULT_TITLE.fullmatch(title or "") else title,
        project=project_of_path(cwd),
        cwd=cwd,
        models=tuple(dict.fromkeys(models)),
        # The session's own times, else (0 or missing: not set) its messages' first and last.
        started_at=created or min(dated, default=None),
        ended_at=max([t for t in (updated, *dated) if t], default=None),
        usage=builder.usage,
        model_usage=usage_per_model(builder.per_model),
        cost=builder.cost,
        parent_id=parent,
        subagent_ids=children,
        agent_label=builder.first_agent if parent else None,
        extra=_shared_or_archived(info, stamps),
    )
    return session, problems


def _shared_or_archived(info: dict[str, Any], stamps: dict[str, Any]) -> dict[str, Any]:
    """The session's public link when the person shared it (``share.url``; the database's
    ``share_url``), and ``archived`` when they archived it (a ``time.archived`` set)."""
    facts: dict[str, Any] = {}
    share = info.get("share")
    url = text_of(share.get("url")) if isinstance(share, dict) else None
    if url and re.fullmatch(r"https?://\S+", url.strip()):  # (a link, not any text)
        facts["share_url"] = url.strip()
    archived = stamps.get("archived")
    if is_number(archived) and archived > 0:
        facts["archived"] = True
    return facts


class _Builder:
    """Messages and totals, built message by message."""

    def __init__(self, times: Times, session: str) -> None:
        self.times = times  # the times that could not be read
        self.session = session  # where they are: this session
        self.messages: list[Message] = []
        self.models: list[str] = []
        self.usage = Usage()
        self.per_model: dict[str | None, Usage] = {}  # ``usage`` per model
        self.cost: float | None = None
        self.cwd: str | None = None
        self.first_agent: str | None = None
        self.unknown: Counter[str] = Counter()
        self.revert_at: str | None = None  # the message a pending /undo goes back to
        # Ids of calls stored pending or running (a turn OpenCode stops sets them to error)
        self.running: set[str] = set()

    def time(self, value: Any, where: str) -> datetime | None:
        """A time in epoch ms; one there that cannot be read is counted, found at ``where``."""
        return _time(value) or self.times.unread(value, where)

    def add(self, data: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        role = data.get("role")
        ident = text_of(data.get("id"))
        when = self.time(_get(data, "time", "created"), f"{self.session}, message {ident}")
        if self.first_agent is None:
            self.first_agent = text_of(data.get("agent"))
        if ident is not None and ident == self.revert_at:
            self._emit("system", [NoticePart("decision", _UNDONE)], f"{ident}#revert", when)
        if role == "user" and not parts:
            self._emit("user", [_lost_prompt(data)], ident, when)
        elif role == "user":
            self._user(parts, ident, when)
        elif role == "assistant":
            self._assistant(data, parts, ident, when)
        else:
            self.unknown[f"message role {role!r}"] += 1

    def _user(self, parts: list[dict[str, Any]], ident: str | None, when: datetime | None) -> None:
        typed: list[Part] = []
        injected: list[Part] = []  # text OpenCode added to the prompt (file contents, hints)
        for part in parts:
            kind = part.get("type")
            if kind == "text":
                text = text_of(part.get("text"))
                if text and not part.get("ignored"):
                    if part.get("synthetic"):
                        # Not typed: what OpenCode added (an @-mentioned file as read, a
                        # hint), shown folded as output apart from the prompt, never as text
                        # that reads as the person's.
                        injected.append(CommandOutputPart(text))
                    else:
                        typed.append(TextPart(text))
            elif kind == "compaction":
                trigger = "auto" if part.get("auto") else "manual"
                self._emit("system", [SummaryPart("", trigger)], ident, when)
            else:
                typed += self._common(part)
        self._emit("user", typed, ident, when)
        self._emit("system", injected, ident, when)

    def _assistant(
        self,
        data: dict[str, Any],
        parts: list[dict[str, Any]],
        ident: str | None,
        when: datetime | None,
    ) -> None:
        model = _model_name(data) or _model_name(data.get("model"))
        if model:
            self.models.append(model)
        cwd = _get(data, "path", "cwd")
        if self.cwd is None and isinstance(cwd, str) and cwd:
            self.cwd = cwd
        out: list[Part] = []
        steps = [p for p in parts if p.get("type") == "step-finish"]
        for step in steps or [data]:  # a message without steps counts its own totals
            self._count(step, model)
        for part in parts:
            kind = part.get("type")
            if kind == "text":
                text = text_of(part.get("text"))
                if text and not part.get("ignored"):
                    # OpenCode's own words in the reply (a failed command's note): shown
                    # as a notification, never as the model's.
                    synthetic = part.get("synthetic")
                    out.append(NoticePart("notification", text) if synthetic else TextPart(text))
            elif kind == "reasoning":
                text = text_of(part.get("text"))
                if text:
                    out.append(ThinkingPart(text))
            elif kind == "tool":
                out += tool_parts(part, self.times, f"{self.session}, message {ident}")
                if _get(part, "state", "status") in ("pending", "running"):  # (no result yet)
                    self.running.add(str(text_of(part.get("callID")) or text_of(part.get("id"))))
            elif kind == "patch":
                listed = part.get("files")
                files = (
                    [f for f in listed if isinstance(f, str)] if isinstance(listed, list) else []
                )
                if files:
                    out.append(NoticePart("notification", "Files changed: " + ", ".join(files)))
            elif kind == "compaction":
                out.append(SummaryPart("", "auto" if part.get("auto") else "manual"))
            elif kind != "step-finish":
                out += self._common(part)
        error = data.get("error")
        if isinstance(error, dict):
            out.append(_error_notice(error))
        if data.get("summary") is True:  # the compaction summary written by the model
            text = "\n\n".join(p.text for p in out if isinstance(p, TextPart))
            self._emit("system", [SummaryPart(text)], ident, when, model)
            return
        self._emit("assistant", out, ident, when, model)

    def _common(self, part: dict[str, Any]) -> list[Part]:
        """Parts either side may hold; unknown types are counted, not shown."""
        kind = part.get("type")
        if kind == "file":
            return [attachment(part)]
        if kind == "subtask":
            prompt, agent = text_of(part.get("prompt")), text_of(part.get("agent"))
            description = text_of(part.get("description"))
            return [
                ToolCallPart("task", {"prompt": prompt, "subagent_type": agent}, None, description)
            ]
        if kind == "retry":
            error = part.get("error")
            return [_error_notice(error)] if isinstance(error, dict) else []
        if not isinstance(kind, str) or kind not in _SILENT:
            self.unknown[str(kind)] += 1
        return []

    def _count(self, record: dict[str, Any], model: str | None) -> None:
        tokens = record.get("tokens")
        if isinstance(tokens, dict):
            cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
            usage = Usage(  # reasoning is billed as output; OpenCode counts it apart
                _int(tokens.get("input")),
                _int(tokens.get("output")) + _int(tokens.get("reasoning")),
                _int(cache.get("read")),
                _int(cache.get("write")),
            )
            self.usage += usage
            add_usage(self.per_model, model, usage)
        cost = record.get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            self.cost = (self.cost or 0.0) + float(cost)

    def _emit(
        self,
        role: Role,
        parts: list[Part],
        ident: str | None,
        when: datetime | None,
        model: str | None = None,
    ) -> None:
        if not parts:
            return
        previous = self.messages[-1] if self.messages else None
        if (  # the model's summary fills the compaction marker just before it
            role == "system"
            and isinstance(parts[0], SummaryPart)
            and previous is not None
            and previous.role == "system"
            and len(previous.parts) == 1
            and isinstance(previous.parts[0], SummaryPart)
            and not previous.parts[0].text
        ):
            self.messages[-1] = Message(
                "system", (SummaryPart(parts[0].text, previous.parts[0].trigger),), ident, when
            )
            return
        self.messages.append(Message(role, tuple(parts), ident, when, model))


def _lost_prompt(data: dict[str, Any]) -> NoticePart:
    """A prompt with no part at all: the person sent it (its message is there, with its
    time), but its text is in no part (a part file lost or never migrated, a part row
    gone). OpenCode's own title for it (``summary.title``, which a small model wrote from
    the text) is given as OpenCode's, never as the person's words; ``summary.body`` is a
    summary of the reply, not of the prompt, and is left out."""
    summary = data.get("summary")
    title = summary.get("title") if isinstance(summary, dict) else None
    title = " ".join(title.split()) if isinstance(title, str) else None  # (on one line)
    said = "A prompt was sent here; its text is not in the session's files."
    return NoticePart("warning", f"{said} OpenCode titled it: {title}" if title else said)


def _error_notice(error: dict[str, Any]) -> NoticePart:
    name = text_of(error.get("name")) or "error"
    if name == "MessageAbortedError":
        return NoticePart("interrupted")
    detail = error.get("data") if isinstance(error.get("data"), dict) else {}
    message = text_of(detail.get("message"))
    return NoticePart("error", f"{name}: {message}" if message else name)


def _model_name(value: Any, key: str = "modelID") -> str | None:
    """``provider/model`` from ``{providerID, modelID}`` (a session's model: ``key="id"``)."""
    if not isinstance(value, dict):
        return None
    model = text_of(value.get(key))
    provider = text_of(value.get("providerID"))
    if not model:
        return None
    return f"{provider}/{model}" if provider else model


def _time(value: Any) -> datetime | None:
    """Epoch milliseconds -> UTC (0 or less: a time not set, not 1970)."""
    if not is_number(value) or not value > 0:
        return None
    try:
        return datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _get(data: dict[str, Any], key: str, inner: str) -> Any:
    value = data.get(key)
    return value.get(inner) if isinstance(value, dict) else None


def _int(value: Any) -> int:
    return int(value) if is_number(value) else 0
