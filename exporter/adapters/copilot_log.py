"""VS Code's chat session files: the ``.jsonl`` mutation log replayed, and the session
object (from the log or a flat ``.json``) turned into messages (FORMATS.md §5.2–§5.5).

The log's four entry kinds are replayed in full: 0 replaces the whole state (also when it
comes again later), 1 sets a value at a path (an empty path replaces the root), 2 truncates
the array at a path to ``i`` if given and then appends ``v``, 3 deletes a property. An entry
before the first kind 0, of an unknown kind, or whose path does not exist is reported with
its line number and skipped; the rest of the log still applies.
"""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path
from typing import Any

from ..errors import Problem
from ..model import (
    AttachmentPart,
    Message,
    NoticePart,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from ._jsonl import iter_jsonl, parse_timestamp
from .copilot_context import (
    edit_calls,
    elicitation_parts,
    model_calls,
    question_parts,
    variable_parts,
)

SOURCE = "copilot"
# Response parts that are progress, confirmations or bookkeeping, not conversation.
_UI_KINDS = {
    "progressMessage", "progressTaskSerialized", "confirmation",
    "command", "extensions", "pullRequest", "treeData", "hook",
    "mcpServersStarting", "disabledClaudeHooks", "prepareToolInvocation", "undoStop",
    "codeblockUri", "notebookEditGroup", "workspaceEdit", "multiDiffData",
    "clearToPreviousToolInvocation", "markdownVuln",
}  # fmt: skip
# An edit's code block: VS Code writes an empty fenced block around a codeblockUri part and
# shows the file edited in it; the block is left out (the edit is its own call).
_PILL = "\x00edit\x00"
_EDIT_PILL = re.compile(
    r"(?m)^[ \t]*(`{3,}|~{3,})[^\n]*\n\s*" + re.escape(_PILL) + r"\s*\1[ \t]*$\n?"
)
_TOOL_KINDS = ("toolInvocationSerialized", "toolInvocation")
_CANCELLED, _FAILED = 2, 3
_DENIED, _SKIPPED = (
    0,
    5,
)  # isConfirmed.type (ToolConfirmKind)  # modelState values (Pending 0, Complete 1, …)


class _Missing(Exception):
    pass


def _fits_root(kind: Any, entry: dict[str, Any], state: Any) -> bool:
    """A change of the whole session keeps its shape: one damaged line cannot replace it
    with something else."""
    if kind == 1:
        return isinstance(entry.get("v"), dict)
    return kind != 2 or isinstance(state, list)


def replay(path: Path, problems: list[Problem]) -> Any:
    """The session object a ``.jsonl`` mutation log describes (None if it never starts)."""
    state: Any = None
    for number, entry in iter_jsonl(path, problems, SOURCE):
        if not isinstance(entry, dict):
            problems.append(
                Problem(str(path), "not a JSON object, line skipped", number, source=SOURCE)
            )
            continue
        kind = entry.get("kind")
        kind = kind if type(kind) is int else None  # False == 0, but is no kind
        if kind == 0 and (state is None or isinstance(entry.get("v"), dict)):
            state = entry.get("v")
            continue
        if kind == 0:
            problems.append(
                Problem(str(path), "a new session that is not an object, skipped", number,
                        source=SOURCE)
            )  # fmt: skip
            continue
        if state is None:
            problems.append(
                Problem(
                    str(path),
                    "log entry before the initial state (kind 0), skipped",
                    number,
                    source=SOURCE,
                )
            )
            continue
        keys = entry.get("k") or []
        try:
            if not isinstance(keys, list) or (not keys and not _fits_root(kind, entry, state)):
                raise TypeError("a path that is not a list, or a root of the wrong type")
            if kind == 1:
                if not keys:
                    state = entry.get("v")
                else:
                    parent = _walk(state, keys[:-1])
                    _assign(parent, keys[-1], entry.get("v"))
            elif kind == 2:
                parent = _walk(state, keys[:-1]) if keys else None
                current = _read(parent, keys[-1]) if keys else state
                items = list(current) if isinstance(current, list) else []
                if isinstance(entry.get("i"), int):
                    del items[entry["i"] :]
                items.extend(entry.get("v") or [])
                if keys:
                    _assign(parent, keys[-1], items)
                else:
                    state = items
            elif kind == 3:
                parent = _walk(state, keys[:-1])
                if isinstance(parent, dict):
                    parent.pop(keys[-1], None)
                elif (
                    isinstance(parent, list)
                    and isinstance(keys[-1], int)
                    and keys[-1] < len(parent)
                ):
                    parent[keys[-1]] = None
            else:
                problems.append(
                    Problem(
                        str(path),
                        f"unknown log entry kind {kind!r}, skipped",
                        number,
                        source=SOURCE,
                    )
                )
        except (_Missing, IndexError, KeyError, TypeError):
            where = "/".join(str(k) for k in keys) if isinstance(keys, list) else repr(keys)
            problems.append(
                Problem(
                    str(path),
                    f"log entry for a path that does not exist ({where}), skipped",
                    number,
                    source=SOURCE,
                )
            )
    return state


def _walk(node: Any, keys: list[Any]) -> Any:
    for key in keys:
        node = _read(node, key)
        if node is None:
            raise _Missing
    return node


def _read(node: Any, key: Any) -> Any:
    if isinstance(node, dict) and isinstance(key, str):
        return node.get(key)
    if isinstance(node, list) and isinstance(key, int) and -len(node) <= key < len(node):
        return node[key]
    raise _Missing


def _assign(parent: Any, key: Any, value: Any) -> None:
    if isinstance(parent, dict) and isinstance(key, str):
        parent[key] = value
    elif isinstance(parent, list) and isinstance(key, int) and key <= len(parent):
        if key == len(parent):
            parent.append(value)
        else:
            parent[key] = value
    else:
        raise _Missing


def session_messages(
    data: dict[str, Any], unknown: set[str] | None = None
) -> tuple[list[Message], list[str]]:
    """The requests of a session object, in order, as messages; plus the models used.
    ``unknown`` collects the response part kinds not known here (left out, to report)."""
    messages: list[Message] = []
    models: list[str] = []
    for request in data.get("requests") or []:
        if (
            not isinstance(request, dict)
            or request.get("isHidden")
            or request.get("shouldBeRemovedOnSend")
        ):
            continue
        when = parse_timestamp(request.get("timestamp"))
        rid = request.get("requestId") if isinstance(request.get("requestId"), str) else None
        message = request.get("message")
        text = message.get("text") if isinstance(message, dict) else message
        if isinstance(text, str) and text.strip():
            parts_sent = (TextPart(text), *variable_parts(request))
            messages.append(Message("user", parts_sent, rid, when))
        model = request.get("modelId") if isinstance(request.get("modelId"), str) else None
        if model and model not in models:
            models.append(model)
        parts, results = _response(
            request.get("response"),
            model_calls(request),
            unknown,
            rid or f"request {len(messages)}",
        )
        parts += _outcome(request)
        answered = _answered_at(request, when)
        if parts:
            messages.append(
                Message(
                    "assistant", tuple(parts), request.get("responseId") or rid, answered, model
                )
            )
        if results:
            messages.append(Message("tool", tuple(results), rid, answered))
    return messages, models


def _paired(response: list[Any], calls: list[tuple[Any, str | None]]) -> dict[int, Any]:
    """Tool invocation (by position in ``response``) -> the model's call it shows. The ids
    differ, so they are paired by order, and only when every invocation the model made has
    its call (VS Code's own ``*_internal`` invocations are not the model's)."""
    made = [
        i
        for i, part in enumerate(response)
        if isinstance(part, dict)
        and part.get("kind") in _TOOL_KINDS
        and not str(part.get("toolId") or "").endswith("_internal")
    ]
    return dict(zip(made, calls, strict=True)) if len(made) == len(calls) else {}


def _response(
    response: Any,
    calls: list[tuple[Any, str | None]],
    unknown: set[str] | None = None,
    request_id: str = "request",
) -> tuple[list[Part], list[Part]]:
    response = response if isinstance(response, list) else []
    paired = _paired(response, calls)
    parts: list[Part] = []
    results: list[Part] = []
    text: list[str] = []
    edits: list[dict[str, Any]] = []

    def flush() -> None:
        joined = _EDIT_PILL.sub("\n", "".join(text)).replace(_PILL, "")  # paragraphs apart
        if joined.strip():
            parts.append(TextPart(joined))
        text.clear()

    for index, part in enumerate(response):
        if isinstance(part, str):
            text.append(part)
            continue
        if not isinstance(part, dict):
            continue
        kind = part.get("kind")
        if kind is None or kind == "markdownContent":
            value = part.get("value") if "value" in part else part.get("content")
            if isinstance(value, dict):
                value = value.get("value")
            if isinstance(value, str):
                text.append(value)
        elif kind == "inlineReference":
            text.append(f"`{_reference_name(part)}`")
        elif kind == "thinking":
            flush()
            value = part.get("value")
            thought = "".join(value) if isinstance(value, list) else value
            if isinstance(thought, str) and thought.strip():
                parts.append(ThinkingPart(thought))
        elif kind in _TOOL_KINDS:
            if part.get("presentation") == "hidden":
                continue
            flush()
            call, returned = _tool(part, paired.get(index))
            parts.append(call)
            results += returned
        elif kind == "textEditGroup":
            edits.append(part)
        elif kind in ("questionCarousel", "elicitationSerialized"):
            flush()
            ask = question_parts if kind == "questionCarousel" else elicitation_parts
            call, result = ask(part, f"{request_id}:{index}")  # the part's place: its id
            parts.append(call)
            if result:
                results.append(result)
        elif kind == "codeblockUri" and part.get("isEdit"):
            text.append(_PILL)  # where VS Code shows the edited file in an empty code block
        elif kind == "warning":
            flush()
            parts.append(NoticePart("error", _string(part.get("content"))))
        elif unknown is not None and not (isinstance(kind, str) and kind in _UI_KINDS):
            unknown.add(str(kind)[:80])  # a newer kind: reported, in case it held conversation
        # everything else (progress, confirmations, UI bookkeeping) is not conversation
    flush()
    parts += edit_calls(edits)  # after the text, whose code fences may surround them
    return parts, results


def _tool(
    part: dict[str, Any], made: tuple[Any, str | None] | None = None
) -> tuple[ToolCallPart, list[Part]]:
    """A tool invocation; ``made`` (the model's own call: arguments and the result it read)
    fills in what the invocation, written for display, does not hold."""
    name = str(part.get("toolId") or "tool")
    call_id = part.get("toolCallId") if isinstance(part.get("toolCallId"), str) else None
    description = (
        _string(part.get("pastTenseMessage")) or _string(part.get("invocationMessage")) or None
    )
    specific = (
        part.get("toolSpecificData") if isinstance(part.get("toolSpecificData"), dict) else {}
    )
    details = part.get("resultDetails")
    tool_input: Any = None
    output = ""
    is_error = False
    media: list[AttachmentPart] = []  # images (or other bytes) the tool returned
    if specific.get("kind") == "terminal":
        line = specific.get("commandLine") or specific.get("command")  # the latter: older
        command = (
            (line.get("userEdited") or line.get("toolEdited") or line.get("original"))
            if isinstance(line, dict)
            else line
        )
        tool_input = {"command": command}
    elif specific.get("kind") == "input":
        tool_input = specific.get("rawInput")
    if isinstance(details, dict):
        if tool_input is None:
            tool_input = details.get("input")
        out = details.get("output")
        if isinstance(out, list):
            texts = []
            for item in out:
                binary = _binary(item, "value") if isinstance(item, dict) else None
                if binary:
                    media.append(binary)
                else:
                    texts.append(_string(item.get("value") if isinstance(item, dict) else item))
            output = "\n".join(t for t in texts if t)
        elif isinstance(out, dict) and out.get("type") == "data":
            binary = _binary(out, "base64Data")
            if binary:
                media.append(binary)
            else:
                output = f"[{out.get('mimeType', 'binary')} data]"
        else:
            output = _string(out)
        is_error = bool(details.get("isError"))
    elif isinstance(details, list):
        output = "\n".join(p for p in (_uri_path(d) for d in details) if p)
    if made is not None:
        if tool_input is None and made[0] is not None:
            tool_input = made[0]
        if made[1] and (not output or isinstance(details, list)):
            output = made[1]  # what the tool returned, not the places VS Code listed
    call = ToolCallPart(name, tool_input if tool_input is not None else {}, call_id, description)
    refused = _refused(part.get("isConfirmed"))
    if refused and not output:
        return call, [ToolResultPart(refused, call_id, True)]
    if not output and not is_error:
        return call, [*media]  # an image alone: no empty output beside it
    return call, [ToolResultPart(output, call_id, is_error), *media]


def _binary(item: dict[str, Any], key: str) -> AttachmentPart | None:
    """Bytes a tool returned as base64 (``{type: 'data', mimeType, base64Data}``, or an
    ``embed`` output item that is not text): an attachment, never base64 in the note."""
    mime = item.get("mimeType") if isinstance(item.get("mimeType"), str) else None
    if item.get("isText") is True or not mime or mime.startswith("text/"):
        return None
    value = item.get(key)
    if not isinstance(value, str) or not value:
        return None
    try:
        return AttachmentPart(mime, base64.b64decode(value, validate=True))
    except (binascii.Error, ValueError):
        return None


def _refused(confirmed: Any) -> str | None:
    """Why a tool call did not run, from ``isConfirmed``: ``false`` before VS Code 1.104,
    then ``{type: ToolConfirmKind}`` (0 Denied, 5 Skipped; the others ran)."""
    kind = confirmed.get("type") if isinstance(confirmed, dict) else None
    if confirmed is False or kind == _DENIED:
        return "denied by the user"
    if kind == _SKIPPED:
        return "skipped by the user"
    return None


def _outcome(request: dict[str, Any]) -> list[Part]:
    state = request.get("modelState")
    value = state.get("value") if isinstance(state, dict) else None
    result = request.get("result") if isinstance(request.get("result"), dict) else {}
    error = result.get("errorDetails") if isinstance(result.get("errorDetails"), dict) else None
    if value == _CANCELLED or request.get("isCanceled") is True:
        return [NoticePart("interrupted", "cancelled")]
    if value == _FAILED or error:
        return [NoticePart("error", _string((error or {}).get("message")) or "the request failed")]
    return []


def _answered_at(request: dict[str, Any], sent: Any) -> Any:
    state = request.get("modelState")
    done = parse_timestamp(state.get("completedAt")) if isinstance(state, dict) else None
    if done:
        return done
    result = request.get("result") if isinstance(request.get("result"), dict) else {}
    timings = result.get("timings") if isinstance(result.get("timings"), dict) else {}
    elapsed = timings.get("totalElapsed")
    if sent and isinstance(elapsed, int | float):
        from datetime import timedelta

        return sent + timedelta(milliseconds=elapsed)
    return sent


def last_activity(data: dict[str, Any]) -> Any:
    times = [
        _answered_at(r, parse_timestamp(r.get("timestamp")))
        for r in data.get("requests") or []
        if isinstance(r, dict)
    ]
    times = [t for t in times if t]
    return max(times) if times else parse_timestamp(data.get("lastMessageDate"))


def _reference_name(part: dict[str, Any]) -> str:
    if isinstance(part.get("name"), str) and part["name"]:
        return part["name"]
    ref = part.get("inlineReference")
    if isinstance(ref, dict) and "uri" in ref and isinstance(ref["uri"], dict):
        ref = ref["uri"]
    if isinstance(ref, dict) and isinstance(ref.get("name"), str):
        return ref["name"]
    path = _uri_path(ref)
    return path.rsplit("/", 1)[-1] if path else "reference"


def _uri_path(uri: Any) -> str:
    if isinstance(uri, dict):
        if isinstance(uri.get("uri"), dict):
            uri = uri["uri"]
        path = uri.get("path") or uri.get("fsPath")
        return path if isinstance(path, str) else ""
    if isinstance(uri, str):
        from .vscode import path_from_uri

        return path_from_uri(uri)
    return ""


_FILE_LINK = re.compile(r"\[([^\]]*)\]\(((?:file|vscode-remote|vscode-userdata)://[^)\s]*)\)")


def _string(value: Any) -> str:
    """A plain or markdown string; links to local files become their names."""
    if isinstance(value, dict):
        value = value.get("value")
    if not isinstance(value, str):
        return ""
    if "](" in value:
        value = _FILE_LINK.sub(
            lambda m: m.group(1) or _uri_path(m.group(2)).rsplit("/", 1)[-1], value
        )
    return value
