"""Reading OpenCode's two stores into ``StoredSession`` values (FORMATS.md §6.3).

The database: ``session``, ``message``, ``part`` and ``project`` are the only tables read
(the same file holds login tokens in ``account``/``credential``: never touched). Rows are
read by column name, since columns come and go between versions; messages in
``(time_created, id)`` order, parts by id, both through the database's own indexes.

The legacy tree: ``storage/session/<project>/<session>.json``,
``storage/message/<session>/<message>.json``, ``storage/part/<message>/<part>.json``. Files
are named by their ids. Early trees kept parts inside the message file, or flat under
``part/`` linked only by their ``messageID``; both are read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ...errors import Problem
from ...model import family_roots
from .._jsonl import lenient_loads
from .._parts import runs
from .._sqlite import Database, decode_json
from .._values import json_kind, quoted
from ..base import FileStamp, cannot_read, listed, read_regular

if TYPE_CHECKING:  # the converter is imported when a session is read, not by discovery
    from .convert import StoredSession

_SESSION_COLUMNS = ("id", "parent_id", "title", "directory", "project_id", "model", "revert",
                    "share_url")  # fmt: skip
_TIME_COLUMNS = ("time_created", "time_updated", "time_archived")


class OpenCodeDatabase:
    """An open ``opencode.db`` / ``kilo.db``: its session tree and one session at a time."""

    def __init__(self, db: Database, source: str) -> None:
        self.db = db
        self.source = source
        if "session" not in db.tables:
            raise ValueError("no session table: not an OpenCode database")
        have = db.columns("session")
        wanted = [c for c in (*_SESSION_COLUMNS, *_TIME_COLUMNS) if c in have]
        order = "time_created, id" if "time_created" in have else "id"
        sql = f"SELECT {', '.join(wanted)} FROM session ORDER BY {order}"
        self.rows = {row["id"]: row for row in db.rows(sql)}
        # A table missing (a damaged or foreign database): its sessions are read without it.
        self.missing = [
            f"no {table} table: {what} cannot be read"
            for table, what in (("message", "the sessions' messages"),
                                ("part", "the messages' parts (their text, tools, files)"))
            if table not in db.tables
        ]  # fmt: skip
        self.children: dict[str, list[str]] = {}
        for row in self.rows.values():
            parent = row.get("parent_id")
            if parent and parent in self.rows:
                self.children.setdefault(parent, []).append(row["id"])

    def families(self) -> Iterator[list[str]]:
        """Session ids, a top-level session followed by its subagents (and theirs)."""
        for ident, row in self.rows.items():
            if row.get("parent_id") not in self.rows:
                yield self.family(ident)

    def family(self, root: str) -> list[str]:
        """A top-level session's id followed by its subagents' (and theirs)."""
        family, queue = [], [root]
        while queue:
            current = queue.pop(0)
            family.append(current)
            queue += self.children.get(current, [])
        return family

    def parts(self, most_bytes: int) -> list[tuple[str, int]] | None:
        """The families in the order ``families`` gives them, cut into runs of about
        ``most_bytes`` each (their top-level ids joined by commas, and the estimated
        bytes), weighed by their message and part rows at the database's mean row size,
        which SQLite counts. None if an id holds a comma."""
        rows: dict[str, int] = {}
        for table in ("message", "part"):
            if table in self.db.tables:
                sql = f"SELECT session_id, count(*) FROM {table} GROUP BY session_id"
                for ident, count in self.db.query(sql):
                    rows[ident] = rows.get(ident, 0) + count
        mean = self.db.path.stat().st_size / max(1, sum(rows.values()) + len(self.rows))
        weighed = (
            (family[0], sum(rows.get(ident, 0) + 1 for ident in family) * mean)
            for family in self.families()
        )
        return runs(weighed, most_bytes)

    def session(self, ident: str) -> StoredSession:
        from .convert import StoredSession

        row = self.rows[ident]
        problems: list[Problem] = []
        info = {
            "id": ident,
            "parentID": row.get("parent_id"),
            "title": row.get("title"),
            "directory": row.get("directory"),
            # (as the legacy tree's session file has them: ``time.archived``, ``share.url``)
            "time": {
                "created": row.get("time_created"),
                "updated": row.get("time_updated"),
                "archived": row.get("time_archived"),
            },
            "share": {"url": row.get("share_url")},
            "model": decode_json(row.get("model")),
            "revert": decode_json(row.get("revert")),
        }
        parts: dict[str, list[dict[str, Any]]] = {}
        if "part" in self.db.tables:
            sql = "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id"
            for part in self.db.rows(sql, (ident,)):
                data = self._object(part, "part", problems)
                if data is not None:
                    parts.setdefault(part["message_id"], []).append(data)
        messages = []
        if "message" in self.db.tables:
            sql = "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id"
            for message in self.db.rows(sql, (ident,)):
                data = self._object(message, "message", problems)
                if data is not None:
                    messages.append((data, parts.get(message["id"], [])))
        return StoredSession(info, messages, self.db.path, self._worktree(row), problems)

    def _object(
        self, row: dict[str, Any], table: str, problems: list[Problem]
    ) -> dict[str, Any] | None:
        data = decode_json(row.get("data"))
        if not isinstance(data, dict):
            why = f"{table} {row.get('id')}: data is not a JSON object; skipped"
            problems.append(Problem(str(self.db.path), why, source=self.source))
            return None
        data.setdefault("id", row.get("id"))
        return data

    def _worktree(self, row: dict[str, Any]) -> str | None:
        project = row.get("project_id")
        if not project or project == "global" or "project" not in self.db.tables:
            return None
        found = self.db.query("SELECT worktree FROM project WHERE id = ?", (project,)).fetchone()
        return found[0] if found and isinstance(found[0], str) else None


def session_ids(path: Path) -> frozenset[str]:
    """The ids of every session a database holds (SourceError when it cannot be read)."""
    with Database(path) as db:
        if "session" not in db.tables:
            return frozenset()
        return frozenset(r[0] for r in db.query("SELECT id FROM session"))


# --- the legacy JSON tree ---------------------------------------------------------------


def tree_files(session_file: Path) -> list[FileStamp]:
    """Every file of one legacy session, by stat only: its messages and their parts
    (directories named by id), plus loose part files of an early tree."""
    storage = session_file.parents[2]
    listed = []
    for message in _json_files(storage / "message" / session_file.stem):
        listed += [message, *_json_files(storage / "part" / message.stem)]
    listed += _json_files(storage / "part")
    return [stamp for path in listed if (stamp := FileStamp.listed(path)) is not None]


def tree_session(session_file: Path, source: str) -> tuple[StoredSession | None, Problem | None]:
    """One legacy session; an unreadable session file is an error naming it."""
    from .convert import StoredSession

    info, why = _read(session_file)
    if info is None:
        return None, Problem(str(session_file), why, severity="error", source=source)
    storage = session_file.parents[2]
    problems: list[Problem] = []
    ident = _tree_ident(info, session_file)
    if info.get("id") not in (None, "", ident):
        why = f"the session's id is {json_kind(info['id'])}, not text: named by its file"
        problems.append(Problem(str(session_file), why, source=source))
    info["id"] = ident
    loose = _loose_parts(storage, problems, source)
    messages = []
    for folder in dict.fromkeys([ident, session_file.stem]):
        for file in _json_files(storage / "message" / folder, every=True):
            data, why = _read(file)
            if data is None:
                problems.append(Problem(str(file), why, source=source))
                continue
            mid = str(data.setdefault("id", file.stem))
            parts = [p for p in data.pop("parts", None) or [] if isinstance(p, dict)]
            for part_dir in dict.fromkeys([mid, file.stem]):
                for part_file in _json_files(storage / "part" / part_dir, every=True):
                    part, why = _read(part_file)
                    if part is None:
                        problems.append(Problem(str(part_file), why, source=source))
                    else:  # a part file belongs to the message its folder names
                        parts.append(part)
                        if part.get("messageID", mid) not in (mid, file.stem):
                            why = (
                                f"its messageID is {_shown(part.get('messageID'))}, not its"
                                " folder's: read with the message its folder names"
                            )
                            problems.append(Problem(str(part_file), why, source=source))
            parts += loose.get(mid, [])
            messages.append((data, _unique(parts)))
    if all(_created(data) for data, _parts in messages):
        messages.sort(key=lambda m: (_created(m[0]), str(m[0].get("id"))))
    else:  # a time that cannot be read sorted first; the ids, time-ordered, keep its place
        messages.sort(key=lambda m: str(m[0].get("id")))
    return StoredSession(info, messages, session_file, None, problems), None


def tree_families(files: list[Path]) -> list[list[tuple[Path, tuple[str, ...]]]]:
    """A legacy tree's session files by family (a session, its subagents and theirs, as a
    database gives them), each file with its subagents' ids; families in the order of their
    first file, files in theirs. Only each file's session info is read here; a file that
    cannot be read stands alone (``tree_session`` says why)."""
    ident: dict[Path, str] = {}
    parent: dict[str, str] = {}
    for path in files:
        info, _why = _read(path)
        if info is None:
            continue
        ident[path] = _tree_ident(info, path)
        up = info.get("parentID")
        if isinstance(up, str) and up:
            parent[ident[path]] = up
    roots = family_roots({i: parent.get(i) for i in ident.values()})
    children: dict[str, list[str]] = {}
    for i in ident.values():
        if parent.get(i) in roots:
            children.setdefault(parent[i], []).append(i)
    families: dict[str, list[tuple[Path, tuple[str, ...]]]] = {}
    for path in files:
        session = ident.get(path)
        if session is None:
            families[f"unread:{path}"] = [(path, ())]
        else:
            families.setdefault(roots[session], []).append((path, tuple(children.get(session, ()))))
    return list(families.values())


def _tree_ident(info: dict[str, Any], session_file: Path) -> str:
    """A legacy session's id: its own, or its file's name when that is not text."""
    ident = info.get("id")
    return ident if isinstance(ident, str) and ident else session_file.stem


def _loose_parts(
    storage: Path, problems: list[Problem], source: str
) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for file in _json_files(storage / "part", every=True):
        part, why = _read(file)
        if part is None:
            problems.append(Problem(str(file), why, source=source))
        elif isinstance(part.get("messageID"), str):
            found.setdefault(part["messageID"], []).append(part)
    return found


def _unique(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parts once each (by id), in the order they were found."""
    seen: dict[str, dict[str, Any]] = {}
    for index, part in enumerate(parts):
        seen.setdefault(str(part.get("id") or f"#{index}"), part)
    return list(seen.values())


