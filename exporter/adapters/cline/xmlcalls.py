"""Tool calls written as XML in the model's text, as the Cline family's older builds had the
model write them (its API history, ``api_conversation_history.json``)::

    I'll read it first.

    <read_file>
    <path>notes.md</path>
    </read_file>

and the result Cline sent back as the person's text, ``[read_file for 'notes.md'] Result:``
then what the tool gave (``blocks.py`` reads those as results without a call).

Only the tools the family defines are calls, and only an element that is whole and well
formed: its opening tag starting a line outside a code block, its parameters
``<name>value</name>`` and nothing else, then its closing tag. XML in a code block, a tag
named in prose, or a call cut off stays the model's text, as does the text around a call.
Each call gets an id; the result whose header names its tool (``[read_file …] Result:``,
Cline's ``Skipping tool [x …]`` and ``Tool [x] was not executed …`` for a call it did not
run) is paired with the first call of that tool still unanswered in the reply before, and
loses its header.

What the model says to the person through a tool is its words, as the UI transcript shows
them: ``attempt_completion``'s result, ``ask_followup_question``'s question (with its
options) and ``plan_mode_respond``'s response are text; the person's answer that comes back
as such a tool's result is their prompt.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import orjson

from ...model import Part, TextPart, ToolCallPart, ToolResultPart

# The tools of Cline (3.x ``toolUseNames``), Roo Code and Zoo Code (``toolNames``) and Kilo
# Code's legacy extension (Roo's, with Cline's rules and bug-report tools).
TOOL_NAMES = frozenset({
    "execute_command", "read_file", "write_to_file", "replace_in_file", "apply_diff",
    "insert_content", "search_and_replace", "search_replace", "edit_file", "apply_patch",
    "append_to_file", "search_files", "list_files", "list_code_definition_names",
    "codebase_search", "browser_action", "use_mcp_tool", "access_mcp_resource",
    "load_mcp_documentation", "ask_followup_question", "attempt_completion", "plan_mode_respond",
    "new_task", "switch_mode", "fetch_instructions", "update_todo_list", "run_slash_command",
    "generate_image", "condense", "summarize_task", "report_bug", "new_rule", "web_fetch",
    "web_search",
})  # fmt: skip
# Tools through which the model speaks to the person, and the parameter holding its words.
_SPOKEN = {"attempt_completion": "result", "ask_followup_question": "question",
           "plan_mode_respond": "response"}  # fmt: skip
# Parameters holding free text (a file, a diff, a reply): their closing tag is the last one
# in the element, as Cline reads them (a file may hold ``</content>`` itself).
_FREE_TEXT = frozenset({"content", "diff", "result", "response", "context", "message"})
_OPEN = re.compile(r" {0,3}<([a-z_]+)>")  # (indented four spaces: a code block)
_PARAM = re.compile(r"<([a-z_]+)>")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_NAMED = re.compile(r"\[([a-z_]+)[\] ]")  # the tool a result or Cline's notice names
# A result's header: ``[tool for '<its argument>'] Result:`` (the argument as the model wrote
# it: a command of several lines, a regex holding brackets, a long question) or a short one.
RESULT_HEADER = re.compile(r"^\[(?:[a-z_]+ for '[\s\S]{0,4000}?'|[^\]\n]{1,200})\] Result:")
_WRAPPED = re.compile(r"^\s*<(answer|feedback)>\n?(.*?)\n?</\1>\s*$", re.S)
_MAX_TRIES = 50  # closing tags tried per element (a file holding the tool's own tag)


class LegacyCalls:
    """The calls of one task's model history, read message by message: an assistant
    message's text split into text and calls, the results of the next messages paired."""

    def __init__(self) -> None:
        self.waiting: list[tuple[str, str, bool]] = []  # (tool, call id, spoken) unanswered

    def reply(self, parts: list[Part], source_id: str) -> list[Part]:
        """An assistant message's parts, its text's calls split out."""
        self.waiting = []
        out: list[Part] = []
        for part in parts:
            if not isinstance(part, TextPart):
                out.append(part)
                continue
            for piece in split_calls(part.text):
                if isinstance(piece, str):
                    out.append(TextPart(piece))
                    continue
                name, params = piece
                call_id = f"{source_id}#{len(self.waiting) + 1}"
                spoken = _spoken(name, params)
                if spoken is not None:
                    out.extend([TextPart(spoken)] if spoken.strip() else [])
                    self.waiting.append((name, call_id, True))
                    continue
                out.append(ToolCallPart(name, params, call_id))
                self.waiting.append((name, call_id, False))
        return out

    def results(self, parts: list[Part]) -> list[Part]:
        """A user message's parts, each result that names a waiting call paired with it."""
        out: list[Part] = []
        for part in parts:
            if not isinstance(part, ToolResultPart) or part.call_id is not None:
                out.append(part)
                continue
            header = RESULT_HEADER.match(part.output)
            named = _NAMED.match(part.output) if header else None
            if not header and part.not_run:  # Cline's words for a call it did not run
                named = _NAMED.search(part.output[:300])
            found = self._take(named.group(1)) if named else None
            if found is None:
                out.append(part)
                continue
            call_id, spoken = found
            if not header:  # Cline's words for a call it did not run: kept whole (a
                # skipped question or completion is no call: its notice stays on its own)
                out.append(part if spoken else replace(part, call_id=call_id))
                continue
            body = _body(part.output[header.end() :])
            if spoken:  # the person's answer to a question, or feedback on a completion
                wrapped = _WRAPPED.match(body)
                said = wrapped.group(2) if wrapped else body
                out.extend([TextPart(said)] if said.strip() else [])
            else:
                out.append(ToolResultPart(body, call_id, part.is_error, not_run=part.not_run))
        return out

    def _take(self, name: str) -> tuple[str, bool] | None:
        for at, (tool, call_id, spoken) in enumerate(self.waiting):
            if tool == name:
                del self.waiting[at]
                return call_id, spoken
        return None


