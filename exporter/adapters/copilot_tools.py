"""VS Code's tool invocations in a chat response (FORMATS.md §5.4): each as the model's tool
call and what it returned, paired with the call the model made (``toolCallRounds``), and
which of them VS Code hides; kept apart from ``copilot_log``, which reads the response."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from ..model import AttachmentPart, NotRun, Part, ToolCallPart, ToolResultPart
from ._values import json_kind, tool_name
from .copilot_context import edit_path, is_edit

TOOL_KINDS = ("toolInvocationSerialized", "toolInvocation")
# What VS Code does not show of a tool call (``presentation``): "hidden", and
# "hiddenAfterComplete" once it is complete, as every saved one is. Copilot Chat hides its
# edit tools' calls (the edit is shown instead, by the textEditGroup parts the call streams
# after it; a failed edit streams none), VS Code a call a preToolUse hook denied and a
# terminal command it redirected to another tool.
HIDDEN = ("hidden", "hiddenAfterComplete")
EDIT_GROUPS = ("textEditGroup", "notebookEditGroup")
_DENIED, _SKIPPED = 0, 5  # isConfirmed.type (ToolConfirmKind)
# Copilot Chat's edit tools (toolNames.ts ContributedToolName): an older build showed their
# calls, and the textEditGroup parts after one are its edits, as after a hidden one.
EDIT_TOOL_IDS = frozenset({
    "copilot_insertEdit", "copilot_replaceString", "copilot_multiReplaceString",
    "copilot_createFile", "copilot_applyPatch", "copilot_editNotebook",
})  # fmt: skip


def paired_invocations(response: list[Any], calls: list[tuple[Any, str | None]]) -> dict[int, Any]:
    """Tool invocation (by position in ``response``) -> the model's call it shows. The ids
    differ, so they are paired by order, and only when every invocation the model made has
    its call (VS Code's own ``*_internal`` invocations are not the model's)."""
    made = model_invocations(response)
    return dict(zip(made, calls, strict=True)) if len(made) == len(calls) else {}


def model_invocations(response: list[Any]) -> list[int]:
    """Where the tool invocations of the model's calls are in ``response``."""
    return [
        i
        for i, part in enumerate(response)
        if isinstance(part, dict) and part.get("kind") in TOOL_KINDS and not is_internal(part)
    ]


def is_internal(part: dict[str, Any]) -> bool:
    """VS Code's own invocation inside a model's call (Copilot's insert_edit_into_file runs
    ``vscode_editFile_internal``), not a call of the model's."""
    return str(part.get("toolId") or "").endswith("_internal")


def edits_after(response: list[Any]) -> dict[int, tuple[bool, bool]]:
    """Model's invocation (by position) -> (whether a ``textEditGroup`` of a file follows it
    before the next one, whether any edit group does): the edits its call streamed."""
    made = model_invocations(response)
    found = {}
    for at, end in zip(made, [*made[1:], len(response)], strict=False):
        groups = [
            part
            for part in response[at + 1 : end]
            if isinstance(part, dict) and part.get("kind") in EDIT_GROUPS
        ]
        text = any(g.get("kind") == "textEditGroup" and edit_path(g) for g in groups)
        found[at] = (text, bool(groups))
    return found


def call_args(part: dict[str, Any], made: tuple[Any, str | None] | None) -> Any:
    """The arguments of an invocation's call: the model's own (``toolCallRounds``), else
    what the invocation shows of them (``toolSpecificData.rawInput``); None when neither."""
    if made is not None and made[0] is not None:
        return made[0]
    specific = part.get("toolSpecificData")
    if isinstance(specific, dict) and specific.get("kind") == "input":
        return specific.get("rawInput")
    return None


