"""The conversation as templates see it: turns of items, tool calls paired with results.

Each item is a plain dict with a ``kind`` (text, thinking, tool_call, tool_result, command,
command_output, summary, attachment, notice) and the raw text it shows; templates pass every
piece of text through a Markdown-safety filter.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any

from . import clean, markdown
from .model import (
    AttachmentPart,
    CommandOutputPart,
    CommandPart,
    Message,
    NoticePart,
    Part,
    Session,
    SummaryPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    decode_text,
)
from .notespec import TurnView as TurnView  # (re-exported)
from .render import reference_rendering, short_model_name
from .toolinput import TODO_TOOLS as TODO_TOOLS  # (re-exported)
from .toolinput import (
    call_title,
    input_blocks,
    lang_of_file,
    subagent_kind,
    subagent_task,
    text_field,
    todo_items,
)
from .toolpairs import ToolPairs

MAX_TOOL_OUTPUT = 100_000  # characters kept of one tool output (head and tail)
_MEDIA_EXT = {
    "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp",
    "image/svg+xml": "svg", "application/pdf": "pdf",
}  # fmt: skip

LinkResolver = Callable[[str], str | None]  # session key -> note file stem


@dataclass(frozen=True, slots=True)
class Attachment:
    relpath: str  # inside the vault, "/"-separated
    data: bytes


def clean_parts(message: Message, source: str) -> list[Part]:
    """User text with the wrappers ``source``'s harness injects turned into what they
    stand for."""
    if message.role != "user":
        return list(message.parts)
    out: list[Part] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            out.extend(_cleaned(part.text, source))
        else:
            out.append(part)
    return out


# The title, the counts, the filter and the turns each clean a session's prompts (a Markdown
# parse when there is code): each distinct text is cleaned once. Parts are frozen, so sharing
# them is safe; the texts remembered are bounded, then forgotten all at once.
_CLEANED: dict[tuple[str, str], tuple[Part, ...]] = {}  # (source, text) -> its parts
_CLEANED_SIZE = [0]
CLEANED_MAX_CHARS = 4_000_000


def _cleaned(text: str, source: str) -> tuple[Part, ...] | list[Part]:
    if reference_rendering():
        return clean.clean_user_text(text, source)
    found = _CLEANED.get((source, text))
    if found is not None:
        return found
    found = tuple(clean.clean_user_text(text, source))
    if _CLEANED_SIZE[0] + len(text) > CLEANED_MAX_CHARS:
        _CLEANED.clear()
        _CLEANED_SIZE[0] = 0
    _CLEANED[source, text] = found
    _CLEANED_SIZE[0] += len(text)
    return found


def local(value: datetime | None, tz: tzinfo | None) -> datetime | None:
    return value.astimezone(tz) if value else None


def link(
    resolve: LinkResolver, source: str, session_id: str | None, label: str | None = None
) -> str | None:
    """A wikilink to another session's note, or None if it has no note."""
    if not session_id:
        return None
    stem = resolve(f"{source}:{session_id}")
    return markdown.wikilink(stem, label) if stem else None


PROMPT_KINDS = ("text", "attachment", "command")  # what makes a user message a prompt


def is_prompt(message: Message, source: str, parts: list[Part] | None = None) -> bool:
    """Did someone write this message of ``source`` (text, an attachment or a command),
    once the wrappers its tool injects into a user's turn are taken out? (``parts``: its
    cleaned parts.)"""
    if message.role != "user":
        return False
    cleaned = clean_parts(message, source) if parts is None else parts
    # (a command's prompt sent with no command beside it: a spec-kit prompt, nothing typed)
    return any(p.kind in PROMPT_KINDS or type(p) is CommandOutputPart and p.sent for p in cleaned)


def holds_parent_task(session: Session, first_part: bool) -> bool:
    """Does this note hold a subagent's task? A subagent's first prompt is written by the
    agent that started it, not by the person: only the note of its first part holds it."""
    return bool(session.parent_id) and first_part


_EDITOR_ORIGINS = ("editor-file", "editor-selection")


