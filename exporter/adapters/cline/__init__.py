"""The Cline family: Cline, Roo Code and Kilo Code's legacy extension (FORMATS.md §6.2).

Each is its own source (``cline``, ``roo-code``, ``kilo-code``); one reader serves all three.
Where, for the extension id (``saoudrizwan.claude-dev``, ``rooveterinaryinc.roo-cline``,
``kilocode.kilo-code``), in the ``User`` folder of every VS Code-family editor (``Code``,
``Code - Insiders``, ``Cursor``, ``Windsurf``, ``VSCodium``, ``Positron``, ``Antigravity``;
Linux, macOS and Windows layouts; remote ``~/.vscode-server``, ``~/.vscode-server-insiders``
and Codespaces ``~/.vscode-remote``):

- generation A, ``globalStorage/<extension id>/tasks/<task id>/``: ``ui_messages.json``
  (what the person saw: the transcript, with a time on every entry and the tokens and cost
  of every request), ``api_conversation_history.json`` (what the model saw: read when the
  UI file is missing or unreadable, and for the working folder), ``task_metadata.json``
  (which model was in use when); the index ``state/taskHistory.json`` gives titles, the
  working folder and the model, read at discovery (a change re-exports that task only);
- generation B (Cline only), the same under ``~/.cline/data`` (``$CLINE_DATA_DIR``, else
  ``$CLINE_DIR/data``, on the real home);
- generation C (Cline 4 SDK, Cline only), ``~/.cline/data/sessions/<id>/<id>.messages.json``
  (``$CLINE_SESSION_DATA_DIR``), with the ``<id>.json`` manifest beside it and the index
  ``db/sessions.db`` (``$CLINE_DB_DATA_DIR``; read-only) for the working folder, model,
  times and parent session. Subagent transcripts ``<agent>.messages.json`` in the same
  folder become their own notes, linked to the session.

A task id found twice (a legacy task resumed as an SDK session, or one task in two editors)
is exported once: SDK sessions first, then editors in the order above. ``[paths] <source>``
may name ``User`` folders, extension storage folders or Cline data folders.
"""

from __future__ import annotations

import bisect
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import orjson

from ...errors import Problem, SourceError
from ...model import Session
from .._jsonl import parse_timestamp
from .._sqlite import Database
from ..base import FileStamp, LoadResult, SessionRef, SourceContext
from ..vscode import project_of_path, user_dirs
from .blocks import Conversation, parse_messages
from .ui import parse_ui

EDITORS = ["Code", "Code - Insiders", "Cursor", "Windsurf", "VSCodium", "Positron", "Antigravity"]
REMOTE_USER_DIRS = [".vscode-server/data/User", ".vscode-server-insiders/data/User",
                    ".vscode-remote/data/User"]  # fmt: skip
UI_FILE = "ui_messages.json"
API_FILE = "api_conversation_history.json"
METADATA_FILE = "task_metadata.json"
_CWD = re.compile(rb"Current (?:Working|Workspace) Directory \(([^)\n]{1,1000})\)")


class ClineFamilyAdapter:
    """One extension of the family; subclasses name it."""

    name: ClassVar[str]
    label: ClassVar[str]
    extension_id: ClassVar[str]
    has_sdk: ClassVar[bool] = False  # Cline's own data folder (~/.cline/data)

    def roots(self, ctx: SourceContext) -> list[Path]:
        configured = ctx.configured(self.name)
        if configured:
            return [self._storage(folder) for folder in configured]
        users = user_dirs(ctx, EDITORS) + [ctx.home / d for d in REMOTE_USER_DIRS]
        roots = [u / "globalStorage" / self.extension_id for u in users]
        return roots + ([_cline_data(ctx)] if self.has_sdk else [])

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        seen: set[str] = set()
        roots = self.roots(ctx)
        data = _cline_data(ctx) if self.has_sdk else None
        for root in roots:
            sessions, db = root / "sessions", root / "db"
            if root == data:  # the variables move Cline's own folders, not an editor's
                sessions = _env_dir(ctx, "CLINE_SESSION_DATA_DIR") or sessions
                db = _env_dir(ctx, "CLINE_DB_DATA_DIR") or db
            for ref in _sdk_refs(self.name, sessions, db / "sessions.db"):
                if ref.session_id not in seen:
                    seen.add(ref.session_id)
                    yield ref
        for root in roots:
            for ref in _task_refs(self.name, root):
                if ref.session_id not in seen:
                    seen.add(ref.session_id)
                    yield ref

    def load(self, ref: SessionRef) -> LoadResult:
        result = LoadResult()
        try:
            if ref.fact("kind") == "sdk":
                result.sessions = _load_sdk(self.name, ref, result.problems)
            else:
                session = _load_task(self.name, ref, result.problems)
                result.sessions = [session] if session else []
        except SourceError as exc:
            result.problems.append(exc.problem(self.name))
        return result

    def _storage(self, folder: Path) -> Path:
        """A configured ``User`` folder means the extension's storage inside it."""
        inside = folder / "globalStorage" / self.extension_id
        return inside if inside.is_dir() else folder


