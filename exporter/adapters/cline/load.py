"""Loading one task folder (generations A/B) or one Cline 4 session folder (generation C)
into sessions; where the files are and what the index says arrive as the SessionRef's facts
(see ``__init__``)."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import Problem, clipped
from ...model import Message, Part, Session, TextPart, ToolCallPart, ToolResultPart
from .._jsonl import parse_timestamp
from .._unanswered import UNANSWERED
from ..base import SessionRef, open_regular
from ..vscode import project_of_path
from .document import read_document

if TYPE_CHECKING:
    from .blocks import Conversation

UI_FILE = "ui_messages.json"
API_FILE = "api_conversation_history.json"
METADATA_FILE = "task_metadata.json"
_CWD = re.compile(rb"Current (?:Working|Workspace) Directory \(([^)\n]{1,1000})\)")
# The environment block of the Cline 4 SDK's system prompt (its own template, kept in the
# messages file as ``system_prompt``): ``<env>`` … ``4. Working Directory: /path`` … ``</env>``.
_ENV_CWD = re.compile(
    r"<env>(?:(?!</env>).)*?^\d+\. Working Directory: ([^\n]{1,1000})$", re.S | re.M
)


def load_task(source: str, ref: SessionRef, problems: list[Problem]) -> Session | None:
    """A task folder: the UI transcript, else the model's history when the UI file is
    missing, unreadable or empty (each bad file reported)."""
    # The message parsers are imported when a task is read: discovery uses this module too.
    from .blocks import parse_messages, truncation_marker
    from .ui import parse_ui

    folder = ref.main.path.parent
    metadata = read_document(folder / METADATA_FILE, problems, source, required=False)
    model_at = _model_timeline(metadata, ref.fact("model"))
    prefix = f"{ref.session_id}:"
    left_out = _index_range(ref, problems, source)
    conversation, times = None, []
    ui = _read_list(folder / UI_FILE, problems, source)
    read = folder / UI_FILE
    if ui is not None:
        conversation, times = parse_ui(ui, prefix, model_at)
        if left_out and conversation.messages and not conversation.ranges_seen:
            # An older build records the truncation in its index only: not where it happened.
            marker = truncation_marker(left_out, f"{prefix}context", None, where="unknown")
            conversation.messages.append(marker)
    if conversation is None or not conversation.messages:
        api = _read_list(folder / API_FILE, problems, source)
        if api is not None:
            conversation = parse_messages(
                api, prefix, legacy=True, model_at=model_at, left_out=left_out
            )
            times = [m.timestamp for m in conversation.messages]  # (read already)
            read = folder / API_FILE
    if conversation is None:
        return None
    _report_skipped(conversation, read, problems, source)
    conversation.times.report(problems, read, source)
    cwd = ref.fact("cwd") or _cwd_from_api(folder / API_FILE)
    stamps = [t for t in (_read_time(t) for t in times) if t]
    if not stamps:  # the model's history of old builds has no times: the id and the index do
        created = ref.session_id if re.fullmatch(r"\d{13}", ref.session_id) else None
        known = [float(v) for v in (created, ref.fact("updated")) if v]
        stamps = [t for t in map(parse_timestamp, known) if t]
    return Session(
        source=source,
        session_id=ref.session_id,
        messages=tuple(conversation.messages),
        source_path=ref.main.path,
        title=ref.fact("title"),
        project=project_of_path(cwd),
        cwd=cwd,
        models=tuple(conversation.models),
        started_at=min(stamps) if stamps else None,
        # One time is when it began: its end is not known, and a span of no length
        # ("08:20 → 08:20") would say it was.
        ended_at=max(stamps) if stamps and max(stamps) > min(stamps) else None,
        usage=conversation.usage,
        cost=conversation.cost,
        extra={"starred": True} if ref.fact("starred") == "true" else {},
    )


def load_sdk(source: str, ref: SessionRef, problems: list[Problem]) -> list[Session]:
    folder = ref.main.path.parent
    manifest = read_document(folder / f"{ref.session_id}.json", problems, source, required=False)
    manifest = manifest if isinstance(manifest, dict) else {}
    odd = ref.fact("odd-metadata")
    if odd:  # the session's row in the index (sessions.db): said when it is read
        db, _, why = odd.partition("\t")
        said = (
            f"session {ref.session_id}: its metadata_json is {why}; the note has no title from it"
        )
        problems.append(Problem(db, said, None, "warning", source))
    root = _sdk_session(source, ref.main.path, ref.session_id, manifest, problems, ref.fact)
    # A main file that cannot be read (said) costs its own note, not its subagents': each
    # readable transcript is still a note, linked to the session that has none this run.
    children = []
    for stamp in ref.related:
        if stamp.path.name.endswith(".messages.json"):
            agent = stamp.path.name.removesuffix(".messages.json")
            child_id = f"{ref.session_id}/agent-{agent}"
            child = _sdk_session(
                source, stamp.path, child_id, manifest, problems, parent=ref.session_id,
                parent_cwd=root.cwd if root else None,
            )  # fmt: skip
            if child:
                children.append(child)
    if root is None:
        return children
    # The star of the index row's metadata, or of the manifest's (Cline writes both): read
    # from the manifest too, so a locked or lost index costs no star.
    if ref.fact("starred") == "true" or starred(manifest.get("metadata")):
        root = replace(root, extra={**root.extra, "starred": True})
    if children:
        root = replace(root, subagent_ids=tuple(c.session_id for c in children))
        root = replace(root, messages=tuple(linked_subagents(root.messages, children)))
    return [root, *children]


def starred(metadata: Any) -> bool:
    """Did the person star this Cline 4 session? Its metadata's ``isFavorited`` (Cline 4's
    history view writes the older index's name there; ``is_favorited`` is read too)."""
    if not isinstance(metadata, dict):
        return False
    return metadata.get("isFavorited") is True or metadata.get("is_favorited") is True


