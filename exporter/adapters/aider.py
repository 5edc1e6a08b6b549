"""Aider: the ``.aider.chat.history.md`` log in every repository Aider ran in (FORMATS.md §6.4).

Where: Aider keeps no central index, so the folders to search are a setting,
``[paths] aider = ["~/src", …]``. Each is searched for the log in the folder itself and in
folders up to ``MAX_DEPTH`` (4) levels below it, never entering ``node_modules``, ``.git`` or
any other folder whose name starts with a dot, virtual environments (a folder holding
``pyvenv.cfg``, or named ``venv``/``env``), ``__pycache__``, ``site-packages`` and the usual
build folders. Under ``--home`` (a backup, tests, the demo) ``<home>/src`` is searched when
nothing is configured; on the real home nothing is, and :func:`roots_unset` says so, for
``ccexport doctor`` and ``sources``. ``$AIDER_CHAT_HISTORY_FILE`` (a relocated log) is read
on the real home as well.

The file is only ever appended to: one ``# aider chat started at YYYY-MM-DD HH:MM:SS`` header
per run, in local time without a zone (read as this machine's local time). Each run is one
session, with a stable id from the repository's name and the header. Inside a run,
Aider's own line conventions decide who wrote what:

- ``#### `` lines are the person's input, one prompt per run of such lines; ``/cmd`` is a
  slash command, ``/run``, ``/test`` and ``!`` a shell command. Aider ends each such line
  with two spaces: where it did, a ``####`` line without them is the model's (a heading, a
  line of a file in an edit block). Aider also logs some messages it sends the model as
  prompts: a mode command's question again (``/ask hi``, then ``hi``: left out, the command
  says it), ``/help``'s question with the documents found for it and its linter's report
  (``# Fix any errors below, if possible.``), both Aider's output, not the person's;
- ``> `` lines are Aider's output: the start-up banner (model, version, repository; left out
  of the note, the model kept), ``> Tokens: … [Cost: …]`` usage lines (summed into the
  session's tokens and cost, left out of the text), a command's output, and notices such
  as ``> Applied edit to …`` (an ``edit`` of that file, for the note's ``files``) and
  ``> Commit …`` (kept, as tool output), an edit block it could not apply (a failed
  ``edit``) and a failed request to the model (an API error notice); what it printed
  before the first prompt and reply (``Added … to the chat.``, ``--lint`` output) is the
  start-up's own output, not a reply's;
- every other line is the model's reply, Markdown as written.

Prompts are dated from ``.aider.input.history`` beside the log (each entry has the local
time it was typed): the first entry of the run's time span with the same text.

In a log without the two spaces (trimmed by an editor) an assistant Markdown heading
``#### …`` cannot be told from a prompt, and reads as one, as in Aider's own history reader.
Text before the first header (old logs) is kept as an undated
session when it holds a prompt. A run without a prompt that is the run before going on (an
Aider started by ``/run aider …``, or a model request nobody typed in that run) joins that
run (``aider_runs.join_runs``); lines logged after a run's Aider exited (``^C
KeyboardInterrupt``) are another Aider's, and go to the run they belong to or are a session
of their own (``aider_runs.cut_at_exits``); one that changed the code on its own (``aider --apply``,
``--commit``) is reported. Each session is a unit of its own (its byte range, with a
digest of its bytes in the fingerprint): a log that grew costs only the runs the append
touched.

Cutting a log into runs is in aider_runs.py, reading a run's lines (the conventions above)
in aider_log.py, its blocks and code fences in aider_blocks.py; this module finds the logs,
makes the units and dates the prompts.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ..errors import Problem
from .base import (
    FileStamp,
    LoadResult,
    SessionRef,
    SourceContext,
    cannot_read,
    open_regular,
    read_regular,
)

SOURCE = "aider"  # the log parser (aider_log.py, imported when a log is found) takes it from here
HISTORY_FILE = ".aider.chat.history.md"
ENV_FILE = "AIDER_CHAT_HISTORY_FILE"
INPUT_FILE = ".aider.input.history"  # the prompts again, each with its local time
MAX_DEPTH = 4  # levels below a configured folder that are searched
HOME_DEFAULT = "src"  # searched under --home when nothing is configured
if TYPE_CHECKING:
    from .aider_runs import Run

UNSET_HINT = (
    "Aider keeps one log per repository and no index: set the folders to search with "
    '[paths] aider = ["~/src"] in the configuration file'
)
SKIP_DIRS = frozenset(
    {"node_modules", "__pycache__", "site-packages", "venv", "env", "target", "build", "dist",
     "vendor", "bower_components"}
)  # fmt: skip


def __getattr__(name: str) -> object:
    """The log parser's names, importable from here as before, imported when asked for."""
    if name in ("Run", "header_time", "parse_header", "split_runs"):
        from . import aider_runs

        return getattr(aider_runs, name)
    if name == "parse_run":
        from . import aider_log

        return aider_log.parse_run
    if name == "read_input_history":
        from . import aider_text

        return aider_text.read_input_history
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def roots_unset(ctx: SourceContext) -> bool:
    """True when Aider has nowhere to look: the real home and no ``[paths] aider``
    (``ccexport doctor``/``sources`` report it with ``UNSET_HINT``)."""
    return not ctx.configured(SOURCE) and ctx.real_home and not ctx.env.get(ENV_FILE)


class AiderAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Aider"
    env_vars: ClassVar[tuple[str, ...]] = (ENV_FILE,)
    # Its roots are the user's code folders, searched: not walked for unreadable folders.
    searched_roots: ClassVar[bool] = True
    # A run depends on its stretch of the history file and, read only, on the prompt history
    # beside it; each run is a unit of its own (``<file>#<offset>``): a worker reads a unit
    # ahead as the main process would (``readahead``).
    reads_alone: ClassVar[bool] = True

    def __init__(self) -> None:
        self._inputs: dict[Path, list[tuple[datetime, str]]] = {}
        self._zone: tzinfo | None = None  # the zone its local times are read in

    def use_context(self, ctx: SourceContext) -> None:
        """The run's context, as discovery has it: the zone Aider's times are read in."""
        self._zone = ctx.zone

    def setup_note(self, ctx: SourceContext) -> str | None:
        """What to do before this source can be read (``sources`` and ``doctor`` say it)."""
        if not roots_unset(ctx):
            return None
        import platformdirs  # (only when the hint is given)

        # Which file (review35 12): "the configuration file" sent the person to the README.
        # config.user_config_path's, found as it does: adapters do not import the settings.
        user_config = Path(platformdirs.user_config_dir("ccexport")) / "config.toml"
        return f"{UNSET_HINT} ({user_config}, or a vault's .ccexport/config.toml)"

    def _searched(self, ctx: SourceContext) -> list[Path]:
        configured = ctx.configured(SOURCE)
        if configured:
            return configured
        return [] if ctx.real_home else [ctx.home / HOME_DEFAULT]

    def roots(self, ctx: SourceContext) -> list[Path]:
        """The folders searched, and the folder of ``$AIDER_CHAT_HISTORY_FILE``: ``sources``
        and ``doctor`` list what was found under each (they said "looked in nowhere")."""
        named = (
            [Path(ctx.env[ENV_FILE]).expanduser().parent]
            if (ctx.real_home and ctx.env.get(ENV_FILE))
            else []
        )
        return [*self._searched(ctx), *named]

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        self.use_context(ctx)
        seen: set[Path] = set()
        files = [f for root in self._searched(ctx) for f in history_files(root)]
        if ctx.real_home and ctx.env.get(ENV_FILE):
            named = Path(ctx.env[ENV_FILE]).expanduser()
            if named.is_file():
                files.append(named)
        for path in files:
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                yield from run_refs(path, _shown_folder(ctx, path.parent), ctx.zone)

    def load(self, ref: SessionRef) -> LoadResult:
        from .aider_log import parse_run, without_banner
        from .aider_requests import conversation
        from .aider_runs import NESTED, Run, header_time, split_runs
        from .aider_text import as_utf8, not_utf8_said

        path = Path(ref.fact("file") or ref.main.path)
        start = int(ref.fact("offset") or 0)
        spans = [tuple(map(int, s.split("-"))) for s in (ref.fact("spans") or "").split(",") if s]
        try:
            with open_regular(path) as f:
                chunk = b""
                for begin, end in spans or [(start, start + ref.main.size)]:
                    f.seek(begin)
                    chunk += f.read(end - begin)
        except OSError as exc:
            problem = Problem(str(path), cannot_read(exc), None, "error", SOURCE)
            return LoadResult(problems=[problem])
        problems: list[Problem] = []
        chunk = as_utf8(chunk)
        not_utf8_said(chunk, path, int(ref.fact("line") or 1), problems)
        runs = list(split_runs(chunk)) or [Run(None, 1)]
        run = runs[0]
        for joined in runs[1:]:  # a run that went on past another Aider's header
            before = next((x for x in reversed(run.lines) if x.strip()), "")
            nested = NESTED.match(before.encode("utf-8", "replace"))
            # Another Aider started beside this one (not by its /run): its banner is its own
            run.lines += joined.lines if nested else without_banner(joined.lines)
        run.first_line = int(ref.fact("line") or 1)
        run.header = ref.fact("header") if run.header is None else run.header
        started = header_time(run, path, problems, self._zone)
        history = path.parent / INPUT_FILE
        typed = self._typed_between(history, started, ref.main.mtime_ns, problems)
        session = parse_run(run, ref.session_id, path, started, ref.fact("cwd"), typed, problems)
        if ref.fact("header") is not None:  # another Aider's prompts: begun when first typed
            when = next((m.timestamp for m in session.messages if m.timestamp), started)
            session = replace(session, started_at=when)
        talked = conversation(list(session.messages))
        for said in (ref.fact("exits") or "").split(","):
            moved = _moved_lines_said(path, *said.split(":"), run.first_line) if said else None
            # (said already: a run of commands alone that changed the code; and lines in no
            # note either way, commands alone, need no word: ``/diff`` after another's exit)
            if moved and talked and not any(p.line == moved.line for p in problems):
                problems.append(moved)
        return LoadResult([session] if session.messages else [], problems)

    def _typed_between(
        self, path: Path, start: datetime | None, end_ns: int, problems: list[Problem]
    ) -> list[tuple[datetime, str]]:
        """Inputs typed from ``start`` until the run's last write, from the prompt history
        (read once per export: every run of a repository uses it; what is wrong with it is
        reported with the first run read)."""
        if start is None:
            return []
        if path not in self._inputs:
            from .aider_text import read_input_history

            self._inputs[path] = read_input_history(path, problems, self._zone)
        entries = self._inputs[path]
        first = bisect.bisect_left(entries, (start, ""))
        end = datetime.fromtimestamp(end_ns / 1e9, UTC)
        return [e for e in entries[first:] if e[0] <= end]


