"""What each adapter finds on this machine, without parsing it: the units an export reads
(``discover``), and the table ``ccexport sources`` prints."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .adapters import Adapter, SessionRef, SourceContext, select_adapters
from .adapters.base import unreachable
from .errors import Problem

if TYPE_CHECKING:
    from .options import ExportOptions

WALK_DEPTH = 6  # how deep below a source's folder unreadable folders are looked for
_NOT_SOURCES = {"node_modules", ".git", ".venv", "venv", "__pycache__"}


def discover(
    options: ExportOptions, problems: list[Problem] | None = None
) -> list[tuple[Adapter, SessionRef]]:
    """Every session unit found for the chosen sources (cheap: no parsing). A source whose
    folders cannot be gone through to the end keeps what was found before, and the other
    sources go on: the path is added to ``problems`` (a folder this user cannot list is
    reported by ``unreadable_in_sources``). So is, once, an index of titles or folders that
    could not be read (a warning: its units keep the facts of the last run), and each
    folder named in ``[paths]`` or by a variable that is not there (``wrong_named_folders``:
    a warning, as the usual places, when missing, are not)."""
    ctx = SourceContext.for_home(options.home, options.paths, options.since, options.local_zone)
    rules = options.redactor()  # an index's titles are recorded in the state: redacted first
    found: list[tuple[Adapter, SessionRef]] = []
    origin: dict[str, str] | None = None  # where [paths] is set: read only when needed
    for adapter in select_adapters(options.sources):
        if problems is not None:  # a folder the person named that is not one: said, once
            named = wrong_named_folders(ctx, adapter)
            if named and origin is None:
                origin = _paths_origin(options)
            problems += [folder.problem(origin) for folder in named]
        try:
            for ref in adapter.discover(ctx):
                if options.since and ref.mtime_ns < options.since.timestamp() * 1e9:
                    continue  # not touched since: cannot hold anything newer
                unnamed = _undecodable_name(ref)
                if unnamed is not None:
                    if problems is not None:
                        problems.append(Problem(unnamed, UNDECODABLE, severity="error",
                                                source=adapter.name))  # fmt: skip
                    continue
                found.append((adapter, rules.facts(ref) if rules else ref))
                unread = ref.unread_index
                if unread and problems is not None and unread not in problems:
                    problems.append(unread)
        except PermissionError:
            continue  # the folder is reported by unreadable_in_sources; the rest goes on
        except OSError as exc:
            if problems is not None:
                where = str(exc.filename or adapter.label)
                why = f"cannot be read ({exc.strerror or exc}); the sessions after it are missed"
                problems.append(Problem(where, why, severity="error", source=adapter.name))
    return found


# The variables that name a source's own folder (read on the real home, where ``[paths]``
# does not name the source's folders): one naming no folder is said, as a ``[paths]`` folder
# that is not there is. Those many programs share (``XDG_*``, ``APPDATA``, ``VSCODE_*``)
# name places that may well lack a source; ``OPENCODE_DB``, ``KILO_DB`` and
# ``AIDER_CHAT_HISTORY_FILE`` name files.
FOLDER_VARIABLES: dict[str, tuple[str, ...]] = {
    "claude-code": ("CLAUDE_CONFIG_DIR",),
    "codex": ("CODEX_HOME",),
    "cursor": ("CURSOR_CONFIG_DIR",),
    "gemini": ("GEMINI_CLI_HOME",),
    "copilot-cli": ("COPILOT_HOME",),
    "cline": ("CLINE_DATA_DIR", "CLINE_DIR", "CLINE_SESSION_DATA_DIR", "CLINE_DB_DATA_DIR"),
}


@dataclass(frozen=True, slots=True)
class NamedFolder:
    """A folder the person named for a source (in ``[paths]``, or by one of its
    ``FOLDER_VARIABLES``) that does not exist or is a file: nothing is read there. The usual
    places (``~/.claude`` …) may be missing without a word; a named one is a typo, a disk
    not mounted, a backup moved, and the export would leave the source out every night."""

    source: str
    label: str
    setting: str  # "[paths] claude-code", "CLAUDE_CONFIG_DIR"
    path: Path
    why: str  # "does not exist", "is a file, not a folder"

    def message(self, origin: Mapping[str, str] | None = None) -> str:
        """``does not exist, but [paths] codex in the user config (…) names it: …``."""
        where = (origin or {}).get(f"paths.{self.source}") if self.setting.startswith("[") else None
        setting = f"{self.setting} in the {where}" if where else self.setting
        return f"{self.why}, but {setting} names it: no {self.label} session is read there"

    def problem(self, origin: Mapping[str, str] | None = None) -> Problem:
        return Problem(str(self.path), self.message(origin), severity="warning", source=self.source)


def wrong_named_folders(ctx: SourceContext, adapter: Adapter) -> list[NamedFolder]:
    """The folders named for ``adapter`` (``[paths]``, else on the real home its
    ``FOLDER_VARIABLES``) that do not exist or are files (a database file a configured
    path may name is one)."""
    named = [(f"[paths] {adapter.name}", path) for path in ctx.paths.get(adapter.name, ())]
    if not named and ctx.real_home:
        for variable in FOLDER_VARIABLES.get(adapter.name, ()):
            if ctx.env.get(variable):
                named.append((variable, Path(ctx.env[variable]).expanduser()))
    wrong = []
    for setting, path in named:
        why = _not_a_folder(path)
        if why is not None:
            wrong.append(NamedFolder(adapter.name, adapter.label, setting, path, why))
    return list(dict.fromkeys(wrong))


def _not_a_folder(path: Path) -> str | None:
    """Why nothing is read at ``path`` (it does not exist, it is a file), or None: a
    folder, a database, or a place that cannot be looked at (a folder above it this user
    cannot search: reported as unreadable)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "does not exist"  # (also a link to a disk not mounted)
    except OSError:
        return None
    if not stat.S_ISDIR(mode) and file_in_place_of_folder(path):
        return "is a file, not a folder"
    return None


