"""Finding Claude Code sessions on disk (FORMATS.md §1): the project folders' session files,
their ``subagents/`` folders and the older ``agent-<id>.jsonl`` files beside them, and, when a
session was copied into several project folders, which copy is the newest; the summary
lines that open a project's files (a session's title, often written into a later file); and
which earlier sessions a resumed or forked session starts by copying (``Replays``).

Kept apart from loading (claude_code.py) because it reads only names, sizes and a few
lines of each file, never a whole transcript.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from .base import FileStamp, SessionRef, SourceContext, listed, open_regular, same_bytes

SOURCE = "claude-code"


def discover_project(folder: Path) -> Iterator[SessionRef]:
    files: dict[str, os.DirEntry[str]] = {}
    dirs: dict[str, os.DirEntry[str]] = {}
    for entry in listed(folder):
        if not entry.name.endswith(".jsonl"):
            if entry.is_dir():
                dirs[entry.name] = entry
        elif entry.is_file() or _special(entry):
            # (a FIFO or a folder too: its reading says it is no file, and opens no FIFO)
            files[entry.name] = entry
    mains = sorted(n for n in files if not n.startswith("agent-"))
    for name in mains:
        stem = name.removesuffix(".jsonl")
        related = subagent_files(_child(folder, stem)) if stem in dirs else ()
        yield SessionRef(SOURCE, stem, _stamp(folder, files[name]), related)
    for stem in sorted(dirs):
        if f"{stem}.jsonl" not in files:  # the session file was pruned; its agents remain
            yield from _orphan_agents(stem, subagent_files(folder / stem))
    for name in sorted(n for n in files if n.startswith("agent-")):
        stem = name.removesuffix(".jsonl")
        yield SessionRef(SOURCE, stem, _stamp(folder, files[name]))


def _special(entry: os.DirEntry[str]) -> bool:
    """A FIFO, socket, device or folder (the listing says so: no ``stat``); not a link to
    nothing, which is skipped as the nothing it is."""
    return entry.is_dir() or not entry.is_symlink()


def _orphan_agents(stem: str, stamps: tuple[FileStamp, ...]) -> Iterator[SessionRef]:
    """The agents of a session whose file is gone, each a unit of its own with its
    ``.meta.json`` sidecar: what the parent's Task call said of the agent (its type, its
    description: the note's title) is read from there, and a changed sidecar is a change."""
    sidecars = {s.path: s for s in stamps if s.path.name.endswith(".meta.json")}
    for stamp in stamps:
        if stamp.path.suffix == ".jsonl":
            sidecar = sidecars.get(stamp.path.with_name(f"{stamp.path.stem}.meta.json"))
            related = (sidecar,) if sidecar is not None else ()
            yield SessionRef(SOURCE, f"{stem}/{stamp.path.stem}", stamp, related)


def _stamp(folder: Path, entry: os.DirEntry[str]) -> FileStamp:
    """``FileStamp.of(entry)``, its path made from the folder's already parsed parts:
    parsing every session's whole path again cost a no-op run of 20,000 sessions 0.1 s."""
    st = entry.stat()
    return FileStamp(_child(folder, entry.name), st.st_size, st.st_mtime_ns, st.st_ino)


def _child(folder: Path, name: str) -> Path:
    """``folder / name`` for a name read from the folder's listing (no separator in it), by
    the shortcut ``Path.iterdir`` takes where this Python has it (3.11 to 3.13)."""
    make = getattr(folder, "_make_child_relpath", None)
    return make(name) if make is not None else folder / name


def file_session_id(records: list[dict[str, Any]]) -> str | None:
    """The session a main file belongs to: the first ``sessionId`` outside a subagent."""
    for rec in records:
        if _plausible_id(rec.get("sessionId")) and not rec.get("agentId"):
            return str(rec["sessionId"])
    return None


def agent_session_id(path: Path) -> str | None:
    """The session an agent file names (its lines carry the session's ``sessionId``)."""
    return next(
        (str(r["sessionId"]) for r in _head_records(path) if _plausible_id(r.get("sessionId"))),
        None,
    )


def _plausible_id(value: Any) -> bool:
    """An id that can name a file: a damaged line may hold megabytes or a path."""
    return isinstance(value, str) and 0 < len(value) <= 200 and not re.search(r"[/\\\0]", value)


