"""What a prompt to VS Code's chat carried besides its text, the edits its answer made, and
the model's own tool calls (FORMATS.md §5.3-§5.4).

- ``variableData.variables[]``: the files, folders, selections, symbols, images and pasted
  text attached to the prompt (by the person, or implicitly: the active file or selection),
  each as an attachment of the prompt. VS Code keeps an image's bytes and a paste's text;
  of the rest only the place (path and lines), which names the attachment. The text of a
  file or selection is in Copilot's record of the prompt it sent
  (``result.metadata.renderedUserMessage``), where there is one. Tools and tool sets
  enabled for the request are not attachments.
- ``textEditGroup`` parts of the response: each file's edits (the lines replaced and the
  new text), one call per file and per tool call that made them (named by the caller
  after that call; ``edit`` where no invocation made them).
- ``questionCarousel`` parts: the questions the assistant asked and the person's answers;
  ``elicitationSerialized``: a request for their input, accepted (with the values given) or
  rejected.
- ``result.metadata`` (Copilot's own record, ``model_calls``): the model's tool calls with
  their arguments and the results it read, which the displayed invocations lack.
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
from dataclasses import replace
from typing import Any

from ..model import AttachmentPart, ToolCallPart, ToolResultPart
from ._values import json_kind
from .copilot_rendered import rendered_attachments, sent_text
from .vscode import path_from_uri

_NOT_CONTEXT = frozenset({"tool", "toolset"})
EDIT_TOOL = "edit"
_UNKNOWN = "application/octet-stream"


def variable_parts(request: dict[str, Any]) -> list[AttachmentPart]:
    """What was attached to a prompt (``damaged_variables`` says what of it was damaged)."""
    data = request.get("variableData")
    variables = data.get("variables") if isinstance(data, dict) else None
    rendered = rendered_attachments(request)
    found: list[AttachmentPart] = []
    for variable in variables if isinstance(variables, list) else []:
        if not isinstance(variable, dict):
            continue
        if isinstance(variable.get("kind"), str) and variable["kind"] in _NOT_CONTEXT:
            continue
        if not isinstance(variable.get("kind"), str) and isinstance(variable.get("code"), str):
            variable = {**variable, "kind": "paste"}  # (only pasted text holds ``code``)
        part = _attachment(variable)
        if part and part.data is None and part.media_type == _UNKNOWN:
            sent = sent_text(variable, rendered, _path(_uri_of(variable.get("value"))))
            if sent is not None:  # the text Copilot sent with the prompt: shown
                text, shortened = sent
                part = AttachmentPart("text/plain", text.encode(), part.name, shortened=shortened)
        if part and isinstance(variable.get("id"), str) and variable["id"] in _IMPLICIT:
            part = replace(part, origin=_IMPLICIT[variable["id"]])
        if part and all((p.name, p.data) != (part.name, part.data) for p in found):
            found.append(part)
    return found


def damaged_variables(request: dict[str, Any]) -> list[str]:
    """Why each damaged item attached to a prompt was read otherwise, or left out."""
    data = request.get("variableData")
    variables = data.get("variables") if isinstance(data, dict) else None
    notes = []
    for number, variable in enumerate(variables if isinstance(variables, list) else [], 1):
        if not isinstance(variable, dict):
            why = f"is {json_kind(variable)}, not an object"
            notes.append(f"attached item {number} {why}: left out")
        elif not isinstance(variable.get("kind"), str) and isinstance(variable.get("code"), str):
            kind = variable.get("kind")
            why = f"its kind is {json_kind(kind)}, not text" if "kind" in variable else (
                "it has no kind"
            )  # fmt: skip
            notes.append(f"attached item {number}: {why}: read as pasted text (it holds code)")
    return notes


# What VS Code sends with a prompt on its own (the person did not attach it).
_IMPLICIT = {"vscode.implicit.file": "editor-file", "vscode.implicit.selection": "editor-selection"}


def _attachment(variable: dict[str, Any]) -> AttachmentPart | None:
    kind = variable.get("kind")
    name = _name(variable)
    if kind == "image":
        raw = _bytes(variable.get("value"))
        media = variable.get("mimeType") if isinstance(variable.get("mimeType"), str) else None
        media = media or _media_of(name or "", "image/png")
        return AttachmentPart(media, raw, name) if raw or name else None
    if kind == "paste" and isinstance(variable.get("code"), str) and variable["code"]:
        copied = variable.get("copiedFrom")
        where = _place(copied) if isinstance(copied, dict) else None
        label = where or (
            variable.get("fileName") if isinstance(variable.get("fileName"), str) else None
        )
        return AttachmentPart("text/plain", variable["code"].encode(), label or "pasted text")
    if not name:
        return None
    media = "inode/directory" if kind in ("directory", "folder") else _UNKNOWN
    return AttachmentPart(media, None, name)  # named only: VS Code keeps no content


def _name(variable: dict[str, Any]) -> str | None:
    """Where the attached thing is (path, with its lines), else the name VS Code shows."""
    place = _place(variable.get("value"))
    if place:
        return place
    name = variable.get("fullName") or variable.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip().removeprefix("file:")
    return None


def _place(value: Any) -> str | None:
    if isinstance(value, str) and "://" in value:
        return path_from_uri(value)
    if not isinstance(value, dict):
        return None
    path = _path(_uri_of(value))
    if not path:
        return None
    lines = _lines(value.get("range"))
    return f"{path}:{lines}" if lines else path


def _uri_of(value: Any) -> Any:
    """A variable's value's place: a URI, or a location holding one."""
    if isinstance(value, dict) and isinstance(value.get("uri"), dict | str):
        return value["uri"]
    return value


def _path(uri: Any) -> str | None:
    if isinstance(uri, str):
        return path_from_uri(uri) if "://" in uri else None
    if not isinstance(uri, dict):
        return None
    for key in ("fsPath", "path"):
        if isinstance(uri.get(key), str) and uri[key]:
            return uri[key]
    external = uri.get("external")
    return path_from_uri(external) if isinstance(external, str) and external else None


def _lines(span: Any) -> str | None:
    if not isinstance(span, dict):
        return None
    first, last = span.get("startLineNumber"), span.get("endLineNumber")
    if not isinstance(first, int) or isinstance(first, bool):
        return None
    if not isinstance(last, int) or isinstance(last, bool) or last == first:
        return str(first)
    return f"{first}-{last}"


def _bytes(value: Any) -> bytes | None:
    """An image's bytes: a JSON-serialised ``Uint8Array`` (an object of index -> byte, or a
    list), or base64 text."""
    try:
        if isinstance(value, dict) and value and all(k.isdigit() for k in value):
            return bytes(value[str(i)] for i in range(len(value)))
        if isinstance(value, list) and value:
            return bytes(value)
        if isinstance(value, str) and value:
            return base64.b64decode(value.split(",", 1)[-1], validate=True)
    except (KeyError, TypeError, ValueError, binascii.Error):
        return None
    return None


def _media_of(name: str, default: str) -> str:
    guessed, _ = mimetypes.guess_type(name, strict=False)
    return guessed if guessed and guessed.startswith("image/") else default


def edit_path(part: dict[str, Any]) -> str | None:
    """The file a ``textEditGroup`` or ``codeblockUri`` part is about."""
    return _path(part.get("uri"))


_EDIT_ARGUMENTS = {"oldString", "newString", "code", "replacements", "content", "newContent"}


def is_edit(args: Any) -> bool:
    """Are a tool call's arguments an edit's (what it replaced or wrote)?"""
    return isinstance(args, dict) and bool(_EDIT_ARGUMENTS & args.keys())


def edit_calls(
    groups: list[tuple[Any, dict[str, Any]]], asked: dict[Any, Any] | None = None
) -> dict[tuple[Any, str], ToolCallPart]:
    """The ``textEditGroup`` parts of one response as edit calls, one per tool call that
    made them (``owner``, paired with each group: VS Code's hidden invocation the group
    follows, else ``None``) and file, keyed by (owner, path) in the order the files were
    first edited: the lines each edit replaced and its new text. Edits streamed a line at
    a time (each at column 1 of the line after the last) read as one. ``asked``: owner ->
    the arguments of the model's own call behind it, which say what was replaced
    (``oldString``) where the group holds only the new lines: a file they name is shown by
    them instead, as the model sent them (its ``filePath``, not a key of ours; several
    replacements of one file are its ``filePath`` and those ``replacements``); an edit no
    model call stands behind says its file as ``file_path``. The calls are named ``edit``;
    the caller names an owner's calls."""
    by_call: dict[tuple[Any, str], list[dict[str, Any]]] = {}
    for owner, args in (asked or {}).items():
        if not is_edit(args):  # (a call of another tool that names the file: no edit)
            continue
        items = args.get("replacements") if "filePath" not in args else None
        for item in items if isinstance(items, list) else [args]:
            # (multi_replace_string_in_file: one replacement per item, each naming its file)
            if isinstance(item, dict) and isinstance(item.get("filePath"), str) and is_edit(item):
                by_call.setdefault((owner, item["filePath"]), []).append(item)
    by_file: dict[tuple[Any, str], list[tuple[dict[str, Any], str]]] = {}
    for owner, group in groups:
        path = edit_path(group)
        if not path:
            continue
        edits = by_file.setdefault((owner, path), [])
        for batch in group.get("edits") if isinstance(group.get("edits"), list) else []:
            for edit in batch if isinstance(batch, list) else [batch]:
                if isinstance(edit, dict) and isinstance(edit.get("text"), str):
                    span = edit.get("range") if isinstance(edit.get("range"), dict) else {}
                    edits.append((span, edit["text"]))
    calls = {}
    for key, edits in by_file.items():
        path = key[1]
        made = by_call.get(key)
        if made:  # the model's own arguments, as it sent them (``filePath`` and all)
            if len(made) == 1:
                calls[key] = ToolCallPart(EDIT_TOOL, dict(made[0]))
            else:  # (several replacements in this file: its path said once, in the model's key)
                rest = [{k: v for k, v in item.items() if k != "filePath"} for item in made]
                calls[key] = ToolCallPart(EDIT_TOOL, {"filePath": path, "replacements": rest})
            continue
        shown = [_edit(span, text) for span, text in _line_runs(edits)]
        if len(shown) <= 1:  # none: the file is named, its new text was not kept
            calls[key] = ToolCallPart(EDIT_TOOL, {"file_path": path, **(shown[0] if shown else {})})
        else:
            calls[key] = ToolCallPart(EDIT_TOOL, {"file_path": path, "edits": shown})
    return calls


