"""One pass over a Claude Code session file (FORMATS.md §1): its JSON lines one at a time
(titles and summaries noted, unknown record types counted, a tool result's bulk let go),
what the pass gathers for the session (``MainFile``), and a streamed session's messages
read again. claude_code.py builds the sessions from them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import Problem, SourceChanged, clipped, how_many
from ..model import Message
from ._jsonl import iter_json_objects, parse_timestamp
from ._times import Times
from ._values import json_kind, tool_name
from .base import MessageSink
from .claude_client import entrypoint
from .claude_content import odd_block, odd_blocks
from .claude_discovery import SOURCE
from .claude_persisted import restore_persisted
from .claude_subagents import Sidechains, TaskIndex, known_uuid
from .claude_transcript import CONVERSATIONAL, Transcript, TranscriptBuilder, build_transcript

KNOWN_TYPES = CONVERSATIONAL | {
    "summary", "custom-title", "ai-title", "tag", "last-prompt", "agent-name",
    "agent-setting", "mode", "permission-mode", "pr-link", "bridge-session",
    "file-history-snapshot", "queue-operation", "turn_end", "worktree-state",
    "frame-link", "relocated", "started", "result", "atis-latch",
}  # fmt: skip


class FileMeta:
    """Session metadata lines (titles, summaries) seen while reading a file."""

    __slots__ = ("custom_title", "ai_title", "summaries", "lines")

    def __init__(self) -> None:
        self.custom_title: str | None = None
        self.ai_title: str | None = None
        self.summaries: list[tuple[str, str]] = []
        self.lines = 0  # the number of the last line read (a second reading stops there)

    @property
    def title(self) -> str | None:
        return self.custom_title or self.ai_title


class MainFile:
    """What one pass over a main session file gathers besides its titles: its session id,
    the main conversation, the Task calls and, for the sidechain layout, the sidechain
    lines (short agent conversations, kept to be grouped once the file is read). ``times``
    counts the times of the file that cannot be read."""

    __slots__ = (
        "session_id", "older", "transcript", "tasks", "side", "side_at", "any_sidechain",
        "main_conversation", "stream", "let_go", "keep", "times", "sidechains", "entrypoint",
    )  # fmt: skip

    def __init__(
        self, stream: bool = False, keep: MessageSink | None = None, times: Times | None = None
    ) -> None:
        self.session_id: str | None = None
        self.older: Path | None = None  # a newer copy of this session elsewhere
        self.times = times
        self.transcript = TranscriptBuilder(times)  # of the lines outside sidechains
        self.tasks = TaskIndex()
        self.side: list[dict[str, Any]] = []
        self.side_at: dict[int, int] = {}  # id of a line held -> its number (times tell it)
        self.any_sidechain = False
        self.sidechains = Sidechains()  # which lines are, and those that say it damaged
        self.main_conversation = False  # a user or assistant line outside sidechains
        self.stream = stream  # let each message go once made (counted in let_go)
        self.let_go = 0
        self.keep = keep  # given each message let go, to keep it instead of reading it again
        self.entrypoint: str | None = None  # the app the session was started in (its first)

    def add(self, rec: dict[str, Any]) -> None:
        locate = self.times.locate if self.times is not None else None
        flag = rec.get("isSidechain")  # (false on most lines: told without a call)
        sidechain = flag is not None and flag is not False and self.sidechains(rec, locate)
        self.tasks.add(rec, sidechain)
        if sidechain:
            self.any_sidechain = True
            if isinstance(rec.get("uuid"), str):
                self.side.append(rec)
                where = locate() if locate is not None else None
                if isinstance(where, int):
                    self.side_at[id(rec)] = where
                if self.times is not None and self.older is None:  # (read later, unreported)
                    time = rec.get("timestamp")
                    parse_timestamp(time) or self.times.unread(time)
            return
        if rec.get("type") in ("user", "assistant"):
            self.main_conversation = True
            if self.entrypoint is None:
                self.entrypoint = entrypoint(rec)
        if self.older is None:  # an older copy is read through (for its problems) only
            self.transcript.add(rec)
            if self.stream:
                closed = self.transcript.closed({})
                self.let_go += len(closed)
                if self.keep is not None:
                    self.keep.add(closed)

    def side_line(self, rec: dict[str, Any]) -> int | None:
        """The number of a sidechain line held (known by identity: it is held)."""
        return self.side_at.get(id(rec))


def transcribe(
    records: Iterator[dict[str, Any]],
    links: dict[str, str],
    stream: bool,
    locate: Callable[[], object] | None = None,
) -> tuple[Transcript, int]:
    """The transcript of ``records`` and its number of messages; when streaming, only the
    last messages are kept (the rest are counted and let go). ``locate`` tells the number
    of the line being read."""
    if not stream:
        transcript = build_transcript(records, links, locate)
        return transcript, len(transcript.messages)
    builder, let_go = TranscriptBuilder(locate=locate), 0
    for rec in records:
        builder.add(rec)
        let_go += len(builder.closed(links))
    transcript = builder.finish(links)
    return transcript, let_go + len(transcript.messages)


def without_lines(uuids: set[str], records: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The records but those of the given uuids (a Warmup agent's lines)."""
    return (r for r in records if not known_uuid(r.get("uuid"), uuids)) if uuids else records