def split_calls(text: str) -> list[str | tuple[str, dict[str, Any]]]:
    """``text`` as its pieces in order: text (a string) and calls (tool name, parameters).
    Lines are read as CommonMark reads fences, so a call shown in a code block is text."""
    pieces: list[str | tuple[str, dict[str, Any]]] = []
    at = pos = 0
    fence: str | None = None
    closes: dict[str, tuple[int, int]] = {}  # a tool's name -> (from, its next closing tag)
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line, after = text[pos:end], end + 1
        marker = _FENCE.match(line)
        if fence is not None:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                fence = None if not marker.group(2).strip() else fence
        elif marker and not (marker.group(1)[0] == "`" and "`" in marker.group(2)):
            fence = marker.group(1)
        else:
            tag = _OPEN.match(line)
            found = _element(text, pos + tag.end(), tag.group(1), closes) if tag else None
            if tag and found:
                _text(pieces, text[at:pos])
                pieces.append((tag.group(1), found[0]))
                at = after = found[1]
        pos = after
    if at and at < len(text):
        _text(pieces, text[at:])
    return pieces if any(not isinstance(p, str) for p in pieces) else [text]


def _text(pieces: list[Any], text: str) -> None:
    text = text.strip("\n")
    if text.strip():
        pieces.append(text)


def _element(
    text: str, start: int, name: str, closes: dict[str, tuple[int, int]]
) -> tuple[dict[str, Any], int] | None:
    """The parameters of the tool element whose body starts at ``start``, and where the
    element ends; None when it is not one. ``closes`` remembers where the search for each
    tool's closing tag began and what it found (-1: none): prose that opens many lines with
    a tool's tag is not searched again for each (that was quadratic in the text)."""
    if name not in TOOL_NAMES:
        return None
    close = f"</{name}>"
    since, end = closes.get(name, (len(text) + 1, -1))
    if not (since <= start and (end < 0 or start <= end)):  # (else: the same answer)
        end = text.find(close, start)
        closes[name] = (start, end)
    for _ in range(_MAX_TRIES):
        if end < 0:
            return None
        params = _params(text, start=start, stop=end)  # (read in place: no copy of the body)
        if params is not None:
            return _shaped(name, params), end + len(close)
        end = text.find(close, end + 1)
    return None


