"""VS Code's chat session object (replayed from its ``.jsonl`` log by ``copilot_replay``,
or a flat ``.json``) turned into messages (FORMATS.md §5.3–§5.5)."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import replace
from typing import Any

from ..errors import clipped
from ..model import (
    AttachmentPart,
    Message,
    NoticePart,
    NotRun,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from ._jsonl import parse_timestamp
from ._times import Times
from ._values import json_kind, tool_name
from .copilot_context import (
    damaged_variables,
    edit_calls,
    edit_path,
    elicitation_parts,
    is_edit,
    model_calls,
    question_parts,
    variable_parts,
)
from .copilot_rendered import prompt_text

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
# shows the file edited in it. The edit (its own call) goes where that block was, and the
# block is left out. A file edited with no such block: its edit goes where it was made.
_PILL = "\x00edit\x00"
_EDIT_PILL = re.compile(
    r"(?m)^[ \t]*(`{3,}|~{3,})[^\n]*\n((?:\s*" + re.escape(_PILL) + r")+)\s*\1[ \t]*$\n?"
)
_TOOL_KINDS = ("toolInvocationSerialized", "toolInvocation")
# What VS Code does not show of a tool call (``presentation``): "hidden", and
# "hiddenAfterComplete" once it is complete, as every saved one is. Copilot Chat hides its
# edit tools' calls (the edit is shown instead, by the textEditGroup parts the call streams
# after it; a failed edit streams none), VS Code a call a preToolUse hook denied and a
# terminal command it redirected to another tool.
_HIDDEN = ("hidden", "hiddenAfterComplete")
_EDIT_GROUPS = ("textEditGroup", "notebookEditGroup")
_EditKey = tuple[int | None, str]  # an edit call's: (the invocation that made it, the file)
_CANCELLED, _FAILED = 2, 3
_DENIED, _SKIPPED = (
    0,
    5,
)  # isConfirmed.type (ToolConfirmKind)  # modelState values (Pending 0, Complete 1, …)


def session_messages(
    data: dict[str, Any],
    unknown: set[str] | None = None,
    times: Times | None = None,
    skipped: list[tuple[int, str]] | None = None,
    odd: list[tuple[int, str]] | None = None,
) -> tuple[list[Message], list[str]]:
    """The requests of a session object, in order, as messages; plus the models used.
    ``unknown`` collects the response part kinds not known here (left out, to report),
    ``times`` the times that cannot be read, ``skipped`` (number, why) of each request of
    a shape no one expected (it costs that request, not the session), ``odd`` (number,
    why) of each value of a request that was damaged (it costs that value)."""
    messages: list[Message] = []
    models: list[str] = []
    times = times or Times()
    for number, request in enumerate(data.get("requests") or [], start=1):
        if (
            not isinstance(request, dict)
            or request.get("isHidden")
            or request.get("shouldBeRemovedOnSend")
        ):
            continue
        try:
            notes: list[str] = []
            made, model = _request_messages(number, request, len(messages), unknown, times, notes)
        except Exception as exc:  # noqa: BLE001  (a value of a type no one expected)
            if skipped is not None:
                skipped.append((number, clipped(f"{type(exc).__name__}: {exc}", 200)))
            continue
        if odd is not None:
            odd += [(number, why) for why in notes]
        messages += made
        if model and model not in models:
            models.append(model)
    return messages, models


def odd_tool_names(request: dict[str, Any]) -> list[str]:
    """Why each tool invocation of a request has a name (``toolId``) that is not text."""
    response = request.get("response")
    found = []
    for part in response if isinstance(response, list) else []:
        if isinstance(part, dict) and part.get("kind") in _TOOL_KINDS:
            _name, why = tool_name(part.get("toolId"))
            if why:
                found.append(why)
    return found


def _request_messages(
    number: int,
    request: dict[str, Any],
    before: int,
    unknown: set[str] | None,
    times: Times,
    notes: list[str] | None = None,
) -> tuple[list[Message], str | None]:
    """One request's messages (``before``: how many the session has before it) and model;
    ``notes`` gets why a damaged value of it was read otherwise or left out."""
    notes = [] if notes is None else notes
    messages: list[Message] = []
    stamp = request.get("timestamp")
    when = parse_timestamp(stamp) or times.unread(stamp, f"request {number}")
    rid = request.get("requestId") if isinstance(request.get("requestId"), str) else None
    said = len(notes)
    text = prompt_text(request.get("message"), notes)
    sent: list[Part] = [TextPart(text)] if text.strip() else []
    if sent or len(notes) > said:  # (a valid empty prompt's attachments make no turn; a
        sent += variable_parts(request)  # damaged prompt's are kept, the damage was said)
    notes += damaged_variables(request)
    if sent:
        messages.append(Message("user", tuple(sent), rid, when))
    model = request.get("modelId") if isinstance(request.get("modelId"), str) else None
    parts, results = _response(
        request.get("response"),
        model_calls(request),
        unknown,
        rid or f"request {before + len(messages)}",
        notes,
    )
    parts += _outcome(request)
    answered = _answered_at(request, when, times, f"request {number}")
    if parts:
        response_id = request.get("responseId")
        response_id = response_id if isinstance(response_id, str) and response_id else rid
        messages.append(Message("assistant", tuple(parts), response_id, answered, model))
    if results:
        messages.append(Message("tool", tuple(results), rid, answered))
    return messages, model


def _paired(response: list[Any], calls: list[tuple[Any, str | None]]) -> dict[int, Any]:
    """Tool invocation (by position in ``response``) -> the model's call it shows. The ids
    differ, so they are paired by order, and only when every invocation the model made has
    its call (VS Code's own ``*_internal`` invocations are not the model's)."""
    made = _model_invocations(response)
    return dict(zip(made, calls, strict=True)) if len(made) == len(calls) else {}


def _model_invocations(response: list[Any]) -> list[int]:
    """Where the tool invocations of the model's calls are in ``response``."""
    return [
        i
        for i, part in enumerate(response)
        if isinstance(part, dict) and part.get("kind") in _TOOL_KINDS and not _internal(part)
    ]


