"""The Cline family: Cline, Roo Code, Zoo Code, Kilo Code's legacy extension (FORMATS.md §6.2).

Each is its own source (``cline``, ``roo-code``, ``zoo-code``, ``kilo-code``); one reader
serves all four. Where, for the extension id (``saoudrizwan.claude-dev``,
``rooveterinaryinc.roo-cline``, ``zoocodeorganization.zoo-code``, ``kilocode.kilo-code``), in
the ``User`` folder of every VS Code-family editor (``Code``, ``Code - Insiders``, ``Cursor``,
``Windsurf``, ``VSCodium``, ``Positron``, ``Antigravity``; Linux, macOS and Windows layouts;
remote ``~/.vscode-server``, ``~/.vscode-server-insiders``, Cursor's ``~/.cursor-server`` and
Codespaces ``~/.vscode-remote``):

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

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from ...errors import Problem, SourceError
from .._jsonl import read_index_json
from .._sqlite import Database, decode_json
from .._values import json_kind, quoted, some_text
from ..base import FileStamp, LoadResult, SessionRef, SourceContext, index_unreadable, listed
from ..vscode import VSCODE_VARIABLES, user_dirs
from .load import API_FILE, METADATA_FILE, UI_FILE, load_sdk, load_task, starred

EDITORS = ["Code", "Code - Insiders", "Cursor", "Windsurf", "VSCodium", "Positron", "Antigravity"]
# What vscode.user_dirs honours on the real home.
REMOTE_USER_DIRS = [".vscode-server/data/User", ".vscode-server-insiders/data/User",
                    ".vscode-remote/data/User", ".cursor-server/data/User"]  # fmt: skip
# What each index gives its sessions (told when it cannot be read).
HISTORY_GIVES = "titles, working folders, models and context truncations"
SDK_INDEX_GIVES = "titles, working folders, models, times and parent sessions"


class ClineFamilyAdapter:
    """One extension of the family; subclasses name it."""

    name: ClassVar[str]
    label: ClassVar[str]
    extension_id: ClassVar[str]
    has_sdk: ClassVar[bool] = False  # Cline's own data folder (~/.cline/data)
    env_vars: ClassVar[tuple[str, ...]] = VSCODE_VARIABLES
    # A task depends on its folder's files, an SDK session on its own files and the facts
    # discovery found: a worker reads a unit ahead as the main process would.
    reads_alone: ClassVar[bool] = True

    def roots(self, ctx: SourceContext) -> list[Path]:
        """The storage folders, then the sessions folder ``$CLINE_SESSION_DATA_DIR`` names
        when it is outside them: discovery reads it, so ``sources`` and ``doctor`` list it
        there (they said "not found" and "nothing found" for sessions the export read)."""
        folders = self._folders(ctx)
        moved = [self._sdk_places(ctx, folder)[0] for folder in folders]
        # (a folder's own sessions folder is inside it: ``is_relative_to`` for each of some
        # 200 editor folders cost a no-op run 0.07 s)
        outside = [
            m
            for m, folder in zip(moved, folders, strict=True)
            if m.parent != folder and not any(m.is_relative_to(f) for f in folders)
        ]
        return list(dict.fromkeys([*folders, *outside]))

    def _folders(self, ctx: SourceContext) -> list[Path]:
        configured = ctx.configured(self.name)
        if configured:
            return [self._storage(folder) for folder in configured]
        users = user_dirs(ctx, EDITORS) + [ctx.home / d for d in REMOTE_USER_DIRS]
        roots = [u / "globalStorage" / self.extension_id for u in users]
        return roots + ([_cline_data(ctx)] if self.has_sdk else [])

    def _sdk_places(self, ctx: SourceContext, root: Path) -> tuple[Path, Path]:
        """The SDK sessions folder and index folder of the storage folder ``root``."""
        sessions, db = root / "sessions", root / "db"
        if self.has_sdk and root == _cline_data(ctx):  # the variables move Cline's own
            sessions = _env_dir(ctx, "CLINE_SESSION_DATA_DIR") or sessions  # folders, not
            db = _env_dir(ctx, "CLINE_DB_DATA_DIR") or db  # an editor's
        return sessions, db

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        seen: set[str] = set()
        roots = self._folders(ctx)
        for root in roots:
            sessions, db = self._sdk_places(ctx, root)
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
                result.sessions = load_sdk(self.name, ref, result.problems)
            else:
                session = load_task(self.name, ref, result.problems)
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
    env_vars: ClassVar[tuple[str, ...]] = (
        *VSCODE_VARIABLES, "CLINE_DATA_DIR", "CLINE_DIR", "CLINE_SESSION_DATA_DIR",
        "CLINE_DB_DATA_DIR",
    )  # fmt: skip


class RooCodeAdapter(ClineFamilyAdapter):
    name: ClassVar[str] = "roo-code"
    label: ClassVar[str] = "Roo Code"
    extension_id: ClassVar[str] = "rooveterinaryinc.roo-cline"


class ZooCodeAdapter(ClineFamilyAdapter):
    """Zoo Code, the community fork of Roo Code: Roo's files under its own extension id."""

    name: ClassVar[str] = "zoo-code"
    label: ClassVar[str] = "Zoo Code"
    extension_id: ClassVar[str] = "zoocodeorganization.zoo-code"


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
    index, damaged, unnamed = _history_index(source, root / "state" / "taskHistory.json")
    for entry in listed(tasks):
        if not entry.is_dir():
            continue
        folder = Path(entry.path)
        # (a task file that is not a file, a folder in its place, is kept: reading it says so)
        files = [folder / n for n in (UI_FILE, API_FILE, METADATA_FILE) if (folder / n).exists()]
        if not files or files[0].name == METADATA_FILE:
            continue  # no transcript (a task that never ran, or settings only)
        stamps = [FileStamp.of(f) for f in files]
        facts = index.get(entry.name)
        # (a task its index damages, or may damage, keeps the facts of the last run)
        unread = damaged.get(entry.name) or (unnamed if facts is None else None)
        yield SessionRef(source, entry.name, stamps[0], tuple(stamps[1:]), facts or (), unread)


