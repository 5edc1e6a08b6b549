"""OpenCode and Kilo: sessions in an SQLite database plus the legacy JSON tree (FORMATS.md §6.3).

Where: ``$XDG_DATA_HOME/opencode``, else ``~/.local/share/opencode`` — on macOS and Windows
too (OpenCode resolves its data folder through ``xdg-basedir``); ``~/AppData/Local/opencode``
is probed as well, since one third-party guide names it. In that folder:

- ``opencode.db`` (release channels) and ``opencode-<channel>.db`` (other builds);
  ``OPENCODE_DB`` names another file (absolute, or relative to the data folder);
- ``storage/``, the JSON tree OpenCode wrote before version 1.2. Its migration copies the
  tree into the database without deleting it, so a session found in both is exported once,
  from the database.

Kilo is an OpenCode fork with the same schema under the app name ``kilo`` (``kilo.db``,
``KILO_DB``); it is its own source, ``kilo``.

Units of change: each database file with its ``-wal`` (read one session family at a time:
a top-level session and its subagents, the child sessions whose ``parent_id`` names it);
each legacy session file with its message and part files while no database exists; once
one does, the whole (no longer written) tree, whose sessions the database lacks are
exported. Databases are opened read-only (``_sqlite.Database``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ...errors import Problem, SourceError
from .. import _sqlite
from .._parts import PART_BYTES, held_size, part_refs
from .._times import Times
from ..base import FileStamp, LoadResult, SessionRef, SourceContext
from .store import OpenCodeDatabase, session_ids, tree_families, tree_files, tree_session

if TYPE_CHECKING:
    from .convert import StoredSession


class OpenCodeAdapter:
    name: ClassVar[str] = "opencode"
    label: ClassVar[str] = "OpenCode"
    app: ClassVar[str] = "opencode"  # the data folder's name and the database's stem
    db_variable: ClassVar[str] = "OPENCODE_DB"
    env_vars: ClassVar[tuple[str, ...]] = ("XDG_DATA_HOME", "OPENCODE_DB")
    # A unit's sessions depend on its files alone (a session's tree, or a database): a
    # worker reads a unit ahead as the main process would (``readahead``). A database of
    # 8 MB or more is read here, a family at a time.
    reads_alone: ClassVar[bool] = True

    def roots(self, ctx: SourceContext) -> list[Path]:
        """The data folders, then the file ``$OPENCODE_DB`` (``$KILO_DB``) names when it is
        outside them: discovery reads it, so ``sources`` and ``doctor`` list it there (they
        said "not found" and "nothing found" for a database the export read)."""
        folders = self._data_dirs(ctx)
        named = [db for d in folders if (db := self._named_database(ctx, d)) is not None]
        outside = [db for db in named if not any(db.is_relative_to(d) for d in folders)]
        return list(dict.fromkeys([*folders, *outside]))

    def _data_dirs(self, ctx: SourceContext) -> list[Path]:
        configured = ctx.configured(self.name)
        if configured:
            return configured
        share, local = ctx.home / ".local" / "share", ctx.home / "AppData" / "Local"
        folders = [share / self.app, local / self.app]
        if ctx.real_home and ctx.env.get("XDG_DATA_HOME"):
            folders.insert(0, Path(ctx.env["XDG_DATA_HOME"]) / self.app)
        return list(dict.fromkeys(folders))

    def _named_database(self, ctx: SourceContext, data_dir: Path) -> Path | None:
        """The file ``$OPENCODE_DB`` (``$KILO_DB``) names on the real home (absolute, or
        relative to ``data_dir``), when it is one."""
        override = ctx.env.get(self.db_variable) if ctx.real_home else None
        if not override or override == ":memory:":
            return None
        path = Path(override).expanduser()
        path = path if path.is_absolute() else data_dir / path
        return path if path.is_file() else None

    def databases(self, ctx: SourceContext, data_dir: Path) -> list[Path]:
        """``<app>.db`` and channel databases in ``data_dir``, plus the override's file (a
        configured path, or the override's file among the roots, is a database itself)."""
        if data_dir.is_file():
            return [data_dir]
        found = sorted(data_dir.glob(f"{self.app}*.db")) if data_dir.is_dir() else []
        named = self._named_database(ctx, data_dir)
        if named is not None and named not in found:
            found.append(named)
        return [p for p in found if p.is_file()]

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        seen: set[Path] = set()
        folders = {d.resolve(): d for d in self.roots(ctx)}  # XDG_DATA_HOME may be ~/.local/share
        for data_dir in folders.values():
            dbs = [db for db in self.databases(ctx, data_dir) if db not in seen]
            seen.update(dbs)
            for db in dbs:
                stamps = _sqlite.stamps(db)
                yield SessionRef(self.name, str(db), stamps[0], tuple(stamps[1:]), ("kind=db",))
            # a configured folder may be the tree itself (a backup of ``storage/``)
            tree = data_dir / "storage" if (data_dir / "storage").is_dir() else data_dir
            if (tree / "session").is_dir():
                yield from self._tree_refs(tree, dbs)

    def _tree_refs(self, tree: Path, dbs: list[Path]) -> Iterator[SessionRef]:
        """A tree OpenCode still writes: one unit per session. A tree beside a database
        (migrated, no longer written): one unit, so sessions the database holds are not
        each read and reported empty."""
        files = sorted((tree / "session").glob("*/*.json"))
        if not dbs:
            for file in files:
                if (stamp := FileStamp.listed(file)) is not None:
                    yield SessionRef(self.name, file.stem, stamp, tuple(tree_files(file)),
                                     ("kind=json",))  # fmt: skip
            return
        stamps = {s.path: s for file in files for s in (FileStamp.listed(file), *tree_files(file))
                  if s is not None}  # fmt: skip
        facts = ("kind=tree", *(f"db={db}" for db in dbs))
        main = FileStamp.of(tree / "session")
        yield SessionRef(self.name, str(tree), main, tuple(stamps.values()), facts)

    def count_sessions(self, ref: SessionRef) -> int:
        """Sessions a unit holds (for ``ccexport sources``); a migrated legacy session is
        counted with its database."""
        kind = ref.fact("kind")
        if kind == "json":
            return 1
        try:
            if kind == "db":
                with _sqlite.Database(ref.main.path) as db:
                    return len(OpenCodeDatabase(db, self.name).rows)
            migrated = self._migrated(ref, []) or frozenset()
            return sum(1 for f in ref.related if _is_session_file(f.path, ref) and
                       f.path.stem not in migrated)  # fmt: skip
        except (SourceError, ValueError):
            return 0

    def parts(self, ref: SessionRef) -> list[SessionRef] | None:
        """A database cut into parts that workers read side by side (``readahead``): runs
        of its families of about ``PART_BYTES``, in the order ``load_families`` reads them;
        None for a tree, or a database that cannot be read now (it is read whole)."""
        if ref.fact("kind") != "db":
            return None
        try:
            with _sqlite.Database(ref.main.path) as db:
                cut = OpenCodeDatabase(db, self.name).parts(PART_BYTES)
        except (SourceError, ValueError, OSError):
            return None
        return part_refs(ref, ref.main.path, cut, f"db={ref.main.path}") if cut else None

    def held_size(self, ref: SessionRef) -> int:
        return held_size(ref)

    def load(self, ref: SessionRef) -> LoadResult:
        roots = ref.fact("part")
        if roots is not None:
            path = Path(ref.fact("db") or "")
            return LoadResult.merged(self._database_families(path, roots.split(",")))
        return LoadResult.merged(self.load_families(ref))

    def load_families(self, ref: SessionRef) -> Iterator[LoadResult]:
        """One session family at a time: a session with its subagents and theirs."""
        kind = ref.fact("kind")
        if kind == "db":
            yield from self._database_families(ref.main.path)
        elif kind == "json":
            yield self._tree_session(ref.main.path)
        else:
            problems: list[Problem] = []
            migrated = self._migrated(ref, problems)
            if migrated is None:  # which of its sessions the database holds is not known
                yield LoadResult([], problems, wait=True)
                return
            yield LoadResult([], problems)
            files = [stamp.path for stamp in ref.related if _is_session_file(stamp.path, ref)]
            for family in tree_families(files):  # (a parent with its subagents, as a database)
                yield LoadResult.merged(
                    self._tree_session(path, migrated, children) for path, children in family
                )

    def _database_families(
        self, path: Path, roots: list[str] | None = None
    ) -> Iterator[LoadResult]:
        """Every family of a database, or those of the top-level sessions ``roots``."""
        try:
            with _sqlite.Database(path) as db:
                try:
                    store = OpenCodeDatabase(db, self.name)
                except ValueError as exc:
                    why = Problem(str(path), str(exc), severity="error", source=self.name)
                    yield LoadResult([], [why])
                    return
                if store.missing:
                    said = [Problem(str(path), why, source=self.name) for why in store.missing]
                    yield LoadResult([], said)
                if roots is None:
                    chosen = store.families()
                else:  # (a session deleted since the database was cut is gone)
                    chosen = (store.family(r) for r in roots if r in store.rows)
                times = Times()  # of the whole database (or this part of it)
                for family in chosen:
                    result = LoadResult()
                    for ident in family:
                        children = tuple(store.children.get(ident, ()))
                        self._convert(store.session(ident), children, result, times)
                    yield result
                if times.count or times.odd:
                    unread: list[Problem] = []
                    times.report(unread, path, self.name)
                    yield LoadResult([], unread)
        except SourceError as exc:
            yield LoadResult([], [exc.problem(self.name)])

    def _migrated(self, ref: SessionRef, problems: list[Problem]) -> frozenset[str] | None:
        """Ids of the sessions the databases beside a tree hold (the database's copy is the
        session: OpenCode deletes from it what the person undid, which the tree still
        holds). None while one is locked, or fails for another reason that passes: the
        tree waits, read again next run; its older copies, exported as they stand, replaced
        the database's fuller notes (--force).
        (The database's own unit reports its error; here a warning, or one database would
        count as two failures.)"""
        found: set[str] = set()
        for db in (x.removeprefix("db=") for x in ref.extra if x.startswith("db=")):
            try:
                found |= session_ids(Path(db))
            except SourceError as exc:
                if not exc.message.startswith(_sqlite.UNREADABLE) and Path(db).is_file():
                    # (locked, or another error that passes: a disk's, review25 F3)
                    why = (f"{exc.message}; the legacy tree beside it waits, read again "
                           f"next run")  # fmt: skip
                    problems.append(Problem(exc.path, why, severity="warning", source=self.name))
                    return None
                # Not a database, or damaged (or gone): the tree is all there is of them.
                why = f"{exc.message}; the legacy tree beside it is exported as it stands"
                problems.append(Problem(exc.path, why, severity="warning", source=self.name))
        return frozenset(found)

    def _tree_session(
        self, path: Path, migrated: frozenset[str] = frozenset(), children: tuple[str, ...] = ()
    ) -> LoadResult:
        # A session the database holds is the database's note: not a session without a
        # conversation (``copy``), and not read.
        if path.stem in migrated:
            return LoadResult(copy=True)
        stored, problem = tree_session(path, self.name)
        if stored is None:
            return LoadResult([], [problem] if problem else [])
        result = LoadResult()
        if str(stored.info["id"]) in migrated:  # an id not its file's: the database's note
            result.copy = True
        else:
            self._convert(stored, children, result)
        return result

    def _convert(
        self,
        stored: StoredSession,
        children: tuple[str, ...],
        out: LoadResult,
        times: Times | None = None,
    ) -> None:
        from .convert import to_session  # the converter: imported when a session is read

        session, problems = to_session(self.name, stored, children, times)
        out.sessions.append(session)
        out.problems += problems


class KiloAdapter(OpenCodeAdapter):
    """Kilo (CLI, and the VS Code extension since spring 2026): OpenCode's schema as ``kilo``."""

    name: ClassVar[str] = "kilo"
    label: ClassVar[str] = "Kilo"
    app: ClassVar[str] = "kilo"
    db_variable: ClassVar[str] = "KILO_DB"
    env_vars: ClassVar[tuple[str, ...]] = ("XDG_DATA_HOME", "KILO_DB")


def _is_session_file(path: Path, ref: SessionRef) -> bool:
    """A ``session/<project>/<id>.json`` file of the tree unit ``ref``."""
    return path.parent.parent == Path(ref.session_id) / "session"
