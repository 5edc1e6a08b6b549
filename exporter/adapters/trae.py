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

Damage costs only itself and is said, with the session and message it is in: a store whose
value is no JSON (cut short, bytes damaged, a number or NULL where JSON belongs); a message
of a role not known here (counted, like statuses); a value of the wrong type (a message
that is no object, a text that is no text, a plan that is no list, a tool's name that is no
text: its call shown as "tool"), which is left out while the rest of its message is read.

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
from ._jsonl import RAW_CONTROL, json_text, parse_timestamp, raw_control
from ._times import Times
from ._values import json_kind, tool_name
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
        statuses = _Statuses("assistant messages with a status not known here, read as plain "
                             "replies")  # fmt: skip
        roles = _Statuses("messages of a role not known here, left out")
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
                session, dropped = _session(raw, folder, ref.main.path, times, statuses, roles)
                garbled += dropped
                if session:
                    result.sessions.append(session)
            if store is not None and not _sessions_of(store) and not _empty(store):
                why = f"{key}: a chat store of a shape not known here; not exported"
                result.problems.append(Problem(str(ref.main.path), why, source=SOURCE))
            elif store is NOT_JSON:
                why = f"{key}: a chat store that is not JSON (damaged or cut short); not exported"
                result.problems.append(Problem(str(ref.main.path), why, source=SOURCE))
        if not result.sessions and history:
            result.sessions.append(_history_session(history, workspace.name, folder, ref.main.path))
        times.report(result.problems, ref.main.path, SOURCE)
        statuses.report(result.problems, ref.main.path)
        roles.report(result.problems, ref.main.path)
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
    prompts of its input history. A store whose key is there but whose value is no JSON
    (cut short, its bytes damaged, a number or NULL where JSON text belongs) is
    ``NOT_JSON``, so that it is said; one holding a control character left raw is read, and
    said."""
    try:
        with Database(path) as db:
            found = _raw_items(db, STORE_KEY, exact=True)
            for prefix in OLDER_STORES:
                found += _raw_items(db, prefix)
            history = next(
                (v for k in HISTORY_KEYS if (v := db.get("ItemTable", k)) is not None), None
            )
    except SourceError as exc:
        problems.append(exc.problem(SOURCE))
        return [], []
    stores = []
    for key, raw in found:
        value = _sqlite.decode_json(raw)
        text = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
        if value is None and not (isinstance(text, bytes) and text.strip() == b"null"):
            value = NOT_JSON
        elif isinstance(text, bytes) and raw_control(text):
            problems.append(Problem(str(path), f"{key}: {RAW_CONTROL}", source=SOURCE))
        stores.append((key, value))
    if isinstance(history, dict):
        history = history.get("list") or history.get("history")
    prompts = [
        text
        for item in (history if isinstance(history, list) else [])
        if isinstance(text := item.get("inputText") if isinstance(item, dict) else item, str)
        and text.strip()
    ]
    return stores, prompts


# A store whose value is not JSON (``_stores``).
NOT_JSON = object()


def _raw_items(db: Database, prefix: str, *, exact: bool = False) -> list[tuple[str, Any]]:
    """Every (key, stored value) of ``ItemTable`` whose key is ``prefix`` (``exact``) or
    starts with it, in key order, the values as stored."""
    if "ItemTable" not in db.tables:
        return []
    if exact:
        return list(db.query("SELECT key, value FROM ItemTable WHERE key = ?", (prefix,)))
    sql = "SELECT key, value FROM ItemTable WHERE key >= ? AND key < ? ORDER BY key"
    return list(db.query(sql, (prefix, prefix + "\uffff")))


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
        return []  # (also NOT_JSON)
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
    if store is NOT_JSON:
        return True  # (reported as not JSON)
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
    """Values not known here (an assistant's status, a message's role), counted by value
    with the first message holding each, for one warning per database that starts with
    ``heading``."""

    def __init__(self, heading: str) -> None:
        self.heading = heading
        self.seen: dict[str, list[Any]] = {}  # value -> [count, first place]

    def add(self, value: Any, where: str, shown: str | None = None) -> None:
        """Count ``value`` (``shown`` as given, else quoted if text, else by its kind)."""
        if shown is None:
            shown = f'"{value}"' if isinstance(value, str) else json_kind(value)
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


def _session(
    raw: dict[str, Any],
    folder: str | None,
    path: Path,
    times: Times | None = None,
    statuses: _Statuses | None = None,
    roles: _Statuses | None = None,
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
