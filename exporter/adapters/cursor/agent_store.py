"""Where Cursor Agent transcripts and their metadata live under ``~/.cursor`` (FORMATS.md §3.7).

- ``projects/<slug>/agent-transcripts/<id>/<id>.jsonl`` (current), or flat ``<id>.jsonl`` /
  ``<id>.txt`` (older builds; the ``.jsonl`` wins when both exist); subagents in
  ``<id>/subagents/<child>.jsonl``. One conversation and its subagents are one unit.
- ``chats/<md5 of the cwd>/<id>/store.db`` (table ``meta``, key ``'0'``: hex-encoded JSON
  with ``name``, ``createdAt``, ``lastUsedModel``) and, in newer builds, ``meta.json`` beside
  it. Both belong to the conversation's unit. The ``blobs`` table (a protobuf graph holding
  the same conversation) is never read.
- ``ai-tracking/ai-code-tracking.db``, table ``conversation_summaries``: titles and models,
  read once per run at discovery (they become facts of the unit, so a new title re-exports).

The slug is the working folder with separators turned into ``-`` (lossy); the folder is
recovered exactly from the ``Workspace Path:`` of the first prompt's ``<user_info>``, or
from paths the tool calls name, or from the MD5 of the chat folder, or
from the one folder Cursor recorded opening in the same home whose slug it is (a
``workspaceStorage/*/workspace.json``, or the global database's composer headers), or by
an existence-checked walk (``decode_slug``).
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from itertools import product
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import orjson

from ...errors import Problem, SourceError
from .._jsonl import parse_timestamp
from .._sqlite import describe
from .._times import Times
from ..base import FileStamp, SessionRef, index_unreadable, listed, read_regular
from ..vscode import Database, db_stamps, folder_of_workspace
from .composer import GLOBAL, header_folders

SOURCE = "cursor"
STATE_DB_FACT = "state_db"  # a transcript's fact naming the database that may hold it too
TRANSCRIPTS = "agent-transcripts"
TRACKING_DB = Path("ai-tracking") / "ai-code-tracking.db"
MAX_BRUTE_DASHES = 16  # the MD5 search tries 2^n readings of a slug
WALK_BUDGET = 4000  # folders the existence-checked walk may look at
SUMMARIES_GIVE = "titles and models"  # what the summary table gives its conversations
WORKSPACE_FACT = "workspace"  # the folder Cursor recorded opening whose slug is the project's
WORKSPACES_GIVE = "working folders"  # what workspace.json and the composer headers give


@dataclass(frozen=True, slots=True)
class ChatMeta:
    """What ``store.db`` and ``meta.json`` say about a conversation."""

    title: str | None = None
    model: str | None = None
    created: datetime | None = None
    updated: datetime | None = None


@dataclass(frozen=True, slots=True)
class Workspaces:
    """The folders Cursor recorded opening (``recorded_folders``), and why a record of one
    could not be read (then a slug none of them matches may be that folder's)."""

    by_slug: dict[str, tuple[str, ...]]  # a folder's slug (``_normal``) -> the folders
    unread: Problem | None = None

    def folder_of(self, slug: str) -> str | None:
        """The one recorded folder whose slug is ``slug`` (none when two are: the slug is
        lossy, and which one it was is not known)."""
        found = self.by_slug.get(_normal(slug), ())
        return found[0] if len(found) == 1 else None


def recorded_folders(user_dirs: list[Path]) -> Workspaces:
    """The folders Cursor opened, as the ``user_dirs`` record them: every workspace's
    (``workspaceStorage/<hash>/workspace.json``, small files) and those the global
    database's composer headers name; read once per run, when a transcript's project folder
    is found. Exact evidence of an Agent transcript's working folder in a home copied from
    another machine. A multi-root workspace (a ``.code-workspace`` file) is no folder. A
    record that cannot be read keeps the last run's folders (``Workspaces.unread``)."""
    folders: list[str] = []
    unread: list[Problem] = []  # the first is said
    for user_dir in user_dirs:
        base = user_dir / "workspaceStorage"
        for entry in listed(base) if base.is_dir() else []:
            if not entry.is_dir():
                continue
            said: list[Problem] = []
            folder = folder_of_workspace(Path(entry.path), said, SOURCE)
            if folder:
                folders.append(folder)
            elif said:  # (its own words, without what it costs the IDE's chats)
                why = said[0].message.partition("; ")[0]
                unread.append(index_unreadable(SOURCE, Path(said[0].path), why, WORKSPACES_GIVE))
        global_db = user_dir / GLOBAL
        if global_db.is_file():
            try:
                folders += header_folders(global_db)
            except SourceError as exc:
                unread.append(index_unreadable(SOURCE, global_db, exc.message, WORKSPACES_GIVE))
            except sqlite3.Error as exc:
                unread.append(index_unreadable(SOURCE, global_db, describe(exc), WORKSPACES_GIVE))
    by_slug: dict[str, tuple[str, ...]] = {}
    for folder in dict.fromkeys(f.rstrip("/\\") or f for f in folders):
        if not folder.endswith(".code-workspace"):
            slug = _normal(folder)
            by_slug[slug] = (*by_slug.get(slug, ()), folder)
    return Workspaces(by_slug, unread[0] if unread else None)


def discover_transcripts(
    root: Path, extra: tuple[str, ...], workspaces: Callable[[], Workspaces]
) -> Iterator[SessionRef]:
    """Every conversation under ``root/projects`` (stat calls only, plus the summary table
    and, when there is a project folder, the ``workspaces``' records).

    ``extra`` facts are added to every unit (the Cursor databases to check for copies); a
    project folder whose slug is that of one folder Cursor recorded opening gives its
    units that folder (``workspace=``)."""
    projects = root / "projects"
    if not projects.is_dir():
        return
    chats = _chat_folders(root)
    titles, unread = read_summaries(root / TRACKING_DB)
    for project in listed(projects):
        folder = Path(project.path) / TRANSCRIPTS
        if project.is_dir() and folder.is_dir():
            mains, dirs = _conversations(folder)
            recorded = workspaces()
            # (else the reading of the slug whose MD5 names the chats/ folder of one of its
            # conversations: one conversation's store proves the folder of its siblings)
            stored = {chats[cid].parent.name for cid in mains if cid in chats}
            opened = recorded.folder_of(project.name) or folder_from_hashes(project.name, stored)
            facts = (*extra, f"{WORKSPACE_FACT}={opened}") if opened else extra
            # A record that could not be read may be this folder's: the last run's kept.
            why = unread or (None if opened else recorded.unread)
            yield from _folder_refs(mains, dirs, chats, titles, facts, why)


def _conversations(folder: Path) -> tuple[dict[str, Path], dict[str, Path]]:
    """A transcripts folder's conversations (id -> its transcript) and their folders (id ->
    the folder, which holds its subagents)."""
    files: dict[str, Path] = {}
    dirs: dict[str, Path] = {}
    for entry in listed(folder):
        if entry.is_dir():
            dirs[entry.name] = Path(entry.path)
        elif entry.is_file() and entry.name.endswith((".jsonl", ".txt")):
            files[entry.name] = Path(entry.path)
    mains: dict[str, Path] = {}
    for cid in sorted(set(dirs) | {Path(n).stem for n in files}):
        # nested before flat, and .jsonl before .txt
        nested = dirs.get(cid)
        choices = (
            [p for p in (nested / f"{cid}.jsonl", nested / f"{cid}.txt") if p.is_file()]
            if nested
            else []
        )
        choices += [folder / n for n in (f"{cid}.jsonl", f"{cid}.txt") if n in files]
        if choices:
            mains[cid] = choices[0]
    return mains, dirs


def _folder_refs(
    mains: dict[str, Path],
    dirs: dict[str, Path],
    chats: dict[str, Path],
    titles: dict[str, tuple[str, ...]],
    extra: tuple[str, ...],
    unread: Problem | None,
) -> Iterator[SessionRef]:
    """A transcripts folder's units; ``extra`` facts and ``unread`` given to each."""
    for cid, main in mains.items():
        related = _subagent_stamps(dirs.get(cid)) + _meta_stamps(chats.get(cid))
        facts = (*extra, *titles.get(cid, ()))
        yield SessionRef(SOURCE, cid, FileStamp.of(main), related, facts, unread)
    for cid in sorted(set(dirs) - set(mains)):  # the conversation file is gone; agents remain
        for stamp in _subagent_stamps(dirs[cid]):
            yield SessionRef(SOURCE, stamp.path.stem, stamp, (), (*extra, f"parent={cid}"), unread)


def _subagent_stamps(session_dir: Path | None) -> tuple[FileStamp, ...]:
    base = session_dir / "subagents" if session_dir else None
    if base is None or not base.is_dir():
        return ()
    names = sorted(e.name for e in os.scandir(base) if e.name.endswith((".jsonl", ".txt")))
    stems = {n.rsplit(".", 1)[0] for n in names if n.endswith(".jsonl")}
    keep = [n for n in names if n.endswith(".jsonl") or n.rsplit(".", 1)[0] not in stems]
    return tuple(FileStamp.of(base / n) for n in keep)


def _meta_stamps(chat: Path | None) -> tuple[FileStamp, ...]:
    if chat is None:
        return ()
    stamps: list[FileStamp] = []
    if (chat / "store.db").is_file():
        stamps += db_stamps(chat / "store.db")
    if (chat / "meta.json").is_file():
        stamps.append(FileStamp.of(chat / "meta.json"))
    return tuple(stamps)


def _chat_folders(root: Path) -> dict[str, Path]:
    """conversation id -> ``chats/<md5>/<id>`` folder (also the ``~/.config/cursor`` place
    one catalog reports)."""
    found: dict[str, Path] = {}
    bases = [root / "chats", root.parent / ".config" / "cursor" / "chats"]
    for base in bases:
        if not base.is_dir():
            continue
        for hashed in listed(base):
            if not hashed.is_dir():
                continue
            for chat in listed(hashed.path):
                if chat.is_dir():
                    found.setdefault(chat.name, Path(chat.path))
    return found


def read_summaries(path: Path) -> tuple[dict[str, tuple[str, ...]], Problem | None]:
    """conversation id -> facts (``title=…``, ``model=…``, ``updated=<epoch ms>``) from
    ``conversation_summaries``; and why the database could not be read, if it is there.

    A different database gives nothing: titles fall back to the chat's own."""
    if not path.is_file():
        return {}, None
    try:
        with Database(path) as db:
            if "conversation_summaries" not in db.tables:
                return {}, None
            columns = {r[1] for r in db.conn.execute("PRAGMA table_info(conversation_summaries)")}
            wanted = [c for c in ("title", "model", "updatedAt") if c in columns]
            if "conversationId" not in columns or not wanted:
                return {}, None
            rows = db.conn.execute(
                f"SELECT conversationId, {', '.join(wanted)} FROM conversation_summaries"
            )
            found = {
                cid: facts
                for cid, *values in rows
                if isinstance(cid, str) and (facts := _summary_facts(wanted, values))
            }
    except SourceError as exc:
        return {}, index_unreadable(SOURCE, path, exc.message, SUMMARIES_GIVE)
    except sqlite3.Error as exc:
        return {}, index_unreadable(SOURCE, path, describe(exc), SUMMARIES_GIVE)
    return found, None


def _summary_facts(columns: list[str], values: list[Any]) -> tuple[str, ...]:
    facts = []
    for column, value in zip(columns, values, strict=True):
        if column == "updatedAt" and isinstance(value, int | float) and not isinstance(value, bool):
            facts.append(f"updated={int(value)}")
        elif isinstance(value, str) and value.strip() and value != "default":
            facts.append(f"{column}={' '.join(value.split())}")
    return tuple(facts)


def read_chat_meta(related: tuple[FileStamp, ...], problems: list[Problem]) -> ChatMeta:
    """The metadata of a conversation from its ``store.db`` and ``meta.json``, if any."""
    data: dict[str, Any] = {}
    came_from: dict[str, Path] = {}  # the file each value was read from, for a warning
    for stamp in related:
        if stamp.path.name == "store.db":
            data.update(found := _store_meta(stamp.path, problems))
            came_from.update(dict.fromkeys(found, stamp.path))
        elif stamp.path.name == "meta.json":
            try:
                loaded = orjson.loads(read_regular(stamp.path))
            except (OSError, orjson.JSONDecodeError) as exc:
                # Rewritten whole by Cursor: a half-written file is read again next run.
                problems.append(Problem(str(stamp.path), f"not readable JSON ({exc}); skipped",
                                        source=SOURCE))  # fmt: skip
                continue
            if isinstance(loaded, dict):
                data.update(found := {k: v for k, v in loaded.items() if v is not None})
                came_from.update(dict.fromkeys(found, stamp.path))
    title = data.get("name") or data.get("title")
    model = data.get("lastUsedModel") or data.get("model")
    times: dict[str, datetime | None] = {}
    unread = Times()
    for name in ("createdAt", "updatedAt"):
        key = name + "Ms" if data.get(name + "Ms") else name
        times[name] = parse_timestamp(data.get(key)) or unread.unread(data.get(key), key)
    if unread.count:  # (in the file the first was read from)
        unread.report(problems, came_from[str(unread.where)], SOURCE)
    return ChatMeta(
        title=title.strip() if isinstance(title, str) and title.strip() else None,
        model=model if isinstance(model, str) and model and model != "default" else None,
        created=times["createdAt"],
        updated=times["updatedAt"],
    )


def _store_meta(path: Path, problems: list[Problem]) -> dict[str, Any]:
    """``meta['0']``: hex-encoded UTF-8 JSON (plain JSON is accepted too)."""
    try:
        with Database(path) as db:
            if "meta" not in db.tables:
                return {}
            row = db.conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()
    except SourceError as exc:
        problems.append(exc.problem(SOURCE))
        return {}
    except sqlite3.Error as exc:
        problems.append(Problem(str(path), f"could not be read ({exc})", source=SOURCE))
        return {}
    value = row[0] if row else None
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if not isinstance(value, str):
        return {}
    try:
        text = bytes.fromhex(value).decode("utf-8", errors="replace")
    except ValueError:
        text = value
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        problems.append(Problem(str(path), "meta row '0' is not JSON; skipped", source=SOURCE))
        return {}
    return data if isinstance(data, dict) else {}


def slug_of(transcript: Path) -> str | None:
    """The ``projects/<slug>`` folder name a transcript lies under."""
    parts = transcript.parts
    if TRANSCRIPTS not in parts:
        return None
    index = len(parts) - 1 - parts[::-1].index(TRANSCRIPTS)
    return parts[index - 1] if index > 0 else None


def _normal(slug: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "-", slug).strip("-").lower()


def _absolute(raw: str) -> PurePosixPath | PureWindowsPath | None:
    """An absolute path as written, a Windows one (``C:\\…``, ``c:/…``, ``\\\\server\\…``)
    recognised by its form on any system; none for a relative one."""
    windows = bool(re.match(r"^[A-Za-z]:[\\/]", raw)) or raw.startswith("\\\\")
    if not windows and not raw.startswith("/"):
        return None
    return PureWindowsPath(raw) if windows else PurePosixPath(raw)


def folder_from_paths(slug: str, paths: list[str]) -> str | None:
    """The folder whose slug is ``slug`` among the ancestors of paths the tools named."""
    target = _normal(slug)
    for raw in paths:
        path = _absolute(raw)
        for candidate in (path, *path.parents) if path else ():
            if _normal(str(candidate)) == target:
                return str(candidate)
    return None


def folder_from_workspace(slug: str, workspace: str | None) -> str | None:
    """The ``Workspace Path:`` the transcript's ``<user_info>`` names, when its slug is
    ``slug`` (the folder the conversation lies under; another is not trusted)."""
    path = _absolute(workspace) if workspace else None
    return str(path) if path and _normal(str(path)) == _normal(slug) else None


def folder_from_hash(slug: str, md5: str | None) -> str | None:
    """The reading of ``slug`` whose MD5 is the chat folder's name (POSIX paths only)."""
    if not md5 or not re.fullmatch(r"[0-9a-f]{32}", md5):
        return None
    return folder_from_hashes(slug, {md5})


def folder_from_hashes(slug: str, md5s: set[str]) -> str | None:
    """The one reading of ``slug`` whose MD5 names one of the chat folders ``md5s``."""
    tokens = slug.split("-")
    if not md5s or len(tokens) - 1 > MAX_BRUTE_DASHES:
        return None
    found = set()
    for joins in product(("/", "-"), repeat=len(tokens) - 1):
        candidate = "/" + tokens[0] + "".join(j + t for j, t in zip(joins, tokens[1:], strict=True))
        if hashlib.md5(candidate.encode()).hexdigest() in md5s:
            found.add(candidate)
    return found.pop() if len(found) == 1 else None


def decode_slug(slug: str) -> str | None:
    """An existing folder on this machine whose slug is ``slug`` (a walk that tries a new
    folder, then ``-`` and ``.`` inside the name, at each dash)."""
    tokens = slug.split("-")
    if not all(tokens):
        return None  # a doubled dash (a hidden folder, a space): no safe reading
    budget = [WALK_BUDGET]
    if os.name == "nt" and len(tokens[0]) == 1 and tokens[0].isalpha():
        root, tokens = Path(tokens[0].upper() + ":\\"), tokens[1:]
    else:
        root = Path("/")

    def walk(base: Path, name: str, rest: list[str]) -> Path | None:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if not rest:
            return base / name if (base / name).is_dir() else None
        if (base / name).is_dir():
            found = walk(base / name, rest[0], rest[1:])
            if found:
                return found
        for joiner in ("-", "."):
            found = walk(base, name + joiner + rest[0], rest[1:])
            if found:
                return found
        return None

    if not tokens:
        return None
    try:
        found = walk(root, tokens[0], tokens[1:])
    except OSError:
        return None
    return str(found) if found else None


def chat_hash(related: tuple[FileStamp, ...]) -> str | None:
    """The ``chats/<md5>`` folder name of a conversation's metadata, if it has any."""
    for stamp in related:
        if stamp.path.name in ("store.db", "meta.json"):
            return stamp.path.parent.parent.name
    return None