def _paths_origin(options: ExportOptions) -> dict[str, str]:
    """Which config file sets each source's ``[paths]`` (``paths.<source>`` -> "user config
    (…)"), when the run's ``[paths]`` are those files' (a library caller may give others)."""
    from .config import resolve
    from .errors import ExporterError

    try:
        settings = resolve({"vault": options.vault})
    except (ExporterError, OSError):
        return {}
    return {
        key: where
        for key, where in settings.origin.items()
        if key.startswith("paths.")
        and settings.paths.get(key[len("paths.") :]) == options.paths.get(key[len("paths.") :])
    }


UNDECODABLE = (
    "the name is not valid UTF-8, so its sessions cannot be recorded or linked; skipped. "
    "Rename it to UTF-8 (for example with convmv) to export them"
)


def _undecodable_name(ref: SessionRef) -> str | None:
    """The first of a unit's files whose name holds bytes that are not UTF-8 (Python keeps
    them as surrogates, which neither the state, a note nor the report can hold), or None."""
    for stamp in (ref.main, *ref.related):
        text = str(stamp.path)
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return text
    if not ref.session_id.isascii():
        try:
            ref.session_id.encode("utf-8")
        except UnicodeEncodeError:
            return str(ref.main.path)
    return None


@dataclass(frozen=True, slots=True)
class SourceRow:
    source: str
    label: str
    path: Path | None  # None: the source has no folder to look in (Aider without [paths])
    exists: bool
    sessions: int
    size: int
    note: str = ""  # what to do when the source needs setting up (e.g. folders to scan)
    searched: bool = False  # the folder is searched for sessions (the user's code), not owned
    # Listed: False for a folder where the source found nothing while another of its
    # folders holds sessions (an editor's User folder kept for other extensions): not shown,
    # but still walked for folders that cannot be listed.
    listed: bool = True
    named: NamedFolder | None = None  # a folder the person named that is not one: a typo

    def as_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "label": self.label,
            "path": str(self.path) if self.path is not None else None,
            "exists": self.exists,
            "sessions": self.sessions,
            "size": self.size,
            "note": self.note,
        }