def linked_subagents(messages: Any, children: list[Session]) -> list[Message]:
    """The session's messages with each ``use_subagents`` call split into one call per task
    (``{tasks: [{prompt}, …]}``), each linked to the transcript whose first prompt is its
    prompt (each transcript taken once, in order). A call of one task keeps its result; the
    calls of several take each its subagent's last reply as their result, the batch's own
    result (what the model got, all of them together) staying on its own after them."""
    unclaimed = [(c.session_id, *_first_and_last(c)) for c in children]

    def claim(prompt: str) -> tuple[str, str | None] | None:
        for at, (child, first, last) in enumerate(unclaimed):
            if first == prompt.strip():
                del unclaimed[at]
                return child, last
        return None

    out = []
    for message in messages:
        if not any(isinstance(p, ToolCallPart) and _tasks(p) for p in message.parts):
            out.append(message)
            continue
        parts: list[Part] = []
        split = False  # the last part was a call split into its tasks
        for at, part in enumerate(message.parts):
            tasks = _tasks(part) if isinstance(part, ToolCallPart) else []
            if split and part == UNANSWERED:
                continue  # (said under each of its tasks that has no result)
            split = bool(tasks)
            if not isinstance(part, ToolCallPart) or not tasks:
                parts.append(part)
                continue
            # (no result of the batch: none of a task whose subagent said nothing either)
            waiting = message.parts[at + 1 : at + 2] == (UNANSWERED,)
            for n, task in enumerate(tasks, 1):
                found = claim(task["prompt"])
                one = len(tasks) == 1
                call_id = part.call_id if one or not part.call_id else f"{part.call_id}#{n}"
                child = found[0] if found else None
                parts.append(ToolCallPart(part.name, task, call_id, part.description, child))
                if not one and found and found[1] and call_id:
                    parts.append(ToolResultPart(found[1], call_id))
                elif waiting:
                    parts.append(UNANSWERED)
        out.append(replace(message, parts=tuple(parts)))
    return out


def _tasks(call: ToolCallPart) -> list[dict[str, Any]]:
    """The tasks of a ``use_subagents`` call, each with its prompt; none for another call,
    or for one whose tasks are not all such (it stays as it was written)."""
    given = call.input.get("tasks") if isinstance(call.input, dict) else None
    if call.name != "use_subagents" or not isinstance(given, list):
        return []
    tasks = [{"prompt": t} if isinstance(t, str) else t for t in given]
    if all(isinstance(t, dict) and isinstance(t.get("prompt"), str) for t in tasks):
        return tasks
    return []


def _agent_label(data: dict[str, Any]) -> str | None:
    """A subagent's name as its file gives it; Cline 4's bare role ("subagent", what every
    subagent file says) is no name: "Subagent (subagent) of …" said nothing."""
    agent = _str(data.get("agent"))
    return agent if agent and agent.lower() != "subagent" else None


def _first_and_last(child: Session) -> tuple[str | None, str | None]:
    """A subagent transcript's first prompt and its last reply."""
    first = last = None
    for message in child.messages:
        said = "\n".join(p.text for p in message.parts if isinstance(p, TextPart)).strip()
        if message.role == "user" and first is None and said:
            first = said
        elif message.role == "assistant" and said:
            last = said
    return first, last


def _sdk_session(
    source: str,
    path: Path,
    session_id: str,
    manifest: dict[str, Any],
    problems: list[Problem],
    fact: Callable[[str], str | None] = lambda name: None,
    parent: str | None = None,
    parent_cwd: str | None = None,
) -> Session | None:
    """One messages file; ``fact`` reads the session's index row, the manifest fills gaps
    (a subagent shares its session's manifest: same folder, same workspace; without one,
    and without a folder in its own system prompt, its session's folder is its own)."""
    from .blocks import parse_messages

    data = read_document(path, problems, source, in_part="messages")
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        if data is not None:
            problems.append(Problem(str(path), "not a Cline session file (no messages list)",
                                    None, "error", source))  # fmt: skip
        return None
    conversation = parse_messages(data["messages"], f"{session_id}:")
    _report_skipped(conversation, path, problems, source)
    cwd = (
        fact("cwd")
        or _str(manifest.get("cwd"))
        or _str(manifest.get("workspace_root"))
        or _cwd_from_prompt(data.get("system_prompt"))
        or parent_cwd
    )
    stamps = [m.timestamp for m in conversation.messages if m.timestamp]
    start, end = (
        fact("started") or manifest.get("started_at"),
        fact("ended") or data.get("updated_at"),
    )
    times = conversation.times
    started = None if parent else parse_timestamp(start) or times.unread(start, "started_at")
    ended = parse_timestamp(end) or times.unread(end, "updated_at")
    ended = max(stamps, default=None) or ended
    times.report(problems, path, source)
    model = fact("model") or _str(manifest.get("model"))
    return Session(
        source=source,
        session_id=session_id,
        messages=tuple(conversation.messages),
        source_path=path,
        title=fact("title"),
        project=project_of_path(cwd),
        cwd=cwd,
        models=tuple(conversation.models or ([model] if model else [])),
        started_at=started or min(stamps, default=None),
        ended_at=ended,
        usage=conversation.usage,
        cost=conversation.cost,
        parent_id=parent or fact("parent"),
        agent_label=_agent_label(data) if parent else None,
    )