def makes_edits(part: dict[str, Any], made: tuple[Any, str | None] | None) -> bool:
    """Is an invocation VS Code shows an edit tool's call (an older build's: it did not
    hide them), whose edits the ``textEditGroup`` parts after it are? Its arguments are an
    edit's, or it is one of Copilot Chat's edit tools; one refused made none. (Edits mode
    streams the edits of the model's code blocks after a read tool's call, which is not an
    edit tool's.)"""
    if _refused(part.get("isConfirmed"), part.get("presentation")):
        return False
    tool = part.get("toolId")  # (a name that is not text, said elsewhere, names none)
    return is_edit(call_args(part, made)) or isinstance(tool, str) and tool in EDIT_TOOL_IDS


def hook_denial(part: dict[str, Any], made: tuple[Any, str | None] | None) -> str | None:
    """The reason a preToolUse hook gave for a call VS Code then denied and hid: what the
    model was told ("Tool execution denied: <reason>"), else the invocation's message
    ("Denied by PreToolUse hook: <reason>"). None for any other call."""
    refused = _refused(part.get("isConfirmed"), part.get("presentation"))
    if not refused or refused[1] != "denied":
        return None
    told = made[1] if made is not None and isinstance(made[1], str) else ""
    shown = shown_text(part.get("invocationMessage"))
    for prefix, text in (("Tool execution denied:", told), ("Denied by PreToolUse hook:", shown)):
        if text.startswith(prefix) and text[len(prefix) :].strip():
            return text[len(prefix) :].strip()
    return None


def odd_result_error(part: dict[str, Any]) -> str | None:
    """Why an invocation's ``resultError`` (text, or true, where the tool failed) was not
    read: it is there but of another kind (a damaged record). None when it is valid."""
    error = part.get("resultError")
    if error is None or isinstance(error, str | bool):
        return None
    return f"a tool call's resultError is {json_kind(error)}, not text: not read as a failure"


def invocation_call(
    part: dict[str, Any],
    made: tuple[Any, str | None] | None = None,
    failed: bool = False,
    ran: bool = False,
) -> tuple[ToolCallPart, list[Part]]:
    """A tool invocation; ``made`` (the model's own call: arguments and the result it read)
    fills in what the invocation, written for display, does not hold. ``failed``: the call
    failed, though the invocation does not say so. ``ran``: it ran, though it is saved as
    skipped (its result waited for the person's approval: ``copilot_waits``)."""
    name, _why = tool_name(part.get("toolId"))  # (reported by ``odd_tool_names``)
    call_id = part.get("toolCallId") if isinstance(part.get("toolCallId"), str) else None
    description = (
        shown_text(part.get("pastTenseMessage"))
        or shown_text(part.get("invocationMessage"))
        or None
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
                    texts.append(shown_text(item.get("value") if isinstance(item, dict) else item))
            output = "\n".join(t for t in texts if t)
        elif isinstance(out, dict) and out.get("type") == "data":
            binary = _binary(out, "base64Data")
            if binary:
                media.append(binary)
            else:
                output = f"[{out.get('mimeType', 'binary')} data]"
        else:
            output = shown_text(out)
        is_error = bool(details.get("isError"))
    elif isinstance(details, list):
        output = "\n".join(p for p in (uri_path(d) for d in details) if p)
    if not output and isinstance(specific.get("alternativeRecommendation"), str):
        output = specific["alternativeRecommendation"]  # (a terminal command not run: what
        # the model was told to use instead, all the tool returned)
    if made is not None:
        if tool_input is None and made[0] is not None:
            tool_input = made[0]
        if made[1] and (not output or isinstance(details, list)):
            output = made[1]  # what the tool returned, not the places VS Code listed
            output = file_text(output) if _reads_a_file(tool_input) else output
    call = ToolCallPart(name, tool_input if tool_input is not None else {}, call_id, description)
    refused = None if ran else _refused(part.get("isConfirmed"), part.get("presentation"))
    if refused:  # it did not run, and did not fail (what VS Code told the model instead,
        # "The user chose to skip the tool call…", "Tool execution denied: …", is kept)
        why, not_run = refused
        return call, [ToolResultPart(output or why, call_id, not_run=not_run)]
    # The tool failed: VS Code keeps the error it threw (``resultError``, its message, or
    # true), which the model read in its own words ("ERROR while calling tool: …").
    error = part.get("resultError")
    message = error.strip() if isinstance(error, str) else ""
    if message and " ".join(message.split()) not in " ".join(output.split()):
        output = f"{output}\n{message}" if output else message
    is_error = is_error or failed or error is True or bool(message)
    if not output and not is_error:
        return call, [*media]  # an image alone: no empty output beside it
    return call, [ToolResultPart(output, call_id, is_error), *media]


# A line that opens a fenced block (CommonMark: three or more backticks, no backtick in
# what follows them, or three or more tildes), and one that closes it.
_OPENING = re.compile(r"(?P<fence>`{3,}(?=[^`]*\Z)|~{3,}).*")
_CLOSING = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})[ \t]*")


