"""What must be known of a whole Codex rollout before its records are read in order
(FORMATS.md §2.5–§2.9): whether prompts come from the UI's copies, which session_meta owns
the identity, which records at the start replay a fork's origin (dropped), and each
unified-exec command's own exit code and duration (its end event comes after its output),
the thread each ``spawn_agent`` call started (named after the call, or found among the
subagents' rollouts by its task); and the signatures by which a fork's replay is matched
against its origin."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from ..model import ToolResultPart
from .codex_items import (
    content_text,
    exec_end,
    item_call_id,
    polled_exit,
    polled_process,
    reasoning_texts,
)

Record = tuple[int, str, dict[str, Any], Any]
OriginLookup = Callable[[str], "list[tuple[str, str]] | None"]
# A thread -> the subagents' rollouts on disk that name it their parent, as (agent path,
# thread), in the order they began (codex_children.py)
ChildLookup = Callable[[str], "list[tuple[str | None, str]]"]
# A thread -> its rollout, if one is on disk (under the run's sources)
RolloutLookup = Callable[[str], "Path | None"]


def signatures(records: list[Record]) -> list[tuple[str, str]]:
    """The conversational items of a rollout, in order, as comparable signatures."""
    return [sig for rec in records if (sig := _signature(rec[1], rec[2])) is not None]


def _signature(kind: str, p: dict[str, Any]) -> tuple[str, str] | None:
    ptype = p.get("type")
    if kind == "response_item":
        if ptype == "message":
            return ("message:" + str(p.get("role")), content_text(p.get("content")))
        if ptype in ("function_call", "function_call_output", "custom_tool_call",
                     "custom_tool_call_output", "local_shell_call"):  # fmt: skip
            return (str(ptype), str(p.get("call_id")))
        if ptype == "reasoning":
            return ("reasoning", "\n".join(reasoning_texts(p)))
        if ptype in ("tool_search_call", "tool_search_output", "image_generation_call"):
            return (str(ptype), str(item_call_id(p)))
        if ptype == "web_search_call":
            return (str(ptype), str(p.get("action")))  # a replay copies the record as it was
        if ptype == "agent_message":
            return ("item:agent_message", f"{p.get('author')}>{p.get('recipient')}:"
                    + content_text(p.get("content")))  # fmt: skip
    elif kind == "inter_agent_communication":  # (the record an agent_message item is of)
        return ("item:agent_message", f"{p.get('author')}>{p.get('recipient')}:"
                + content_text(p.get("content")))  # fmt: skip
    elif kind == "event_msg" and ptype in ("user_message", "agent_message", "agent_reasoning"):
        return (str(ptype), str(p.get("message") or p.get("text") or ""))
    return None


@dataclass(slots=True)
class Scan:
    """What must be known of a whole rollout before its records are read in order."""

    has_user_events: bool = False  # prompts come from the UI's copies, not the model's
    has_compacted: bool = False
    first_meta: dict[str, Any] | None = None  # the first session_meta owns identity
    meta_line: int | None = None  # and its line
    origin_id: str | None = None  # the thread a fork copied
    skip: int = 0  # records at the start that replay the origin (dropped)
    kinds: dict[str, int] = field(default_factory=dict)  # kind -> the line it is first on
    last_line: int = 0  # later readings stop here (lines written since wait for next run)
    # Unified exec: an ``exec_command`` whose output came back while it ran (the model then
    # polls it with ``write_stdin``) has its own exit code and duration only in its
    # ``exec_command_end`` event, which may come after the output's message is made:
    # call_id -> (exit code, seconds), a few numbers per command.
    # A third value: no poll reported the command's exit (its failure is then its own).
    exec_ends: dict[str, tuple[int | None, float | None, bool]] = field(default_factory=dict)
    # A ``spawn_agent`` call -> the thread it started, as the rollout says it after the
    # call: the call's output (``{"agent_id": …}``), its ``collab_agent_spawn_end`` event
    # (``new_thread_id``) or its ``sub_agent_activity`` event (``started``: the call's id
    # as ``event_id``, ``agent_thread_id``); else, for an output naming the agent's task
    # (``{"task_name": "/root/…"}``), the subagent's rollout on disk that names this thread
    # its parent and that task its agent path. The call's message is made before any is read.
    spawned: dict[str, str] = field(default_factory=dict)
    # An image the model generated -> the file Codex saved it to (its
    # ``image_generation_end`` event's ``saved_path``; the event comes before the item).
    saved_images: dict[str, str] = field(default_factory=dict)
    # Each ``spawn_agent`` call -> why no note of its agent can be linked, in words: its
    # thread's rollout is not on disk, or nothing names the thread ("" when one should be).
    spawns: dict[str, str] = field(default_factory=dict)


def scan_rollout(
    prefix: Iterable[Record],
    records: Iterable[Record],
    origin: OriginLookup,
    children: ChildLookup | None = None,
    on_disk: RolloutLookup | None = None,
) -> Scan:
    """Scan a rollout: ``prefix`` is read only as far as identity and a fork's origin go,
    ``records`` (the same records, from the start) through; ``children`` is asked for the
    subagents' rollouts only when a ``spawn_agent`` call names its agent by task alone,
    ``on_disk`` whether the thread a call names has a rollout."""
    scan = Scan()
    first_at = origin_at = own = None
    for i, (number, kind, p, _) in enumerate(prefix):
        if first_at is None:
            if kind == "session_meta":
                first_at, scan.first_meta, own = i, p, p.get("id")
                scan.meta_line = number
            continue
        if kind == "session_meta" and p.get("id") not in (None, own):
            origin_at, scan.origin_id = i, str(p["id"]).lower()
            break
        if kind in ("response_item", "event_msg"):
            break
    history = None
    if first_at is not None:
        forked = scan.first_meta.get("forked_from_id") if scan.first_meta else None
        if scan.origin_id is None and isinstance(forked, str):
            scan.origin_id = forked.lower()
        history = origin(scan.origin_id) if scan.origin_id else None
    # A fork starts by replaying its origin: the records that match the origin's
    # conversation in order are dropped (when the origin is gone, nothing is).
    start = (origin_at if origin_at is not None else (first_at or 0)) + 1
    j, replaying = 0, bool(history)
    if replaying:
        scan.skip = start  # the session_meta lines of the copy, at least
    execs: set[str] = set()  # exec_command calls whose end event has not come (yet)
    processes: dict[str, str] = {}  # exec_command call -> its process, from its end event
    polls: dict[str, str] = {}  # write_stdin call -> the process it polled
    exits_polled: set[str] = set()  # processes whose exit a poll's output reported
    tasks: list[tuple[str, str]] = []  # (spawn_agent call, the task its output names)
    for i, (number, kind, p, _) in enumerate(records):
        if kind not in scan.kinds:
            scan.kinds[kind] = number
        scan.last_line = number
        if kind == "event_msg":
            etype = p.get("type")
            if etype == "user_message":
                scan.has_user_events = True
            elif etype == "exec_command_end" and execs:
                call_id = p.get("call_id")  # (a damaged line may hold a list here)
                if isinstance(call_id, str) and call_id in execs:
                    execs.discard(call_id)
                    # (without a process id no poll can be told to be its: its failure
                    # stays where a poll reports it, as before end events were read)
                    known = p.get("process_id") is not None
                    scan.exec_ends[call_id] = (*exec_end(p), known)
                    if known:
                        processes[call_id] = str(p["process_id"])
            elif etype == "collab_agent_spawn_end":
                _spawned(scan, p.get("call_id"), p.get("new_thread_id"))
            elif etype == "sub_agent_activity" and p.get("kind") == "started":
                _spawned(scan, p.get("event_id"), p.get("agent_thread_id"))
            elif etype == "image_generation_end":
                call_id, saved = p.get("call_id"), p.get("saved_path")
                if isinstance(call_id, str) and isinstance(saved, str) and saved.strip():
                    scan.saved_images[call_id] = saved
        elif kind == "response_item":
            ptype, name = p.get("type"), p.get("name")
            if ptype == "function_call" and name == "spawn_agent":
                if isinstance(p.get("call_id"), str):
                    scan.spawns[p["call_id"]] = ""
            elif ptype == "function_call_output" and _hashable(p.get("call_id")) in scan.spawns:
                _spawned(scan, p["call_id"], spawned_thread(p.get("output")))
                if (task := spawned_task(p.get("output"))) is not None:
                    tasks.append((p["call_id"], task))
            if ptype == "function_call" and name in ("exec_command", "write_stdin"):
                if isinstance(p.get("call_id"), str):
                    if name == "exec_command":
                        execs.add(p["call_id"])
                    elif (polled := polled_process(p)) is not None:
                        polls[p["call_id"]] = polled
            elif ptype == "function_call_output" and polls and _hashable(p.get("call_id")) in polls:
                if polled_exit(p.get("output")):
                    exits_polled.add(polls[p["call_id"]])
        elif kind == "compacted":
            scan.has_compacted = True
        if replaying and i >= start and history:
            sig = _signature(kind, p)
            if sig is None:
                continue
            try:
                j = history.index(sig, j) + 1
            except ValueError:
                replaying = False
                continue
            scan.skip = i + 1
    for call_id, process in processes.items():
        if process in exits_polled:
            code, seconds, _ = scan.exec_ends[call_id]
            scan.exec_ends[call_id] = (code, seconds, False)
    unlinked = [(call, task) for call, task in tasks if call not in scan.spawned]
    own = scan.first_meta.get("id") if scan.first_meta else None
    if unlinked and children is not None and isinstance(own, str):
        for call, thread in by_task(unlinked, children(own.lower()), scan.spawned).items():
            _spawned(scan, call, thread)
    named = dict(tasks)
    for call in scan.spawns:
        scan.spawns[call] = _unlinked(scan.spawned.get(call), named.get(call), on_disk)
    return scan


def _unlinked(thread: str | None, task: str | None, on_disk: RolloutLookup | None) -> str:
    """Why a ``spawn_agent`` call's agent has no note to link, in words ("" if it should)."""
    if thread is not None:
        if on_disk is None or on_disk(thread) is not None:
            return ""
        return f"no rollout of thread {thread} is on disk"
    if task is not None:
        return (f"its output names the agent by its task alone, and no rollout on disk names "
                f"this session its parent and {task} its agent path")  # fmt: skip
    return "the rollout names no thread it started"


