"""The parts of one Codex record (FORMATS.md §2.6–§2.8): a Responses item's text, reasoning,
tool calls and their (often JSON-wrapped) outputs; its images are codex_images.py's. No
state: codex_rollout.py decides which records become which messages."""

from __future__ import annotations

import re
import shlex
from typing import Any

import orjson

from ..model import AttachmentPart, NoticePart, Part, ToolCallPart, ToolResultPart
from ._jsonl import json_text
from ._values import json_kind, listed_objects, some_text
from .codex_images import image_bytes, unread_image
from .codex_odd import TEXT_ITEMS

_SHELL_TOOLS = {"shell", "container.exec", "local_shell", "shell_command", "exec_command"}


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    texts = []
    for c in content if isinstance(content, list) else []:
        if isinstance(c, dict) and c.get("type") in TEXT_ITEMS:
            if isinstance(c.get("text"), str) and unread_image(c) is None:  # (an image)
                texts.append(c["text"])
    return "\n\n".join(texts)


def reasoning_texts(p: dict[str, Any]) -> list[str]:
    texts = []
    for key in ("summary", "content"):
        for c in p.get(key) or []:
            if isinstance(c, dict) and isinstance(c.get("text"), str) and c["text"].strip():
                texts.append(c["text"])
    return texts


def tool_call(p: dict[str, Any]) -> ToolCallPart:
    ptype, call_id = p.get("type"), item_call_id(p)
    if ptype == "local_shell_call":
        action = p.get("action") if isinstance(p.get("action"), dict) else {}
        args = {
            "command": command_text(action.get("command")),
            "workdir": action.get("working_directory"),
        }
        return ToolCallPart("shell", {k: v for k, v in args.items() if v}, call_id)
    if ptype == "web_search_call":
        action = p.get("action") if isinstance(p.get("action"), dict) else {}
        return ToolCallPart(
            "web_search", {k: v for k, v in action.items() if k != "type" and v}, call_id
        )
    name = str(p.get("name") or "tool")
    if ptype == "custom_tool_call":
        return ToolCallPart(_qualified(name, p.get("namespace")), p.get("input"), call_id)
    args = _arguments(p)
    if isinstance(args, dict) and name in _SHELL_TOOLS and "command" in args:
        patch = _patch_argv(args)
        if patch is not None:  # Codex applies it as its apply_patch tool: shown as that
            return ToolCallPart("apply_patch", patch, call_id)
        return ToolCallPart(name, {**args, "command": command_text(args["command"])}, call_id)
    return ToolCallPart(_qualified(name, p.get("namespace")), args, call_id)


def _qualified(name: str, namespace: Any) -> str:
    """A tool's name with the namespace newer Codex gives it apart (an MCP server's:
    ``js`` in ``mcp__node_repl__`` is ``mcp__node_repl__js``, as Claude Code names one):
    the name alone does not say whose tool it was."""
    if not isinstance(namespace, str) or not namespace.strip():
        return name
    joined = namespace if namespace.endswith(("_", ".", "/", ":")) else f"{namespace}."
    return name if name.startswith(joined) else joined + name  # (or given in full already)


def tool_search_call(p: dict[str, Any]) -> ToolCallPart:
    """A search among the tools the model may load (newer Codex): its query as input."""
    return ToolCallPart("tool_search", _arguments(p), item_call_id(p))


def _arguments(p: dict[str, Any]) -> Any:
    """A call's arguments: JSON text parsed (kept as text when it is not JSON)."""
    args: Any = p.get("arguments")
    if isinstance(args, str):
        try:
            args = orjson.loads(args)
        except orjson.JSONDecodeError:
            pass
    return args


def tool_search_output(p: dict[str, Any], odd: list[str]) -> ToolResultPart:
    """The tools a search found, one per line (a group as its name, then its tools'). What
    cannot be read (never shown as a Python repr) is said in ``odd``."""
    lines: list[str] = []
    for n, tool in listed_objects(p.get("tools"), "the tools found", "tool {n} found", odd):
        name = next((v for v in (tool.get("name"), tool.get("type")) if some_text(v)), "tool")
        inner = tool.get("tools") if isinstance(tool.get("tools"), list) else []
        names = [t["name"] for t in inner if isinstance(t, dict) and some_text(t.get("name"))]
        if len(names) < len(inner) or not isinstance(tool.get("tools", []), list):
            odd.append(f"tool {n} found holds tools whose names cannot be read: left out")
        lines.append(f"{name}: {', '.join(names)}" if names else name)
    return ToolResultPart("\n".join(lines), item_call_id(p))


