"""Antigravity CLI (``agy``), Gemini CLI's successor: readable transcripts (FORMATS.md §6.1).

Where: ``<home>/.gemini/antigravity-cli/brain/<conversation-id>/.system_generated/logs/
transcript.jsonl``. Each line is a step ``{step_index, source, type, status, created_at,
content?, thinking?, tool_calls?, truncated_fields?}``:

- ``USER_INPUT``: the prompt inside ``<USER_REQUEST>``; a ``<USER_SETTINGS_CHANGE>`` block
  (a model switch) becomes a notice, and its new model is listed and is the model of the
  replies after it;
- ``PLANNER_RESPONSE``: a model turn (thinking, reply, tool calls whose argument values are
  JSON-encoded strings);
- any other step the model took (``VIEW_FILE``, ``RUN_COMMAND``, ``CODE_ACTION``, and types
  not seen yet) is a tool's output: it answers the oldest call still waiting, or stands as a
  call of its own named by the step type; a ``SYSTEM`` step of a type not known here is the
  harness's: a notification, never a call's answer;
- ``CHECKPOINT`` is a compaction summary; ``SYSTEM_MESSAGE`` and ``CONVERSATION_HISTORY``
  are injected context and are dropped;
- a field ``truncated_fields`` names was cut short in the log: a tool's output ends with a
  mark, any other text (and a reply's tool calls) is followed by ccexport's remark saying
  so, and a text cut to nothing is that remark alone.

The workspace (cwd) comes from ``cache/last_conversations.json`` (workspace -> conversation
id), which names only each workspace's latest conversation: an older conversation keeps
the folder an earlier run found (``SessionRef.recalls_facts``). Where no folder is known so,
the project (not the cwd: the transcript does not say where the agent ran) is the folder
holding every path the tool calls named (``antigravity_paths.py``). The encrypted ``.pb`` and
protobuf ``.db`` conversation stores are never read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlparse

import orjson

from ..errors import Problem
from ..model import (
    Message,
    NoticePart,
    Part,
    Session,
    SummaryPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from ._jsonl import iter_jsonl, parse_timestamp, read_index_json
from ._times import Times
from ._values import json_kind, listed_objects, quoted, tool_name, trimmed
from .antigravity_paths import folder_of_tool_paths
from .base import (
    FileStamp,
    LoadResult,
    SessionRef,
    SourceContext,
    index_unreadable,
    listed,
    project_name,
)

SOURCE = "antigravity"
TRANSCRIPT = Path(".system_generated") / "logs" / "transcript.jsonl"
INJECTED = {"SYSTEM_MESSAGE", "CONVERSATION_HISTORY"}
KNOWN = {*INJECTED, "USER_INPUT", "PLANNER_RESPONSE", "CHECKPOINT"}
_REQUEST = re.compile(r"<USER_REQUEST>\n?(.*?)\n?</USER_REQUEST>", re.S)
_SETTINGS = re.compile(r"<USER_SETTINGS_CHANGE>\n?(.*?)\n?</USER_SETTINGS_CHANGE>", re.S)
_MODEL = re.compile(r"`Model Selection` from (.+?) to (.+?)\.?$", re.M)
_NO_MODEL = "None"  # the "from" of the first selection
_TRUNCATED = "[cut short in Antigravity's log]"  # (in a tool's output, a code block)
_CUT = "Antigravity's log cut this {} short: the rest is not in it."  # (any other text)
_CUT_OUT = "Antigravity's log cut this {} to nothing: none of it is in it."  # (and nothing left)
WORKSPACES_GIVE = "working folders"  # what last_conversations.json gives its sessions


class AntigravityAdapter:
    name: ClassVar[str] = SOURCE
    label: ClassVar[str] = "Antigravity"
    env_vars: ClassVar[tuple[str, ...]] = ()
    # A transcript depends on its file (and the folder discovery found) alone: a worker
    # reads a unit ahead as the main process would.
    reads_alone: ClassVar[bool] = True

    def roots(self, ctx: SourceContext) -> list[Path]:
        return ctx.configured(SOURCE) or [ctx.home / ".gemini" / "antigravity-cli"]

    def discover(self, ctx: SourceContext) -> Iterator[SessionRef]:
        for root in self.roots(ctx):
            brain = root / "brain"
            if not brain.is_dir():
                continue
            workspaces, unread, damaged = _workspaces(root / "cache" / "last_conversations.json")
            for entry in listed(brain):
                transcript = Path(entry.path) / TRANSCRIPT
                if entry.is_dir() and transcript.is_file():
                    cwd = workspaces.get(entry.name)
                    extra = (f"cwd={cwd}",) if cwd else ()
                    stamp = FileStamp.of(transcript)
                    # The cache names only a workspace's latest conversation: an older one
                    # keeps the folder the last run found for it (and a damaged entry, which
                    # may have been this one's, is said with it).
                    why = unread or (None if cwd else damaged)
                    yield SessionRef(SOURCE, entry.name, stamp, (), extra, why, not cwd)

    def load(self, ref: SessionRef) -> LoadResult:
        result = LoadResult()
        steps, times, unread = [], [], Times()
        for number, obj in iter_jsonl(ref.main.path, result.problems, SOURCE):
            if isinstance(obj, dict) and isinstance(obj.get("type"), str):
                steps.append(obj)
                for why in [*_wrong_types(obj), *_unnamed_calls(obj)]:
                    result.problems.append(Problem(str(ref.main.path), why, number, source=SOURCE))
                stamp = obj.get("created_at")
                if when := parse_timestamp(stamp) or unread.unread(stamp, number):
                    times.append(when)
            else:
                why = "not a step (no type), line skipped"
                result.problems.append(
                    Problem(str(ref.main.path), why, number, source=SOURCE, left_out=True)
                )
        unread.report(result.problems, ref.main.path, SOURCE)
        messages, models = _messages(steps)
        if not messages:
            return result
        cwd = ref.fact("cwd")
        result.sessions.append(
            Session(
                source=SOURCE,
                session_id=ref.session_id,
                messages=tuple(messages),
                source_path=ref.main.path,
                project=project_name(cwd or folder_of_tool_paths(messages)),
                cwd=cwd,
                models=tuple(models),
                started_at=min(times, default=None),
                ended_at=max(times, default=None),
            )
        )
        return result


def _workspaces(path: Path) -> tuple[dict[str, str], Problem | None, Problem | None]:
    """conversation id -> workspace folder, from ``last_conversations.json``; why the file
    could not be read, when it is there; and the first entry that names no conversation
    (damaged: said with the conversations that find no folder, one of which it may be)."""
    doc, unread = read_index_json(SOURCE, path, WORKSPACES_GIVE, (dict, "an object of workspaces"))
    out, damaged = {}, None
    for workspace, conversation in (doc or {}).items():
        if isinstance(conversation, dict):
            conversation = conversation.get("id") or conversation.get("conversationId")
        if isinstance(conversation, str) and conversation and workspace:
            out[conversation] = _folder(workspace)
        elif damaged is None:
            entry = f"the entry of workspace {quoted(workspace)}"
            if not workspace:
                why = "an entry names no workspace"
            elif conversation in (None, ""):
                why = f"{entry} names no conversation"
            else:
                why = f"{entry} holds {json_kind(conversation)}, not the id of a conversation"
            damaged = index_unreadable(SOURCE, path, why, WORKSPACES_GIVE)
    return out, unread, damaged


def _folder(workspace: str) -> str:
    """A workspace given as a ``file://`` URI or a plain path, as a path."""
    if not workspace.startswith("file://"):
        return workspace
    path = unquote(urlparse(workspace).path)
    return path[1:] if re.match(r"^/[A-Za-z]:/", path) else path