def spawn_result(
    result: ToolResultPart, output: Any, thread: str | None, why: str
) -> ToolResultPart:
    """A ``spawn_agent`` call's result in words: the agent it started (its nickname, task and
    thread), and why no note of it is linked (``why``), in place of the JSON Codex wrote
    (``{"agent_id": …, "nickname": …}``, or ``{"task_name": …}``). Any other output (a
    failure's text, JSON with more in it) stays as written, the reason under it unless it
    names no agent at all (a spawn that failed says so itself)."""
    found = _output_object(output)
    if found and found.keys() <= {"agent_id", "task_name", "nickname"}:
        named = {k: v.strip() for k, v in found.items() if isinstance(v, str) and v.strip()}
        task, nickname, given = named.get("task_name"), named.get("nickname"), named.get("agent_id")
        details = [f"task {task}"] * bool(nickname and task)
        details += [f"thread {thread}"] if thread else [f"id {given}"] * bool(given)
        text = f"Spawned {nickname or task or 'an agent'}"
        text += f" ({', '.join(details)})." if details else "."
    else:
        text = result.output
    if why and (found or thread):  # (a failure's text says what became of the agent)
        text += ("\n\n" if text else "") + f"No link to its transcript: {why}."
    return replace(result, output=text)


_THREAD_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)