def _head_records(path: Path, limit: int = 50) -> list[dict[str, Any]]:
    """The first records of a file, enough to find its ``sessionId``."""
    found: list[dict[str, Any]] = []
    try:
        with open_regular(path) as f:
            while raw := f.readline(1 << 20):  # bounded: a first line may be gigabytes
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict):
                    found.append(obj)
                    if _plausible_id(obj.get("sessionId")) and not obj.get("agentId"):
                        break
                if len(found) >= limit:
                    break
    except OSError:
        pass
    return found


_TIMESTAMP = re.compile(rb'"timestamp"\s*:\s*"([^"]{10,40})"')


def _last_timestamp(path: Path) -> str:
    """The newest record time in a file's tail (ISO text compares in time order)."""
    try:
        with open_regular(path) as f:
            f.seek(max(0, path.stat().st_size - (256 << 10)))
            tail = f.read()
    except OSError:
        return ""
    return max(
        (m.group(1).decode("ascii", "replace") for m in _TIMESTAMP.finditer(tail)), default=""
    )


def subagent_files(session_dir: Path) -> tuple[FileStamp, ...]:
    """The ``agent-*`` files below ``session_dir/subagents``, in ``os.walk``'s order (a
    folder's files by name, then its folders by name; a linked folder is not entered): the
    order is part of every fingerprint. Listed with ``scandir`` alone: a Claude Code home
    has this folder for most sessions, and every run lists it."""
    found: list[FileStamp] = []
    _agent_files(_child(session_dir, "subagents"), found)
    return tuple(found)


def _agent_files(folder: Path, found: list[FileStamp]) -> None:
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:  # none, or unreadable: reported by the walk for unreadable folders
        return
    folders = []
    for entry in entries:
        if _is_dir(entry):
            if not entry.is_symlink():
                folders.append(entry.name)
        elif entry.name.startswith("agent-") and entry.name.endswith((".jsonl", ".meta.json")):
            found.append(_stamp(folder, entry))
    for name in folders:
        _agent_files(_child(folder, name), found)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


class NewerCopies:
    """Finds a newer copy of a session in another project folder; the folder listings are
    read once per run (one finder per adapter)."""

    def __init__(self) -> None:
        # projects folder -> a .jsonl name -> the project folders holding a file of that name
        self._where: dict[Path, dict[str, list[str]]] = {}
        # a file given to ``newer`` with a newer copy -> the two ranks' (last time, size)
        self._ranks: dict[Path, tuple[tuple[str, int], tuple[str, int]]] = {}

    def newer(self, path: Path, session_id: str) -> Path | None:
        """Another copy of the same session (a file of the same name, or named by its id, in
        another project folder) whose content is newer, if there is one."""
        where = self._where.get(path.parent.parent)
        if where is None:
            where = self._where[path.parent.parent] = _names_by_folder(path.parent.parent)
        mine: tuple[str, int, str] | None = None  # read only once a copy is found: rarely
        best: tuple[str, int, str] | None = None
        for name in {path.name, f"{session_id}.jsonl"}:
            for folder in where.get(name, ()):
                other = Path(folder) / name
                try:
                    if other == path or "/" in name or not other.is_file():
                        continue
                except OSError:
                    continue  # a name no file can have (an id too long, say)
                if file_session_id(_head_records(other)) != session_id:
                    continue  # a different session that happens to share the name
                rank = (_last_timestamp(other), other.stat().st_size, str(other))
                if mine is None:
                    mine = (_last_timestamp(path), path.stat().st_size, str(path))
                if rank > mine and (best is None or rank > best):
                    best = rank
        if best is None or mine is None:
            return None
        self._ranks[path] = (mine[:2], best[:2])
        return Path(best[2])

    def how(self, path: Path, newer: Path) -> str:
        """What ``path`` is beside the copy ``newer`` found for it: "older" (it ends
        earlier, or is shorter), "same" (the same bytes: copied under another name, and
        the path breaks the tie) or "as new" (as recent and as long, other bytes)."""
        mine, other = self._ranks.get(path, (("", 0), ("", 1)))
        if mine != other:
            return "older"
        return "same" if same_bytes(path, newer) else "as new"


