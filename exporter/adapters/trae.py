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
    Session,
    TextPart,
)
from . import _sqlite
from ._jsonl import RAW_CONTROL, raw_control
from ._times import Times
from .base import FileStamp, LoadResult, SessionRef, SourceContext, open_regular
from .trae_messages import SOURCE, Statuses, read_session
from .vscode import (
    VSCODE_VARIABLES,
    Database,
    db_stamps,
    folder_of_workspace,
    project_of_path,
    user_dirs,
    workspace_dbs,
)

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
        statuses = Statuses("assistant messages with a status not known here, read as plain "
                             "replies")  # fmt: skip
        roles = Statuses("messages of a role not known here, left out")
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
                session, dropped = read_session(raw, folder, ref.main.path, times, statuses, roles)
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
