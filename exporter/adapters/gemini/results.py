"""What a Gemini CLI tool returned, read back from the text the CLI wrote for the model:
a shell command's output apart from the envelope around it (its exit code beside the
call), and a sub-agent's report as text rather than one line of JSON escapes."""

from __future__ import annotations

import re

import orjson

from .._jsonl import json_text

SHELL_TOOL = "run_shell_command"
# The lines the CLI writes under a command's output, in this order. Older versions write
# every one of them, after ``Command:`` and ``Directory:`` lines (``Exit Code``/``Signal``
# ``(none)`` when there is none); newer ones only those that apply, under ``Output:`` alone.
_SHELL_TAIL = ("Exit Code", "Signal", "Background PIDs", "Process Group PGID")
_NONE = ("(none)", "(empty)", "")
_UNTRUSTED = ("<untrusted_context>\n", "\n</untrusted_context>")


def _untrusted_unwrapped(text: str) -> str:
    """A tool's output without the ``<untrusted_context>`` tags newer CLIs put around a
    command's or a fetched page's text for the model (the closing tag within it escaped)."""
    start, end = _UNTRUSTED
    inner = text[len(start) : -len(end)]
    if not (text.startswith(start) and text.endswith(end)) or end.strip() in inner:
        return text
    return inner.replace("&lt;/untrusted_context&gt;", "</untrusted_context>")


def shell_result(text: str, command: str | None) -> tuple[str, int | None, bool] | None:
    """A ``run_shell_command`` result as the CLI wrote it for the model, read back: what
    the command printed (``Output:``, or ``Stdout:`` and ``Stderr:`` in older versions), with
    a process error (``Error:``) or a signal under it, the exit code, and whether it failed
    (a non-zero exit code, an error, a signal: the CLI records the call as a success). The
    lines that only repeat the call or say nothing of its outcome (``Command:``,
    ``Directory:``, ``Background PIDs:``, ``Process Group PGID:``) go. None when the text
    is not that envelope (a cancelled command's, a summary of its output): kept as written."""
    text = _untrusted_unwrapped(text)
    full = text.startswith("Command: ")  # the older form: every line, always
    if full:
        head = f"Command: {command}\nDirectory: " if command is not None else None
        if head is None or not text.startswith(head):
            at = text.find("\nDirectory: ")
            head = text[: at + len("\nDirectory: ")] if at >= 0 else None
        newline = text.find("\n", len(head)) if head else -1
        if newline < 0:
            return None
        text = text[newline + 1 :]
    if not text.startswith(("Output: ", "Stdout: ")):
        return None
    lines = text.split("\n")
    found: dict[str, str] = {}
    for label in reversed(_SHELL_TAIL):  # from the last line up
        if len(lines) > 1 and lines[-1].startswith(f"{label}: "):
            found[label] = lines.pop()[len(label) + 2 :]
    body = "\n".join(lines)
    error = None
    if full:
        if len(found) != len(_SHELL_TAIL) or "\nError: " not in body:
            return None
        body, _, error = body.rpartition("\nError: ")
    if body.startswith("Stdout: "):
        if "\nStderr: " not in body:
            return None
        out, _, err = body[len("Stdout: ") :].rpartition("\nStderr: ")
        printed = "\n".join(t for t in (out, err) if t not in _NONE)
    else:
        printed = body[len("Output: ") :]
        printed = "" if printed == "(empty)" else printed
    code_text = found.get("Exit Code", "")
    code = int(code_text) if code_text.lstrip("-").isdigit() else None
    signal = found.get("Signal", "")
    signal = None if signal in (*_NONE, "0", "null") else signal
    error = None if error in (*_NONE, None) else error
    said = [f"Error: {error}"] if error else []
    said += [f"Signal: {signal}"] if signal else []
    shown = "\n".join([printed, *said]) if printed else "\n".join(said)
    return shown, code, bool(code) or bool(error) or bool(signal)


_SUBAGENT_HEAD = re.compile(r"Subagent '[^'\n]+' finished\.\nTermination Reason: [^\n]*")


def subagent_report(text: str) -> str:
    """A subagent's result (``Subagent 'x' finished.`` … ``Result:`` and the agent's
    report), whose report is often a JSON object holding Markdown on one line, in escapes:
    each key on a line of its own, then its value, a string as its text (its lines as
    lines), anything else as indented JSON; a blank line between two. Any other text, or a
    report that is not such an object, or one with no text of several lines, stays as is."""
    head, found, report = text.partition("\nResult:\n")
    if not (found and _SUBAGENT_HEAD.fullmatch(head) and report.lstrip().startswith("{")):
        return text
    try:
        value = orjson.loads(report)
    except orjson.JSONDecodeError:
        return text
    if not isinstance(value, dict) or not any(
        isinstance(v, str) and "\n" in v for v in value.values()
    ):
        return text
    shown = []
    for key, item in value.items():
        if isinstance(item, str):
            shown.append(f"{key}:\n{item}" if "\n" in item else f"{key}: {item}")
        elif isinstance(item, dict | list):
            shown.append(f"{key}:\n{json_text(item, indent=True)}")
        else:
            shown.append(f"{key}: {json_text(item)}")
    return f"{head}{found}\n" + "\n\n".join(shown)