def _names_by_folder(projects: Path) -> dict[str, list[str]]:
    """Each ``.jsonl`` name in the project folders, with the folders that hold one: listed
    once, so that looking for copies of a session is a lookup, not a look in every folder."""
    where: dict[str, list[str]] = {}
    try:
        folders = [e.path for e in listed(projects) if e.is_dir()]
    except OSError:
        folders = []
    for folder in folders:
        try:
            names = [e.name for e in os.scandir(folder) if e.name.endswith(".jsonl")]
        except OSError:
            continue
        for name in names:
            where.setdefault(name, []).append(folder)
    return where


def leading_summaries(folder: Path) -> dict[str, str]:
    """leafUuid -> summary from the summary lines that open each file of a project."""
    index: dict[str, str] = {}
    for entry in listed(folder):
        if not entry.name.endswith(".jsonl") or not entry.is_file():
            continue
        try:
            with open_regular(entry.path) as f:
                # Summary lines are short: a longer line is cut, fails to parse, ends the file.
                while raw := f.readline(1 << 20):
                    if b'"summary"' not in raw[:40] and b'"type":"summary"' not in raw:
                        break
                    obj = orjson.loads(raw)
                    if not isinstance(obj, dict) or obj.get("type") != "summary":
                        break  # any other line, even a JSON array that names "summary"
                    if isinstance(obj.get("summary"), str):
                        index[str(obj.get("leafUuid"))] = obj["summary"]
        except (OSError, orjson.JSONDecodeError):
            continue
    return index


_CONVERSATION = (b'"type":"user"', b'"type":"assistant"', b'"type": "user"', b'"type": "assistant"')


def _first_conversation(path: Path, limit: int = 200) -> tuple[str, str] | None:
    """(uuid, sessionId) of a file's first user or assistant line outside sidechains."""
    try:
        with open_regular(path) as f:
            for _ in range(limit):
                raw = f.readline(4 << 20)  # bounded: a first line may be gigabytes
                if not raw:
                    break
                if not any(marker in raw for marker in _CONVERSATION):
                    continue
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if _conversation(obj) is None:
                    continue
                uuid, session = obj["uuid"], obj.get("sessionId")
                return (uuid, str(session)) if _plausible_id(session) else None
    except OSError:
        pass
    return None


def _conversation(obj: Any) -> str | None:
    """The uuid of a user or assistant line of the main conversation (not a sidechain's)."""
    if not isinstance(obj, dict) or obj.get("type") not in ("user", "assistant"):
        return None
    if obj.get("isSidechain") is True or obj.get("agentId"):
        return None  # (a damaged isSidechain: the conversation's, as its reading takes it)
    uuid = obj.get("uuid")
    return uuid if isinstance(uuid, str) else None


def _uuids(path: Path) -> set[str]:
    """The uuids of a file's lines (a line past the usual 64 MB limit is read through)."""
    from ._jsonl import LongLine, split_lines

    found: set[str] = set()
    try:
        with open_regular(path) as f:
            for raw in split_lines(iter(lambda: f.read(1 << 20), b"")):
                if isinstance(raw, LongLine) or b'"uuid"' not in raw:
                    continue
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and isinstance(uuid := obj.get("uuid"), str):
                    found.add(uuid)
    except OSError:
        pass
    return found


def _last_conversation(path: Path) -> tuple[str, Any] | None:
    """The uuid and timestamp of a file's last conversational line, from its tail (None if
    the tail holds none whole: then nothing is taken for a copy)."""
    try:
        with open_regular(path) as f:
            size = path.stat().st_size
            f.seek(max(0, size - (256 << 10)))
            lines = f.read().split(b"\n")
    except OSError:
        return None
    for raw in reversed(lines[1:] if size > (256 << 10) else lines):  # [0]: maybe cut
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        uuid = _conversation(obj)
        if uuid is not None:
            return uuid, obj.get("timestamp")
    return None


def _left_out(ctx: SourceContext, path: Path, last_time: Any) -> bool:
    """Is the session of ``path`` older than the run's --since? Told by its last line's
    time, which is no later than its end: a doubt (or no time) keeps the copy."""
    from ._jsonl import parse_timestamp

    when = parse_timestamp(last_time)
    return when is None or ctx.left_out(path, when)