class ClineAdapter(ClineFamilyAdapter):
    name: ClassVar[str] = "cline"
    label: ClassVar[str] = "Cline"
    extension_id: ClassVar[str] = "saoudrizwan.claude-dev"
    has_sdk: ClassVar[bool] = True


class RooCodeAdapter(ClineFamilyAdapter):
    name: ClassVar[str] = "roo-code"
    label: ClassVar[str] = "Roo Code"
    extension_id: ClassVar[str] = "rooveterinaryinc.roo-cline"


class KiloCodeAdapter(ClineFamilyAdapter):
    name: ClassVar[str] = "kilo-code"
    label: ClassVar[str] = "Kilo Code (legacy extension)"
    extension_id: ClassVar[str] = "kilocode.kilo-code"


def _cline_data(ctx: SourceContext) -> Path:
    if ctx.real_home:
        if ctx.env.get("CLINE_DATA_DIR"):
            return Path(ctx.env["CLINE_DATA_DIR"]).expanduser()
        if ctx.env.get("CLINE_DIR"):
            return Path(ctx.env["CLINE_DIR"]).expanduser() / "data"
    return ctx.home / ".cline" / "data"


def _env_dir(ctx: SourceContext, name: str) -> Path | None:
    value = ctx.env.get(name) if ctx.real_home else None
    return Path(value).expanduser() if value else None


# --- discovery ---------------------------------------------------------------------------


def _task_refs(source: str, root: Path) -> Iterator[SessionRef]:
    """Task folders (generations A/B), with their index entry as facts."""
    tasks = root / "tasks"
    if not tasks.is_dir():
        return
    index = _history_index(root / "state" / "taskHistory.json")
    for entry in sorted(os.scandir(tasks), key=lambda e: e.name):
        if not entry.is_dir():
            continue
        folder = Path(entry.path)
        files = [folder / n for n in (UI_FILE, API_FILE, METADATA_FILE) if (folder / n).is_file()]
        if not files or files[0].name == METADATA_FILE:
            continue  # no transcript (a task that never ran, or settings only)
        stamps = [FileStamp.of(f) for f in files]
        facts = index.get(entry.name, ())
        yield SessionRef(source, entry.name, stamps[0], tuple(stamps[1:]), facts)


def _history_index(path: Path) -> dict[str, tuple[str, ...]]:
    """``HistoryItem[]``: title (the first prompt), working folder and model per task id."""
    items = _read_json(path, [], "") if path.is_file() else None
    index = {}
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        facts = {
            "title": item.get("task"),
            "cwd": item.get("cwdOnTaskInitialization") or item.get("workspace"),
            "model": item.get("modelId"),
            "updated": str(item["ts"]) if isinstance(item.get("ts"), int | float) else None,
        }
        index[item["id"]] = _facts(facts)
    return index


def _sdk_refs(source: str, sessions: Path, db: Path) -> Iterator[SessionRef]:
    """Cline 4 session folders (generation C), with their ``sessions.db`` row as facts."""
    if not sessions.is_dir():
        return
    rows = _sdk_index(db) if db.is_file() else {}
    for entry in sorted(os.scandir(sessions), key=lambda e: e.name):
        main = Path(entry.path) / f"{entry.name}.messages.json"
        if not entry.is_dir() or not main.is_file():
            continue
        others = sorted(
            Path(e.path)
            for e in os.scandir(entry.path)
            if e.name.endswith(".messages.json") and e.name != main.name and e.is_file()
        )
        manifest = Path(entry.path) / f"{entry.name}.json"
        related = ([manifest] if manifest.is_file() else []) + others
        facts = ("kind=sdk", *rows.get(entry.name, ()))
        yield SessionRef(
            source, entry.name, FileStamp.of(main), tuple(FileStamp.of(p) for p in related), facts
        )