def _internal(part: dict[str, Any]) -> bool:
    """VS Code's own invocation inside a model's call (Copilot's insert_edit_into_file runs
    ``vscode_editFile_internal``), not a call of the model's."""
    return str(part.get("toolId") or "").endswith("_internal")


def _edits_after(response: list[Any]) -> dict[int, tuple[bool, bool]]:
    """Model's invocation (by position) -> (whether a ``textEditGroup`` of a file follows it
    before the next one, whether any edit group does): the edits its call streamed."""
    made = _model_invocations(response)
    found = {}
    for at, end in zip(made, [*made[1:], len(response)], strict=False):
        groups = [
            part
            for part in response[at + 1 : end]
            if isinstance(part, dict) and part.get("kind") in _EDIT_GROUPS
        ]
        text = any(g.get("kind") == "textEditGroup" and edit_path(g) for g in groups)
        found[at] = (text, bool(groups))
    return found


def _response(
    response: Any,
    calls: list[tuple[Any, str | None]],
    unknown: set[str] | None = None,
    request_id: str = "request",
    notes: list[str] | None = None,
) -> tuple[list[Part], list[Part]]:
    response = response if isinstance(response, list) else []
    notes = [] if notes is None else notes
    paired = _paired(response, calls)
    streamed = _edits_after(response)
    parts: list[Part] = []
    results: list[Part] = []
    text: list[str] = []
    edits: list[tuple[int | None, dict[str, Any]]] = []  # (its owner, the group)
    # A hidden invocation whose call's edits are shown (by the groups after it): the owner
    # of those edits, which carry its name, id and result. Position -> the invocation.
    owners: dict[int, dict[str, Any]] = {}
    owner: int | None = None  # the owner of the edit groups read now
    pills: list[_EditKey | None] = []  # the edit call of each edit's place, in order
    placed: dict[_EditKey, int] = {}  # edit call -> where in ``parts`` it goes
    pilled: set[_EditKey] = set()  # the edit calls that have their place

    def place(path: str | None) -> None:
        """Mark the place of a file's edit in the text (its first one; a later one of the
        same file by the same call, merged into that call, only has its code block left
        out)."""
        text.append(_PILL)
        key = (owner, path) if path else None
        pills.append(key if key and key not in pilled else None)
        if key:
            pilled.add(key)

    def flush() -> None:
        joined = _EDIT_PILL.sub(lambda m: "\n" + m[2].strip() + "\n", "".join(text))
        pieces = joined.split(_PILL)  # (paragraphs apart where a code block was)
        for number, piece in enumerate(pieces):
            if number:
                path = pills.pop(0)
                if path:
                    placed[path] = len(parts)
                piece = piece.lstrip("\n")  # the lines around the code block, not text
            if number < len(pieces) - 1:
                piece = piece.rstrip("\n")
            if piece.strip():
                parts.append(TextPart(piece))
        text.clear()

    for index, part in enumerate(response):
        if isinstance(part, str):
            text.append(part)
            continue
        if not isinstance(part, dict):
            notes.append(f"response part {index + 1} is {json_kind(part)}, not an object: left out")
            continue
        kind = part.get("kind")
        if kind is None or kind == "markdownContent":
            value = part.get("value") if "value" in part else part.get("content")
            if isinstance(value, dict):
                value = value.get("value")
            if isinstance(value, str):
                text.append(value)
            elif unknown is not None and kind is None:  # (no kind, and no text to show)
                unknown.add("a part with no kind and no text")
        elif kind == "inlineReference":
            text.append(f"`{_reference_name(part)}`")
        elif kind == "thinking":
            flush()
            value = part.get("value")
            thought = "".join(value) if isinstance(value, list) else value
            if isinstance(thought, str) and thought.strip():
                parts.append(ThinkingPart(thought))
        elif kind in _TOOL_KINDS:
            hidden = part.get("presentation") in _HIDDEN
            if _internal(part) and hidden:
                continue  # (inside the model's call before it, which is shown)
            text_edits, any_edits = streamed.get(index, (False, False))
            if not _internal(part):
                owner = index if hidden and text_edits else None
            if owner == index:
                owners[index] = part  # its edits show it: its call goes where they are
                continue
            flush()
            made = paired.get(index)
            # A hidden edit call that streamed no edit edited nothing: Copilot Chat's edit
            # tools stream each file they changed, and return the error for one they could
            # not (the model read it: the call failed).
            failed = hidden and not any_edits and bool(made and made[1] and is_edit(made[0]))
            call, returned = _tool(part, made, failed)
            parts.append(call)
            results += returned
        elif kind == "textEditGroup":
            edits.append((owner, part))
            path = edit_path(part)
            if not path:
                uri = part.get("uri")
                why = f"its uri is {json_kind(uri)}" if "uri" in part else "it has no uri"
                notes.append(f"response part {index + 1}: an edit of no file ({why}): left out")
            if path and (owner, path) not in pilled:
                place(path)  # no code block shown for it: the edit is where it was made
        elif kind in ("questionCarousel", "elicitationSerialized"):
            flush()
            ask = question_parts if kind == "questionCarousel" else elicitation_parts
            call, result = ask(part, f"{request_id}:{index}")  # the part's place: its id
            parts.append(call)
            if result:
                results.append(result)
        elif kind == "codeblockUri" and part.get("isEdit"):
            place(edit_path(part))  # where VS Code shows the edited file, in a code block
        elif kind == "warning":  # (not an error: shown as Gemini's and Copilot CLI's are)
            flush()
            parts.append(NoticePart("notification", _string(part.get("content"))))
        elif unknown is not None and not (isinstance(kind, str) and kind in _UI_KINDS):
            unknown.add(str(kind)[:80])  # a newer kind: reported, in case it held conversation
        # everything else (progress, confirmations, UI bookkeeping) is not conversation
    flush()
    asked = {at: paired[at][0] for at in owners if at in paired}  # (their model's calls)
    calls = list(edit_calls(edits, asked).items())
    named: set[int] = set()
    for order, ((at, _path), call) in enumerate(calls):
        if at is None:
            continue  # (no invocation made it: ``edit``)
        invocation, returned = _tool(owners[at], paired.get(at))
        if at in named:  # (another file of the same call: its result is under the first)
            calls[order] = (calls[order][0], replace(call, name=invocation.name))
            continue
        named.add(at)
        call = replace(call, name=invocation.name, call_id=invocation.call_id)
        calls[order] = (calls[order][0], call)
        results += returned
    # Each edit where it was first shown or made; inserted from the last place back, so the
    # places found before stay right (two at one place keep their order).
    at = [(placed.get(key, len(parts)), order) for order, (key, _) in enumerate(calls)]
    for where, order in sorted(at, reverse=True):
        parts.insert(where, calls[order][1])
    return parts, results