def _index_range(ref: SessionRef, problems: list[Problem], source: str) -> tuple[int, int] | None:
    """The task's context truncation as its index entry gives it
    (``conversationHistoryDeletedRange``, a discovery fact); one that is not a pair of
    message indices is reported, naming the index and the task."""
    from .blocks import deleted_range, nothing_deleted

    value = ref.fact("deleted")
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if nothing_deleted(parsed):
        return None
    left_out = deleted_range(parsed)
    if left_out is None:
        index = ref.main.path.parent.parent.parent / "state" / "taskHistory.json"
        problems.append(
            Problem(str(index), f"task {ref.session_id}: conversationHistoryDeletedRange "
                    f"{clipped(value)} is not a pair of message indices [start, end]; the note "
                    "has no marker of that context truncation", None, "warning", source)
        )  # fmt: skip
    return left_out


def _model_timeline(metadata: Any, fallback: str | None) -> Any:
    """``model_at(ts)``: the ``task_metadata.json`` ``model_usage`` entry in force at a
    time, else the index's model."""
    entries = metadata.get("model_usage") if isinstance(metadata, dict) else None
    timeline = sorted(
        (e["ts"], e["model_id"])
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, dict)
        and isinstance(e.get("ts"), int | float)
        and isinstance(e.get("model_id"), str)
    )
    times = [t for t, _ in timeline]

    def model_at(ts: Any) -> str | None:
        if timeline and isinstance(ts, int | float):
            i = bisect.bisect_right(times, ts)
            return timeline[max(i - 1, 0)][1]
        return timeline[-1][1] if timeline else fallback

    return model_at


def _cwd_from_api(path: Path) -> str | None:
    """The working folder Cline names in its first ``<environment_details>``."""
    try:
        with open_regular(path) as f:
            match = _CWD.search(f.read(1 << 20))
    except OSError:
        return None
    if not match:
        return None
    try:
        return json.loads(b'"' + match.group(1) + b'"')  # the path is JSON-escaped here
    except ValueError:
        return match.group(1).decode("utf-8", "replace")


def _cwd_from_prompt(prompt: Any) -> str | None:
    """The working folder the SDK's system prompt names (``Working Directory:`` in its
    ``<env>`` block), for a session with neither an index row nor a manifest."""
    match = _ENV_CWD.search(prompt) if isinstance(prompt, str) else None
    return _str(match.group(1).strip()) if match else None


def _report_skipped(
    conversation: Conversation, path: Path, problems: list[Problem], source: str
) -> None:
    for number, why in conversation.odd:
        problems.append(Problem(str(path), f"message {number}: {why}", None, "warning", source))
    if conversation.skipped:
        first = conversation.first_skipped
        kinds = ", ".join(
            f"{k} ×{n} (message {first[k]})" if n == 1 else f"{k} ×{n} (first: message {first[k]})"
            for k, n in sorted(conversation.skipped.items())
        )
        problems.append(Problem(str(path), f"skipped entries of unknown kind: {kinds}", None,
                                "warning", source))  # fmt: skip
    bad = conversation.bad_ranges
    if bad:
        where = f"message {bad[0]}" if len(bad) == 1 else f"{len(bad)} messages, the first {bad[0]}"
        problems.append(
            Problem(str(path), f"a conversationHistoryDeletedRange that is not a pair of message "
                    f"indices [start, end] ({where}); the note has no marker of that context "
                    "truncation", None, "warning", source)
        )  # fmt: skip


def _read_list(path: Path, problems: list[Problem], source: str) -> list[Any] | None:
    """A task file that holds a list of messages; None, reported, when it does not."""
    value = read_document(path, problems, source, required=False)
    if value is not None and not isinstance(value, list):
        problems.append(
            Problem(str(path), "not a list of messages; skipped", None, "error", source)
        )
        return None
    return value


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _read_time(value: object) -> datetime | None:
    """A time of the UI transcript (as stored), or of a message of the model's history
    (read into a datetime already, which ``parse_timestamp`` would not take)."""
    return value if isinstance(value, datetime) else parse_timestamp(value)