def _params(
    body: str, nested: bool = False, start: int = 0, stop: int | None = None
) -> dict[str, Any] | None:
    """``<name>value</name>`` elements and white space only (of ``body[start:stop]``), as a
    dict; None otherwise. A name given twice (Roo's ``<file>`` in ``<args>``) collects its
    values in a list."""
    params: dict[str, Any] = {}
    pos, stop = start, len(body) if stop is None else stop
    while True:
        while pos < stop and body[pos].isspace():
            pos += 1
        if pos == stop:
            return params
        tag = _PARAM.match(body, pos, stop)
        if not tag:
            return None
        name, close = tag.group(1), f"</{tag.group(1)}>"
        # (within <args> a file's diffs may follow one another: each ends at its own tag)
        free = name in _FREE_TEXT and not nested
        end = body.rfind(close, tag.end(), stop) if free else body.find(close, tag.end(), stop)
        if end < 0:
            return None
        value: Any = body[tag.end() : end]
        pos = end + len(close)
        value = _value(name, value, nested)
        if name in params:
            held = params[name]
            params[name] = [*held, value] if isinstance(held, list) else [held, value]
        else:
            params[name] = value
    return params


def _value(name: str, value: str, nested: bool) -> Any:
    """A parameter's value as Cline reads it: trimmed (a file's content loses only the line
    breaks around it); within Roo's ``<args>`` (and a question's ``<follow_up>``), elements
    are read as parameters in turn."""
    if name in ("content", "diff") and not value.lstrip().startswith("<content>"):
        return value.removeprefix("\n").removesuffix("\n")
    if (nested or name in ("args", "follow_up")) and value.strip().startswith("<"):
        inner = _params(value, nested=True)
        if inner is not None:
            return inner
    return value.strip()


def _shaped(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """Roo's one-file ``<args><file>…</file></args>`` as that file's parameters (so a call is
    titled by its path), several as ``files``; an MCP call's JSON arguments decoded."""
    args = params.get("args")
    if isinstance(args, dict) and set(args) == {"file"}:
        rest = {k: v for k, v in params.items() if k != "args"}
        files = args["file"]
        if isinstance(files, dict):
            params = {**rest, **files}
        elif isinstance(files, list):
            params = {**rest, "files": files}
    arguments = params.get("arguments")
    if name == "use_mcp_tool" and isinstance(arguments, str):
        try:
            decoded = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            decoded = None
        if isinstance(decoded, dict):
            params = {**params, "arguments": decoded}
    return params


def _spoken(name: str, params: dict[str, Any]) -> str | None:
    """What the model says to the person through ``name``; None for any other call (and
    for a completion that also runs a command: a call, with the command)."""
    key = _SPOKEN.get(name)
    said = params.get(key) if key else None
    if not isinstance(said, str) or (name == "attempt_completion" and params.get("command")):
        return None
    options = _options(params)
    return f"{said}\n\n" + "\n".join(f"- {o}" for o in options) if options else said


def _options(params: dict[str, Any]) -> list[str]:
    """A question's options: Cline's ``<options>`` (a JSON list), Roo's ``<follow_up>``
    (``<suggest>`` elements)."""
    given = params.get("options")
    if isinstance(given, str):
        try:
            given = orjson.loads(given)
        except orjson.JSONDecodeError:
            given = None
    follow = params.get("follow_up")
    if isinstance(follow, dict):
        given = follow.get("suggest")
        given = [given] if isinstance(given, str) else given
    return [o.strip() for o in given if isinstance(o, str)] if isinstance(given, list) else []


def _body(rest: str) -> str:
    """What follows a result's header: on its line, or after the line breaks."""
    return rest.removeprefix(" ").lstrip("\r\n")