def _messages(steps: list[dict[str, Any]]) -> tuple[list[Message], list[str]]:
    messages: list[Message] = []
    models: list[str] = []
    waiting: list[str] = []  # ids of calls not answered yet, oldest first
    # The model selected when each reply was written: the last switch's new model; before
    # the first switch, the model it switched from (replies up to it are given it then).
    model: str | None = None
    before_first_switch: list[int] = []  # indexes of the replies written before any switch
    for n, step in enumerate(steps):
        kind, source = step["type"], step.get("source")
        when = parse_timestamp(step.get("created_at"))
        sid = f"step-{step.get('step_index', n)}-{n}"
        content = step.get("content") if isinstance(step.get("content"), str) else ""
        if kind in INJECTED:
            continue
        if kind == "USER_INPUT":
            parts, switched = _user_parts(content)
            said = any(isinstance(p, TextPart) for p in parts)
            parts += _cuts(step, "content", "prompt", said)
            if switched and before_first_switch and switched[0][0] != _NO_MODEL:
                for i in before_first_switch:
                    messages[i] = replace(messages[i], model=switched[0][0])
                models.append(switched[0][0])
            if switched:
                model = switched[-1][1]
                before_first_switch = []
            models += [new for _, new in switched if new not in models]
            if parts:
                messages.append(Message("user", tuple(parts), sid, when))
        elif kind == "PLANNER_RESPONSE":
            parts = _planner_parts(step, sid, waiting)
            if parts:
                if model is None:
                    before_first_switch.append(len(messages))
                messages.append(Message("assistant", tuple(parts), sid, when, model))
        elif kind == "CHECKPOINT":
            summary = (SummaryPart(content),) if content.strip() else ()
            if said := (*summary, *_cuts(step, "content", "summary", bool(summary))):
                messages.append(Message("system", said, sid, when))
        elif source == "USER_EXPLICIT":
            continue  # (said by _wrong_types)
        elif source == "SYSTEM":  # the harness's own step, of a type not known here:
            # Shown as what it is, and it answers no call of the model's.
            notice = (NoticePart("notification", content.strip()),) if content.strip() else ()
            if said := (*notice, *_cuts(step, "content", "notice", bool(notice))):
                messages.append(Message("system", said, sid, when))
        elif not content.strip() and step.get("status") != "ERROR" and not _truncated(step):
            # An empty output (an empty folder, a command that printed nothing) still
            # answers its call: the next step's output belongs to the next call.
            if waiting:
                result = ToolResultPart("", waiting.pop(0))
                messages.append(Message("tool", (result,), sid, when))
        else:
            if _truncated(step):
                content = "\n".join(filter(None, (content.rstrip(), _TRUNCATED)))
            failed = step.get("status") == "ERROR"
            if waiting:
                result = ToolResultPart(content, waiting.pop(0), is_error=failed)
                messages.append(Message("tool", (result,), sid, when))
            else:  # output with no call announcing it: the step itself is the call
                call = ToolCallPart(kind.lower(), None, sid)
                result = ToolResultPart(content, sid, is_error=failed)
                messages.append(Message("assistant", (call, result), sid, when))
    return messages, models


