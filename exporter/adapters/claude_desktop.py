"""Claude Code sessions the Claude Desktop app keeps (FORMATS.md §1.1).

- Code tab: its sessions are ordinary transcripts under ``~/.claude/projects``; the app keeps
  a sidecar per session, ``<D>/claude-code-sessions/**/local_*.json``, whose ``title`` (the
  title shown in the app, renamed or generated) names the transcript ``cliSessionId``. When
  several sidecars name one session, the newest file wins.
- Cowork (local agent mode) runs a Claude Code home of its own per task:
  ``<D>/local-agent-mode-sessions/<org>/<workspace>/local_<uuid>/.claude/projects/``, with
  the task's ``title`` and ``userSelectedFolders`` in ``local_<uuid>.json`` beside that
  folder. The project is the last folder of the first folder the person chose, else
  "cowork" (the transcripts' ``cwd`` is a path inside the app's sandbox).

``<D>`` is ``~/Library/Application Support/Claude`` (macOS), ``~/.config/Claude`` (Linux),
``%APPDATA%\\Claude`` (Windows; the Microsoft Store install keeps it under
``%LOCALAPPDATA%\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming``). Only the ``local_*``
names are read: a task's uploads, outputs and plugins are never listed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import orjson

from ..errors import Problem
from ._values import json_kind
from ._values import stripped_text as _text
from .base import SourceContext, cannot_read, index_unreadable, open_regular
from .claude_discovery import SOURCE

COWORK_PROJECT = "cowork"
_STORE_PACKAGE = ("Packages", "Claude_pzs8sxrjxfjjc", "LocalCache", "Roaming", "Claude")
_SIDECAR_MAX = 1 << 20  # a sidecar is a few hundred bytes; a larger file is not one
_SIDECAR_DEPTH = 4  # claude-code-sessions/<a>/<b>/local_*.json: how deep the nesting goes


@dataclass(frozen=True, slots=True)
class CoworkHome:
    """One Cowork task's Claude Code home: its ``projects`` folder and what its sidecar says."""

    projects: Path
    session_id: str | None  # the task's transcript (``cliSessionId``)
    title: str | None
    project: str
    # Why its sidecar, there, could not be read (then its sessions keep the last run's
    # title and project, and the warning names the sidecar).
    unread: Problem | None = None