def _moved_lines_said(path: Path, exit_line: str, line: str, how: str, joined_to: int) -> Problem:
    """Lines logged after an Aider exited (its ``^C KeyboardInterrupt``: Aider quits there)
    are another Aider's, writing to the same log: said once, with where they went."""
    went = {
        "reply": f"the rest of a reply of the run at line {joined_to}, which was still open",
        "costs": f"prompts of the run at line {joined_to}, whose running cost they go on",
    }.get(how, "prompts of another Aider in this repository, read as a session of their own")
    said = f"logged after an Aider exited (line {exit_line}, ^C KeyboardInterrupt), so another's: "
    return Problem(str(path), said + went, int(line), "warning", SOURCE)


def _shown_folder(ctx: SourceContext, folder: Path) -> str:
    """The repository as the note names it: under ``--home`` (a stand-in for someone's
    ``~``) relative to that home, so the note does not name where a backup was kept."""
    if not ctx.real_home:
        try:
            return "~/" + folder.relative_to(ctx.home).as_posix()
        except ValueError:
            pass
    return str(folder)


def run_refs(
    path: Path, folder: str | None = None, zone: tzinfo | None = None
) -> Iterator[SessionRef]:
    """One unit per run of a log, found by its header (the log is read, not parsed).

    The log is only appended to, so a finished run never changes: its unit is the run's
    byte range, fingerprinted by a digest of its bytes, and an append re-exports only the
    runs it touched. Its time is when the next run started (the last run's, the file's)."""
    from .aider_runs import ACTION, PROMPT, cut_at_exits, join_runs, parse_header, split_runs

    try:
        stamp = FileStamp.of(path)
        raw = read_regular(path)
    except OSError:
        yield SessionRef(SOURCE, str(path), FileStamp(path, 0, 0))  # load reports it
        return
    groups = join_runs(raw, cut_at_exits(raw, list(split_runs(raw, lines=False))))
    used: dict[str, int] = {}
    for i, group in enumerate(groups):
        run = group[0]
        spans = _spans(group)
        body = b"".join(raw[start:end] for start, end in spans)
        empty = not PROMPT.search(body) and not ACTION.search(body)
        if empty and i + 1 < len(groups) and groups[i + 1][0].exited:
            continue  # (a run that only started and exited: the lines after it take its id)
        base = session_id_of(path.parent.name, run.header)
        used[base] = used.get(base, 0) + 1
        session_id = base if used[base] == 1 else f"{base}-{used[base]}"
        following = parse_header(groups[i + 1][0].header, zone) if i + 1 < len(groups) else None
        written = int(following.timestamp() * 1e9) if following else stamp.mtime_ns
        if empty:
            continue  # started and left without a prompt or a change: nothing to export
        unit = FileStamp(Path(f"{path}#{run.start}"), len(body), written, stamp.inode)
        facts = [f"file={path}", f"cwd={folder or path.parent}", f"offset={run.start}",
                 f"line={run.first_line}", f"sha1={hashlib.sha1(body).hexdigest()}"]  # fmt: skip
        if len(spans) > 1:  # another Aider's lines joined, with a run of its own between
            facts.append("spans=" + ",".join(f"{start}-{end}" for start, end in spans))
        if run.exited:  # lines after an Aider exited: the time of the run they were in
            facts.append(f"header={run.header}")
        exits = [f"{r.exited}:{r.first_line}:{r.joined}" for r in group if r.exited]
        if exits:
            facts.append("exits=" + ",".join(exits))
        yield SessionRef(SOURCE, session_id, unit, (), tuple(facts))