def _sdk_index(db: Path) -> dict[str, tuple[str, ...]]:
    """``sessions`` rows by id; an unreadable index only costs these facts (the transcripts
    hold the conversation), so it is not an error here."""
    wanted = ["cwd", "workspace_root", "model", "started_at", "ended_at", "parent_session_id",
              "metadata_json"]  # fmt: skip
    try:
        with Database(db) as conn:
            columns = conn.columns("sessions")
            if "session_id" not in columns:
                return {}
            chosen = ", ".join(c for c in wanted if c in columns)
            rows = list(conn.rows(f"SELECT session_id, {chosen} FROM sessions"))
    except SourceError:
        return {}
    index = {}
    for row in rows:
        meta = _loads(row.get("metadata_json"))
        title = meta.get("title") if isinstance(meta, dict) else None
        facts = {
            "cwd": row.get("cwd") or row.get("workspace_root"),
            "model": row.get("model"),
            "started": row.get("started_at"),
            "ended": row.get("ended_at"),
            "parent": row.get("parent_session_id"),
            "title": title,
        }
        index[str(row["session_id"])] = _facts(facts)
    return index


def _facts(values: dict[str, Any]) -> tuple[str, ...]:
    """``name=value`` facts for a SessionRef (strings only; one line each)."""
    return tuple(
        f"{k}={' '.join(v.split()) if k == 'title' else v}"
        for k, v in values.items()
        if isinstance(v, str) and v.strip()
    )


# --- loading -----------------------------------------------------------------------------


def _load_task(source: str, ref: SessionRef, problems: list[Problem]) -> Session | None:
    """A task folder: the UI transcript, else the model's history when the UI file is
    missing, unreadable or empty (each bad file reported)."""
    folder = ref.main.path.parent
    metadata = _read_json(folder / METADATA_FILE, problems, source, required=False)
    model_at = _model_timeline(metadata, ref.fact("model"))
    prefix = f"{ref.session_id}:"
    conversation, times = None, []
    ui = _read_list(folder / UI_FILE, problems, source)
    if ui is not None:
        conversation, times = parse_ui(ui, prefix, model_at)
    if conversation is None or not conversation.messages:
        api = _read_list(folder / API_FILE, problems, source)
        if api is not None:
            conversation = parse_messages(api, prefix, legacy=True, model_at=model_at)
            times = [m.timestamp for m in conversation.messages]
    if conversation is None:
        return None
    _report_skipped(conversation, ref.main.path, problems, source)
    cwd = ref.fact("cwd") or _cwd_from_api(folder / API_FILE)
    stamps = [t for t in (parse_timestamp(t) for t in times) if t]
    if not stamps:  # the model's history of old builds has no times: the id and the index do
        created = ref.session_id if re.fullmatch(r"\d{13}", ref.session_id) else None
        known = [float(v) for v in (created, ref.fact("updated")) if v]
        stamps = [t for t in map(parse_timestamp, known) if t]
    return Session(
        source=source,
        session_id=ref.session_id,
        messages=tuple(conversation.messages),
        source_path=ref.main.path,
        title=ref.fact("title"),
        project=project_of_path(cwd),
        cwd=cwd,
        models=tuple(conversation.models),
        started_at=min(stamps) if stamps else None,
        ended_at=max(stamps) if stamps else None,
        usage=conversation.usage,
        cost=conversation.cost,
    )


def _load_sdk(source: str, ref: SessionRef, problems: list[Problem]) -> list[Session]:
    folder = ref.main.path.parent
    manifest = _read_json(folder / f"{ref.session_id}.json", problems, source, required=False)
    manifest = manifest if isinstance(manifest, dict) else {}
    root = _sdk_session(source, ref.main.path, ref.session_id, manifest, problems, ref.fact)
    if root is None:
        return []
    children = []
    for stamp in ref.related:
        if stamp.path.name.endswith(".messages.json"):
            agent = stamp.path.name.removesuffix(".messages.json")
            child_id = f"{ref.session_id}/agent-{agent}"
            child = _sdk_session(
                source, stamp.path, child_id, manifest, problems, parent=ref.session_id
            )
            if child:
                children.append(child)
    if children:
        root = replace(root, subagent_ids=tuple(c.session_id for c in children))
    return [root, *children]


