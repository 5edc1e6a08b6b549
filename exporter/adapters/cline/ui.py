"""``ui_messages.json`` of a task folder: the conversation as the person saw it (FORMATS.md
§6.2, ``ClineMessage[]``; Cline 3.x, Roo Code 3.x and Kilo Code 4.x write the same shape).

Each entry is ``{ts, type: "say"|"ask", say?|ask?, text?, images?, files?, reasoning?,
partial?}``; ``ts`` (epoch ms) is its identity. Streaming leftovers (``partial: true``) are
skipped. What each kind becomes is one row of ``_KINDS``; ``api_req_started`` carries the JSON
``{tokensIn, tokensOut, cacheWrites, cacheReads, cost, cancelReason?}`` of one request,
summed into the session's tokens and cost (a request the person cancelled leaves an
"interrupted" notice, one whose stream failed an error). Each entry also carries the context
truncation in force when it was made (``conversationHistoryDeletedRange``): where it grows, a
marker says which messages of its history the model no longer saw. Kinds that are bookkeeping
(checkpoints, retries, resume prompts) are in ``_IGNORED``; any other kind is counted and
reported. A call that did not run (rejected, or denied by Cline's command permissions) is
read in ``approvals.py``.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ...model import (
    AttachmentPart,
    CommandOutputPart,
    Message,
    NoticePart,
    Part,
    Role,
    SummaryPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from .._jsonl import parse_timestamp
from .._unanswered import noticed
from .._values import json_kind, some_text
from .approvals import denied, rejected
from .blocks import (
    Conversation,
    deleted_range,
    model_of,
    not_an_object,
    nothing_deleted,
    truncation_marker,
)
from .results import attachment_of
from .results import json_object as _object

# kind -> what it becomes: prompt, reply, question, thinking, tool, command, output, error…
_KINDS = {
    "task": "prompt", "user_feedback": "prompt", "user_feedback_diff": "edit",
    "text": "reply", "completion_result": "reply", "subtask_result": "subtask",
    "followup": "question", "plan_mode_respond": "question", "act_mode_respond": "question",
    "reasoning": "thinking",
    "tool": "tool", "browser_action_launch": "tool", "browser_action": "tool",
    "use_mcp_server": "mcp",
    "command": "command",
    "command_output": "output", "mcp_server_response": "output", "browser_action_result": "output",
    "error": "error", "api_req_failed": "api_error", "diff_error": "error",
    "clineignore_error": "error", "rooignore_error": "error", "mistake_limit_reached": "error",
    "command_permission_denied": "denied",
    "condense_context": "summary", "compaction": "summary", "condense": "summary",
    "summarize_task": "summary",
    "api_req_started": "usage", "subagent": "subagents", "new_task": "handoff",
}  # fmt: skip
_IGNORED = frozenset(
    {"api_req_finished", "api_req_retried", "api_req_retry_delayed", "api_req_deleted",
     "checkpoint_created", "checkpoint_saved", "resume_task", "resume_completed_task",
     "shell_integration_warning", "info", "task_progress", "deleted_api_reqs",
     "load_mcp_documentation", "mcp_server_request_started",
     "use_subagents", "subagent_usage", "hook_status", "hook_output",
     "auto_approval_max_req_reached", "new_task_started", "finishTask",
     "condense_context_error", "codebase_search_result", "api_req_rate_limit_wait",
     "generate_explanation", "tool_approval",
     "error_retry",  # a request retried (its failure, if final, is an api_req_failed)
     "mcp_notification", "payment_required_prompt", "request_limit_reached", "report_bug"}
)  # fmt: skip


def parse_ui(
    items: list[Any], id_prefix: str, model_at: Callable[[Any], str | None]
) -> tuple[Conversation, list[Any]]:
    """The messages of ``ui_messages.json`` and the timestamps it holds (first to last)."""
    out = Conversation()
    times: list[Any] = []
    open_call: str | None = None  # the command or MCP call whose output comes next
    open_task: str | None = None  # the newTask call whose subtask has not answered yet
    left_out: tuple[int, int] | None = None  # the truncation in force (its deleted range)
    answered: set[str | None] = set()  # the calls given a result
    waiting: list[int] = []  # the messages of the calls nothing but calls came after yet
    kept = False  # does the file mark a tool's question approved (``isAnswered``)?
    unapproved: set[int] = set()  # the messages of the tools' questions not marked so
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            not_an_object(out, item, number)
            waiting = []
            continue
        left_out = _truncation(out, item, number, left_out, id_prefix)
        if item.get("partial") is True:
            continue
        kind = item.get("say") if item.get("type") == "say" else item.get("ask")
        kind = kind if isinstance(kind, str) else f"({json_kind(kind)})"
        asks = item.get("type") == "ask" and kind == "tool"  # (a question: approve this?)
        kept = kept or asks and item.get("isAnswered") is True
        if kind not in _STILL_WAITING and _KINDS.get(kind) not in _CALLS:
            waiting = []
        what = _KINDS.get(kind)
        ts = item.get("ts")
        times.append(ts)
        when = parse_timestamp(ts) or out.times.unread(ts, f"message {number}")
        text = item.get("text") if isinstance(item.get("text"), str) else ""
        source_id = f"{id_prefix}{ts}"
        if what is None:
            if kind not in _IGNORED:
                out.skip(kind, number)
            continue
        if item.get("text") is not None and not isinstance(item.get("text"), str):
            out.odd.append((number, f"its text is {json_kind(item['text'])}, not text: left out"))
        role: Role = "assistant"
        parts: list[Part] = []
        if what == "usage":
            parts = _usage(out, text)
            if open_call and (refused := rejected(out.messages, open_call, text)):
                out.messages.append(Message("tool", (refused,), f"{source_id}:rejected", when))
        elif what == "prompt":
            role = "user"
            images = item.get("images") if isinstance(item.get("images"), list) else []
            parts = [TextPart(text)] if text.strip() else []
            parts += [a for a in map(_image, images) if a]
            files = item.get("files") if isinstance(item.get("files"), list) else []
            parts += [_file(f) for f in files if isinstance(f, str) and f.strip()]
        elif what == "edit":
            role = "user"
            parts = _user_edit(text)
        elif what == "reply":
            if kind == "completion_result":  # the flag Cline adds when the task changed files
                text = text.removesuffix(_CHANGES_FLAG)
            parts = [TextPart(text)] if text.strip() else []
        elif what == "question":
            parts = _question(text)
        elif what == "thinking":
            reasoning = text or item.get("reasoning")
            parts = (
                [ThinkingPart(reasoning)]
                if isinstance(reasoning, str) and reasoning.strip()
                else []
            )
        elif what in ("tool", "command", "mcp"):
            parts = _call(what, text, source_id)
            # (a call its entry gives the result of takes no output after it)
            has_result = any(isinstance(p, ToolResultPart) for p in parts)
            open_call = None if has_result else source_id
            if any(isinstance(p, ToolCallPart) and p.name == "newTask" for p in parts):
                open_task = source_id
        elif what == "subtask":
            # What the subtask (another agent) answered, shown in this task as it resumes
            # (Roo Code): the result of the newTask call that started it, not this model's.
            parts = [ToolResultPart(text, open_task)] if text.strip() else []
            open_task, role = None, "tool"
        elif what == "output":
            if _merge_output(out.messages, open_call, text):
                continue
            if open_call in answered:
                # Its call has its result already, and not just before (an entry between
                # them damaged or missing): output of no known call, so as not to replace it.
                open_call = None
            parts = [ToolResultPart(text, open_call)] if open_call else [CommandOutputPart(text)]
            role = "tool"
        elif what == "handoff":  # the new_task tool: the context handed to a new task
            info = _object(text)
            context = info.get("context") if info else text
            parts = (
                [ToolCallPart("new_task", {"context": context}, source_id)]
                if isinstance(context, str) and context.strip()
                else []
            )
        elif what == "subagents":
            parts = _subagents(text, source_id)
        elif what in ("error", "api_error"):  # (a request that failed, or Cline's own)
            app = what != "api_error"
            parts = [NoticePart("error", text, app=app)] if text.strip() else []
        elif what == "denied":
            parts, role = denied(out.messages, open_call, text, source_id)
        elif what == "summary":
            condensed = item.get("contextCondense")
            summary = condensed.get("summary") if isinstance(condensed, dict) else text
            if "contextCondense" in item and not isinstance(condensed, dict):
                shown = json_kind(condensed)
            elif isinstance(condensed, dict) and not isinstance(summary, str):
                shown = f"an object whose summary is {json_kind(summary)}"
            else:
                shown = None
            if shown:
                out.odd.append((number, f"its contextCondense is {shown}, not a summary: left out"))
            parts = [SummaryPart(summary)] if isinstance(summary, str) and summary else []
        if parts:
            model = (
                # FORMATS.md §6.2's order: the timeline, the index, then the entry's own
                (model_at(ts) or model_of(item.get("modelInfo"))) if role == "assistant" else None
            )
            out.add_model(model)
            out.messages.append(Message(role, tuple(parts), source_id, when, model))
            answered.update(p.call_id for p in parts if isinstance(p, ToolResultPart))
            if what in _CALLS:
                waiting.append(len(out.messages) - 1)
                if asks and item.get("isAnswered") is not True:
                    unapproved.add(len(out.messages) - 1)
    for at in waiting:
        out.messages[at] = _unanswered(out.messages[at], kept and at in unapproved)
    return out, times


# The calls the file ends with (several: calls made together, each its own entry): the
# entries that may follow them and still leave them waiting (the task reopened, an MCP
# request sent). Anything else, the next request above all
# (``api_req_started``, whose ``request`` holds the results), or a checkpoint Cline saves
# once a tool ran, says the call was answered or what became of it.
_CALLS = frozenset({"tool", "command", "mcp", "subagents"})
_STILL_WAITING = frozenset({"resume_task", "resume_completed_task", "mcp_server_request_started"})


def _unanswered(message: Message, asked: bool = False) -> Message:
    """An entry the file ends with, a call (or a batch of subagents) with no result: the
    session ended, or was read, before it returned. Cline keeps a tool's question
    (``ask``) as it was once the person answers, so whether it is still waiting for their
    approval or was approved and still runs, the file does not say: either way no result
    was recorded, and each call with none says so (a listing's, a finished subagent's
    result is in the entry itself). Roo Code (since February 2026) marks a tool's question
    ``isAnswered`` once approved, by the person or its auto-approval: in a file that marks
    them, one not marked (``asked``) still waits for the person, its tool not run."""
    answered = {p.call_id for p in message.parts if isinstance(p, ToolResultPart)}
    parts = noticed(message.parts, lambda call: call.call_id not in answered, lambda _: asked)
    return replace(message, parts=tuple(parts))


# Appended by Cline to a completion_result's text when the task changed files (its UI
# shows a button for them and strips it): not the model's words.
_CHANGES_FLAG = "HAS_CHANGES"


def _truncation(
    out: Conversation,
    item: dict[str, Any],
    number: int,
    before: tuple[int, int] | None,
    id_prefix: str,
) -> tuple[int, int] | None:
    """The deleted range in force from this entry on. Cline gives every entry the range in
    force when it was made (``conversationHistoryDeletedRange``), so the first entry with a
    range that leaves out more than the one before is where the context was truncated: a
    marker goes there, before it. An entry without one (made before any truncation, or by
    a build that did not record it) changes nothing, nor does a range that leaves out less
    (a checkpoint restored); an entry's ``conversationHistoryIndex`` (the last message of
    the model's history when it was made) says how many messages were sent."""
    value = item.get("conversationHistoryDeletedRange")
    if value is None or nothing_deleted(value):
        return before
    out.ranges_seen = True
    left_out = deleted_range(value)
    if left_out is None:
        out.bad_ranges.append(number)
        return before
    if before is None or left_out[1] > before[1]:
        last = item.get("conversationHistoryIndex")
        counted = isinstance(last, int) and not isinstance(last, bool)
        sent = last + 1 if counted and last > left_out[1] else None
        ts = item.get("ts")
        where = f"{id_prefix}{ts}:context"
        out.messages.append(truncation_marker(left_out, where, parse_timestamp(ts), sent))
    return left_out