def desktop_dirs(ctx: SourceContext) -> list[Path]:
    """Where the Claude Desktop app may keep its data, under the home (and, on the real
    home, where ``APPDATA``/``LOCALAPPDATA``/``XDG_CONFIG_HOME`` say)."""
    home = ctx.home
    dirs = [
        home / "Library" / "Application Support" / "Claude",
        home / ".config" / "Claude",
        home / "AppData" / "Roaming" / "Claude",
        home.joinpath("AppData", "Local", *_STORE_PACKAGE),
    ]
    if ctx.real_home:
        for var, tail in (("XDG_CONFIG_HOME", ("Claude",)), ("APPDATA", ("Claude",)),
                          ("LOCALAPPDATA", _STORE_PACKAGE)):  # fmt: skip
            if value := ctx.env.get(var):
                dirs.append(Path(value).expanduser().joinpath(*tail))
    return list(dict.fromkeys(dirs))


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as listing:
            return sorted(listing, key=lambda e: e.name)
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def sidecar_or_why(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """A sidecar's JSON object, or None and why it is none when it is there (missing: no
    why; too large: not a sidecar, no why either)."""
    try:
        with open_regular(path) as f:
            raw = f.read(_SIDECAR_MAX + 1)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, cannot_read(exc)
    if len(raw) > _SIDECAR_MAX:
        return None, None
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None, "is empty" if not raw.strip() else "is not valid JSON (damaged or cut short)"
    if not isinstance(obj, dict):
        return None, f"is {json_kind(obj)}, not a JSON object"
    return obj, None


def _folder_name(folder: str) -> str | None:
    windows = "\\" in folder and "/" not in folder or folder[1:3] in (":\\", ":/")
    name = (PureWindowsPath(folder) if windows else PurePosixPath(folder)).name
    return name or None


def cowork_homes(ctx: SourceContext) -> list[CoworkHome]:
    """Every Cowork task's Claude Code home, with its sidecar's facts."""
    homes = []
    for desktop in desktop_dirs(ctx):
        base = desktop / "local-agent-mode-sessions"
        for org in (e for e in _entries(base) if _is_dir(e)):
            for workspace in (e for e in _entries(Path(org.path)) if _is_dir(e)):
                for task in _entries(Path(workspace.path)):
                    if not task.name.startswith("local_") or not _is_dir(task):
                        continue
                    projects = Path(task.path) / ".claude" / "projects"
                    if not projects.is_dir():
                        continue
                    sidecar = Path(workspace.path) / f"{task.name}.json"
                    found, why = sidecar_or_why(sidecar)
                    meta = found or {}
                    why = why or _odd_fields(meta)
                    unread = (
                        index_unreadable(SOURCE, sidecar, why, "title and project") if why else None
                    )
                    folders = meta.get("userSelectedFolders")
                    first = folders[0] if isinstance(folders, list) and folders else None
                    project = (_folder_name(first) if isinstance(first, str) else None) or (
                        COWORK_PROJECT
                    )
                    session = _text(meta.get("cliSessionId"))
                    title = _text(meta.get("title"))
                    homes.append(CoworkHome(projects, session, title, project, unread))
    return homes


CODE_TAB_GIVES = "Code tab titles"


def code_tab_titles(ctx: SourceContext) -> tuple[dict[str, str], Problem | None]:
    """Session id -> the title the Desktop app's Code tab shows for it (newest sidecar);
    and, when sidecars are there but cannot be read (not JSON, not an object, a title or
    session id that is not text), one warning naming the first and how many there are.
    Which session such a sidecar titles is inside it: every session the Code tab gives
    no title then keeps the one of its last run (``claude_code._with_desktop_facts``)."""
    found: dict[str, tuple[int, str | None]] = {}
    damaged: list[tuple[Path, str]] = []
    for desktop in desktop_dirs(ctx):
        _sidecars(desktop / "claude-code-sessions", found, damaged, _SIDECAR_DEPTH)
    titles = {session: title for session, (_, title) in found.items() if title}
    if not damaged:
        return titles, None
    (first, why), more = damaged[0], len(damaged) - 1
    if more:
        why += f" (and {more} more of the Code tab's sidecars cannot be read)"
    return titles, index_unreadable(SOURCE, first, why, CODE_TAB_GIVES)


def _sidecars(
    folder: Path,
    found: dict[str, tuple[int, str | None]],
    damaged: list[tuple[Path, str]],
    depth: int,
) -> None:
    for entry in _entries(folder):
        if _is_dir(entry):
            if depth > 0:
                _sidecars(Path(entry.path), found, damaged, depth - 1)
        elif entry.name.startswith("local_") and entry.name.endswith(".json"):
            path = Path(entry.path)
            meta, why = sidecar_or_why(path)
            meta = meta or {}
            # (none, or blank: a sidecar the app wrote before it had a title or a session
            # to name is no damage, FORMATS.md §1.1; a value of another kind is)
            why = why or _not_text(meta, "cliSessionId") or _not_text(meta, "title")
            if why:
                damaged.append((path, why))
            session, title = _text(meta.get("cliSessionId")), _text(meta.get("title"))
            # A session's newest sidecar whose title cannot be read gives it none: it keeps
            # the title of its last run, not an older sidecar's.
            if session and (title or why):
                try:
                    mtime = entry.stat().st_mtime_ns
                except OSError:
                    continue
                if session not in found or mtime >= found[session][0]:
                    found[session] = (mtime, title)


def _odd_fields(meta: dict[str, Any]) -> str | None:
    """Why a Cowork task's sidecar is damaged though it is a JSON object: a session id or
    title that is not text, chosen folders that are no list or whose first (the project)
    is not text. None, none or an empty list is no damage: nothing is there to read."""
    folders = meta.get("userSelectedFolders")
    if folders is not None and not isinstance(folders, list):
        return f"its userSelectedFolders is {json_kind(folders)}, not a list"
    if folders and not isinstance(folders[0], str):
        return f"its first userSelectedFolders item is {json_kind(folders[0])}, not text"
    return _not_text(meta, "cliSessionId") or _not_text(meta, "title")


def _not_text(meta: dict[str, Any], key: str) -> str | None:
    """Why a sidecar's ``key`` is damaged: there, not null, and not text."""
    value = meta.get(key)
    if value is None or isinstance(value, str):
        return None
    return f"its {key} is {json_kind(value)}, not text"