def image_generation(p: dict[str, Any], saved: str | None = None) -> list[Part]:
    """An image the model generated: the call with its prompt, then a result answering the
    call with the image (when the item holds it, base64) and where Codex saved it
    (``saved``, its ``image_generation_end`` event's ``saved_path``), so that the note shows
    them as the call's output (in its callout), as a tool's returned image is."""
    prompt = p.get("revised_prompt")
    call_id = item_call_id(p)
    call = ToolCallPart(
        "image_generation", {"prompt": prompt} if isinstance(prompt, str) else {}, call_id
    )
    image = image_bytes(p.get("result"))
    if not image and not saved:
        return [call]
    result = ToolResultPart(f"Saved to {saved}" if saved else "", call_id)
    return [call, result, *([AttachmentPart(image[0], image[1])] if image else [])]


def agent_message(p: dict[str, Any]) -> list[Part]:
    """A message one agent of a multi-agent thread sent another: a notification naming
    both, with its readable text (an ``encrypted_content`` part holds none)."""
    text = content_text(p.get("content")).strip()
    if not text:
        return []
    author, recipient = (
        " ".join(p[key].split()) if isinstance(p.get(key), str) else ""
        for key in ("author", "recipient")
    )
    head = (
        "Message"
        + (f" from {author}" if author else "")
        + (f" to {recipient}" if recipient else "")
    )
    return [NoticePart("notification", f"{head}:\n\n{text}")]


def item_call_id(p: dict[str, Any]) -> str | None:
    """An item's ``call_id``, or its ``id`` (what pairs a call with its output)."""
    call_id = p.get("call_id") if isinstance(p.get("call_id"), str) else p.get("id")
    return call_id if isinstance(call_id, str) else None


def tool_result(p: dict[str, Any]) -> ToolResultPart:
    call_id = p.get("call_id") if isinstance(p.get("call_id"), str) else None
    output, is_error, exit_code, duration = _unwrap_output(p.get("output"))
    if is_error and output.startswith(_REJECTED):  # the person said no: it did not run
        return ToolResultPart(output, call_id, False, exit_code, duration, "rejected")
    if aborted := _ABORTED.fullmatch(output):  # the person stopped it (Esc) as it ran
        wall = float(aborted["wall"]) if aborted["wall"] else duration
        return ToolResultPart("aborted by user", call_id, False, exit_code, wall, "cancelled")
    return ToolResultPart(output, call_id, is_error, exit_code, duration)


def exec_end(p: dict[str, Any]) -> tuple[int | None, float | None]:
    """An ``exec_command_end`` event's exit code and duration (``{secs, nanos}`` as Rust
    writes a duration; a plain number of seconds is read too)."""
    code = p.get("exit_code")
    code = code if isinstance(code, int) and not isinstance(code, bool) else None
    duration = p.get("duration")
    if isinstance(duration, dict):
        secs, nanos = _seconds(duration.get("secs")), _seconds(duration.get("nanos") or 0)
        seconds = secs + nanos / 1e9 if secs is not None and nanos is not None else None
    else:
        seconds = _seconds(duration)
    return code, seconds


def ended(result: ToolResultPart, end: tuple[int | None, float | None, bool]) -> ToolResultPart:
    """A unified-exec command's result with its own exit code and duration (from its end
    event) in place of those of the first chunk of output (which may say it still ran).
    Its output stays what the model saw. A failure is marked where it was reported: on the
    poll (``write_stdin``) whose output says the process exited, beside that output, so a
    command is not counted twice in the note's errors; on the command itself when no poll
    reported its exit (the model never polled it again)."""
    code, seconds, unreported = end
    exit_code = code if code is not None else result.exit_code
    duration = seconds if seconds is not None else result.duration
    failed = result.is_error or (unreported and bool(code) and not result.not_run)
    return ToolResultPart(
        result.output, result.call_id, failed, exit_code, duration, result.not_run
    )


def polled_exit(output: Any) -> bool:
    """Does a poll's output say, in its header (before ``Output:``), that the process
    exited? (The program's own output may hold the words.)"""
    text = output if isinstance(output, str) else str(output)
    return "Process exited with code" in text.partition("\nOutput:")[0]


def polled_process(p: dict[str, Any]) -> str | None:
    """The process a ``write_stdin`` call polls (its ``session_id``), if it says."""
    args = p.get("arguments")
    if isinstance(args, str) and "session_id" in args:
        try:
            args = orjson.loads(args)
        except orjson.JSONDecodeError:
            return None
    found = args.get("session_id") if isinstance(args, dict) else None
    return str(found) if isinstance(found, int | str) and not isinstance(found, bool) else None