def _usage(out: Conversation, text: str) -> list[Part]:
    """One request's tokens and cost, summed; a cancelled request leaves a notice."""
    info = _object(text)
    if not info:
        return []
    out.usage += Usage(
        _int(info.get("tokensIn")),
        _int(info.get("tokensOut")),
        _int(info.get("cacheReads")),
        _int(info.get("cacheWrites")),
    )
    if isinstance(info.get("cost"), int | float) and not isinstance(info.get("cost"), bool):
        out.cost = (out.cost or 0.0) + info["cost"]
    if info.get("cancelReason") == "user_cancelled":
        return [NoticePart("interrupted")]
    if info.get("cancelReason") == "streaming_failed":
        failed = info.get("streamingFailedMessage")
        return [NoticePart("error", failed if isinstance(failed, str) else "streaming failed")]
    # "retries_exhausted" (Cline 3.16-3.18, May to July 2025: the automatic retries failed)
    # leaves none: Cline then asks api_req_failed with the same error, which shows it.
    return []


def _user_edit(text: str) -> list[Part]:
    """``user_feedback_diff`` ``{tool, path, diff}``: the changes the person made in the diff
    editor to what the model wrote, before saving (Cline tells the model in the tool's
    result). The person's doing, so their turn: the diff, as a file named by its path."""
    info = _object(text)
    diff = info.get("diff") if info else None
    if not isinstance(diff, str) or not diff.strip():
        return []
    path = info.get("path") if isinstance(info.get("path"), str) else None  # type: ignore[union-attr]
    name = f"{path} (edited by the user)" if path else "edited by the user"
    return [AttachmentPart("text/x-diff", diff.encode(), name)]