def _spans(group: list[Run]) -> list[tuple[int, int]]:
    """The byte ranges of a group's runs in the log's order, those that follow each other
    as one."""
    spans: list[tuple[int, int]] = []
    for run in sorted(group, key=lambda r: r.start):
        if spans and spans[-1][1] == run.start:
            spans[-1] = (spans[-1][0], run.end)
        else:
            spans.append((run.start, run.end))
    return spans


def session_id_of(repo_name: str, header: str | None) -> str:
    """``<8 hex>-<start as written>``: the digest (of the repository's folder name and the
    header) tells the notes of one repository apart. The folder's name, not its path, and
    the header's own local time, not UTC: a repository that moved, a home copied to another
    machine or a new time zone keeps its sessions."""
    when = re.sub(r"\D", "", header) if header else "start"
    digest = hashlib.sha1(f"{repo_name}\n{header}".encode("utf-8", "replace")).hexdigest()[:8]
    return f"{digest}-{when or 'start'}"


def history_files(root: Path, depth: int = MAX_DEPTH) -> Iterator[Path]:
    """Aider logs in ``root`` and up to ``depth`` folder levels below it (stat only)."""
    # The user's own folders: a link there is followed only if it bears a log's name (one
    # into a mount that is gone could hang the run).
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name == HISTORY_FILE and (_is_file(entry) or _is_folder(entry)):
            yield Path(entry.path)  # (a folder in the log's place: reading it says so)
    if depth <= 0:
        return
    for entry in entries:
        if _searchable(entry):
            yield from history_files(Path(entry.path), depth - 1)


def _searchable(entry: os.DirEntry[str]) -> bool:
    if entry.name.startswith(".") or entry.name in SKIP_DIRS:
        return False
    try:
        if not entry.is_dir(follow_symlinks=False):
            return False
    except OSError:
        return False
    return not os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))  # a virtual environment


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:  # a link to itself
        return False