def _edit(span: dict[str, Any], text: str) -> dict[str, Any]:
    lines = _lines(span)
    return {"lines": lines, "new_string": text} if lines else {"new_string": text}


def _line_runs(edits: list[tuple[dict[str, Any], str]]) -> list[tuple[dict[str, Any], str]]:
    """Consecutive whole-line edits (column 1, each on the line after the one before) as one
    edit over their lines, their texts a line each."""
    runs: list[tuple[dict[str, Any], list[str]]] = []
    for span, text in edits:
        if runs and _follows(runs[-1][0], span):
            runs[-1] = ({**runs[-1][0], "endLineNumber": span.get("endLineNumber")}, runs[-1][1])
            runs[-1][1].append(text)  # joined once at the end: a long run stays linear
        else:
            runs.append((span, [text]))
    return [(span, "\n".join(texts)) for span, texts in runs]


def _follows(before: dict[str, Any], span: dict[str, Any]) -> bool:
    end, start = before.get("endLineNumber"), span.get("startLineNumber")
    return (
        before.get("startColumn") == 1
        and span.get("startColumn") == 1
        and isinstance(end, int)
        and isinstance(start, int)
        and start == end + 1
    )


def model_calls(request: dict[str, Any]) -> list[tuple[Any, str | None]]:
    """(arguments, result as the model read it) of each tool call the model made, in order,
    from Copilot's ``result.metadata``: ``toolCallRounds[].toolCalls[]`` (arguments as a JSON
    string) and ``toolCallResults[<call id>]`` (prompt-tsx text nodes)."""
    result = request.get("result")
    metadata = result.get("metadata") if isinstance(result, dict) else None
    if not isinstance(metadata, dict):
        return []
    rounds = metadata.get("toolCallRounds")
    results = metadata.get("toolCallResults")
    results = results if isinstance(results, dict) else {}
    calls: list[tuple[Any, str | None]] = []
    for round_ in rounds if isinstance(rounds, list) else []:
        listed = round_.get("toolCalls") if isinstance(round_, dict) else None
        for call in listed if isinstance(listed, list) else []:
            if not isinstance(call, dict):
                continue
            args: Any = call.get("arguments")
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except (ValueError, RecursionError):  # "[[[…": nested past Python's stack
                    pass
            held = results.get(call.get("id")) if isinstance(call.get("id"), str) else None
            calls.append((args, _result_text(held) if held is not None else None))
    return calls