def _subagents(text: str, call_id: str) -> list[Part]:
    """``subagent``: the status of a batch of subagents, ``{status, items[{index, prompt,
    status, result?, error?}]}``, the last (not partial) entry holding what each was asked
    and found. Each is a call with its prompt and, once it ended, its result or error
    (``use_subagents``, the request for approval, holds the prompts again and is skipped)."""
    info = _object(text)
    items = info.get("items") if info else None
    parts: list[Part] = []
    for n, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict) or not isinstance(item.get("prompt"), str):
            continue
        ident = f"{call_id}-{item.get('index', n)}"
        name = item.get("subagentName") if isinstance(item.get("subagentName"), str) else None
        parts.append(ToolCallPart("subagent", {"prompt": item["prompt"]}, ident, name))
        status = item.get("status")
        if status in ("completed", "failed", "timeout", "cancelled"):
            said = item.get("result") if status == "completed" else item.get("error")
            output = said if isinstance(said, str) else str(status)
            parts.append(ToolResultPart(output, ident, status != "completed"))
    return parts


def _question(text: str) -> list[Part]:
    """A question to the person: ``{question, options}`` or ``{response}``, or plain text."""
    info = _object(text)
    if info is None:
        return [TextPart(text)] if text.strip() else []
    said = info.get("question") or info.get("response") or ""
    offered = info.get("options")
    options = [o for o in offered if isinstance(o, str)] if isinstance(offered, list) else []
    if options:
        said = f"{said}\n\n" + "\n".join(f"- {o}" for o in options)
    return [TextPart(said)] if isinstance(said, str) and said.strip() else []