def _tool(
    part: dict[str, Any], made: tuple[Any, str | None] | None = None, failed: bool = False
) -> tuple[ToolCallPart, list[Part]]:
    """A tool invocation; ``made`` (the model's own call: arguments and the result it read)
    fills in what the invocation, written for display, does not hold. ``failed``: the call
    failed, though the invocation does not say so."""
    name, _why = tool_name(part.get("toolId"))  # (reported by ``odd_tool_names``)
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
    if not output and isinstance(specific.get("alternativeRecommendation"), str):
        output = specific["alternativeRecommendation"]  # (a terminal command not run: what
        # the model was told to use instead, all the tool returned)
    if made is not None:
        if tool_input is None and made[0] is not None:
            tool_input = made[0]
        if made[1] and (not output or isinstance(details, list)):
            output = made[1]  # what the tool returned, not the places VS Code listed
    call = ToolCallPart(name, tool_input if tool_input is not None else {}, call_id, description)
    refused = _refused(part.get("isConfirmed"), part.get("presentation"))
    if refused:  # it did not run, and did not fail (what VS Code told the model instead,
        # "The user chose to skip the tool call…", "Tool execution denied: …", is kept)
        why, not_run = refused
        return call, [ToolResultPart(output or why, call_id, not_run=not_run)]
    is_error = is_error or failed
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


def _refused(confirmed: Any, presentation: Any = None) -> tuple[str, NotRun] | None:
    """Why a tool call did not run, and by whom, from ``isConfirmed``: ``false`` before VS
    Code 1.104, then ``{type: ToolConfirmKind}`` (0 Denied, 5 Skipped; the others ran). A
    denied call VS Code hides (``presentation`` "hidden") was asked of no one: VS Code
    denies and hides a call a preToolUse hook did not permit."""
    kind = confirmed.get("type") if isinstance(confirmed, dict) else None
    if (confirmed is False or kind == _DENIED) and presentation == "hidden":
        return "denied before it ran", "denied"
    if confirmed is False or kind == _DENIED:
        return "denied by the user", "rejected"
    if kind == _SKIPPED:
        return "skipped by the user", "rejected"
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


def _answered_at(
    request: dict[str, Any], sent: Any, times: Times | None = None, where: str | None = None
) -> Any:
    state = request.get("modelState")
    stamp = state.get("completedAt") if isinstance(state, dict) else None
    done = parse_timestamp(stamp) or (times.unread(stamp, where) if times else None)
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