def _json_files(folder: Path, every: bool = False) -> list[Path]:
    """The ``*.json`` files directly in ``folder``, by name (names are time-ordered ids).
    With ``every``, an entry so named that is no file (a folder, a link to nothing) too: the
    caller's ``_read`` says why it cannot be read, as every adapter says it (``cannot_read``)."""
    try:
        entries = [e for e in listed(folder) if e.name.endswith(".json")]
    except (OSError, ValueError):  # ValueError: a damaged id naming the folder holds a NUL
        return []
    return [Path(e.path) for e in sorted(entries, key=lambda e: e.name) if every or e.is_file()]


def _shown(value: Any) -> str:
    """A value for a warning: text quoted, anything else by its kind."""
    return quoted(value)


def _read(path: Path) -> tuple[dict[str, Any] | None, str]:
    try:
        raw = read_regular(path)
        data = orjson.loads(raw)
    except OSError as exc:
        return None, f"{cannot_read(exc)}; skipped"
    except orjson.JSONDecodeError as exc:
        data = lenient_loads(raw)  # a lone surrogate, a number past 64 bits: read all the same
        if data is None:
            why = f"not valid JSON ({exc}); skipped (a file being written is read next run)"
            return None, why
    if not isinstance(data, dict):
        return None, "not a JSON object; skipped"
    return data, ""


def _created(data: dict[str, Any]) -> float:
    time = data.get("time")
    created = time.get("created") if isinstance(time, dict) else None
    return created if isinstance(created, int | float) else 0