def _call(what: str, text: str, call_id: str) -> list[Part]:
    """A tool the model used: ``{tool, path, diff, content, …}`` (the ``content`` of a
    listing or search is its result), a command line, or an MCP call."""
    if what == "command":
        # Cline adds REQ_APP to the command it asks about when the model said it needs
        # approval (its UI strips it): not part of the command.
        command = text.removesuffix(_REQUIRES_APPROVAL)
        return [ToolCallPart("execute_command", {"command": command}, call_id)]
    info = _object(text)
    if info is None:
        return [ToolCallPart(what, text, call_id)] if text.strip() else []
    if what == "mcp":
        # (a name that is not text is passed over: never shown as a Python repr)
        name = "/".join(info[k] for k in ("serverName", "toolName") if some_text(info.get(k)))
        arguments = info.get("arguments")
        if isinstance(arguments, str):
            arguments = _object(arguments) or arguments
        return [ToolCallPart(name or "use_mcp_server", arguments or info, call_id)]
    name = info.pop("tool", None)
    if not some_text(name):
        name = info.pop("action", None)
    name = name if some_text(name) else what
    result = info.pop("content", None) if name not in _CONTENT_IS_INPUT else None
    if name == "readFile":
        result = None  # its ``content`` is only the file's absolute path
    parts: list[Part] = [ToolCallPart(name, info, call_id)]
    if isinstance(result, str) and result.strip():
        parts.append(ToolResultPart(result, call_id))
    return parts


_REQUIRES_APPROVAL = "REQ_APP"  # Cline's COMMAND_REQ_APP_STRING

# Tools whose ``content`` is what the model wrote (an input), not what it got back.
_CONTENT_IS_INPUT = frozenset({"newFileCreated", "editedExistingFile", "appliedDiff", "newTask"})


def _merge_output(messages: list[Message], call_id: str | None, text: str) -> bool:
    """Output streamed in pieces joins the previous piece of the same call."""
    if not messages or not call_id:
        return False
    last = messages[-1]
    part = last.parts[-1] if last.parts else None
    if isinstance(part, ToolResultPart) and part.call_id == call_id and last.role == "tool":
        merged = ToolResultPart(f"{part.output}\n{text}" if part.output else text, call_id)
        messages[-1] = Message(last.role, (*last.parts[:-1], merged), last.source_id,
                               last.timestamp, last.model)  # fmt: skip
        return True
    return False


def _file(path: str) -> Part:
    """A file the person attached: the entry holds its path, Cline read it when sending."""
    return AttachmentPart(mimetypes.guess_type(path)[0] or "application/octet-stream", None, path)


def _image(value: Any) -> Part | None:
    return attachment_of({"data": value}) if isinstance(value, str) else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
