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
  slash command, ``/run``, ``/test`` and ``!`` a shell command;
- ``> `` lines are Aider's output: the start-up banner (model, version, repository; left out
  of the note, the model kept), ``> Tokens: … Cost: …`` usage lines (summed into the
  session's tokens and cost, left out of the text), a command's output, and notices such
  as ``> Applied edit to …`` and ``> Commit …`` (kept, as tool output);
- every other line is the model's reply, Markdown as written.

Prompts are dated from ``.aider.input.history`` beside the log (each entry has the local
time it was typed): the first entry of the run's time span with the same text.

An assistant Markdown heading ``#### …`` cannot be told from a prompt; Aider's own history
reader treats it as one too. Text before the first header (old logs) is kept as an undated
session when it holds a prompt. Each run is a unit of its own (its byte range, with a digest
of its bytes in the fingerprint): a log that grew costs only the runs the append touched.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from ..errors import Problem
from ..model import (
    CommandOutputPart,
    CommandPart,
    Message,
    Part,
    Role,
    Session,
    TextPart,
    ToolResultPart,
    Usage,
)
from .base import FileStamp, LoadResult, SessionRef, SourceContext

SOURCE = "aider"
HISTORY_FILE = ".aider.chat.history.md"
ENV_FILE = "AIDER_CHAT_HISTORY_FILE"
INPUT_FILE = ".aider.input.history"  # the prompts again, each with its local time
MAX_DEPTH = 4  # levels below a configured folder that are searched
HOME_DEFAULT = "src"  # searched under --home when nothing is configured
UNSET_HINT = (
    "Aider keeps one log per repository and no index: set the folders to search with "
    '[paths] aider = ["~/src"] in the configuration file'
)
SKIP_DIRS = frozenset(
    {"node_modules", "__pycache__", "site-packages", "venv", "env", "target", "build", "dist",
     "vendor", "bower_components"}
)  # fmt: skip

_PROMPT = re.compile(rb"^####", re.M)
_HEADER = re.compile(rb"^# aider chat started at (.*?)[ \t]*\r?$", re.M)
_USAGE = re.compile(r"^Tokens: (?P<tokens>.*?)\.\s*Cost: (?P<cost>.*?)\.?$")
_COUNT = re.compile(r"([\d.,]+)\s*([kKmM]?) (sent|received|cache write|cache hit)")
_COST = re.compile(r"\$([\d.,]+) (request|message|session)")
_MODEL = re.compile(r"^(?:Models?|Main model): (\S+)")
# Start-up lines Aider prints before the first prompt: facts, not conversation.
_BANNER = (
    "Aider v", "Model:", "Models:", "Main model:", "Weak model:", "Editor model:",
    "Git repo:", "Repo-map:", "Use /help", "Cur working dir:", "Git working dir:",
    "Newer aider version", "Run pip install", "Update git name", "Update git email",
    "VSCode terminal detected", "Warning: ", "https://aider.chat/",
)  # fmt: skip
_SHELL = ("/run ", "/test ", "!")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


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

    def __init__(self) -> None:
        self._inputs: dict[Path, list[tuple[datetime, str]]] = {}

    def setup_note(self, ctx: SourceContext) -> str | None:
        """What to do before this source can be read (``sources`` and ``doctor`` say it)."""
        return UNSET_HINT if roots_unset(ctx) else None

    def roots(self, ctx: SourceContext) -> list[Path]:
        configured = ctx.configured(SOURCE)
        if configured:
            return configured
        return [] if ctx.real_home else [ctx.home / HOME_DEFAULT]

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        seen: set[Path] = set()
        files = [f for root in self.roots(ctx) for f in history_files(root)]
        if ctx.real_home and ctx.env.get(ENV_FILE):
            named = Path(ctx.env[ENV_FILE]).expanduser()
            if named.is_file():
                files.append(named)
        for path in files:
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                yield from run_refs(path, _shown_folder(ctx, path.parent))

    def load(self, ref: SessionRef) -> LoadResult:
        path = Path(ref.fact("file") or ref.main.path)
        try:
            with path.open("rb") as f:
                f.seek(int(ref.fact("offset") or 0))
                chunk = f.read(ref.main.size)
        except OSError as exc:
            problem = Problem(str(path), f"could not be read ({exc})", None, "error", SOURCE)
            return LoadResult(problems=[problem])
        problems: list[Problem] = []
        run = next(split_runs(chunk), Run(None, 1))
        run.first_line = int(ref.fact("line") or 1)
        started = _header_time(run, path, problems)
        typed = self._typed_between(path.parent / INPUT_FILE, started, ref.main.mtime_ns)
        session = parse_run(run, ref.session_id, path, started, ref.fact("cwd"), typed)
        return LoadResult([session] if session.messages else [], problems)

    def _typed_between(
        self, path: Path, start: datetime | None, end_ns: int
    ) -> list[tuple[datetime, str]]:
        """Inputs typed from ``start`` until the run's last write, from the prompt history
        (read once per export: every run of a repository uses it)."""
        if start is None:
            return []
        if path not in self._inputs:
            self._inputs[path] = read_input_history(path)
        entries = self._inputs[path]
        first = bisect.bisect_left(entries, (start, ""))
        end = datetime.fromtimestamp(end_ns / 1e9, UTC)
        return [e for e in entries[first:] if e[0] <= end]


def read_input_history(path: Path) -> list[tuple[datetime, str]]:
    """``.aider.input.history`` (prompt_toolkit's history file): per entry ``# <local
    time>`` then the input's lines, each prefixed ``+``. Sorted by time; unreadable → []."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    entries: list[tuple[datetime, list[str]]] = []
    current: list[str] | None = None  # the lines of the entry being read (None: undated)
    for line in text.splitlines():
        if line.startswith("# "):
            try:
                local = datetime.fromisoformat(line[2:].strip())
            except ValueError:
                current = None
                continue
            current = []
            entries.append((local.astimezone().astimezone(UTC), current))
        elif line.startswith("+") and current is not None:
            current.append(line[1:])
    return sorted((when, "\n".join(lines)) for when, lines in entries)


def _shown_folder(ctx: SourceContext, folder: Path) -> str:
    """The repository as the note names it: under ``--home`` (a stand-in for someone's
    ``~``) relative to that home, so the note does not name where a backup was kept."""
    if not ctx.real_home:
        try:
            return "~/" + folder.relative_to(ctx.home).as_posix()
        except ValueError:
            pass
    return str(folder)


def run_refs(path: Path, folder: str | None = None) -> Iterator[SessionRef]:
    """One unit per run of a log, found by its header (the log is read, not parsed).

    The log is only appended to, so a finished run never changes: its unit is the run's
    byte range, fingerprinted by a digest of its bytes, and an append re-exports only the
    runs it touched. Its time is when the next run started (the last run's, the file's)."""
    try:
        stamp = FileStamp.of(path)
        raw = path.read_bytes()
    except OSError:
        yield SessionRef(SOURCE, str(path), FileStamp(path, 0, 0))  # load reports it
        return
    runs = list(split_runs(raw, lines=False))
    used: dict[str, int] = {}
    for i, run in enumerate(runs):
        base = session_id_of(path.parent.name, run.header)
        used[base] = used.get(base, 0) + 1
        session_id = base if used[base] == 1 else f"{base}-{used[base]}"
        following = _parse_header(runs[i + 1].header) if i + 1 < len(runs) else None
        written = int(following.timestamp() * 1e9) if following else stamp.mtime_ns
        body = raw[run.start : run.end]
        if not _PROMPT.search(body):
            continue  # started and left without a prompt: nothing to export, not even empty
        unit = FileStamp(Path(f"{path}#{run.start}"), len(body), written, stamp.inode)
        facts = (f"file={path}", f"cwd={folder or path.parent}", f"offset={run.start}",
                 f"line={run.first_line}", f"sha1={hashlib.sha1(body).hexdigest()}")  # fmt: skip
        yield SessionRef(SOURCE, session_id, unit, (), facts)


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
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name == HISTORY_FILE and entry.is_file():
            yield Path(entry.path)
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


@dataclass(slots=True)
class Run:
    """One ``aider`` launch: its header's time text, where it is, and its lines."""

    header: str | None
    first_line: int  # 1-based line number of the header (or 1 for text before any header)
    start: int = 0  # byte offsets in the log
    end: int = 0
    lines: list[str] = field(default_factory=list)


def split_runs(raw: bytes, lines: bool = True) -> Iterator[Run]:
    """The log cut at its headers; text before the first header is a run without one.
    ``lines``: decode each run's lines (discovery only needs where runs are)."""
    starts = list(_HEADER.finditer(raw))
    if not starts or raw[: starts[0].start()].strip():
        end = starts[0].start() if starts else len(raw)
        yield Run(None, 1, 0, end, _lines(raw[:end]) if lines else [])
    line_no, counted = 1, 0
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(raw)
        line_no += raw.count(b"\n", counted, match.start())
        counted = match.start()
        header = match.group(1).decode("utf-8", "replace")
        body = _lines(raw[match.end() : end]) if lines else []
        yield Run(header, line_no, match.start(), end, body)


def _lines(chunk: bytes) -> list[str]:
    return chunk.decode("utf-8", "replace").splitlines()


def _parse_header(header: str | None) -> datetime | None:
    """A header's local time as UTC (Aider writes this machine's local time, no zone)."""
    try:
        local = datetime.strptime(header or "", "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    return local.astimezone().astimezone(UTC)


def _header_time(run: Run, path: Path, problems: list[Problem]) -> datetime | None:
    started = _parse_header(run.header)
    if run.header is not None and started is None:
        problems.append(
            Problem(str(path), f"unreadable session start {run.header!r}; the session is undated",
                    run.first_line, "warning", SOURCE)
        )  # fmt: skip
    return started


def parse_run(
    run: Run,
    session_id: str,
    path: Path,
    started: datetime | None,
    cwd: str | None = None,
    typed: list[tuple[datetime, str]] | None = None,
) -> Session:
    """One run's lines as a session: prompts, replies, Aider's output, usage and cost;
    ``typed`` (from ``.aider.input.history``) dates the prompts."""
    builder = _RunBuilder(f"{session_id}:", typed)
    for kind, block in _blocks(run.lines):
        builder.add(kind, block)
    messages = builder.messages if any(m.role == "user" for m in builder.messages) else []
    return Session(
        source=SOURCE,
        session_id=session_id,
        messages=tuple(messages),
        source_path=path,
        project=path.parent.name or None,
        cwd=cwd or str(path.parent),
        models=tuple(builder.models),
        started_at=started,
        ended_at=builder.last_typed,
        usage=builder.usage,
        cost=builder.cost(),
        extra={"aider_version": builder.version} if builder.version else {},
    )


def _blocks(lines: list[str]) -> Iterator[tuple[str, list[str]]]:
    """Runs of lines of one kind: ``user`` (####), ``aider`` (>) or ``reply`` (the rest).

    A blank line ends a prompt (each input is its own run of ``####`` lines). Inside a
    code fence the reply opened, ``>`` lines are the reply's (quoted text, the
    ``>>>>>>> REPLACE`` of an edit block); a prompt closes any fence left open."""
    kind, block, fence = "", [], ""
    for line in lines:
        if line.startswith("#### ") or line.rstrip() == "####":
            this, text, fence = "user", line[5:], ""
        elif line.startswith(">") and not fence and not line.startswith(">>>>>>>"):
            this, text = "aider", line[2:] if line.startswith("> ") else line[1:]
        elif not line.strip():
            if kind == "user":
                yield kind, block
                kind, block = "", []
            elif kind:
                block.append("")  # a blank line stays with what it follows
            continue
        else:
            this, text = "reply", line
            fence = _fence_after(line, fence)
        if this != kind and block:
            yield kind, block
            block = []
        kind = this
        block.append(text.rstrip() if this != "reply" else text)
    if block:
        yield kind, block


def _fence_after(line: str, fence: str) -> str:
    """The code fence open after ``line`` ("" when none): opened by ``` or ~~~, closed by
    a line of at least as many of the same character."""
    match = _FENCE.match(line)
    if not match:
        return fence
    marks = match.group(1)
    if not fence:
        return marks
    closes = marks[0] == fence[0] and len(marks) >= len(fence) and not match.group(2).strip()
    return "" if closes else fence


class _RunBuilder:
    def __init__(self, id_prefix: str, typed: list[tuple[datetime, str]] | None = None) -> None:
        self.id_prefix = id_prefix
        self.typed = typed or []  # (time, text) of the run's inputs, in order
        self.last_typed: datetime | None = None
        self.messages: list[Message] = []
        self.models: list[str] = []
        self.model: str | None = None
        self.version: str | None = None
        self.usage = Usage()
        self.request_costs: list[float] = []
        self.session_cost: float | None = None
        self.after_command = False
        self.prompted = False

    def add(self, kind: str, lines: list[str]) -> None:
        text = "\n".join(lines).strip("\n")
        if kind == "user":
            self._prompt(text)
        elif kind == "aider":
            self._aider(lines)
        elif text.strip():
            self._message("assistant", [TextPart(text)], self.model)
            self.after_command = False

    def cost(self) -> float | None:
        if self.session_cost is not None:
            return self.session_cost  # Aider's own running total for the run
        return sum(self.request_costs) if self.request_costs else None

    def _prompt(self, text: str) -> None:
        self.prompted = True
        stripped = text.strip()
        if not stripped:
            return
        if stripped.startswith(_SHELL):
            command = stripped[1:] if stripped.startswith("!") else stripped.split(" ", 1)[1]
            part: Part = CommandPart(command.strip(), shell=True)
        elif stripped.startswith("/"):
            part = CommandPart(stripped)
        else:
            part = TextPart(text)
        self.after_command = not isinstance(part, TextPart)
        self._message("user", [part], when=self._typed_at(stripped))

    def _typed_at(self, text: str) -> datetime | None:
        """When this prompt was typed: the next input-history entry with the same text."""
        wanted = _comparable(text)
        for i, (when, typed) in enumerate(self.typed):
            if _comparable(typed) == wanted:
                del self.typed[: i + 1]
                self.last_typed = when
                return when
        return None

    def _aider(self, lines: list[str]) -> None:
        kept = []
        for line in lines:
            model = _MODEL.match(line)
            if model:
                self._use_model(model.group(1))
            usage = _USAGE.match(line)
            if usage:
                self._count(usage.group("tokens"), usage.group("cost"))
            elif not self.prompted and (not self.messages and not kept and _is_command(line)):
                continue  # the command line that started Aider
            elif not self.prompted and line.startswith(_BANNER):
                if line.startswith("Aider v"):
                    self.version = line.split()[1].removeprefix("v")
            else:
                kept.append(line)
        text = "\n".join(kept).strip()
        if not text:
            return
        if self.after_command:
            self._message("user", [CommandOutputPart(text)])
        else:
            self._message("tool", [ToolResultPart(text)])

    def _use_model(self, model: str) -> None:
        self.model = model
        if model not in self.models:
            self.models.append(model)

    def _count(self, tokens: str, cost: str) -> None:
        counts = {what: _number(n, unit) for n, unit, what in _COUNT.findall(tokens)}
        self.usage += Usage(
            counts.get("sent", 0),
            counts.get("received", 0),
            counts.get("cache hit", 0),
            counts.get("cache write", 0),
        )
        for amount, what in _COST.findall(cost):
            value = float(amount.replace(",", ""))
            if what == "session":
                self.session_cost = value
            else:
                self.request_costs.append(value)

    def _message(
        self, role: Role, parts: list[Part], model: str | None = None, when: datetime | None = None
    ) -> None:
        source_id = f"{self.id_prefix}{len(self.messages) + 1}"
        self.messages.append(Message(role, tuple(parts), source_id, when, model))


def _comparable(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _is_command(line: str) -> bool:
    """The command line Aider echoes first: a path or a word ending in ``aider``."""
    first = line.split(" ", 1)[0]
    return first.endswith(("aider", "aider.exe")) or first.endswith("aider-chat")


def _number(digits: str, unit: str) -> int:
    value = float(digits.replace(",", ""))
    return round(value * {"k": 1_000, "m": 1_000_000}.get(unit.lower(), 1))