def _user_parts(content: str) -> tuple[list[Part], list[tuple[str, str]]]:
    requests = _REQUEST.findall(content)
    opened = content.rpartition("</USER_REQUEST>")[2].partition("<USER_REQUEST>")
    if opened[1]:  # a request the log cut before its end: what of it is there
        requests.append(opened[2].removeprefix("\n"))
    settings = _SETTINGS.findall(content)
    text = "\n\n".join(map(trimmed, requests)) if requests or settings else trimmed(content)
    parts: list[Part] = [TextPart(text)] if text else []
    parts += [NoticePart("notification", s.strip()) for s in settings if s.strip()]
    models = [
        (m.group(1).strip(), m.group(2).strip()) for s in settings for m in _MODEL.finditer(s)
    ]  # (from, to) of each model switch
    return parts, models


def _planner_parts(step: dict[str, Any], sid: str, waiting: list[str]) -> list[Part]:
    parts: list[Part] = []
    thinking = step.get("thinking")
    if isinstance(thinking, str) and thinking.strip():
        parts.append(ThinkingPart(thinking))
    parts += _cuts(step, "thinking", "thinking", bool(parts))
    content = step.get("content")
    said = isinstance(content, str) and bool(content.strip())
    parts += [TextPart(content)] if said else []
    parts += _cuts(step, "content", "reply", said)
    calls = step.get("tool_calls")
    count = len(parts)
    for m, call in enumerate(calls if isinstance(calls, list) else []):
        if not isinstance(call, dict):
            continue
        args = _arguments(call.get("args"))
        summary = args.pop("toolSummary", None) if isinstance(args, dict) else None
        call_id = f"{sid}-call-{m}"
        waiting.append(call_id)
        description = summary if isinstance(summary, str) and summary.strip() else None
        parts.append(ToolCallPart(str(call.get("name") or "tool"), args, call_id, description))
    # Calls the log cut short (an argument's value ends mid-way, or calls are missing): said
    # after them as a cut reply is; which call was cut the step does not say.
    calls_said = len(parts) - count
    what = "tool call" if calls_said == 1 else "step's tool calls"
    return parts + list(_cuts(step, "tool_calls", what, bool(calls_said)))