def read_messages(
    path: Path,
    stop: int,
    links: dict[str, str],
    skip: set[str] | None,
    copied: set[str] | None = None,
) -> Iterator[Message]:
    """A streamed session's messages, read again as far as the first reading went (lines
    written since belong to the next run, which also sees them in the session's totals).
    ``skip``: None to read only the lines outside sidechains, else every line but those;
    ``copied``: the lines copied from the session this one continues, left out as well."""
    builder, meta, sidechain = TranscriptBuilder(), FileMeta(), Sidechains()
    for rec in without_lines(copied or set(), read_records(path, [], meta, stop)):
        if sidechain(rec) if skip is None else known_uuid(rec.get("uuid"), skip):
            continue
        builder.add(rec)
        yield from builder.closed(links)
    if meta.lines < stop:  # cut short or replaced since: its notes would lose turns
        raise SourceChanged(path, meta.lines, stop)
    yield from builder.finish(links).messages


def read_records(
    path: Path, problems: list[Problem], meta: FileMeta, stop: int | None = None
) -> Iterator[dict[str, Any]]:
    """The JSON objects of a file, one at a time; titles and summaries go to ``meta``. With
    ``stop``, only the lines up to that number."""
    unknown: dict[str, tuple[int, int]] = {}  # type -> (its first line, how many)
    for number, obj in iter_json_objects(path, problems, SOURCE, stop):
        kind = obj.get("type")
        if isinstance(kind, str) and kind in CONVERSATIONAL:
            pass  # most lines: none of the checks below applies
        elif kind == "custom-title" and isinstance(obj.get("customTitle"), str):
            meta.custom_title = obj["customTitle"].strip() or meta.custom_title
        elif kind == "ai-title" and isinstance(obj.get("aiTitle"), str):
            meta.ai_title = obj["aiTitle"].strip() or meta.ai_title
        elif kind == "summary" and isinstance(obj.get("summary"), str):
            meta.summaries.append((str(obj.get("leafUuid")), obj["summary"]))
        elif not isinstance(kind, str) or kind not in KNOWN_TYPES:
            key = clipped(kind)
            first, seen = unknown.get(key, (number, 0))
            unknown[key] = (first, seen + 1)
            if not isinstance(kind, str):
                continue  # a damaged line: nothing below can tell what it is
        if kind == "user":  # (an output too large for the transcript: made whole)
            restore_persisted(obj, path)
        if kind in ("user", "assistant"):
            whys, whole = _wrong_types(obj)
            for why in whys:  # a line dropped whole is named in its note, as a malformed one
                problems.append(Problem(str(path), why, number, source=SOURCE, left_out=whole))
        elif kind == "attachment":
            for why in _queued_wrong_types(obj.get("attachment")):
                problems.append(Problem(str(path), why, number, source=SOURCE))
        if "toolUseResult" in obj:
            # Only its agentId, the person's answers and decisions are read; the rest
            # repeats the tool's output (about half the bytes of a real transcript): not kept.
            obj["toolUseResult"] = _read_of_result(obj["toolUseResult"])
        meta.lines = number
        yield obj
    for kind, (first, count) in unknown.items():
        why = f"unknown record type {kind!r}{how_many(count, 'line')} skipped"
        problems.append(Problem(str(path), why, first, source=SOURCE))


def _read_of_result(rich: Any) -> dict[str, Any] | None:
    """What is read of a line's ``toolUseResult``: the agent a Task call started
    (``agentId``), the answers the person gave an ``AskUserQuestion`` call (``answers``,
    with the notes they added: ``annotations``), a plan they edited (``planWasEdited``), a
    shell command they stopped (``interrupted``, with ``stdout`` there: Bash's), and an
    edit they changed before accepting it (``userModified``, with what was written:
    ``filePath``, ``structuredPatch``, ``newString``, ``content``; claude_answers.py)."""
    if not isinstance(rich, dict):
        return None
    kept = {key: rich[key] for key in ("answers", "annotations") if isinstance(rich.get(key), dict)}
    if isinstance(rich.get("agentId"), str):
        kept["agentId"] = rich["agentId"]
    if rich.get("planWasEdited") is True:
        kept["planWasEdited"] = True
    if rich.get("interrupted") is True and "stdout" in rich:
        kept.update(interrupted=True, stdout="")  # (its output is the result's text)
    if rich.get("userModified") is True:
        kept["userModified"] = True
        kept.update({k: rich[k] for k in _WRITTEN if k in rich})
    return kept or None


_WRITTEN = ("filePath", "structuredPatch", "newString", "content")


def _wrong_types(obj: dict[str, Any]) -> tuple[list[str], bool]:
    """What of a prompt's or reply's line is of the wrong type (a damaged line), each left
    out and said: a message or its content that is no message, a block that is no object,
    a tool call's name that is not text (taken out: the call is shown as ``tool``, never
    as a Python repr); and whether that leaves nothing of the line (``Problem.left_out``):
    a message that is no object, a content that is neither text nor a list, or a list of
    which no block is an object. A line with a good block beside bad ones is read in part."""
    message = obj.get("message")
    if message is None:
        return [], False
    if not isinstance(message, dict):
        return [f"the message is {json_kind(message)}, not an object: left out"], True
    content = message.get("content")
    if content is None or isinstance(content, str):
        return [], False
    if not isinstance(content, list):
        return [
            f"the message's content is {json_kind(content)}, not text or a list: left out"
        ], True
    found = []
    for block in content:
        if not isinstance(block, dict):
            found.append(f"a content block is {json_kind(block)}, not an object: left out")
        elif block.get("type") in ("tool_use", "server_tool_use"):
            _name, why = tool_name(block.get("name"))
            if why:
                found.append(why)
                block["name"] = None
        else:
            found += odd_block(block)
    return found, bool(content) and not any(isinstance(block, dict) for block in content)


def _queued_wrong_types(attachment: Any) -> list[str]:
    """What of a queued prompt's blocks (a ``queued_command`` attachment's) is damaged and
    left out, as ``_wrong_types`` says it of a prompt's."""
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return []
    return odd_blocks(attachment.get("prompt"), "a queued prompt's block")