def file_text(result: str) -> str:
    """A file Copilot read, as the file's lines: Copilot hands the model the file in one
    fenced block (```` ```rust ````, a longer fence when the file holds one), which in the
    note's own code block would show its fence marks as text. Any other result, or one
    whose block another fence line closes early, is kept as it is."""
    lines = result.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    opening = _OPENING.fullmatch(lines[0]) if len(lines) >= 2 else None
    if opening is None or not _closes(lines[-1], opening["fence"]):
        return result
    inside = lines[1:-1]
    if any(_closes(line, opening["fence"]) for line in inside):
        return result
    return "\n".join(inside)


def _closes(line: str, fence: str) -> bool:
    closing = _CLOSING.fullmatch(line)
    return bool(closing) and closing["fence"][0] == fence[0] and len(closing["fence"]) >= len(fence)


def _reads_a_file(tool_input: Any) -> bool:
    """A call that reads one file (Copilot's read_file: ``filePath``, and line numbers)."""
    return (
        isinstance(tool_input, dict)
        and isinstance(tool_input.get("filePath"), str)
        and not (is_edit(tool_input))
    )


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


def uri_path(uri: Any) -> str:
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


def shown_text(value: Any) -> str:
    """A plain or markdown string; links to local files become their names."""
    if isinstance(value, dict):
        value = value.get("value")
    if not isinstance(value, str):
        return ""
    if "](" in value:
        value = _FILE_LINK.sub(
            lambda m: m.group(1) or uri_path(m.group(2)).rsplit("/", 1)[-1], value
        )
    return value


def with_arguments(shown: Any, held: Any) -> Any:
    """An edit call's input (its file and edits) with the rest of what its call held: the
    arguments its edits do not already show (a patch, an explanation); the file's path is
    shown already. Text the call held (an invocation's input, shown for display) is kept as
    its ``input``."""
    if not isinstance(shown, dict):
        return shown
    if isinstance(held, dict):
        rest = {k: v for k, v in held.items() if k not in shown and k not in _NAMED_BY_EDIT}
        return {**shown, **rest}
    if isinstance(held, str) and held.strip() and "input" not in shown:
        return {**shown, "input": held}
    return shown


_NAMED_BY_EDIT = {"filePath", "replacements"}  # (the edit's file; one item per file's edit)


def hook_said(part: dict[str, Any], denial_shown: bool = False) -> str:
    """What a hook that ran showed the person (VS Code's ``hook`` part): why it stopped the
    request or a tool (``stopReason``), and its message (``systemMessage``); "" for a hook
    that ran and said nothing, which is bookkeeping. ``denial_shown``: its ``stopReason``
    is the denial of the call beside it, which is shown (not permitted, saying why)."""
    kind = shown_text(part.get("hookType")) or "A"
    tool = shown_text(part.get("toolDisplayName"))
    said = []
    stop = "" if denial_shown else shown_text(part.get("stopReason")).strip()
    if stop:
        said.append(f"{kind} hook stopped {tool or 'the request'}: {stop}")
    if message := shown_text(part.get("systemMessage")).strip():
        said.append(f"{kind} hook: {message}")
    return "\n".join(said)