def _wrong_types(step: dict[str, Any]) -> list[str]:
    """Why each value of a step that is of the wrong type is left out (a damaged line), and
    what a step of a type not known here holds that is not read."""
    found = []
    for key in ("content", "thinking"):
        value = step.get(key)
        if value is not None and not isinstance(value, str):
            found.append(f"its {key} is {json_kind(value)}, not text: left out")
    calls = listed_objects(step.get("tool_calls"), "its tool_calls", "tool call {n}", found)
    for m, call in calls:
        if call.get("args") is not None and not isinstance(call["args"], dict):
            found.append(f"tool call {m}'s args are {json_kind(call['args'])}, not an object")
    kind = step["type"]
    if kind not in KNOWN:
        # Read as a tool's output (or the harness's notice): its content alone; a step of
        # the person's not at all.
        held = [k for k in ("content", "thinking", "tool_calls") if step.get(k)]
        unread = held if step.get("source") == "USER_EXPLICIT" else held[held[:1] == ["content"] :]
        if unread:
            what = " and ".join(k.replace("_", " ") for k in unread)
            found.append(f"a step of a type not known here ({quoted(kind)}): "
                         f"its {what} left out")  # fmt: skip
    return found


def _unnamed_calls(step: dict[str, Any]) -> list[str]:
    """Why each tool call of a step has a name that is not text (a damaged line); such a
    name is taken out, so that the call is shown as ``tool``, never as a Python repr."""
    calls = step.get("tool_calls")
    found = []
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict):
            _name, why = tool_name(call.get("name"))
            if why:
                found.append(why)
                call["name"] = None
    return found


def _truncated(step: dict[str, Any], field: str = "content") -> bool:
    """The log cut this step's ``field`` short."""
    fields = step.get("truncated_fields")
    return isinstance(fields, list) and field in fields


def _cuts(step: dict[str, Any], field: str, what: str, kept: bool) -> tuple[NoticePart, ...]:
    """ccexport's word that the log cut this step's ``field`` (a ``what``) short, or, when
    nothing of it is ``kept``, to nothing (the field there, empty: the step still stood for
    a prompt, a reply...), set apart from the text: a remark, never a sentence of the
    person's, the model's or the harness's; nothing when the log did not cut it."""
    if not _truncated(step, field):
        return ()
    return (NoticePart("remark", (_CUT if kept else _CUT_OUT).format(what)),)


def _arguments(args: Any) -> Any:
    """Argument values are JSON-encoded strings (``"\\"/tmp/repo\\""``): decode each."""
    if not isinstance(args, dict):
        return args
    out = {}
    for key, value in args.items():
        if isinstance(value, str):
            try:
                value = orjson.loads(value)
            except orjson.JSONDecodeError:
                pass
        out[key] = value
    return out