def build_turns(
    session: Session,
    attachments_folder: str,
    tz: tzinfo | None,
    attachments: list[Attachment],
    resolve: LinkResolver,
    first_part: bool = True,
) -> list[dict[str, Any]]:
    """Messages grouped into turns: a user's message, then everything until the next one.
    A subagent's first prompt is its parent agent's task (``task``), not the person's."""
    pairs = ToolPairs(session.messages)
    task_pending = holds_parent_task(session, first_part)
    turns: list[dict[str, Any]] = []
    start = local(session.started_at, tz)
    first_day = start.date() if start else None
    offset = start.utcoffset() if start else None
    calls: dict[int, dict[str, Any]] = {}  # id of a result -> the item of the call it answers
    # The model the last assistant turn began with: a turn that begins with another names
    # it (never the first: a note of one model reads as it always did). A change within a
    # turn is named by the next turn's heading, as no heading stands where it happened.
    began_with: str | None = None
    modelled: dict[str, Any] | None = None  # the turn whose first model is known
    # The results (by id) still to come of the calls of the last turn: a harness step
    # before them is within that turn, not the end of it.
    awaiting: set[int] = set()
    arrived: set[int] = set()  # the results met so far (one may come before its call)
    for message in session.messages:
        parts = clean_parts(message, session.source)
        items: list[dict[str, Any]] = []
        returned: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (file, its call's item)
        call = None  # the call whose result the files that follow came with
        waits: set[int] = set()  # the results this message's calls wait for
        for part in parts:
            item = _item(part, session, attachments_folder, pairs, attachments, resolve, calls)
            if isinstance(part, ToolCallPart) and item is not None and calls:
                if calls[last := next(reversed(calls))] is item and last not in arrived:
                    waits.add(last)
            if isinstance(part, ToolResultPart):
                arrived.add(id(part))
                waits.discard(id(part))
                awaiting.discard(id(part))
                call = calls.get(id(part))
            elif not isinstance(part, AttachmentPart):
                call = None
            if item is None:
                continue
            items.append(item)
            if call is not None and item["kind"] == "attachment" and item["text"] is None:
                returned.append((item, call))
        if not items:
            continue
        role = "assistant" if message.role == "tool" else message.role
        if role == "user" and all(i["kind"] == "notice" and i["notice"] == "notification"
                                  for i in items):  # fmt: skip
            # Only what the harness told the model (a background task ended): no person's
            # turn, though delivered as a user line or queued like a steering message.
            role = "system"
        queued = any(isinstance(p, NoticePart) and p.notice == "queued" for p in parts)
        task = task_pending and is_prompt(message, session.source, parts)
        task_pending = task_pending and not task
        # A command's output arrives as its own message; it belongs to the command's turn.
        # So does the person's interruption: it ends the turn they stopped, as no prompt.
        output_only = all(i["kind"] == "command_output" and not i["sent"] for i in items)
        stopped = role == "user" and all(i.get("notice") == "interrupted" for i in items)
        # What the harness said (a reminder, a hook's output, a notice) while the
        # assistant's call ran is a step within its turn: no new heading after it.
        within = role == "system" and bool(awaiting) and all(i["kind"] == "notice" for i in items)
        # The editor's context alone (Claude Code's IDE extension sent the open file or a
        # selection) while a call awaits its output: no prompt of the person's.
        within = within or role == "user" and bool(awaiting) and all(
            i.get("origin") in _EDITOR_ORIGINS for i in items)  # fmt: skip
        continues = turns and (stopped or within and turns[-1]["role"] == "assistant" or (
            turns[-1]["role"] == role and (role != "user" or output_only)))  # fmt: skip
        if not continues or task:
            awaiting = set()
            when = local(message.timestamp, tz)
            turns.append({"role": role, "time": when, "when": _when(when, first_day, offset),
                          "queued": queued, "task": task, "items": [], "messages": [],
                          "model": None})  # fmt: skip
        awaiting |= waits
        if message.role == "assistant" and message.model and turns[-1] is not modelled:
            modelled = turns[-1]
            if began_with and short_model_name(message.model) != short_model_name(began_with):
                modelled["model"] = message.model
            began_with = message.model
        for item in items:
            last = turns[-1]["items"][-1] if turns[-1]["items"] else None
            if last and item["kind"] == last["kind"] == "thinking" and not item["redacted"]:
                last["text"] += "\n\n" + item["text"]  # one reasoning, streamed in pieces
            else:
                turns[-1]["items"].append(item)
        for item, call in returned:
            # An image a tool returned (a Read of a PNG, view_image) is its call's output:
            # shown in the call's callout. It stays an item of its own too, marked, for a
            # template written before ``attachments`` (which shows it where it always did).
            if any(i is call for i in turns[-1]["items"]):
                item["in_call"] = True
                call["attachments"].append(item)
        if message.role != "tool" and not all(i.get("notice") == "remark" for i in items):
            # (ccexport's own remark on what the source keeps not is no message of it)
            turns[-1]["messages"].append(message.source_id)
    return turns


def _when(when: datetime | None, first_day: Any, offset: timedelta | None = None) -> str:
    """A turn's time; the date too once the session has run past its first day; and the
    zone's name once the clocks have changed since the session began (in the hour repeated
    in autumn, 01:10 EST follows 01:50 EDT, and no longer seems to come before it)."""
    if when is None:
        return ""
    if when.date() == first_day:
        shown = f"{when.hour:02}:{when.minute:02}"  # strftime's "%H:%M", at a quarter the cost
    else:
        shown = when.strftime("%Y-%m-%d %H:%M")
    if offset is not None and when.utcoffset() != offset:
        shown += f" {when.tzname()}"
    return shown


def _item(
    part: Part,
    session: Session,
    attachments_folder: str,
    pairs: ToolPairs,
    attachments: list[Attachment],
    resolve: LinkResolver,
    calls: dict[int, dict[str, Any]],
) -> dict[str, Any] | None:
    if isinstance(part, TextPart):
        return {"kind": "text", "text": clean.strip_control(part.text)}
    if isinstance(part, ThinkingPart):
        return {
            "kind": "thinking",
            "text": clean.strip_control(part.text),
            "redacted": part.redacted,
        }
    if isinstance(part, ToolCallPart):
        result = pairs.result_of_next_call()
        todos = todo_items(part)
        description, summary, cut = call_title(part)
        item = {
            "kind": "tool_call",
            "name": part.name,
            "description": description,
            "summary": summary,
            "summary_code": not description and summary is not None,
            "summary_cut": cut,
            "inputs": input_blocks(part.input, part.name, summary),
            **_output(result.output if result else None, attachments_folder, attachments),
            # A call that did not run is no failure, but a template written before
            # ``not_run`` knew only ``is_error``: it marks such a call as it always did.
            "is_error": bool(result and (result.is_error or result.not_run)),
            "not_run": result.not_run if result else None,
            "exit_code": result.exit_code if result else None,
            "duration": result.duration if result else None,
            "subagent": link(resolve, session.source, part.subagent_id),
            "prompt": subagent_task(part),
            "agent_type": subagent_kind(part),
            "todos": todos,  # a plan or to-do list the call wrote, else None
            "explanation": text_field(part.input, "explanation") if todos else None,
            "output_more": 0,  # lines left out by tool_output = "head" (see shape_turns)
            "attachments": [],  # the images its result returned (build_turns fills it)
        }
        if result is not None:
            calls[id(result)] = item
        return item
    if isinstance(part, ToolResultPart):
        if pairs.next_result_is_paired():
            return None
        return {"kind": "tool_result", **_output(part.output, attachments_folder, attachments),
                "is_error": part.is_error or bool(part.not_run), "not_run": part.not_run,
                "output_more": 0}  # fmt: skip
    if isinstance(part, AttachmentPart):
        return _attachment_item(part, attachments_folder, attachments)
    if isinstance(part, CommandPart):
        return {"kind": "command", "command": part.command, "shell": part.shell}
    if isinstance(part, CommandOutputPart):
        text = clean.strip_control(part.output).strip("\n")
        return {"kind": "command_output", "output": text, "is_error": part.is_error,
                "sent": part.sent}  # fmt: skip
    if isinstance(part, SummaryPart):
        text = clean.compaction_summary(clean.strip_control(part.text))
        return {"kind": "summary", "text": text, "trigger": part.trigger, "tokens": part.tokens}
    if isinstance(part, NoticePart):
        if part.notice == "queued":
            return None
        if part.notice == "error":  # (``app`` on an error only)
            return {"kind": "notice", "notice": "error", "text": part.text, "app": part.app}
        return {"kind": "notice", "notice": part.notice, "text": part.text}
    return None


def _attachment_item(
    part: AttachmentPart, folder: str, attachments: list[Attachment]
) -> dict[str, Any] | None:
    # Its file name, as the session gives it (a path, for a file a person attached): one line.
    name = " ".join(clean.strip_control(part.name).split()) or None if part.name else None
    if not part.data:
        # A file the session names but does not hold (kept elsewhere, by path or URL): the
        # note says it was attached rather than leave no trace of it.
        return {"kind": "notice", "notice": "attachment", "text": name or "",
                "withheld": part.withheld or "", "origin": part.origin}  # fmt: skip
    ext = _MEDIA_EXT.get(part.media_type) or ("txt" if part.is_text else "bin")
    # A text file's too, copied where the note names it (``notes.named_attachments``): a
    # template written before text was shown in the note embeds it, and the note points
    # to it when it shows a cut.
    relpath = _attach(part.data, ext, folder, attachments)
    item = {"kind": "attachment", "path": relpath, "media_type": part.media_type, "name": name,
            "origin": part.origin, "text": None, "lang": None, "lines": 0,
            "cut": False, "shortened": part.shortened, "in_call": False}  # fmt: skip
    if part.is_text and not part.is_media:
        # A selection, a pasted or attached file: session text, shown where it was asked
        # about (an embed of a .txt file shows nothing in Obsidian, and search skips it).
        whole = clean.strip_control(decode_text(part.data)[0]).strip("\n")
        text = _cut(whole)
        item.update(text=text, lang=lang_of_file(name or "", part.media_type),
                    lines=text.count("\n") + 1, cut=text is not whole)  # fmt: skip
    return item


def _cut(text: str) -> str:
    """The text, or its head and tail when it is longer than a note should hold."""
    if len(text) <= MAX_TOOL_OUTPUT:
        return text
    half = MAX_TOOL_OUTPUT // 2
    omitted = len(text) - 2 * half
    return f"{text[:half]}\n[… {omitted} characters omitted by ccexport …]\n{text[-half:]}"


def _attach(data: bytes, ext: str, folder: str, attachments: list[Attachment]) -> str:
    """The file's path in the vault, named by its content: copied there once a note."""
    relpath = f"{folder.strip('/')}/{hashlib.sha256(data).hexdigest()[:16]}.{ext}"
    if all(a.relpath != relpath for a in attachments):
        attachments.append(Attachment(relpath, data))
    return relpath


def _output(text: str | None, folder: str, attachments: list[Attachment]) -> dict[str, Any]:
    """A tool's output as the note shows it; one too long for a note is cut to its head and
    tail there, and kept whole in a text file beside it (``output_path``): what a command
    printed is evidence, and its middle was nowhere in the vault. The file holds the output
    as the tool gave it (its line ends, the blank lines around it), but for the terminal's
    control sequences: a reader who prints it in a terminal runs none of them."""
    if text is None:
        return {"output": None, "output_path": None}
    output = clean.strip_injected(text)
    whole = clean.strip_control(output).strip("\n")
    shown = _cut(whole)
    if shown is whole:
        return {"output": shown, "output_path": None}
    data = clean.strip_control(output, line_ends=True).encode("utf-8", "replace")
    return {"output": shown, "output_path": _attach(data, "txt", folder, attachments)}


def shape_turns(turns: list[dict[str, Any]], view: TurnView) -> list[dict[str, Any]]:
    """The turns as the note shows them: hidden kinds left out, tool outputs cut to their
    first lines or left out, and each item's ``one_line`` set (a call shown as one line of a
    list). A turn left with nothing to show is left out. The turns given are not changed in
    what they count (their ``messages``), so properties never depend on these settings."""
    shaped = []
    for turn in turns:
        items = [shown for item in turn["items"] if (shown := _shape(item, view)) is not None]
        if items:
            shaped.append({**turn, "items": items})
    return shaped


def _shape(item: dict[str, Any], view: TurnView) -> dict[str, Any] | None:
    kind = item["kind"]
    checklist = view.todo_as_checklist and kind == "tool_call" and bool(item["todos"])
    # The images a tool returned are its output: shown as long as its outputs are, whole or
    # their first lines (an image has no lines to cut), and left out with them.
    images_shown = view.tools == "full" and view.tool_output != "none"
    if kind == "thinking" and view.thinking == "hidden":
        return None
    if kind == "attachment" and item["in_call"] and not images_shown:
        return None
    if kind in ("tool_call", "tool_result") and not checklist:
        if view.tools == "hidden" or (view.tools == "summary" and kind == "tool_result"):
            return None
        if kind == "tool_result" and view.tool_output == "none":
            return None
    shaped = {**item, "one_line": kind == "tool_call" and view.tools == "summary" and not checklist}
    is_subagent = kind == "tool_call" and (item["subagent"] or item["name"] in ("Task", "Agent"))
    if kind in ("tool_call", "tool_result") and item["output"] and not is_subagent:
        # A subagent's result is its reply (prose, often the point of the call): kept whole.
        if view.tool_output == "none":
            shaped["output"] = None
        elif view.tool_output == "head":
            lines = item["output"].split("\n")
            if len(lines) > view.tool_output_lines:
                shaped["output"] = "\n".join(lines[: view.tool_output_lines])
                shaped["output_more"] = len(lines) - view.tool_output_lines
    if item.get("output_path") and (
        shaped["one_line"] or checklist or shaped["output"] is not item["output"]
    ):
        shaped["output_path"] = None  # not shown, or cut, by the person's choice: no copy
    if kind == "tool_call" and item["attachments"] and not images_shown:
        shaped["attachments"] = []
    return shaped


def unused_outputs(
    turns: list[dict[str, Any]], shaped: list[dict[str, Any]], named: bool = True
) -> set[str]:
    """The files of whole tool outputs (``output_path``) and the images tools returned that
    the shaped turns no longer show (the person hides tools or their outputs, or shows the
    first lines of outputs), or that no note names (``named``: the template shows
    ``output_path``): not copied."""

    def paths(of: list[dict[str, Any]], key: str) -> set[str]:
        return {item[key] for turn in of for item in turn["items"] if item.get(key)}

    returned = {item["path"] for turn in turns for item in turn["items"] if item.get("in_call")}
    shown = (paths(shaped, "output_path") if named else set()) | paths(shaped, "path")
    return (paths(turns, "output_path") | returned) - shown
