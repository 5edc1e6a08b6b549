"""Properties worth querying, computed from a Session: which model wrote it, how long it
was active, which files it changed, which tools it used and how often they failed, how
many prompts the person wrote, what it cost, how to reopen it and which day it belongs to.

Every property has one type in every note (an int is always an int, a list always a list);
one that does not apply is left out, never written as null or as an empty list.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta, tzinfo
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from . import prices
from .markdown import unlinked
from .model import Session, ToolCallPart, ToolResultPart
from .notespec import PropertySettings as PropertySettings  # (re-exported)
from .resume import resume_command
from .toolinput import patch_files
from .turns import holds_parent_task, is_prompt

ACTIVE_GAP = timedelta(minutes=5)  # a longer pause between two messages is time away
# The order the properties take in a note (after ccexport's older ones, before tags).
PROPERTIES = ("model", "active", "prompts", "tools", "errors", "files", "tokens", "cost",
              "cost_estimated", "resume", "command", "day")  # fmt: skip

# Tools that write, edit or delete files, by lower-cased name, across sources: Claude Code,
# Cursor, Gemini CLI, OpenCode/Kilo, the Cline family, Copilot CLI and Chat, Trae, Antigravity.
EDIT_TOOLS = frozenset({
    "write", "edit", "multiedit", "notebookedit",  # Claude Code, OpenCode, Cursor Agent
    "edit_file", "search_replace", "strreplace", "delete_file", "write_file",  # Cursor
    "replace",  # Gemini CLI
    "apply_patch",  # Codex, Cursor (with a file_path beside the patch)
    "patch",  # OpenCode
    "write_to_file", "replace_in_file", "apply_diff", "insert_content", "search_and_replace",
    "editedexistingfile", "newfilecreated",  # the Cline family (API and UI names)
    "editor",  # the Cline SDK (Cline 4)
    "create", "str_replace_editor",  # Copilot CLI
    "edited files", "copilot_createfile", "copilot_replacestring", "copilot_multireplacestring",
    "copilot_inserteditintofile", "copilot_insertedit", "copilot_editnotebook",
    "copilot_applypatch",  # Copilot Chat (VS Code's ids of its tools)
    "update_file",  # Trae
    "replace_file_content", "multi_replace_file_content",  # Antigravity
})  # fmt: skip
_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "target_file", "targetFile",
              "TargetFile", "absolutePath", "filepath", "file")  # fmt: skip


def session_properties(
    session: Session,
    settings: PropertySettings | None = None,
    tz: tzinfo | None = None,
    first_part: bool = True,
) -> dict[str, Any]:
    """The properties of ``session`` in note order; those that do not apply are absent
    (``first_part``: false for the note of a later part of a session in parts)."""
    settings = settings or PropertySettings()
    model = main_model(session)
    usage = session.usage
    tokens = (
        usage.input_tokens
        + usage.output_tokens
        + usage.cache_read_tokens
        + usage.cache_write_tokens
    )
    props: dict[str, Any] = {
        "model": unlinked(model),
        "active": active_minutes(session),
        "prompts": prompt_count(session, first_part),
        "tools": unlinked(tool_names(session)) or None,
        "errors": error_count(session),
        "files": unlinked(edited_files(session)) or None,
        "tokens": tokens or None,
    }
    if session.cost is None:
        table = settings.prices or prices.shipped_table()
        estimate = prices.session_estimate(usage, session.model_usage, model, table)
        if estimate is not None:
            props["cost"] = estimate
            props["cost_estimated"] = True
    props["resume"] = unlinked(resume_command(session))
    props["command"] = unlinked(session.command)
    if settings.daily and session.started_at:
        props["day"] = settings.daily.link(session.started_at.astimezone(tz).date())
    return {k: v for k, v in props.items() if v is not None}


def add_properties(frontmatter: dict[str, Any], props: dict[str, Any]) -> dict[str, Any]:
    """``frontmatter`` with ``props`` placed before its tags (the source's own cost stays)."""
    out = {k: v for k, v in frontmatter.items() if k != "tags"}
    for key, value in props.items():
        out.setdefault(key, value)
    if "tags" in frontmatter:
        out["tags"] = frontmatter["tags"]
    return out


def main_model(session: Session) -> str | None:
    """The model that wrote most replies (the first of them on a tie), else the first the
    session names."""
    counts = Counter(m.model for m in session.messages if m.role == "assistant" and m.model)
    if counts:
        return counts.most_common(1)[0][0]
    return session.models[0] if session.models else None


def active_minutes(session: Session) -> int | None:
    """Minutes with activity: the gaps between consecutive messages that are shorter than
    ACTIVE_GAP, summed and rounded. None when fewer than two messages are dated."""
    times = sorted(m.timestamp for m in session.messages if m.timestamp is not None)
    if len(times) < 2:
        return None
    active = sum(
        (b - a for a, b in zip(times, times[1:], strict=False) if b - a < ACTIVE_GAP),
        timedelta(),
    )
    return round(active.total_seconds() / 60)


def prompt_count(session: Session, first_part: bool = True) -> int:
    """Messages the person wrote: text, an attachment or a command they typed (the
    wrappers tools inject into the user's turn do not count, nor a subagent's task, which
    the agent that started it wrote)."""
    count = sum(1 for m in session.messages if is_prompt(m, session.source))
    return count - 1 if count and holds_parent_task(session, first_part) else count


def tool_names(session: Session) -> list[str]:
    """The names of the tools the session called, in alphabetical order."""
    names = {p.name for m in session.messages for p in m.parts if isinstance(p, ToolCallPart)}
    return sorted((n for n in names if n), key=lambda n: (n.lower(), n))


def error_count(session: Session) -> int | None:
    """Tool calls that failed (their result says so). A call that did not run (rejected,
    denied or cancelled) did not fail. None where the adapter says the source kept no
    call's outcome (``extra["outcomes_unknown"]``: Cursor's transcripts keep no tool
    output): how many failed is not known, and 0 would call them clean."""
    if session.extra.get("outcomes_unknown"):
        return None
    return sum(
        1
        for m in session.messages
        for p in m.parts
        if isinstance(p, ToolResultPart) and p.is_error and not p.not_run
    )


def edited_files(session: Session) -> list[str]:
    """Paths the session wrote, edited or deleted through its tools, in order of first
    change; relative to the session's folder when inside it. A call whose result is an
    error, or that did not run, changed nothing (a write the person rejected or that was
    not permitted, a patch that did not apply). One pass: a long session's messages are
    read from its file."""
    changes: list[tuple[str, str | None]] = []  # (path, the call's id), in order
    failed: set[str] = set()
    for message in session.messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                changes += ((path, part.call_id) for path in _paths_of(part))
            elif isinstance(part, ToolResultPart) and part.call_id:
                if part.is_error or part.not_run:
                    failed.add(part.call_id)
    found: dict[str, None] = {}
    for path, call_id in changes:
        if call_id is None or call_id not in failed:
            found.setdefault(_relative(path.strip(), session.cwd), None)
    return [p for p in found if p]


def _paths_of(call: ToolCallPart) -> list[str]:
    named = patch_files(call.input)
    if named:
        return named
    if call.name.lower() not in EDIT_TOOLS or not isinstance(call.input, dict):
        return []
    if call.input.get("command") == "view":
        return []  # an editor tool's command that only reads (str_replace_editor's "view")
    for key in _PATH_KEYS:
        value = call.input.get(key)
        if isinstance(value, str) and value.strip():
            return [value]
    files = call.input.get("files")
    if isinstance(files, list):
        return [f for f in files if isinstance(f, str)]
    return []


def _relative(path: str, cwd: str | None) -> str:
    if not cwd or not path:
        return path
    for flavour in (PurePosixPath, PureWindowsPath):
        if flavour is PureWindowsPath and not re.match(r"^[A-Za-z]:[\\/]|^\\\\", cwd):
            continue
        full, base = flavour(path), flavour(cwd)
        if full.is_absolute() and full.is_relative_to(base) and full != base:
            return full.relative_to(base).as_posix()
    return path