def _sdk_session(
    source: str,
    path: Path,
    session_id: str,
    manifest: dict[str, Any],
    problems: list[Problem],
    fact: Callable[[str], str | None] = lambda name: None,
    parent: str | None = None,
) -> Session | None:
    """One messages file; ``fact`` reads the session's index row, the manifest fills gaps
    (a subagent shares its session's manifest: same folder, same workspace)."""
    data = _read_json(path, problems, source)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        if data is not None:
            problems.append(Problem(str(path), "not a Cline session file (no messages list)",
                                    None, "error", source))  # fmt: skip
        return None
    conversation = parse_messages(data["messages"], f"{session_id}:")
    _report_skipped(conversation, path, problems, source)
    cwd = fact("cwd") or _str(manifest.get("cwd")) or _str(manifest.get("workspace_root"))
    stamps = [m.timestamp for m in conversation.messages if m.timestamp]
    started = None if parent else parse_timestamp(fact("started") or manifest.get("started_at"))
    ended = max(stamps, default=None) or parse_timestamp(fact("ended") or data.get("updated_at"))
    model = fact("model") or _str(manifest.get("model"))
    return Session(
        source=source,
        session_id=session_id,
        messages=tuple(conversation.messages),
        source_path=path,
        title=fact("title"),
        project=project_of_path(cwd),
        cwd=cwd,
        models=tuple(conversation.models or ([model] if model else [])),
        started_at=started or min(stamps, default=None),
        ended_at=ended,
        usage=conversation.usage,
        cost=conversation.cost,
        parent_id=parent or fact("parent"),
        agent_label=_str(data.get("agent")) if parent else None,
    )


def _model_timeline(metadata: Any, fallback: str | None) -> Any:
    """``model_at(ts)``: the ``task_metadata.json`` ``model_usage`` entry in force at a
    time, else the index's model."""
    entries = metadata.get("model_usage") if isinstance(metadata, dict) else None
    timeline = sorted(
        (e["ts"], e["model_id"])
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, dict)
        and isinstance(e.get("ts"), int | float)
        and isinstance(e.get("model_id"), str)
    )
    times = [t for t, _ in timeline]

    def model_at(ts: Any) -> str | None:
        if timeline and isinstance(ts, int | float):
            i = bisect.bisect_right(times, ts)
            return timeline[max(i - 1, 0)][1]
        return timeline[-1][1] if timeline else fallback

    return model_at


def _cwd_from_api(path: Path) -> str | None:
    """The working folder Cline names in its first ``<environment_details>``."""
    try:
        with path.open("rb") as f:
            match = _CWD.search(f.read(1 << 20))
    except OSError:
        return None
    if not match:
        return None
    try:
        return json.loads(b'"' + match.group(1) + b'"')  # the path is JSON-escaped here
    except ValueError:
        return match.group(1).decode("utf-8", "replace")


def _report_skipped(
    conversation: Conversation, path: Path, problems: list[Problem], source: str
) -> None:
    if conversation.skipped:
        kinds = ", ".join(f"{k} ×{n}" for k, n in sorted(conversation.skipped.items()))
        problems.append(Problem(str(path), f"skipped entries of unknown kind: {kinds}", None,
                                "warning", source))  # fmt: skip


def _read_json(path: Path, problems: list[Problem], source: str, required: bool = True) -> Any:
    """A whole JSON document; a missing optional file is None, a bad one is reported (the
    file may be half-written: it is read again next run)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        if required:
            problems.append(Problem(str(path), "missing", None, "error", source))
        return None
    except OSError as exc:
        problems.append(Problem(str(path), f"could not be read ({exc})", None, "error", source))
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:  # lone surrogates or bad UTF-8, which orjson refuses
            return json.loads(raw.decode("utf-8", "replace"))
        except ValueError as exc:
            problems.append(
                Problem(str(path), f"not a readable JSON document ({exc}); skipped, it is read "
                        "again next run", None, "error", source)
            )  # fmt: skip
            return None


def _read_list(path: Path, problems: list[Problem], source: str) -> list[Any] | None:
    """A task file that holds a list of messages; None, reported, when it does not."""
    value = _read_json(path, problems, source, required=False)
    if value is not None and not isinstance(value, list):
        problems.append(
            Problem(str(path), "not a list of messages; skipped", None, "error", source)
        )
        return None
    return value


def _loads(value: Any) -> Any:
    if not isinstance(value, str | bytes):
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


__all__ = ["ClineAdapter", "KiloCodeAdapter", "RooCodeAdapter"]