def _holds_line(path: Path, uuid: str) -> bool:
    """Does the file hold the line whose own ``uuid`` this is (not a line naming it as its
    parent or leaf)? One pass at memory speed."""
    import mmap

    try:
        with open_regular(path) as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return any(m.find(f'"uuid":{gap}"{uuid}"'.encode()) >= 0 for gap in ("", " "))
    except (OSError, ValueError):  # ValueError: an empty file
        return False


class Replays:
    """FORMATS.md §1.7: a resumed (older Claude Code) or forked session is a new file, with
    a new session id, that starts with a copy of the conversation it continues (the same
    uuids). Which lines of a session file are such a copy, and of which session: the lines
    of another session file of the same folder (another session id) that opens with the
    same conversational line and is wholly inside this one (this file holds its last
    conversational line), while this one goes on past it (its own last line is not that
    file's). Only a strictly larger file leaves lines out, so whichever is read when, each
    line is in the note of the smallest file holding it: never in none. A fork whose origin
    went on afterwards holds neither inside the other, and both notes keep the shared start.
    The first lines of a folder's files are read once per run, a candidate's whole file
    only when it opens like this one."""

    def __init__(self) -> None:
        self._firsts: dict[Path, _Firsts] = {}

    def copied(self, path: Path, ctx: SourceContext | None = None) -> tuple[set[str], str | None]:
        """The uuids a session file copies from the sessions it continues, and the session
        it continues (the last to end of them); nothing when it continues none. A session
        the run leaves out (``ctx.since``) has no note to hold what it copies."""
        folder = path.parent
        index = self._firsts.get(folder)
        if index is None:
            index = self._firsts[folder] = _Firsts(folder)
        mine = index.of_file.get(path) or _first_conversation(path)  # (new since: read it)
        if mine is None:
            return set(), None
        firsts = index.by_uuid
        others = [(p, sid) for p, sid in firsts.get(mine[0], ()) if sid != mine[1] and p != path]
        if not others:
            return set(), None
        mine_last = index.last(path)
        if mine_last is None:
            return set(), None
        my_last = mine_last[0]
        inside = []  # (size, last line, id) of each file this one holds whole and goes past
        for other, sid in others:
            theirs = index.last(other)  # the cheap looks first: a tail, a search
            if theirs is None or theirs[0] == my_last or not _holds_line(path, theirs[0]):
                continue
            their_last = theirs[0]
            if _holds_line(other, my_last):
                continue  # it holds this file's end too: this one goes no further than it
            # (its last line's time is no later than its end: a doubt keeps the copy)
            if ctx is not None and ctx.since is not None and _left_out(ctx, other, theirs[1]):
                continue
            try:
                inside.append((other.stat().st_size, their_last, sid, other))
            except OSError:
                continue
        copied: set[str] = set()
        for _size, their_last, _sid, other in sorted(inside, reverse=True):
            if their_last not in copied:  # one resumed from another: held in the larger
                copied |= _uuids(other)
        # The session continued: the largest of them (a chain of resumes ends in it).
        return copied, max(inside)[2] if inside else None


class _Firsts:
    """A folder's session files by their first conversational line (uuid, session id), read
    once: each file's, and the files that open with each uuid; and, once asked for, each
    file's last conversational line (many sessions resumed from one: each is compared with
    every other, and a tail read for each pair made a first export grow with their square)."""

    def __init__(self, folder: Path) -> None:
        self.of_file: dict[Path, tuple[str, str]] = {}
        self.by_uuid: dict[str, list[tuple[Path, str]]] = {}
        self._lasts: dict[Path, tuple[str, Any] | None] = {}
        for entry in listed(folder):
            if entry.name.startswith("agent-") or not entry.name.endswith(".jsonl"):
                continue
            try:
                if not entry.is_file():
                    continue
            except OSError:
                continue
            path = Path(entry.path)
            first = _first_conversation(path)
            if first is not None:
                self.of_file[path] = first
                self.by_uuid.setdefault(first[0], []).append((path, first[1]))

    def last(self, path: Path) -> tuple[str, Any] | None:
        """``_last_conversation`` of a file, read once a run."""
        if path not in self._lasts:
            self._lasts[path] = _last_conversation(path)
        return self._lasts[path]