def _seconds(value: Any) -> float | None:
    """A duration in seconds; a negative one, or a flag, is no duration (never shown as one)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
    return float(value) if ok else None


def _unwrap_output(output: Any) -> tuple[str, bool, int | None, float | None]:
    """A tool's output as text, with the exit code and duration the shell tool wraps in."""
    if isinstance(output, str) and output.startswith("{"):
        try:
            parsed = orjson.loads(output)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and "output" in parsed:
            output = parsed
    if isinstance(output, dict):
        if "output" in output:
            meta = output.get("metadata") if isinstance(output.get("metadata"), dict) else {}
            code = meta.get("exit_code")
            duration = meta.get("duration_seconds")
            code = code if isinstance(code, int) else None
            return (
                _as_text(output.get("output")),
                bool(code),
                code,
                _seconds(duration),
            )
        if "content" in output:
            failed = output.get("success") is False
            return _as_text(output.get("content")), failed, None, None
        return content_text([output]), False, None, None
    if isinstance(output, list):
        return content_text(output), False, None, None
    if isinstance(output, str):
        return _text_output(output)
    return ("" if output is None else json_text(output)), False, None, None  # (true: "true")


def _as_text(value: Any) -> str:
    """An output that should be text: anything else as JSON (never a Python repr)."""
    if not value:
        return ""
    return value if isinstance(value, str) else json_text(value)


# The header newer shell tools put above a command's output (``Exit code: 1`` / ``Wall
# time: 0.1 seconds`` / ``Output:``, and ``Total output lines: 40657`` above a shortened
# output; unified exec: ``Chunk ID``, ``Process exited with code``, ``Original token
# count``), and the texts Codex returns for a call that never ran (the first two: the
# person rejected it when asked to approve it).
_HEADER_LINE = re.compile(
    r"(?:Exit code: (?P<code>-?\d+)|Process exited with code (?P<exited>-?\d+)"
    r"|Wall time: (?P<wall>\d+(?:\.\d+)?) seconds|Chunk ID: \S+|Original token count: \d+"
    r"|(?P<total>Total output lines: \d+))"
)
_REJECTED = ("exec command rejected by user", "patch rejected by user")
# A command the person stopped while it ran (the corpus's Shannon rollout: "Wall time: 406.9
# seconds\naborted by user", then the turn's turn_aborted): no output, no exit code.
_ABORTED = re.compile(r"(?:Wall time: (?P<wall>\d+(?:\.\d+)?) seconds\n)?aborted by user\n?")
# (Codex 0.3x's apply_patch answered a patch it could not apply with a bare text, no exit
# code: "error: Failed to find expected lines in …", "error: invalid hunk at line 2, …".)
_FAILED_TO_RUN = (
    *_REJECTED, "failed in sandbox ", "apply_patch verification failed", "write_stdin failed",
    "error: Failed to find expected lines in ", "error: invalid hunk at line ",
)  # fmt: skip


def _text_output(output: str) -> tuple[str, bool, int | None, float | None]:
    """A text output, with its exit code and duration read from the header above it (the
    header goes when every line of it is read; a line not known keeps it whole). Codex
    writes ``Total output lines: N`` there when it shortened the output the model saw: the
    one statement of how long the command's output was, it stays, above the output, as
    unified exec writes it (in the output itself: ``Total output lines: N``, a blank line)."""
    head, found, body = output.partition("\nOutput:\n")
    if not found and output.endswith("\nOutput:"):
        head, found, body = output[: -len("\nOutput:")], "\nOutput:", ""
    code: int | None = None
    duration: float | None = None
    total = None
    known = bool(found)
    for line in head.split("\n") if found and len(head) < 1000 else []:
        match = _HEADER_LINE.fullmatch(line)
        if match is None:
            known = False
            continue
        if match["code"] or match["exited"]:
            code = int(match["code"] or match["exited"])
        elif match["wall"]:
            duration = float(match["wall"])
        elif match["total"]:
            total = match["total"]
    if known:
        # (A shell command's output, under its exit code, is what it printed: kept as is.)
        body = _text_items(body) if code is None else body
        text = f"{total}\n\n{body}" if total else body
    else:
        text = _text_items(output)
    failed = output.startswith(_FAILED_TO_RUN)
    return text, failed or bool(code), code, duration