def list_sources(
    home: Path | None,
    names: list[str] | None = None,
    paths: dict[str, list[Path]] | None = None,
) -> list[SourceRow]:
    """One row per folder where an adapter found something (or, if it found nothing, one
    row per folder of it that is there, else one naming where it looked first): sessions
    and bytes there. Rows of folders where nothing was found beside one where something was
    are not ``listed``; a folder named in ``[paths]`` or by a variable that is not there is,
    always (``wrong_named_folders``). ``paths``: the configured ``[paths]`` folders."""
    ctx = SourceContext.for_home(home, paths)
    rows = []
    for adapter in select_adapters(names):
        refs = list(adapter.discover(ctx))
        count = getattr(adapter, "count_sessions", None)
        roots = [r for r in adapter.roots(ctx) if r.exists()] or adapter.roots(ctx)[:1]
        setup_note = getattr(adapter, "setup_note", None)
        note = (setup_note(ctx) or "") if setup_note else ""
        if not roots:
            rows.append(SourceRow(adapter.name, adapter.label, None, False, 0, 0, note))
        mine = []
        searched = getattr(adapter, "searched_roots", False)
        for root in roots:
            under = [r for r in refs if _under(r.main.path, root)]
            sessions = sum(count(r) for r in under) if count else len(under)
            mine.append(SourceRow(adapter.name, adapter.label, root, root.exists(), sessions,
                                  sum(r.size for r in under), note, searched))  # fmt: skip
        if any(row.sessions for row in mine):
            mine = [replace(row, listed=False) if not row.sessions else row for row in mine]
        # A folder named in [paths] or by a variable that is not there is shown, also
        # beside one holding sessions: a typo in one of two folders showed nowhere.
        for folder in wrong_named_folders(ctx, adapter):
            mine = [row for row in mine if row.path is None or not _under(row.path, folder.path)]
            mine.append(SourceRow(adapter.name, adapter.label, folder.path, folder.path.exists(),
                                  0, 0, f"{folder.setting} names it", searched,
                                  named=folder))  # fmt: skip
        rows += mine
    return rows


def unreadable_folders(rows: list[SourceRow]) -> list[Problem]:
    """Folders inside a source that this user cannot list: their sessions would be missed
    silently, so each is reported (as an error of its source)."""
    problems: list[Problem] = []
    for row in rows:
        if row.exists and row.path is not None and row.path.is_dir() and not row.searched:
            problems += unreadable_below(row.path, row.source)
    return problems


def unreadable_below(root: Path, source: str) -> list[Problem]:
    """Folders down to ``WALK_DEPTH`` below ``root`` that cannot be listed. Every export
    runs this, and a Claude Code home has a folder per session (its subagents inside): the
    walk opens each folder once and learns which entries are folders from the listing
    itself, where ``os.walk`` also ``lstat``-ed every one (40,000 folders: 1.2 -> 0.6 s)."""
    problems: list[Problem] = []
    stack = [(os.fspath(root), 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing) if depth < WALK_DEPTH else []
            stack.extend(
                (entry.path, depth + 1)
                for entry in entries
                if entry.name not in _NOT_SOURCES and entry.is_dir(follow_symlinks=False)
            )
            for entry in entries:
                failed = unreachable(entry)
                if failed is not None:
                    why = _link_problem(failed)
                    problems.append(Problem(entry.path, why, severity="warning", source=source))
        except OSError as exc:
            problems.append(
                Problem(
                    str(exc.filename or folder),
                    f"cannot be read ({exc.strerror or exc}); its sessions are not exported",
                    severity="error",
                    source=source,
                )
            )
    return sorted(problems, key=lambda problem: problem.path)


def _link_problem(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a link that leads back to itself (a loop): skipped"
    return f"a link that cannot be followed ({exc.strerror or exc}): skipped"


def holding(roots: list[Path], refs: list[SessionRef]) -> list[Path]:
    """The folders among ``roots`` where sessions were found, or all of them if none: an
    editor's folder kept for other extensions is no place to name beside one that holds
    the source's sessions."""
    found = [root for root in roots if any(_under(ref.main.path, root) for ref in refs)]
    return found or roots


def _under(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def unreadable_in_sources(options: ExportOptions) -> list[Problem]:
    """Folders inside the chosen sources that cannot be listed (their sessions are missed)."""
    ctx = SourceContext.for_home(options.home, options.paths)
    problems: list[Problem] = []
    for adapter in select_adapters(options.sources):
        if getattr(adapter, "searched_roots", False):
            continue  # the user's code folders, searched for logs: not the source's own
        for root in adapter.roots(ctx):
            try:
                listable = root.is_dir()
            except OSError:  # a folder above it cannot be searched: reported below
                listable = True
            if listable:
                problems += unreadable_below(root, adapter.name)
    return problems


def file_in_place_of_folder(root: Path) -> bool:
    """Is ``root``, where a source's folder belongs, a file instead (nothing is read
    there)? A database a variable names (``OPENCODE_DB``) is a file by right: one named
    as a database, or starting as SQLite's do, is not such a file."""
    if not root.is_file():
        return False
    if root.suffix.lower() in (".db", ".sqlite", ".sqlite3", ".vscdb"):
        return False
    from .adapters._sqlite import MAGIC

    try:
        with open(root, "rb") as f:
            return f.read(len(MAGIC)) != MAGIC
    except OSError:
        return False