def _history_index(
    source: str, path: Path
) -> tuple[dict[str, tuple[str, ...]], dict[str, Problem], Problem | None]:
    """``HistoryItem[]``: title (the first prompt), working folder, model and context
    truncation (``conversationHistoryDeletedRange``) per task id; the tasks whose entry is
    damaged, with why (said once for the file: how many, and the first); and why the tasks
    the index does not name keep the facts of the last run: the file could not be read (the
    extension rewrites it whole: caught halfway it is not JSON), holds no list, or holds an
    entry that names no task (it may have been theirs)."""
    items, unread = read_index_json(source, path, HISTORY_GIVES, (list, "a list of tasks"))
    if unread or items is None:  # (none: no index, which this version does not write)
        return {}, {}, unread
    index: dict[str, tuple[str, ...]] = {}
    damaged_ids: list[str] = []
    said: list[str] = []  # what is wrong with each damaged entry
    unnamed = False
    for number, item in enumerate(items, start=1):
        task_id, facts, why = _history_entry(item, number)
        if task_id is not None:
            index[task_id] = _facts(facts)
        if why is None:
            continue
        said.append(why)
        if task_id is None:
            unnamed = True
        else:
            damaged_ids.append(task_id)
    if not said:
        return index, {}, None
    why = said[0] if len(said) == 1 else f"{said[0]} (the first of {len(said)} damaged entries)"
    problem = index_unreadable(source, path, why, HISTORY_GIVES)
    return index, dict.fromkeys(damaged_ids, problem), problem if unnamed else None


# The facts of a HistoryItem, each with the fields it is read from: text (Roo Code and its
# forks name the working folder ``workspace``), ``ts`` a number (ms).
_TEXT_FIELDS = {"title": ("task",), "cwd": ("cwdOnTaskInitialization", "workspace"),
                "model": ("modelId",)}  # fmt: skip
_NUMBER = re.compile(r"\d{1,16}(?:\.\d+)?")


def _history_entry(item: Any, number: int) -> tuple[str | None, dict[str, Any], str | None]:
    """One entry of the index (the ``number``-th, from 1): the task id it names (None when
    it names none), its facts, and what is wrong with it (None: nothing). A field that is
    absent or ``null`` is no damage (the extensions leave the optional ones out); one of the
    wrong type is, and its fact is left out (the run takes the one it recorded last)."""
    if not isinstance(item, dict):
        return None, {}, f"entry {number} is {json_kind(item)}, not an object"
    task_id = item.get("id")
    if not some_text(task_id):
        if task_id in (None, ""):
            return None, {}, f"entry {number} has no id"
        return None, {}, f"entry {number} has an id that is {json_kind(task_id)}, not text"
    wrong = []
    facts: dict[str, Any] = {}
    for name, fields in _TEXT_FIELDS.items():
        for field in fields:
            value = item.get(field)
            if value is not None and not isinstance(value, str):
                wrong.append(f"its {field} is {json_kind(value)}, not text")
            elif value and not facts.get(name):
                facts[name] = value
    ts = item.get("ts")
    if isinstance(ts, int | float) and not isinstance(ts, bool) and math.isfinite(ts):
        facts["updated"] = str(ts)
    elif isinstance(ts, str) and _NUMBER.fullmatch(ts.strip()):
        facts["updated"] = ts.strip()  # (a number written as text says the same)
    elif ts is not None:
        shown = str(ts) if isinstance(ts, float) else quoted(ts)  # (nan, read leniently)
        wrong.append(f"its ts is {shown}, not a number")
    # The context truncation in force (a marker in the note, when the transcript does not
    # say where it happened): as written, checked when the task is read (one that is not a
    # pair of message indices is said then, with the task).
    deleted = item.get("conversationHistoryDeletedRange")
    facts["deleted"] = json.dumps(deleted) if deleted is not None else None
    # A task the person starred (a filter in the history view): shown only when starred.
    facts["starred"] = "true" if item.get("isFavorited") is True else None
    why = f"entry {number} (task {quoted(task_id)}): {' and '.join(wrong)}" if wrong else None
    return task_id, facts, why