def _text_items(text: str) -> str:
    """The text of an MCP tool's result, which Codex writes as its content items in JSON
    (``[{"type":"text","text":"{\\n  \\"tabs\\": …"}]``, on one line with escapes): each
    item's text, a blank line between two, as a list output's items are joined
    (``content_text``), so where one item ends stays visible. Anything else stays as written:
    an image or another kind of item among them, a key with a value besides type and text,
    text that is not such JSON."""
    if not text.startswith("[{"):
        return text
    try:
        items = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    texts = []
    for item in items if isinstance(items, list) else ():
        if not (isinstance(item, dict) and item.get("type") == "text"
                and isinstance(item.get("text"), str)):  # fmt: skip
            return text
        if any(value is not None for key, value in item.items() if key not in ("type", "text")):
            return text  # (annotations, say: what the note would not show)
        texts.append(item["text"])
    return "\n\n".join(texts) if texts else text


# What a review was asked to look at (``entered_review_mode``'s ``target``, newer builds), in
# the words of the choices Codex offers for ``/review``; custom instructions are the person's.
_REVIEW_TARGETS = {
    "uncommittedChanges": lambda t: "Review the uncommitted changes",
    "baseBranch": lambda t: f"Review the changes against the base branch {t['branch']}",
    "commit": lambda t: f"Review commit {t['sha']}" + (f": {t['title']}" if t.get("title") else ""),
    "custom": lambda t: t["instructions"],
}
_SNAKE = {"uncommitted_changes": "uncommittedChanges", "base_branch": "baseBranch"}


def review_request(p: dict[str, Any]) -> str:
    """What the person asked a review to look at (an ``entered_review_mode`` event): its
    target in words (uncommitted changes, a base branch, a commit, custom instructions);
    older builds give the prompt alone, and the short words the UI showed for it
    (``user_facing_hint``), which stand in for a target not known. Empty: nothing said."""
    target = p.get("target") if isinstance(p.get("target"), dict) else {}
    kind = _SNAKE.get(str(target.get("type")), target.get("type"))
    words = _REVIEW_TARGETS.get(kind) if isinstance(kind, str) else None
    texts = {k: v for k, v in target.items() if isinstance(v, str) and v.strip()}
    try:
        said = words(texts) if words is not None else ""
    except KeyError:  # (a branch, a commit or instructions not given)
        said = ""
    for fallback in (p.get("user_facing_hint"), p.get("prompt")):
        if not said.strip() and isinstance(fallback, str):
            said = fallback
    return said.strip()


def review_text(review: Any, odd: list[str] | None = None) -> str:
    """A review's explanation, then each finding (its title on a line, then its body), as
    plain text: the note decides how text looks. A title or body that is not text is left
    out, and said in ``odd``."""
    said_odd = odd if odd is not None else []
    if not isinstance(review, dict):
        if review is not None:
            said_odd.append(f"the review's output is {json_kind(review)}, not an object: left out")
        return ""
    lines = []
    explanation, findings = review.get("overall_explanation"), review.get("findings")
    if isinstance(explanation, str):
        lines.append(explanation)
    elif explanation is not None:
        said_odd.append(f"the review's explanation is {json_kind(explanation)}, not text: left out")
    for n, finding in listed_objects(
        findings, "the review's findings", "review finding {n}", said_odd
    ):
        said = []
        for key in ("title", "body"):
            value = finding.get(key)
            if isinstance(value, str):
                said.append(value)
            elif value is not None and odd is not None:
                odd.append(f"review finding {n}'s {key} is {json_kind(value)}, not text: left out")
        lines.append("\n".join(said).strip())
    return "\n\n".join(line for line in lines if line).strip()


def command_text(command: Any) -> str:
    """A shell command as a person would type it: argv joined, ``bash -lc`` unwrapped."""
    if isinstance(command, str):
        return command
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        if (
            len(command) == 3
            and command[1] in ("-lc", "-c")
            and command[0].endswith(("sh", "bash", "zsh"))
        ):
            return command[2]
        return shlex.join(command)
    return json_text(command)  # (as JSON, never a Python repr: a damaged value)


def _patch_argv(args: dict[str, Any]) -> str | None:
    """The patch of a shell call that is ``["apply_patch", patch]`` and nothing else (older
    Codex): joined as a shell command, the patch took quotes (``'"'"'``) inside and around."""
    command = args["command"]
    if len(args) != 1 or not isinstance(command, list) or len(command) != 2:
        return None
    program, patch = command
    if program not in ("apply_patch", "applypatch") or not isinstance(patch, str):
        return None
    return patch
