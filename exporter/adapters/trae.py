"""Trae and Trae CN: chats in each workspace's ``state.vscdb`` (FORMATS.md §4).

Where: the ``User`` folder of "Trae" and "Trae CN" (``~/.config``, ``~/Library/Application
Support``, ``%APPDATA%``). Each ``workspaceStorage/<hash>/state.vscdb`` is one discovery
unit; its ``workspace.json`` names the project. Sessions live under the ``ItemTable`` key
``memento/icube-ai-agent-storage`` (TEXT or BLOB), messages ordered by ``turnIndex``; the
older chat stores ``memento/icube-ai-chat-storage-<n>`` and ``…-ng-chat-storage-<n>`` are
read the same way (a session in two stores once; a store of an unknown shape reported).
A workspace with chats in none of them but prompts in its input history
(``icube-ai-agent-storage-input-history``) gets one session of those prompts, undated and
without answers: newer builds keep the answers only in the encrypted store.

An assistant message with an empty ``content`` is rebuilt from ``agentTaskContent``: the
proposal, its reasoning (as thinking), each plan step as a tool call with its parameters and
result, and the ``finish`` step as the answer. An assistant message whose ``status`` is
"failed" or "canceled" ends with an error or an interruption notice; a status other than
these and "success" is reported (the message is shown as a reply). System and empty
messages are dropped, and so are strings that are mostly control characters (reported once
per database).

Newer builds keep conversations in ``ModularData/ai-agent/database.db``, encrypted with
SQLCipher: it is detected and reported once as unreadable, never opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from ..errors import Problem, SourceError
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
from . import _sqlite
from ._jsonl import json_text, parse_timestamp
from ._times import Times
from .base import FileStamp, LoadResult, SessionRef, SourceContext, open_regular
from .vscode import (
    VSCODE_VARIABLES,
    Database,
    db_stamps,
    folder_of_workspace,
    project_of_path,
    user_dirs,
    workspace_dbs,
)

SOURCE = "trae"
STORE_KEY = "memento/icube-ai-agent-storage"
HISTORY_KEYS = (
    "memento/icube-ai-agent-storage-input-history",
    "icube-ai-agent-storage-input-history",
)
OLDER_STORES = ("memento/icube-ai-chat-storage", "memento/icube-ai-ng-chat-storage")
ENCRYPTED_DB = Path("ModularData") / "ai-agent" / "database.db"


class TraeAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Trae"
    env_vars: ClassVar[tuple[str, ...]] = VSCODE_VARIABLES
    # A workspace's sessions depend on its database alone: a worker reads a unit ahead as the
    # main process would (``readahead``). The encrypted store's warning may then come from
    # each worker's adapter once; the report lists a problem once.
    reads_alone: ClassVar[bool] = True

    def __init__(self) -> None:
        self._warned: set[Path] = set()

    def roots(self, ctx: SourceContext) -> list[Path]:
        return ctx.configured(SOURCE, "User") or user_dirs(ctx, ["Trae", "Trae CN"])

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        for user_dir in self.roots(ctx):
            for workspace, db in workspace_dbs(user_dir):
                stamps = db_stamps(db)
                if (workspace / "workspace.json").is_file():
                    stamps.append(FileStamp.of(workspace / "workspace.json"))
                extra = (f"user_dir={user_dir}",)
                yield SessionRef(SOURCE, workspace.name, stamps[0], tuple(stamps[1:]), extra)

    def load(self, ref: SessionRef) -> LoadResult:
        result = LoadResult()
        user_dir = Path(ref.fact("user_dir") or "")
        self._check_encrypted_store(user_dir, result.problems)
        workspace = ref.main.path.parent
        folder = folder_of_workspace(workspace, result.problems, SOURCE)
        garbled = 0
        seen: set[str] = set()
        times = Times()  # of the workspace database
        statuses = _Statuses()  # assistant statuses not known here
        stores, history = _stores(ref.main.path, result.problems)
        for key, store in stores:
            for i, raw in enumerate(_sessions_of(store), 1):
                if isinstance(raw, dict) and not isinstance(raw.get("sessionId"), str):
                    raw = {**raw, "sessionId": raw.get("id")}  # the older chat stores' name
                if not isinstance(raw, dict) or not isinstance(raw.get("sessionId"), str):
                    older = key != STORE_KEY  # named by the key it came from
                    what = (
                        "not a JSON object"
                        if not isinstance(raw, dict)
                        else ("without an id" if older else "without a sessionId")
                    )
                    why = f"{key + ': ' if older else ''}stored session {i} is {what}; skipped"
                    result.problems.append(Problem(str(ref.main.path), why, source=SOURCE))
                    continue
                if raw["sessionId"] in seen:
                    continue  # kept in two stores: the agent store's copy is exported
                seen.add(raw["sessionId"])
                session, dropped = _session(raw, folder, ref.main.path, times, statuses)
                garbled += dropped
                if session:
                    result.sessions.append(session)
            if store is not None and not _sessions_of(store) and not _empty(store):
                why = f"{key}: a chat store of a shape not known here; not exported"
                result.problems.append(Problem(str(ref.main.path), why, source=SOURCE))
            elif store is None and key != STORE_KEY:  # listed, so there: its value is no JSON
                why = f"{key}: a chat store that is not JSON (damaged or cut short); not exported"
                result.problems.append(Problem(str(ref.main.path), why, source=SOURCE))
        if not result.sessions and history:
            result.sessions.append(_history_session(history, workspace.name, folder, ref.main.path))
        times.report(result.problems, ref.main.path, SOURCE)
        statuses.report(result.problems, ref.main.path)
        if garbled:
            result.problems.append(
                Problem(str(ref.main.path), f"{garbled} strings that were mostly control "
                        "characters (unreadable data) were left out", source=SOURCE)
            )  # fmt: skip
        return result

    def _check_encrypted_store(self, user_dir: Path, problems: list[Problem]) -> None:
        path = user_dir.parent / ENCRYPTED_DB
        if path in self._warned or not path.is_file():
            return
        self._warned.add(path)
        try:
            with open_regular(path) as f:
                header = f.read(16)
        except OSError:
            return
        if header != _sqlite.MAGIC:
            problems.append(
                Problem(str(path), "this Trae agent database is encrypted (SQLCipher) and cannot "
                        "be read; chats stored only there are not exported", source=SOURCE)
            )  # fmt: skip


def _stores(path: Path, problems: list[Problem]) -> tuple[list[tuple[str, Any]], list[str]]:
    """The chat stores of a workspace database (the agent store, then the older chat stores
    ``memento/icube-ai-chat-storage-<n>``, ``memento/icube-ai-ng-chat-storage-<n>``), and the
    prompts of its input history."""
    try:
        with Database(path) as db:
            found = [(STORE_KEY, db.get("ItemTable", STORE_KEY))]
            for prefix in OLDER_STORES:
                found += list(db.items("ItemTable", prefix))
            history = next(
                (v for k in HISTORY_KEYS if (v := db.get("ItemTable", k)) is not None), None
            )
    except SourceError as exc:
        problems.append(exc.problem(SOURCE))
        return [], []
    if isinstance(history, dict):
        history = history.get("list") or history.get("history")
    prompts = [
        text
        for item in (history if isinstance(history, list) else [])
        if isinstance(text := item.get("inputText") if isinstance(item, dict) else item, str)
        and text.strip()
    ]
    return found, prompts


def _history_session(prompts: list[str], name: str, folder: str | None, path: Path) -> Session:
    """The last resort for a workspace whose chats are in no store here (newer builds keep
    them in the encrypted database): the prompts its input box remembers, in order, with no
    answers and no times (Trae keeps none)."""
    return Session(
        source=SOURCE,
        session_id=f"{name}-input-history",
        messages=tuple(
            Message("user", (TextPart(text),), f"input {i}") for i, text in enumerate(prompts, 1)
        ),
        source_path=path,
        title="Input history (prompts only)",  # not one conversation: no first prompt's title
        project=project_of_path(folder),
        cwd=folder,
    )


def _sessions_of(store: Any) -> list[Any]:
    """A store's sessions: its ``list``, or (older stores) ``sessions``, ``conversations``
    or ``entries``, as a list or an object keyed by id."""
    if not isinstance(store, dict):
        return []
    for key in ("list", "sessions", "conversations", "entries"):
        held = store.get(key)
        if isinstance(held, list) and held:
            return held
        if isinstance(held, dict) and held:
            return [
                {**v, "sessionId": _first_text(v.get("sessionId"), v.get("id"), k)}
                if isinstance(v, dict)
                else v
                for k, v in held.items()
            ]
    return []


def _first_text(*values: Any) -> str | None:
    """The first of ``values`` that is a non-empty string (an id of another type is none)."""
    return next((v for v in values if isinstance(v, str) and v), None)


def _empty(store: Any) -> bool:
    """A store with no chat in it (an empty list, or only the current-session pointer)."""
    if not isinstance(store, dict):
        return store in (None, [], "")
    return all(not v or k in ("currentSessionId", "version") for k, v in store.items())


# An assistant message's ``status`` (FORMATS.md §4.3): "success" is a reply; "failed" and
# "canceled" ended it short: an error, an interruption, after what it said. Other values are
# not established: such a message is shown as a reply and the value reported.
_STATUS_NOTICES = {
    "failed": NoticePart("error", "The reply failed."),
    "canceled": NoticePart("interrupted"),
    "cancelled": NoticePart("interrupted"),
}
_STATUS_REPLY = "success"


class _Statuses:
    """Assistant statuses not known here, counted by value with the first message holding
    each, for one warning per database."""

    def __init__(self) -> None:
        self.seen: dict[str, list[Any]] = {}  # value -> [count, first place]

    def add(self, status: Any, where: str) -> None:
        shown = repr(status) if not isinstance(status, str) else f'"{status}"'
        self.seen.setdefault(shown, [0, where])[0] += 1

    def report(self, problems: list[Problem], path: Path) -> None:
        if not self.seen:
            return
        values = ", ".join(
            f"{value} ×{n} ({'' if n == 1 else 'first: '}{where})"
            for value, (n, where) in sorted(self.seen.items())
        )
        why = f"assistant messages with a status not known here, read as plain replies: {values}"
        problems.append(Problem(str(path), why, source=SOURCE))


def _session(
    raw: dict[str, Any],
    folder: str | None,
    path: Path,
    times: Times | None = None,
    statuses: _Statuses | None = None,
) -> tuple[Session | None, int]:
    sid = raw.get("sessionId")
    if not isinstance(sid, str):
        return None, 0
    garbled = 0
    indexed = [
        (
            m.get("turnIndex") if isinstance(m.get("turnIndex"), int) else i,
            0 if m.get("role") == "user" else 1,
            i,
            m,
        )
        for i, m in enumerate(raw.get("messages") if isinstance(raw.get("messages"), list) else [])
        if isinstance(m, dict)
    ]
    messages: list[Message] = []
    models: list[str] = []
    times = times or Times()
    for _, _, i, m in sorted(indexed, key=lambda x: x[:3]):
        role = m.get("role")
        stamp = m.get("timestamp")
        when = parse_timestamp(stamp) or times.unread(stamp, f"session {sid}, message {i + 1}")
        source_id = m.get("agentMessageId") or m.get("turnId")
        source_id = source_id if isinstance(source_id, str) else None
        if role == "user":
            text, bad = _clean(m.get("content"))
            garbled += bad
            if not text and isinstance(m.get("parsedQuery"), list):
                text = "\n".join(q for q in m["parsedQuery"] if isinstance(q, str))
            if text.strip():
                messages.append(Message("user", (TextPart(text),), source_id, when))
        elif role == "assistant":
            parts, results, bad = _assistant_parts(m)
            garbled += bad
            status = m.get("status")
            notice = _STATUS_NOTICES.get(status) if isinstance(status, str) else None
            if notice:  # after what the reply said and its tools returned
                (results if results else parts).append(notice)
            elif status is not None and status != _STATUS_REPLY and statuses is not None:
                statuses.add(status, f"session {sid}, message {i + 1}")
            if not parts and not results:
                continue
            model = _model(m)
            if model and model not in models:
                models.append(model)
            if parts:
                messages.append(Message("assistant", tuple(parts), source_id, when, model))
            if results:
                messages.append(Message("tool", tuple(results), source_id, when))
        # system messages are noise
    if not messages:
        return None, garbled
    created, updated = raw.get("createdAt"), raw.get("updatedAt")
    created = parse_timestamp(created) or times.unread(created, f"session {sid}")
    updated = parse_timestamp(updated) or times.unread(updated, f"session {sid}")
    title = raw.get("title") or raw.get("name")
    # The older stores keep no updatedAt: the last message's time ends the session, not its
    # creation.
    times = [t for t in (updated, *(m.timestamp for m in messages)) if t]
    return Session(
        source=SOURCE,
        session_id=sid,
        messages=tuple(messages),
        source_path=path,
        title=title if isinstance(title, str) and title.strip() else None,
        project=project_of_path(folder),
        cwd=folder,
        models=tuple(models),
        started_at=created or min(times, default=None),
        ended_at=max(times, default=created),
    ), garbled


def _assistant_parts(m: dict[str, Any]) -> tuple[list[Part], list[Part], int]:
    content, garbled = _clean(m.get("content"))
    if content.strip():
        return [TextPart(content)], [], garbled
    task = m.get("agentTaskContent")
    if not isinstance(task, dict):
        return [], [], garbled
    parts: list[Part] = []
    results: list[Part] = []
    reasoning, bad = _clean(task.get("proposalReasoningContent"))
    garbled += bad
    if reasoning.strip():
        parts.append(ThinkingPart(reasoning))
    proposal, bad = _clean(task.get("proposal"))
    garbled += bad
    if proposal.strip():
        parts.append(TextPart(proposal))
    guideline = task.get("guideline") if isinstance(task.get("guideline"), dict) else {}
    answer = ""
    for n, step in enumerate(guideline.get("planItems") or []):
        if not isinstance(step, dict):
            continue
        tool = step.get("toolName")
        thought, bad = _clean(step.get("thought"))
        garbled += bad
        if tool == "finish":
            params = step.get("params") if isinstance(step.get("params"), dict) else {}
            summary, bad = _clean(params.get("summary"))
            garbled += bad
            answer = thought or summary
            continue
        step_reasoning, bad = _clean(step.get("reasoningContent"))
        garbled += bad
        if step_reasoning.strip():
            parts.append(ThinkingPart(step_reasoning))
        if thought.strip():
            parts.append(TextPart(thought))
        if isinstance(tool, str) and tool:
            call_id = f"{m.get('agentMessageId') or m.get('turnId')}-{n}"
            parts.append(ToolCallPart(tool, step.get("params"), call_id))
            result, bad = _clean(step.get("result"))
            garbled += bad
            if result:
                results.append(ToolResultPart(result, call_id))
    if not answer:
        answer, bad = _clean(guideline.get("thought"))
        garbled += bad
    if answer.strip():
        parts.append(TextPart(answer))
    return parts, results, garbled


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


def _model(m: dict[str, Any]) -> str | None:
    info = m.get("modelInfo")
    if not isinstance(info, dict):
        return None
    name = info.get("display_model_name") or info.get("config_name")
    return name if isinstance(name, str) and name else None
