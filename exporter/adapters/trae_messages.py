"""A Trae chat session's messages (FORMATS.md §4.3), from its stored JSON: prompts, replies,
their plans of tool steps, statuses and models; a value of the wrong type is left out and
said, through the reading's ``Times``. The databases and stores are ``trae``'s."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import Problem
from ..model import (
    Message,
    NoticePart,
    Part,
    Session,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from ._jsonl import json_text, parse_timestamp
from ._times import Times
from ._values import json_kind, quoted, tool_name
from .vscode import project_of_path

SOURCE = "trae"


# An assistant message's ``status`` (FORMATS.md §4.3): "success" is a reply; "failed" and
# "canceled" ended it short: an error, an interruption, after what it said. Other values are
# not established: such a message is shown as a reply and the value reported.
_STATUS_NOTICES = {
    "failed": NoticePart("error", "The reply failed."),
    "canceled": NoticePart("interrupted"),
    "cancelled": NoticePart("interrupted"),
}
_STATUS_REPLY = "success"


class Statuses:
    """Values not known here (an assistant's status, a message's role), counted by value
    with the first message holding each, for one warning per database that starts with
    ``heading``."""

    def __init__(self, heading: str) -> None:
        self.heading = heading
        self.seen: dict[str, list[Any]] = {}  # value -> [count, first place]

    def add(self, value: Any, where: str, shown: str | None = None) -> None:
        """Count ``value`` (``shown`` as given, else quoted if text, else by its kind)."""
        if shown is None:
            shown = quoted(value)
        self.seen.setdefault(shown, [0, where])[0] += 1

    def report(self, problems: list[Problem], path: Path) -> None:
        if not self.seen:
            return
        values = ", ".join(
            f"{value} ×{n} ({'' if n == 1 else 'first: '}{where})"
            for value, (n, where) in sorted(self.seen.items())
        )
        problems.append(Problem(str(path), f"{self.heading}: {values}", source=SOURCE))


_ROLES = ("user", "assistant", "system")  # system messages are noise, left out unsaid


class _Reading:
    """Where a session's reading is (``where``, for its reports), the values of the wrong
    type it met (said through ``times``), and how many strings were garbage."""

    def __init__(self, times: Times, sid: str) -> None:
        self.times = times
        self.sid = sid
        self.where = f"session {sid}"
        self.garbled = 0

    def wrong(self, why: str) -> None:
        self.times.wrong_type(why, self.where)

    def text(self, value: Any, name: str) -> str:
        """A value that should be text, cleaned (``_clean``); one of another type is left
        out and said (``name`` says whose it is: "its content", "a plan step's thought")."""
        if value is not None and not isinstance(value, str):
            self.wrong(f"{name} is {json_kind(value)}, not text: left out")
            return ""
        text, bad = _clean(value)
        self.garbled += bad
        return text

    def container(self, value: Any, kind: type, name: str, verb: str = "is") -> Any:
        """``value`` if it is of ``kind`` (dict or list), else None; one of another type
        is said."""
        if isinstance(value, kind):
            return value
        if value is not None:
            wanted = "an object" if kind is dict else "a list"
            self.wrong(f"{name} {verb} {json_kind(value)}, not {wanted}: left out")
        return None


def read_session(
    raw: dict[str, Any],
    folder: str | None,
    path: Path,
    times: Times | None = None,
    statuses: Statuses | None = None,
    roles: Statuses | None = None,
) -> tuple[Session | None, int]:
    sid = raw.get("sessionId")
    if not isinstance(sid, str):
        return None, 0
    times = times or Times()
    reading = _Reading(times, sid)
    stored = reading.container(raw.get("messages"), list, "its messages", "are")
    indexed = []
    for i, m in enumerate(stored or []):
        reading.where = f"session {sid}, message {i + 1}"
        if not isinstance(m, dict):
            reading.wrong(f"the message is {json_kind(m)}, not an object: left out")
            continue
        turn = m.get("turnIndex")
        if isinstance(turn, bool) or not isinstance(turn, int):
            if turn is not None:
                reading.wrong(f"its turnIndex is {json_kind(turn)}, not a number: placed by order")
            turn = i
        indexed.append((turn, 0 if m.get("role") == "user" else 1, i, m))
    messages: list[Message] = []
    models: list[str] = []
    for _, _, i, m in sorted(indexed, key=lambda x: x[:3]):
        reading.where = where = f"session {sid}, message {i + 1}"
        role = m.get("role")
        stamp = m.get("timestamp")
        when = parse_timestamp(stamp) or times.unread(stamp, where)
        source_id = m.get("agentMessageId") or m.get("turnId")
        source_id = source_id if isinstance(source_id, str) else None
        if role == "user":
            text = reading.text(m.get("content"), "its content")
            query = m.get("parsedQuery")
            if not text and query is not None:
                query = reading.container(query, list, "its parsedQuery")
                text = "\n".join(q for q in query or [] if isinstance(q, str))
            if text.strip():
                messages.append(Message("user", (TextPart(text),), source_id, when))
        elif role == "assistant":
            parts, results = _assistant_parts(m, source_id, reading)
            status = m.get("status")
            notice = _STATUS_NOTICES.get(status) if isinstance(status, str) else None
            if notice:  # after what the reply said and its tools returned
                (results if results else parts).append(notice)
            elif status is not None and status != _STATUS_REPLY and statuses is not None:
                statuses.add(status, where)
            if not parts and not results:
                continue
            model = _model(m, reading)
            if model and model not in models:
                models.append(model)
            if parts:
                messages.append(Message("assistant", tuple(parts), source_id, when, model))
            if results:
                messages.append(Message("tool", tuple(results), source_id, when))
        elif role not in _ROLES and roles is not None and _holds_something(m):
            roles.add(role, where, "no role" if role is None else None)
        # system messages are noise
    reading.where = f"session {sid}"
    title = raw.get("title") or raw.get("name")
    if title and not isinstance(title, str):
        reading.wrong(f"its title is {json_kind(title)}, not text: left out")
    if not messages:
        return None, reading.garbled
    created, updated = raw.get("createdAt"), raw.get("updatedAt")
    created = parse_timestamp(created) or times.unread(created, f"session {sid}")
    updated = parse_timestamp(updated) or times.unread(updated, f"session {sid}")
    # The older stores keep no updatedAt: the last message's time ends the session, not its
    # creation.
    spans = [t for t in (updated, *(m.timestamp for m in messages)) if t]
    return Session(
        source=SOURCE,
        session_id=sid,
        messages=tuple(messages),
        source_path=path,
        title=title if isinstance(title, str) and title.strip() else None,
        project=project_of_path(folder),
        cwd=folder,
        models=tuple(models),
        started_at=created or min(spans, default=None),
        ended_at=max(spans, default=created),
    ), reading.garbled


def _holds_something(m: dict[str, Any]) -> bool:
    """Does a message of a role not known here hold anything (one with nothing in it is no
    loss, so not worth a word)?"""
    return any(m.get(key) not in (None, "", [], {}) for key in ("content", "agentTaskContent"))


def _assistant_parts(
    m: dict[str, Any], source_id: str | None, reading: _Reading
) -> tuple[list[Part], list[Part]]:
    content = reading.text(m.get("content"), "its content")
    if content.strip():
        return [TextPart(content)], []
    task = reading.container(m.get("agentTaskContent"), dict, "its agentTaskContent")
    if task is None:
        return [], []
    parts: list[Part] = []
    results: list[Part] = []
    reasoning = reading.text(task.get("proposalReasoningContent"), "its proposal's reasoning")
    if reasoning.strip():
        parts.append(ThinkingPart(reasoning))
    proposal = reading.text(task.get("proposal"), "its proposal")
    if proposal.strip():
        parts.append(TextPart(proposal))
    guideline = reading.container(task.get("guideline"), dict, "its guideline") or {}
    steps = reading.container(guideline.get("planItems"), list, "its plan (planItems)")
    answer = ""
    for n, step in enumerate(steps or []):
        if not isinstance(step, dict):
            reading.wrong(f"plan step {n + 1} is {json_kind(step)}, not an object: left out")
            continue
        named = step.get("toolName")
        thought = reading.text(step.get("thought"), f"plan step {n + 1}'s thought")
        if named == "finish":
            params = step.get("params") if isinstance(step.get("params"), dict) else {}
            summary = reading.text(params.get("summary"), "the finish step's summary")
            answer = thought or summary
            continue
        step_reasoning = reading.text(
            step.get("reasoningContent"), f"plan step {n + 1}'s reasoning"
        )
        if step_reasoning.strip():
            parts.append(ThinkingPart(step_reasoning))
        if thought.strip():
            parts.append(TextPart(thought))
        params, result = step.get("params"), step.get("result")
        tool, why = tool_name(named)
        if why:
            reading.wrong(f"plan step {n + 1}: {why}")
        elif tool == "tool" and (params or result):  # a call that lost its name
            reading.wrong(f"plan step {n + 1} has a call but no tool name: shown as 'tool'")
        elif tool == "tool":
            continue  # a step that is only a thought
        call_id = f"{source_id}-{n}"
        parts.append(ToolCallPart(tool, params, call_id))
        shown, bad = _clean(result)  # a result may be structured: shown as JSON
        reading.garbled += bad
        if shown:
            results.append(ToolResultPart(shown, call_id))
    if not answer:
        answer = reading.text(guideline.get("thought"), "its guideline's thought")
    if answer.strip():
        parts.append(TextPart(answer))
    return parts, results


def _clean(value: Any) -> tuple[str, int]:
    """A string, or "" (and 1) if it is mostly control characters: binary garbage."""
    if value is None:
        return "", 0
    if not isinstance(value, str):
        value = json_text(value, indent=True)
    if not value:
        return "", 0
    control = sum(1 for c in value if c < " " and c not in "\n\r\t")
    if control > 0.2 * len(value):
        return "", 1
    return value, 0


def _model(m: dict[str, Any], reading: _Reading) -> str | None:
    info = reading.container(m.get("modelInfo"), dict, "its modelInfo")
    if info is None:
        return None
    for key in ("display_model_name", "config_name"):
        name = info.get(key)
        if isinstance(name, str) and name:
            return name
        if name:
            reading.wrong(f"its model's {key} is {json_kind(name)}, not text: left out")
    return None
