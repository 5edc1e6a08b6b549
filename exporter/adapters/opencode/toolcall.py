"""An OpenCode ``tool`` part (FORMATS.md §6.3) as the call, its result (once it has one)
and the files it returned: its state's status, output or error, exit code and times."""

from __future__ import annotations

from typing import Any

from ...model import Part, ToolCallPart, ToolResultPart
from .._jsonl import json_text
from .._times import Times
from .._values import quoted
from .files import attachment
from .values import is_number, text_of


def _names_an_argument(title: str | None, arguments: Any) -> bool:
    """OpenCode titles a call in words (a shell command's description, a task's) or by an
    argument: a pattern, a URL, a path (made relative to the project). Only words are a
    description; an argument is machine text, shown as code."""
    if not title or not isinstance(arguments, dict):
        return False
    values = [v for k, v in arguments.items() if isinstance(v, str) and k != "description"]
    return any(
        v == title or v.endswith(("/" + title, "\\" + title.replace("/", "\\"))) for v in values
    )


def tool_parts(part: dict[str, Any], odd: Times | None = None, where: str = "") -> list[Part]:
    state = part.get("state") if isinstance(part.get("state"), dict) else {}
    name = text_of(part.get("tool")) or "tool"
    call_id = text_of(part.get("callID")) or text_of(part.get("id"))
    metadata = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
    child = text_of(metadata.get("sessionId")) if name == "task" else None
    title = text_of(state.get("title"))
    if _names_an_argument(title, state.get("input")):
        title = None  # machine text (a path, a pattern): the call is titled by that argument
    call = ToolCallPart(name, state.get("input"), call_id, title, child)
    status = state.get("status")
    if status in ("pending", "running"):  # no result yet
        return [call]
    if status not in ("completed", "error", "success"):  # damaged: what it holds is shown
        if "output" not in state and "error" not in state:
            return [call]
        kind = quoted(status)
        what = "has no status" if status is None else f"has a status not known here ({kind})"
        (odd or Times()).wrong_type(
            f"a tool call {what}: what it holds is shown as its result", where
        )
        status = "error" if "output" not in state else "completed"
    exit_code = metadata.get("exit")
    if not isinstance(exit_code, int) or isinstance(exit_code, bool):
        exit_code = None
    output = state.get("error") if status == "error" else state.get("output")
    # A command that ran and exited non-zero is ``completed`` too, its exit code beside its
    # output: it failed, as a Codex command with that exit code does.
    failed = status == "error" or bool(exit_code)
    times = state.get("time") if isinstance(state.get("time"), dict) else {}
    start, end = times.get("start"), times.get("end")
    # An end before the start (a clock set back, a damaged part) gives no duration, not a
    # negative one.
    timed = is_number(start) and is_number(end) and end >= start
    duration = (end - start) / 1000 if timed else None
    result = ToolResultPart(
        # (any other value as JSON, as it was stored: never a Python repr such as True)
        output if isinstance(output, str) else "" if output is None else json_text(output),
        call_id,
        failed,
        exit_code,
        duration,
    )
    # Files the tool returned (an image it read, a screenshot): file parts of their own.
    attached = state.get("attachments")
    files = (
        [attachment(a) for a in attached if isinstance(a, dict)]
        if isinstance(attached, list)
        else []
    )
    return [call, result, *files]