def spawned_thread(output: Any) -> str | None:
    """The thread a ``spawn_agent`` call started, from its output: the JSON text
    ``{"agent_id": "<thread id>", "nickname": …}`` (as text, or as the one text item of a
    list). A newer output names the agent by its task (``task_name``), not its thread: None."""
    found = _output_object(output).get("agent_id")
    return found if isinstance(found, str) else None


def spawned_task(output: Any) -> str | None:
    """The task a newer ``spawn_agent`` output names its agent by: ``{"task_name":
    "/root/reviewer", …}``, the agent's path (its parent's, then the task's name)."""
    found = _output_object(output).get("task_name")
    return found if isinstance(found, str) and found.strip("/ ") else None


def _output_object(output: Any) -> dict[str, Any]:
    """A call's output that is a JSON object (as text, or the one text item of a list)."""
    if isinstance(output, list):
        output = content_text(output)
    if not isinstance(output, str) or not output.startswith("{"):
        return {}
    try:
        parsed = orjson.loads(output)
    except orjson.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def by_task(
    calls: list[tuple[str, str]], children: list[tuple[str | None, str]], linked: dict[str, str]
) -> dict[str, str]:
    """The subagent each ``(call, task)`` started, among ``children`` (the rollouts naming
    this thread their parent, in the order they began: ``(agent path, thread)``): the first
    not linked yet whose agent path is the task. A task name used again (once its first
    agent was closed) makes several children: the n-th such call started the n-th. A call
    whose child is not on disk links nothing (nor is another child taken for it)."""
    taken = set(linked.values())
    found: dict[str, str] = {}
    for call, task in calls:
        thread = next((t for path, t in children if path == task and t not in taken), None)
        if thread is not None:
            found[call] = thread
            taken.add(thread)
    return found


def _spawned(scan: Scan, call_id: Any, thread: Any) -> None:
    """Note the thread a call started, when both are what they should be (a thread id)."""
    if isinstance(call_id, str) and isinstance(thread, str) and _THREAD_ID.fullmatch(thread):
        scan.spawned.setdefault(call_id, thread.lower())


def _hashable(value: object) -> str | None:
    """A call id to look up: a damaged record's list or object is none (and raised
    ``unhashable type`` for the whole rollout)."""
    return value if isinstance(value, str) else None
