"""Storage shared by VS Code and its forks (Cursor, Trae): where the user data folder is,
``state.vscdb`` key/value databases, and ``workspace.json`` folder URIs (FORMATS.md §0.3).

Databases are opened read-only by ``_sqlite.Database`` (``mode=ro``, busy timeout, rows in
the write-ahead log seen). Values are read by key or by key prefix (a range on the key
index), never the whole table.
"""

from __future__ import annotations

import platform
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import unquote, urlparse

import orjson

from ..errors import Problem
from . import _sqlite
from ._sqlite import decode_json as decode
from ._sqlite import stamps as db_stamps  # noqa: F401 (the editors' adapters use it)
from ._values import json_kind
from .base import SourceContext, cannot_read, listed, read_regular

BUSY_TIMEOUT_MS = 3000  # read when a database is opened (tests shorten it)
# What moves a User folder (``user_dirs``): every source that reads one declares them.
VSCODE_VARIABLES = ("APPDATA", "VSCODE_APPDATA", "XDG_CONFIG_HOME", "VSCODE_PORTABLE")
# Under WSL the editors usually run on Windows while ccexport runs in Linux beside Claude
# Code: their data is in each Windows user's AppData, as WSL mounts the C: drive.
WSL_USERS = Path("/mnt/c/Users")
_NOT_PEOPLE = {"All Users", "Default", "Default User", "Public", "WDAGUtilityAccount"}


def user_dirs(ctx: SourceContext, products: list[str]) -> list[Path]:
    """Candidate ``User`` folders of the given products on Linux, macOS and Windows.

    Under ``--home`` every layout is tried (a backup may come from any system); on the real
    home also ``VSCODE_PORTABLE`` and ``VSCODE_APPDATA`` where they are set."""
    bases = [
        ctx.home / ".config",
        ctx.home / "Library" / "Application Support",
        ctx.home / "AppData" / "Roaming",
    ]
    if ctx.real_home:
        for var in ("APPDATA", "VSCODE_APPDATA", "XDG_CONFIG_HOME"):
            if ctx.env.get(var):
                bases.insert(0, Path(ctx.env[var]))
    if ctx.real_home and under_wsl():
        bases += _windows_app_data()
    dirs = [base / product / "User" for base in bases for product in products]
    if ctx.real_home and ctx.env.get("VSCODE_PORTABLE"):
        dirs.insert(0, Path(ctx.env["VSCODE_PORTABLE"]) / "user-data" / "User")
    return list(dict.fromkeys(dirs))


def under_wsl() -> bool:
    """Linux in the Windows Subsystem for Linux (its kernel says so; cron keeps no
    ``WSL_DISTRO_NAME``)."""
    return "microsoft" in platform.release().lower()


def _windows_app_data() -> list[Path]:
    """Each Windows user's ``AppData/Roaming`` under ``WSL_USERS`` (none if not mounted)."""
    try:
        names = [entry.name for entry in listed(WSL_USERS) if entry.is_dir()]
    except OSError:
        return []
    return [WSL_USERS / name / "AppData" / "Roaming" for name in names if name not in _NOT_PEOPLE]


def workspace_dbs(user_dir: Path) -> list[tuple[Path, Path]]:
    """(workspace folder, its ``state.vscdb``) for every workspace that has a database."""
    base = user_dir / "workspaceStorage"
    if not base.is_dir():
        return []
    found = []
    for entry in listed(base):
        db = Path(entry.path) / "state.vscdb"
        if entry.is_dir() and db.is_file():
            found.append((Path(entry.path), db))
    return found


class Database(_sqlite.Database):
    """One ``state.vscdb``, opened read-only; errors become SourceError naming the file."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, BUSY_TIMEOUT_MS)

    def get(self, table: str, key: str) -> Any:
        """The JSON value stored under ``key`` (None when absent or not JSON)."""
        if table not in self.tables:
            return None
        row = self.query(f"SELECT value FROM {table} WHERE key = ?", (key,)).fetchone()
        return decode(row[0]) if row else None

    def keys(self, table: str, prefix: str) -> list[str]:
        if table not in self.tables:
            return []
        sql = f"SELECT key FROM {table} WHERE key >= ? AND key < ? ORDER BY key"
        return [r[0] for r in self.query(sql, (prefix, prefix + "\uffff"))]

    def items(self, table: str, prefix: str) -> Iterator[tuple[str, Any]]:
        """Every (key, value) whose key starts with ``prefix``, read lazily."""
        if table not in self.tables:
            return
        sql = f"SELECT key, value FROM {table} WHERE key >= ? AND key < ? ORDER BY key"
        for key, value in self.query(sql, (prefix, prefix + "\uffff")):
            yield key, decode(value)


def folder_of_workspace(
    workspace_dir: Path, problems: list[Problem] | None = None, source: str = ""
) -> str | None:
    """The folder a workspace storage hash stands for, from its ``workspace.json``. One
    that is there but cannot be read is reported (its sessions' project is then unknown);
    none is usual (an empty window)."""
    path = workspace_dir / "workspace.json"
    try:
        data = orjson.loads(read_regular(path))
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as exc:
        why = cannot_read(exc) if isinstance(exc, OSError) else f"could not be read ({exc})"
        return _unknown_project(path, why, problems, source)
    if not isinstance(data, dict):
        return _unknown_project(path, f"is {json_kind(data)}, not an object", problems, source)
    uri = data.get("folder") or data.get("workspace")
    if isinstance(uri, str):
        return path_from_uri(uri)
    # (VS Code writes a folder's or a workspace file's URI; anything else is damage)
    why = "names no folder" if not uri else f"names its folder by {json_kind(uri)}, not text"
    return _unknown_project(path, why, problems, source)


def _unknown_project(path: Path, why: str, problems: list[Problem] | None, source: str) -> None:
    if problems is not None:
        why += "; the project of its sessions is unknown this run"
        problems.append(Problem(str(path), why, severity="warning", source=source))


def path_from_uri(uri: str) -> str:
    """``file:///c%3A/Users/me/p`` -> ``c:/Users/me/p``; remote URIs give their path; one
    that cannot be parsed (``http://[x``) is given as it is."""
    try:
        parsed = urlparse(uri)
    except ValueError:
        return uri
    path = unquote(parsed.path)
    if re.match(r"^/[A-Za-z]:", path):
        path = path[1:]
    return path or uri


def project_of_path(path: str | None) -> str | None:
    if not path:
        return None
    name = path.rstrip("/\\")
    windows = re.match(r"^[A-Za-z]:", name) or ("\\" in name and "/" not in name)
    base = (PureWindowsPath(name) if windows else PurePosixPath(name)).name
    return base.removesuffix(".code-workspace") or None