def _sdk_refs(source: str, sessions: Path, db: Path) -> Iterator[SessionRef]:
    """Cline 4 session folders (generation C), with their ``sessions.db`` row as facts."""
    if not sessions.is_dir():
        return
    rows, unread = _sdk_index(source, db) if db.is_file() else ({}, None)
    for entry in listed(sessions):
        main = Path(entry.path) / f"{entry.name}.messages.json"
        if not entry.is_dir() or not main.exists():  # (not a file: reading it says so)
            continue
        others = sorted(
            Path(e.path)
            for e in listed(entry.path)
            # (one that is not a file, a folder in its place, is kept: reading it says so)
            if e.name.endswith(".messages.json") and e.name != main.name and Path(e.path).exists()
        )
        manifest = Path(entry.path) / f"{entry.name}.json"
        related = ([manifest] if manifest.is_file() else []) + others
        facts = ("kind=sdk", *rows.get(entry.name, ()))
        stamps = tuple(FileStamp.of(p) for p in related)
        yield SessionRef(source, entry.name, FileStamp.of(main), stamps, facts, unread)


def _sdk_index(source: str, db: Path) -> tuple[dict[str, tuple[str, ...]], Problem | None]:
    """``sessions`` rows by id, and why the database could not be read (locked by the
    running Cline): that only costs these facts (the transcripts hold the conversation), so
    it is a warning, not an error."""
    wanted = ["cwd", "workspace_root", "model", "started_at", "ended_at", "parent_session_id",
              "metadata_json"]  # fmt: skip
    try:
        with Database(db) as conn:
            columns = conn.columns("sessions")
            if "session_id" not in columns:
                why = "has no sessions table (with a session_id column)"
                return {}, index_unreadable(source, db, why, SDK_INDEX_GIVES)
            chosen = ", ".join(c for c in wanted if c in columns)
            rows = list(conn.rows(f"SELECT session_id, {chosen} FROM sessions"))
    except SourceError as exc:
        return {}, index_unreadable(source, db, exc.message, SDK_INDEX_GIVES)
    index = {}
    for row in rows:
        raw = row.get("metadata_json")
        meta = decode_json(raw)
        title = meta.get("title") if isinstance(meta, dict) else None
        # (a metadata_json that is not a JSON object, or whose title is not text, is said
        # when the session is read: it costs that session its title)
        blank = raw is None or isinstance(raw, str) and raw.strip() in ("", "null")
        odd = not blank and not isinstance(meta, dict)
        shown = "not a JSON object" if odd else None
        if not odd and title is not None and not isinstance(title, str):
            shown = f"an object whose title is {json_kind(title)}, not text"
        facts = {
            "cwd": row.get("cwd") or row.get("workspace_root"),
            "model": row.get("model"),
            "started": row.get("started_at"),
            "ended": row.get("ended_at"),
            "parent": row.get("parent_session_id"),
            "title": title,
            "odd-metadata": f"{db}\t{shown}" if shown else None,
            # (only when starred: a fact more would make every session's note new)
            "starred": "true" if starred(meta) else None,
        }
        index[str(row["session_id"])] = _facts(facts)
    return index, None


def _facts(values: dict[str, Any]) -> tuple[str, ...]:
    """``name=value`` facts for a SessionRef (strings only; one line each)."""
    return tuple(
        f"{k}={' '.join(v.split()) if k == 'title' else v}"
        for k, v in values.items()
        if isinstance(v, str) and v.strip()
    )


__all__ = ["ClineAdapter", "KiloCodeAdapter", "RooCodeAdapter", "ZooCodeAdapter"]