def _result_text(held: Any) -> str:
    content = held.get("content") if isinstance(held, dict) else held
    pieces: list[str] = []
    for item in content if isinstance(content, list) else [content]:
        value = item.get("value") if isinstance(item, dict) else item
        if isinstance(value, str):
            pieces.append(value)
        elif isinstance(value, dict):
            out: list[str] = []
            _text_nodes(value.get("node", value), out)
            pieces.append("".join(out))
    return "\n".join(p for p in pieces if p)


def _text_nodes(node: Any, out: list[str], block: list[bool] | None = None) -> None:
    """The text chunks of a prompt-tsx tree in order. A chunk may ask for a line break
    before it, and an element holding such a chunk is a block: what follows it starts on a
    line of its own."""
    block = block if block is not None else [False]
    if not isinstance(node, dict):
        return
    if isinstance(node.get("text"), str):
        text = node["text"]
        wants = node.get("lineBreakBefore") or block[0]
        if wants and out and not out[-1].endswith("\n") and not text.startswith("\n"):
            out.append("\n")
        block[0] = False
        out.append(text)
        return
    children = node.get("children") if isinstance(node.get("children"), list) else []
    for child in children:
        _text_nodes(child, out, block)
    if any(isinstance(c, dict) and c.get("lineBreakBefore") for c in children):
        block[0] = True


