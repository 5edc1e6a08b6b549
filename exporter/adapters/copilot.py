"""GitHub Copilot Chat in VS Code: the chat session files VS Code itself writes (FORMATS.md §5).

Where, in the ``User`` folder of ``Code``, ``Code - Insiders``, ``VSCodium`` and
``Code - OSS`` (Linux, macOS and Windows layouts; ``VSCODE_PORTABLE`` and ``VSCODE_APPDATA``
on the real home):

- ``workspaceStorage/<id>/chatSessions/<session>.jsonl`` (a mutation log, VS Code ≥ 1.109)
  or ``.json`` (one document, older); when both exist the ``.jsonl`` wins, and the
  ``.json`` it was migrated from is used only when the log cannot be replayed (its first
  line lost) or holds less;
- ``globalStorage/emptyWindowChatSessions/`` and the older
  ``workspaceStorage/no-workspace/chatSessions/``: chats in windows without a folder;
- before session files: the ``interactive.sessions`` key of a workspace ``state.vscdb``.

A session copied into two workspaces (VS Code copies it when a window changes folder) is
one discovery unit and is exported once, from the copy with the newest request. Titles:
``customTitle`` → the workspace's ``chat.ChatSessionStore.index`` (read at discovery and
put in the fingerprint, so a new title re-exports that session) → the first prompt.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from ..errors import Problem, SourceError
from ..model import Session, Usage, add_usage, usage_per_model
from ._jsonl import json_document, parse_timestamp
from ._sqlite import decode_json
from ._times import Times
from ._values import json_kind
from .base import (
    FileStamp,
    LoadResult,
    SessionRef,
    SourceContext,
    cannot_read,
    index_unreadable,
    listed,
    not_a_file,
    read_regular,
)
from .copilot_rendered import recorded_branch
from .vscode import (
    VSCODE_VARIABLES,
    Database,
    db_stamps,
    folder_of_workspace,
    project_of_path,
    user_dirs,
)

SOURCE = "copilot"
PRODUCTS = ["Code", "Code - Insiders", "VSCodium", "Code - OSS"]
INDEX_KEY = "chat.ChatSessionStore.index"
LEGACY_KEY = "interactive.sessions"


class CopilotAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Copilot Chat (VS Code)"
    env_vars: ClassVar[tuple[str, ...]] = VSCODE_VARIABLES
    # A session depends on its files (and the title discovery found) alone: a worker reads
    # a unit ahead as the main process would (``readahead``).
    reads_alone: ClassVar[bool] = True

    def roots(self, ctx: SourceContext) -> list[Path]:
        return ctx.configured(SOURCE, "User") or user_dirs(ctx, PRODUCTS)

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        for user_dir in self.roots(ctx):
            copies: dict[str, list[Path]] = {}
            titles: dict[str, str] = {}
            legacy: list[Path] = []
            unread: dict[Path, Problem] = {}  # chat folder -> why its index was not read
            for place in _places(user_dir):
                chats = place / (
                    "emptyWindowChatSessions" if place.name == "globalStorage" else "chatSessions"
                )
                if chats.is_dir():
                    # (a folder in a session file's place too: reading it says so)
                    files = {
                        e.name: Path(e.path) for e in listed(chats) if e.is_file() or e.is_dir()
                    }
                    # A session's log first, then the document it was migrated from, if it
                    # is still there: read only when the log cannot be replayed (its start
                    # lost), or holds less (``load`` takes the one with the newest activity).
                    for name, path in sorted(files.items(), key=lambda i: i[0].endswith(".json")):
                        stem, ext = os.path.splitext(name)
                        if ext in (".jsonl", ".json"):
                            copies.setdefault(stem, []).append(path)
                index, has_legacy, problem = _read_workspace_db(place / "state.vscdb")
                titles.update(index)
                if problem:
                    unread[chats] = problem
                if has_legacy and place.name != "globalStorage":
                    legacy.append(place / "state.vscdb")
            for session_id, paths in sorted(copies.items()):
                stamps = [FileStamp.of(p) for p in paths]
                title = titles.get(session_id)
                extra = (f"title={title}",) if title else ()
                problem = next((unread[p.parent] for p in paths if p.parent in unread), None)
                yield SessionRef(SOURCE, session_id, stamps[0], tuple(stamps[1:]), extra, problem)
            for db in legacy:
                stamps = db_stamps(db)
                yield SessionRef(SOURCE, f"legacy:{db.parent.name}", stamps[0], tuple(stamps[1:]))

    def load(self, ref: SessionRef) -> LoadResult:
        from .copilot_log import last_activity  # the parser: imported when a session is read
        from .copilot_replay import LOST_START

        result = LoadResult()
        if ref.session_id.startswith("legacy:"):
            return self._load_legacy(ref, result)
        best: tuple[Any, dict[str, Any], Path] | None = None
        for stamp in ref.files:
            data = _read_session(stamp.path, result.problems)
            if isinstance(data, dict):
                newest = last_activity(data)
                if best is None or (newest and (best[0] is None or newest > best[0])):
                    best = (newest, data, stamp.path)
        if best is None:  # (a log that lost its start is a chat all the same, said unread)
            result.unreadable = any(p.message.startswith(LOST_START) for p in result.problems)
            return result
        if best[2].suffix == ".json":  # the log could not be replayed: its document is read
            result.problems = [_recovered(p, best[2]) for p in result.problems]
        title = ref.fact("title")
        _not_objects(best[1], best[2], result.problems)
        session = _session(best[1], best[2], ref.session_id, title, result.problems)
        if session:
            result.sessions.append(session)
        return result

    def _load_legacy(self, ref: SessionRef, result: LoadResult) -> LoadResult:
        path = str(ref.main.path)
        try:
            with Database(ref.main.path) as conn:
                stored, why = _stored(conn, LEGACY_KEY)
        except SourceError as exc:
            result.problems.append(exc.problem(SOURCE))
            return result
        if why or not isinstance(stored, list):
            why = why or f"{LEGACY_KEY}: it is {json_kind(stored)}, not a list"
            result.problems.append(Problem(path, f"{why}; not exported", source=SOURCE))
            return result
        for number, data in enumerate(stored, 1):
            if not isinstance(data, dict) or not isinstance(data.get("sessionId"), str):
                why = (
                    f"session {number} is {json_kind(data)}, not an object"
                    if not isinstance(data, dict)
                    else f"session {number} has no sessionId (text)"
                )
                why = f"{LEGACY_KEY}: {why}; skipped"
                result.problems.append(Problem(path, why, source=SOURCE))
            else:
                _not_objects(data, ref.main.path, result.problems)
                session = _session(data, ref.main.path, data["sessionId"], None, result.problems)
                if session:
                    result.sessions.append(session)
        return result


def _places(user_dir: Path) -> list[Path]:
    """Every workspace folder, then ``globalStorage`` (empty-window chats and their index)."""
    places = []
    base = user_dir / "workspaceStorage"
    if base.is_dir():
        places = [Path(e.path) for e in listed(base) if e.is_dir()]
    return [*places, user_dir / "globalStorage"]


def _read_workspace_db(db: Path) -> tuple[dict[str, str], bool, Problem | None]:
    """Titles from the session index, whether pre-file sessions are stored there, and why
    the database could not be read (VS Code holds it locked at times)."""
    if not db.is_file():
        if not db.exists():
            return {}, False, None
        why = not_a_file(db.stat().st_mode)
        return {}, False, index_unreadable(SOURCE, db, why, "chat titles")
    try:
        with Database(db) as conn:
            if "ItemTable" not in conn.tables:  # (VS Code always makes it)
                why = "holds no ItemTable (damaged)"
                return {}, False, index_unreadable(SOURCE, db, why, "chat titles")
            index, why = _stored(conn, INDEX_KEY)
            kept, damaged = _stored(conn, LEGACY_KEY)
            # ([] when the workspace kept no chats: nothing to read; damage: said on load)
            legacy = bool(damaged) or (kept is not None and kept != [])
    except SourceError as exc:  # only costs titles here: the session files are still read
        return {}, False, index_unreadable(SOURCE, db, exc.message, "chat titles")
    entries = index.get("entries") if isinstance(index, dict) else None
    if not why and index is not None and not isinstance(entries, dict):
        why = f"{INDEX_KEY}: " + (
            f"its entries are {json_kind(entries)}, not an object"
            if isinstance(index, dict)
            else f"it is {json_kind(index)}, not an object"
        )
    if why:
        return {}, legacy, index_unreadable(SOURCE, db, why, "chat titles")
    titles = {}
    for sid, entry in entries.items() if isinstance(entries, dict) else []:
        if (
            isinstance(entry, dict)
            and isinstance(entry.get("title"), str)
            and entry["title"].strip()
        ):
            titles[sid] = entry["title"].strip()
    return titles, legacy, None


def _stored(conn: Database, key: str) -> tuple[Any, str | None]:
    """The JSON value stored under ``key`` (None when there is none, or JSON null), and why
    a value that is there could not be read."""
    row = conn.query("SELECT value FROM ItemTable WHERE key = ?", (key,)).fetchone()
    if row is None:
        return None, None
    raw = row[0]  # (NULL, a number or empty text: damage, as is what is not JSON)
    value = decode_json(raw)
    if value is None and raw not in ("null", b"null"):
        return None, f"{key}: a value that is not JSON (damaged or cut short)"
    return value, None


def _not_objects(data: dict[str, Any], path: Path, problems: list[Problem]) -> None:
    """Requests that are not JSON objects (damaged, or a newer shape): skipped, reported."""
    requests = data.get("requests")
    if "requests" in data and not isinstance(requests, list):
        why = f"its requests are {json_kind(requests)}, not a list: the chat holds none"
        problems.append(Problem(str(path), why, source=SOURCE))
    bad = [i for i, r in enumerate(requests, 1) if not isinstance(r, dict)] if isinstance(
        requests, list
    ) else []  # fmt: skip
    if bad:
        why = f"request {bad[0]} is not a JSON object ({len(bad)} such); skipped"
        problems.append(Problem(str(path), why, source=SOURCE))


def _read_session(path: Path, problems: list[Problem]) -> Any:
    if path.suffix == ".jsonl":
        from .copilot_replay import replay

        return replay(path, problems)
    try:
        raw = read_regular(path)
    except OSError as exc:
        problems.append(Problem(str(path), cannot_read(exc), severity="error", source=SOURCE))
        return None
    try:
        doc, damaged = json_document(raw)
    except ValueError as exc:
        problems.append(
            Problem(str(path), f"not a readable JSON document ({exc})", severity="error",
                    source=SOURCE)
        )  # fmt: skip
        return None
    if damaged:
        problems.append(Problem(str(path), damaged, source=SOURCE))
    return doc


def _session(
    data: dict[str, Any],
    path: Path,
    session_id: str,
    index_title: str | None,
    problems: list[Problem],
) -> Session | None:
    from .copilot_log import last_activity, odd_invocations, session_messages

    unknown: set[str] = set()
    times = Times()
    skipped: list[tuple[int, str]] = []
    odd: list[tuple[int, str]] = []
    messages, models = session_messages(data, unknown, times, skipped, odd)
    for number, why in skipped:
        why = f"request {number}: unexpected shape ({why}); skipped"
        problems.append(Problem(str(path), why, source=SOURCE))
    for number, why in odd:
        problems.append(Problem(str(path), f"request {number}: {why}", source=SOURCE))
    requests = data.get("requests")
    for number, request in enumerate(requests if isinstance(requests, list) else [], start=1):
        for why in odd_invocations(request) if isinstance(request, dict) else []:
            problems.append(Problem(str(path), f"request {number}: {why}", source=SOURCE))
    if unknown:
        kinds = ", ".join(sorted(unknown))
        problems.append(
            Problem(
                str(path),
                f"response parts of a kind not known here left out: {kinds}",
                source=SOURCE,
            )
        )
    if not messages:
        return None
    workspace = path.parent.parent if path.parent.name == "chatSessions" else path.parent
    folder = (
        folder_of_workspace(workspace, problems, SOURCE)
        if workspace.name != "no-workspace"
        else None
    )
    title = data.get("customTitle") if isinstance(data.get("customTitle"), str) else None
    sid = data.get("sessionId") if isinstance(data.get("sessionId"), str) else session_id
    stamp, last = data.get("creationDate"), data.get("lastMessageDate")
    created = parse_timestamp(stamp) or times.unread(stamp, "creationDate")
    parse_timestamp(last) or times.unread(last, "lastMessageDate")  # (read by last_activity)
    times.report(problems, path, SOURCE)
    # The first request's time, where one is known: an imported chat (VS Code's "Import
    # Chat…") gets the import's time as its creationDate, after its requests were made.
    first = min((m.timestamp for m in messages if m.timestamp), default=None)
    created = min(created, first) if created and first else created or first
    per_model = _usage(data)
    return Session(
        source=SOURCE,
        session_id=sid,
        messages=tuple(messages),
        source_path=path,
        title=(title or index_title or "").strip() or None,
        project=project_of_path(folder),
        cwd=folder,
        git_branch=recorded_branch(data.get("requests")),
        models=tuple(models),
        started_at=created,
        ended_at=last_activity(data) or created,
        usage=sum(per_model.values(), Usage()),
        model_usage=usage_per_model(per_model, each_with_input=True),
    )


def _usage(data: dict[str, Any]) -> dict[str | None, Usage]:
    """Tokens per model (the request's ``modelId``) where a request's result records them
    (``result.usage``: not in the persisted schema, but some builds write it; FORMATS.md
    §5.5): a chat can change models, each priced at its own rate."""
    per_model: dict[str | None, Usage] = {}
    for request in data.get("requests") or []:
        result = request.get("result") if isinstance(request, dict) else None
        usage = result.get("usage") if isinstance(result, dict) else None
        if isinstance(usage, dict):
            model = request.get("modelId") if isinstance(request.get("modelId"), str) else None
            used = Usage(_count(usage.get("promptTokens")), _count(usage.get("completionTokens")))
            add_usage(per_model, model, used)
    return per_model


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _recovered(problem: Problem, document: Path) -> Problem:
    """A log that lost its start, when its document holds the chat."""
    from .copilot_replay import LOST_START

    if not problem.message.startswith(LOST_START):
        return problem
    why = problem.message.removesuffix(": no note")
    why += f"; the chat is read from {document.name}, which it was migrated from"
    return dataclasses.replace(problem, message=why)
