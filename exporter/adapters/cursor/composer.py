"""Cursor generations 1-3: chats in the ``state.vscdb`` databases of its user folder
(FORMATS.md §3.1-§3.6).

- the legacy AI-chat panel: workspace key ``workbench.panel.aichat.view.aichat.chatdata``;
- the 2024 composer kept in the workspace: ``composer.composerData`` with inline
  ``conversation`` lists;
- the current split storage in the global database's ``cursorDiskKV``: ``composerData:<id>``
  plus one ``bubbleId:<id>:<bubble>`` row per message, in ``fullConversationHeadersOnly``
  order. The ``agentKv:blob:*`` rows newer builds add there are an undocumented
  content-addressed protobuf graph and are never read.

One user folder is one discovery unit (the global database, every workspace database and
``workspace.json``): a composer's project can only be known by reading the workspaces. The
unit is re-read when any of those files changes; notes whose session did not change are
left alone byte for byte. Composers are read one family at a time (a composer and
those it started: its subagents, its best-of-N alternatives; ``family.py``). A composer
found in both the global database and a workspace is exported once, from the global
one. With workers, a large folder is read in parts side by side (``composer_parts``,
``load_part``): runs of the global database's families, then the workspaces' own chats,
in the order read here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...errors import Problem, SourceError
from ...model import Session
from .._parts import PART_BYTES, runs
from .._times import Times
from ..base import FileStamp, LoadResult, SessionRef
from ..vscode import Database, db_stamps, folder_of_workspace, workspace_dbs
from .chats import composer_session as _composer_session
from .chats import stored_list as _list
from .chats import tab_session as _tab_session
from .family import families, linked_family, parents
from .packing import packed, packs, snapshot, spill

SOURCE = "cursor"
GLOBAL = "globalStorage/state.vscdb"
_CHAT_PANEL = "workbench.panel.aichat.view.aichat.chatdata"
_PANE_PREFIX = "workbench.panel.composerChatViewPane"
_VIEW_PREFIX = "workbench.panel.aichat.view."
FAMILY_JOIN = ";"  # between the composers of one family in a part (families by commas)


def discover_user_dir(user_dir: Path) -> SessionRef | None:
    """The user folder as one unit: its global database, workspace databases and maps."""
    stamps: list[FileStamp] = []
    global_db = user_dir / GLOBAL
    if global_db.is_file():
        stamps += db_stamps(global_db)
    for workspace, db in workspace_dbs(user_dir):
        stamps += db_stamps(db)
        if (workspace / "workspace.json").is_file():
            stamps.append(FileStamp.of(workspace / "workspace.json"))
    if not stamps:
        return None
    extra = (f"user_dir={user_dir}",)
    return SessionRef(SOURCE, str(user_dir), stamps[0], tuple(stamps[1:]), extra)


def count_conversations(user_dir: Path) -> int:
    """How many conversations the databases of a user folder hold, as an export finds
    them: a global composer that holds one (not one stored empty, as JSON null or as SQL
    NULL, damaged, or opened but never used), a workspace's composer the global database
    does not hold (it is exported from there), each legacy chat tab. Every global composer
    is read (one at a time), not its messages: one whose bubbles are all gone counts."""
    workspaces = _read_workspaces(user_dir, [])
    held: set[str] = set()  # composers the global database holds: a workspace copy is not read
    count = 0
    prefix = "composerData:"
    try:
        with Database(user_dir / GLOBAL) as db:
            for key, data in db.items("cursorDiskKV", prefix):
                if isinstance(data, dict):
                    held.add(key.removeprefix(prefix))
                    count += _has_conversation(data)
    except (SourceError, sqlite3.Error):
        pass
    for _folder, _path, composers, tabs in workspaces.chats:
        ids = {str(data.get("composerId")) for data in composers}
        count += len(ids - held) + len(tabs)
        held |= ids
    return count


def _has_conversation(data: Any) -> bool:
    """A composer naming messages (headers, or bubbles inline): one opened but never used
    names none."""
    return isinstance(data, dict) and any(
        isinstance(data.get(key), list) and bool(data[key])
        for key in ("fullConversationHeadersOnly", "conversation")
    )


def load_user_dir(user_dir: Path) -> Iterator[LoadResult]:
    """One composer (or legacy chat tab) at a time, so memory stays one session."""
    problems: list[Problem] = []
    workspaces = _read_workspaces(user_dir, problems)
    seen: set[str] = set()
    global_db = user_dir / GLOBAL
    times = Times()  # of the global database
    if global_db.is_dir():  # (a folder in its place: said, as Claude Code's readers say it)
        why = "could not be read: a folder, not a file; its chats are read again when it changes"
        problems.append(Problem(str(global_db), why, severity="error", source=SOURCE))
    if global_db.is_file():
        try:
            with Database(global_db) as db:
                keys = db.keys("cursorDiskKV", "composerData:")
                cids = [key.removeprefix("composerData:") for key in keys]
                owners = workspaces.owner
                read = _Family(db, global_db, _composer_headers(db), owners, times, user_dir)
                for family in families(cids, parents(db)):
                    sessions = read.sessions(family, problems)
                    seen.update(read.seen)
                    if sessions:  # (a composer, with those it started)
                        yield LoadResult(sessions, [])
        except SourceError as exc:
            problems.append(exc.problem(SOURCE))
        times.report(problems, global_db, SOURCE)
    for session in _workspace_sessions(workspaces, seen, problems, user_dir):
        yield LoadResult([session], [])
    yield LoadResult([], problems)


def _workspace_sessions(
    found: _Workspaces, seen: set[str], problems: list[Problem], user_dir: Path
) -> Iterator[Session]:
    """The chats kept in workspace databases of ``user_dir``, but the composers in ``seen``
    (exported from the global database; ``seen`` grows with those given here)."""
    for folder, db_path, composers, tabs in found.chats:
        times = Times()
        for data in composers:
            cid = str(data.get("composerId"))
            if cid not in seen:
                seen.add(cid)
                session = _composer_session(data, cid, folder, None, db_path, times, user_dir)
                if session:
                    yield session
        for tab in tabs:
            session = _tab_session(tab, folder, db_path, times, user_dir)
            if session:
                yield session
        times.report(problems, db_path, SOURCE)


def exported_composers(global_dbs: list[Path], ids: list[str]) -> set[str]:
    """Which of ``ids`` the global databases hold as composers with a conversation: those
    are exported from there (the richer copy), not from their Agent transcript."""
    found: set[str] = set()
    for path in global_dbs:
        try:
            with Database(path) as db:
                for cid in ids:
                    data = db.get("cursorDiskKV", f"composerData:{cid}")
                    if isinstance(data, dict) and _composer_session(data, cid, None, db, path):
                        found.add(cid)
        except SourceError:
            continue  # unreadable now: the transcript stands in for it
    return found


def held_conversations(global_dbs: list[Path], ids: list[str]) -> set[str]:
    """Which of ``ids`` a global database holds as composers with a conversation (headers,
    or bubbles inline): the export takes them there, not from their Agent transcript.
    Their messages are not read (``exported_composers`` does), so one whose every bubble
    is gone counts as held here, where the export takes the transcript. Each database is
    opened once."""
    found: set[str] = set()
    for path in global_dbs:
        try:
            with Database(path) as db:
                found.update(
                    cid for cid in ids
                    if _has_conversation(db.get("cursorDiskKV", f"composerData:{cid}"))
                )  # fmt: skip
        except SourceError:
            continue
    return found


class _Family:
    """Reads the composers of one family (``family.families``) of the global database
    ``db`` at ``path`` as linked sessions (``family.linked_family``): a composer that is
    not a JSON object is said (``_not_an_object``) and left out; ``seen``, those read."""

    def __init__(
        self,
        db: Database,
        path: Path,
        headers: dict[str, str],
        owners: dict[str, str | None],
        times: Times,
        user_dir: Path,
    ) -> None:
        self.db, self.path, self.headers, self.owners = db, path, headers, owners
        self.times, self.user_dir = times, user_dir
        self.seen: set[str] = set()

    def sessions(self, family: list[str], problems: list[Problem]) -> list[Session]:
        """The family read in one read transaction; one whose bubble rows take
        ``packing.PACK_FROM`` bytes or more keeps each member's messages packed in a
        temporary file once it is read (``packing``): one member's messages are held at a
        time, each parsed once."""
        members: list[tuple[str, dict[str, Any], Session | None]] = []
        with snapshot(self.db):
            pack = packs(self.db, family)
            kept = spill() if pack else None
            for cid in family:
                data = self.db.get("cursorDiskKV", f"composerData:{cid}")
                if not isinstance(data, dict):
                    _not_an_object(data, cid, self.path, problems, self.db)
                    continue
                self.seen.add(cid)
                folder = _workspace_folder(data) or self.headers.get(cid) or self.owners.get(cid)
                session = _composer_session(
                    data, cid, folder, self.db, self.path, self.times, self.user_dir
                )
                members.append((cid, data, packed(session, kept) if pack and session else session))
        return linked_family(members)


WORKSPACES_PART = "workspaces"  # the last part: the chats kept in workspace databases


def composer_parts(user_dir: Path) -> list[tuple[str, int]] | None:
    """A user folder cut into parts read in this order, as ``load_user_dir`` reads it:
    runs of the global database's composers of about ``PART_BYTES`` each, weighed by
    their message rows at the database's mean row size, a family (a composer and those it
    started: ``family.families``) never cut, its ids joined by ``FAMILY_JOIN``, families
    by commas; then ``WORKSPACES_PART``. Each with its estimated bytes. Keys only are
    read here, and the composers that name a parent or list children.
    None when the global database cannot be read: the folder is read whole, as before."""
    global_db = user_dir / GLOBAL
    keys: list[str] = []
    rows: dict[str, int] = {}
    parent_of: dict[str, str] = {}
    size = 0
    if global_db.is_file():
        try:
            with Database(global_db) as db:
                keys = db.keys("cursorDiskKV", "composerData:")
                rows = _bubble_rows(db)
                parent_of = parents(db)
            size = global_db.stat().st_size
        except (SourceError, OSError):
            return None
    cids = [key.removeprefix("composerData:") for key in keys]
    if any(FAMILY_JOIN in cid for cid in cids):
        return None  # an id a part cannot name
    mean = size / max(1, sum(rows.values()) + len(cids))
    weighed = (
        (FAMILY_JOIN.join(family), sum((rows.get(cid, 0) + 1) * mean for cid in family))
        for family in families(cids, parent_of)
    )
    parts = runs(weighed, PART_BYTES)
    if parts is None:
        return None  # an id a part cannot name
    try:
        workspaces = sum(db.stat().st_size for _, db in workspace_dbs(user_dir))
    except OSError:
        return None  # changing as it is read: read whole
    return [*parts, (WORKSPACES_PART, workspaces)]


def _bubble_rows(db: Database) -> dict[str, int]:
    """composer id -> how many ``bubbleId:<id>:<bubble>`` rows it has, counted by SQLite
    from the keys (a large database's million keys never come into Python)."""
    if "cursorDiskKV" not in db.tables:
        return {}
    head = len("bubbleId:") + 1
    sql = (
        f"SELECT substr(key, {head}, instr(substr(key, {head}), ':') - 1), count(*)"
        " FROM cursorDiskKV WHERE key >= 'bubbleId:' AND key < 'bubbleId;' GROUP BY 1"
    )
    return {cid: rows for cid, rows in db.query(sql) if isinstance(cid, str)}


def workspace_owners(user_dir: Path) -> dict[str, str | None]:
    """composer id -> the folder of the workspace that lists it (unreadable ones left out:
    the last part reports them)."""
    return _read_workspaces(user_dir, []).owner


def load_part(user_dir: Path, part: str, owners: dict[str, str | None]) -> LoadResult:
    """One part of ``composer_parts``: the sessions ``load_user_dir`` gives for those
    composers (``owners``: ``workspace_owners``); for the last part, the chats kept in the
    workspaces and what could not be read there. A workspace composer the global database
    holds is exported from there, as there."""
    sessions: list[Session] = []
    problems: list[Problem] = []
    global_db = user_dir / GLOBAL
    if part != WORKSPACES_PART:
        times = Times()  # of the global database's composers in this part
        try:
            with Database(global_db) as db:
                read = _Family(db, global_db, _composer_headers(db), owners, times, user_dir)
                for family in part.split(","):
                    sessions.extend(read.sessions(family.split(FAMILY_JOIN), problems))
        except SourceError as exc:
            problems.append(exc.problem(SOURCE))
        times.report(problems, global_db, SOURCE)
        return LoadResult(sessions, problems)
    found = _read_workspaces(user_dir, problems)
    seen: set[str] = set()
    if global_db.is_file() and any(composers for _f, _p, composers, _t in found.chats):
        try:
            with Database(global_db) as db:
                for _folder, _path, composers, _tabs in found.chats:
                    for data in composers:
                        cid = str(data.get("composerId"))
                        if isinstance(db.get("cursorDiskKV", f"composerData:{cid}"), dict):
                            seen.add(cid)  # exported from the global database
        except SourceError:
            pass  # reported by the parts that read it
    sessions.extend(_workspace_sessions(found, seen, problems, user_dir))
    return LoadResult(sessions, problems)


class _Workspaces:
    def __init__(self) -> None:
        self.owner: dict[str, str | None] = {}  # composer id -> workspace folder
        self.chats: list[tuple[str | None, Path, list[dict[str, Any]], list[dict[str, Any]]]] = []


def _read_workspaces(user_dir: Path, problems: list[Problem]) -> _Workspaces:
    """Which workspace each composer belongs to, and the chats stored in workspaces."""
    found = _Workspaces()
    for workspace, db_path in workspace_dbs(user_dir):
        said: list[Problem] = []  # a damaged workspace.json: said if the workspace has chats
        folder = folder_of_workspace(workspace, said, SOURCE)
        try:
            with Database(db_path) as db:
                composers = db.get("ItemTable", "composer.composerData")
                inline: list[dict[str, Any]] = []
                if isinstance(composers, dict):
                    for c in _list(composers.get("allComposers")):
                        if isinstance(c, dict) and isinstance(c.get("composerId"), str):
                            found.owner.setdefault(c["composerId"], folder)
                            if c.get("conversation"):
                                inline.append(c)
                    for cid in _list(composers.get("selectedComposerIds")):
                        if isinstance(cid, str):
                            found.owner.setdefault(cid, folder)
                for key, value in db.items("ItemTable", _PANE_PREFIX):
                    if key.endswith(".hidden") or not isinstance(value, dict):
                        continue
                    for view in value:
                        if view.startswith(_VIEW_PREFIX):
                            found.owner.setdefault(view.removeprefix(_VIEW_PREFIX), folder)
                panel = db.get("ItemTable", _CHAT_PANEL)
                held = panel.get("tabs") if isinstance(panel, dict) else None
                tabs = [t for t in _list(held) if isinstance(t, dict)]
                found.chats.append((folder, db_path, inline, tabs))
                if tabs or (isinstance(composers, dict) and composers.get("allComposers")):
                    problems.extend(said)
        except SourceError as exc:  # an error: the unit is read again next run
            problems.append(exc.problem(SOURCE))
    return found


def _not_an_object(data: Any, cid: str, path: Path, problems: list[Problem], db: Database) -> None:
    """A composer stored as JSON that is not an object (damaged, or a newer shape), or not
    as JSON at all (damaged, cut short, a number): reported. An empty value, JSON null or
    SQL NULL is nothing to say: a composer Cursor emptied (readers of Cursor's database
    pass over NULL composers as routine)."""
    if data is not None:
        why = f"composer {cid}: not a JSON object ({type(data).__name__}); skipped"
        problems.append(Problem(str(path), why, source=SOURCE))
        return
    sql = "SELECT value FROM cursorDiskKV WHERE key = ?"
    row = db.query(sql, (f"composerData:{cid}",)).fetchone()
    raw = row[0] if row else ""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if raw is None or isinstance(raw, str) and raw.strip() in ("", "null"):
        return
    what = (
        "a number, not JSON" if isinstance(raw, int | float) else "not JSON (damaged or cut short)"
    )
    why = f"composer {cid}: {what}; skipped"
    problems.append(Problem(str(path), why, source=SOURCE))


def header_folders(global_db: Path) -> list[str]:
    """The folders the global database's ``composer.composerHeaders`` name (their
    composers' workspaces), for Agent transcripts' folders. Raises SourceError."""
    with Database(global_db) as db:
        return list(_composer_headers(db).values())


def _composer_headers(db: Database) -> dict[str, str]:
    """composer id -> folder from the global ``composer.composerHeaders`` (written lazily)."""
    data = db.get("ItemTable", "composer.composerHeaders")
    entries = data.get("allComposers") if isinstance(data, dict) else data
    out = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("composerId"), str):
            folder = _workspace_folder(entry)
            if folder:
                out[entry["composerId"]] = folder
    return out


def _workspace_folder(data: dict[str, Any]) -> str | None:
    ident = data.get("workspaceIdentifier")
    uri = ident.get("uri") if isinstance(ident, dict) else None
    path = uri.get("fsPath") or uri.get("path") if isinstance(uri, dict) else None
    return path if isinstance(path, str) and path else None