QUESTIONS_TOOL = "questions"


def question_parts(
    part: dict[str, Any], fallback_id: str
) -> tuple[ToolCallPart, ToolResultPart | None]:
    """A ``questionCarousel``: the questions the assistant asked, as a call, and the
    person's answers (``data``: question id -> a string, ``{selectedValue}``,
    ``{selectedValues}``, with any ``freeformValue``) as its result; none when unanswered."""
    questions = [q for q in _list(part.get("questions")) if isinstance(q, dict)]
    asked = []
    for q in questions:
        ident = q.get("id") if isinstance(q.get("id"), str) else ""  # (never a Python repr)
        entry: dict[str, Any] = {"question": _plain(q.get("title")) or ident}
        labels = [o.get("label") for o in _list(q.get("options")) if isinstance(o, dict)]
        if labels:
            entry["options"] = labels
        asked.append(entry)
    call_id = part.get("resolveId") if isinstance(part.get("resolveId"), str) else fallback_id
    call = ToolCallPart(QUESTIONS_TOOL, {"questions": asked}, call_id, _plain(part.get("message")))
    answers = part.get("data")
    if not isinstance(answers, dict) or not answers:
        return call, None
    lines = []
    for q in questions:
        if isinstance(q.get("id"), str) and q["id"] in answers:
            value = _answer(answers[q["id"]], q)
            lines.append(f"{_plain(q.get('title')) or q['id']}: {value}")
    for key, value in answers.items():
        if all(q.get("id") != key for q in questions):
            lines.append(f"{key}: {_answer(value, {})}")
    return call, ToolResultPart("\n".join(lines), call_id)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _answer(value: Any, question: dict[str, Any]) -> str:
    labels = {
        o.get("value"): o.get("label")
        for o in _list(question.get("options"))
        if isinstance(o, dict) and isinstance(o.get("label"), str) and _key(o.get("value"))
    }

    def label(v: Any) -> str:
        return labels.get(v, str(v)) if _key(v) else json.dumps(v, ensure_ascii=False)

    if isinstance(value, str):
        return labels.get(value, value)
    if not isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    chosen = value.get("selectedValues")
    picked = (
        [label(v) for v in chosen]
        if isinstance(chosen, list)
        else ([label(value["selectedValue"])] if value.get("selectedValue") is not None else [])
    )
    if isinstance(value.get("freeformValue"), str) and value["freeformValue"].strip():
        picked.append(value["freeformValue"])
    return ", ".join(picked) if picked else json.dumps(value, ensure_ascii=False)


def _key(value: Any) -> bool:
    """Can a value of the source be a dict key (a choice's value: a string or a number)?"""
    return value is None or isinstance(value, str | int | float)


def _plain(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("value")
    return value.strip() if isinstance(value, str) and value.strip() else None


ELICITATION_TOOL = "elicitation"


def elicitation_parts(
    part: dict[str, Any], call_id: str
) -> tuple[ToolCallPart, ToolResultPart | None]:
    """An ``elicitationSerialized`` part: a request for the person's input (an MCP server's
    form, a confirmation), and what came of it: ``state`` accepted or rejected, with the
    values they gave (``acceptedResult``)."""
    asked = {
        key: text for key in ("title", "subtitle", "message") if (text := _plain(part.get(key)))
    }
    call = ToolCallPart(ELICITATION_TOOL, asked, call_id, asked.get("title"))
    state = part.get("state") if isinstance(part.get("state"), str) else None
    given = part.get("acceptedResult")
    if state is None and given is None:
        return call, None
    lines = [state] if state else []
    if given is not None:
        lines.append(json.dumps(given, ensure_ascii=False, indent=2))
    if state == "rejected":  # the person said no: not an error
        return call, ToolResultPart("\n".join(lines), call_id, not_run="rejected")
    return call, ToolResultPart("\n".join(lines), call_id)
