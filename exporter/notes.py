"""A Session becomes a Note: a vault path, frontmatter (data) and a Markdown body.

The builder knows nothing of any source format. It cleans injected text (clean.py), groups
messages into turns, pairs tool calls with their results, and hands the templates a view
in which every piece of session text still has to pass a Markdown-safety filter.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import PurePosixPath
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
)
from .render import render

SOURCE_LABELS = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "cursor": "Cursor",
    "trae": "Trae",
    "copilot": "Copilot",
}
MAX_TOOL_OUTPUT = 100_000  # characters kept of one tool output (head and tail)
UNKNOWN_PROJECT = "unknown-project"
TITLE_LENGTH = 80
_MEDIA_EXT = {
    "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp",
    "image/svg+xml": "svg", "application/pdf": "pdf",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Attachment:
    relpath: str  # inside the vault, "/"-separated
    data: bytes


@dataclass(slots=True)
class Note:
    """What the vault writes: a path, frontmatter as data, the owned body, attachments."""

    key: str
    relpath: str
    frontmatter: dict[str, Any]
    body: str
    attachments: list[Attachment] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class NoteSettings:
    folder: str = "AI Sessions"
    attachments_folder: str = "attachments/ccexport"
    timezone: tzinfo | None = None  # None: the machine's local time
    templates: Any = None  # a user template folder (Path) or None
    session_template: str = "session.md.j2"


LinkResolver = Callable[[str], str | None]  # session key -> note file stem


def session_title(session: Session) -> str:
    """The session's own title, else its first real prompt, cleaned and shortened."""
    if session.title and session.title.strip():
        return " ".join(session.title.split())
    command = None
    for message in session.messages:
        if message.role != "user":
            continue
        for part in clean_parts(message):
            if isinstance(part, TextPart):
                return _shorten(part.text)
            if isinstance(part, CommandPart) and " " in part.command.strip():
                return _shorten(part.command)  # a command with arguments is a request
            if isinstance(part, CommandPart) and command is None:
                command = part.command
    return _shorten(command) if command else "Untitled session"


def _shorten(text: str) -> str:
    line = " ".join(text.split())
    if len(line) <= TITLE_LENGTH:
        return line
    cut = line[:TITLE_LENGTH].rsplit(" ", 1)[0]
    return cut.rstrip(" ,.;:") + "…"


def clean_parts(message: Message) -> list[Part]:
    """User text with injected wrappers turned into what they stand for."""
    if message.role != "user":
        return list(message.parts)
    out: list[Part] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            out.extend(clean.clean_user_text(part.text))
        else:
            out.append(part)
    return out


def has_conversation(session: Session) -> bool:
    """A session worth a note: someone wrote something (not only /clear and friends)."""
    for message in session.messages:
        if message.role == "assistant":
            if any(p.kind in ("text", "tool_call", "thinking") for p in message.parts):
                return True
        elif message.role == "user":
            if any(p.kind in ("text", "attachment") for p in clean_parts(message)):
                return True
    return False


def project_of(session: Session) -> str:
    return session.project or UNKNOWN_PROJECT


def default_relpath(session: Session, settings: NoteSettings, parent_path: str | None) -> str:
    """Where a new note goes; a subagent sits beside its parent's note."""
    if parent_path and session.parent_id:
        parent = PurePosixPath(parent_path)
        agent = session.session_id.rsplit("/agent-", 1)[-1]
        return str(parent.with_name(f"{parent.stem} · agent {_short(agent)}.md"))
    when = session.started_at.astimezone(settings.timezone) if session.started_at else None
    day = when.strftime("%Y-%m-%d") if when else "undated"
    title = _shorten_to(session_title(session), 60)
    name = f"{day} {title} {_short(session.session_id)}.md"
    return "/".join(
        [settings.folder, session.source, _component(project_of(session)), _component(name)]
    )


def _component(text: str) -> str:
    """A path component from session text: separators never split it."""
    return text.lstrip("/").replace("/", "-").replace("\\", "-")


def _shorten_to(text: str, length: int) -> str:
    if len(text) <= length:
        return text
    return text[:length].rsplit(" ", 1)[0].rstrip(" ,.;:") + "…"


def _short(session_id: str) -> str:
    tail = session_id.rsplit("/", 1)[-1].removeprefix("agent-")
    return re.sub(r"[^0-9A-Za-z]", "", tail)[:8] or "session"


def tag_slug(text: str) -> str:
    """An Obsidian tag segment: letters, digits, - and _ only, not all digits."""
    slug = re.sub(r"[^\w-]+", "-", text, flags=re.UNICODE).strip("-_").lower()
    if not slug:
        return "unknown"
    return slug if not slug.isdigit() else f"p{slug}"


def build_note(
    session: Session,
    relpath: str,
    settings: NoteSettings,
    resolve: LinkResolver,
) -> Note:
    """Render ``session`` into a Note at ``relpath`` (chosen by the vault)."""
    tz = settings.timezone
    title = session_title(session)
    attachments: list[Attachment] = []
    turns = _turns(session, settings, attachments, resolve)
    parent_link = _link(resolve, session.source, session.parent_id)
    labels = {
        p.subagent_id: p.description
        for m in session.messages
        for p in m.parts
        if isinstance(p, ToolCallPart) and p.subagent_id
    }
    subagent_links = [
        link
        for sid in session.subagent_ids
        if (link := _link(resolve, session.source, sid, labels.get(sid))) is not None
    ]
    context = {
        "session": session,
        "title": title,
        "source_label": SOURCE_LABELS.get(session.source, session.source),
        "project": project_of(session),
        "turns": turns,
        "parent_link": parent_link,
        "subagent_links": subagent_links,
        "started": _local(session.started_at, tz),
        "ended": _local(session.ended_at, tz),
        "tz": tz,
    }
    body = render(settings.session_template, context, settings.templates)
    frontmatter = _frontmatter(session, title, tz, parent_link, subagent_links, turns)
    return Note(session.key, relpath, frontmatter, body, attachments)


def _local(value: datetime | None, tz: tzinfo | None) -> datetime | None:
    return value.astimezone(tz) if value else None


def _link(
    resolve: LinkResolver, source: str, session_id: str | None, label: str | None = None
) -> str | None:
    if not session_id:
        return None
    stem = resolve(f"{source}:{session_id}")
    return markdown.wikilink(stem, label) if stem else None


def _frontmatter(
    session: Session,
    title: str,
    tz: tzinfo | None,
    parent_link: str | None,
    subagent_links: list[str],
    turns: list[dict[str, Any]],
) -> dict[str, Any]:
    """The exporter's properties, in a fixed order; absent values are left out."""
    project = project_of(session)
    spoken = sum(1 for t in turns for _ in t["messages"])
    fm: dict[str, Any] = {
        "title": title,
        "aliases": [title],
        "source": session.source,
        "session_id": session.session_id,
        "project": project,
        "cwd": session.cwd,
        "git_branch": session.git_branch,
        "models": list(session.models) or None,
        "created": _naive(session.started_at, tz),
        "updated": _naive(session.ended_at, tz),
        "messages": spoken,
        "tool_calls": session.tool_call_count,
        "tokens_in": session.usage.input_tokens or None,
        "tokens_out": session.usage.output_tokens or None,
        "tokens_cache_read": session.usage.cache_read_tokens or None,
        "tokens_cache_write": session.usage.cache_write_tokens or None,
        "parent": parent_link,
        "subagents": subagent_links or None,
        "tags": ["ai-session", f"ai-session/{session.source}", f"project/{tag_slug(project)}"],
    }
    return {k: v for k, v in fm.items() if v is not None}


def _naive(value: datetime | None, tz: tzinfo | None) -> datetime | None:
    """Local wall-clock time without offset: what Obsidian's date & time property reads."""
    if value is None:
        return None
    return value.astimezone(tz).replace(tzinfo=None, microsecond=0)


def _turns(
    session: Session,
    settings: NoteSettings,
    attachments: list[Attachment],
    resolve: LinkResolver,
) -> list[dict[str, Any]]:
    """Messages grouped into turns: a user's message, then everything until the next one."""
    results = {
        p.call_id: p
        for m in session.messages
        for p in m.parts
        if isinstance(p, ToolResultPart) and p.call_id
    }
    paired: set[str] = set()
    turns: list[dict[str, Any]] = []
    start = _local(session.started_at, settings.timezone)
    first_day = start.date() if start else None
    for message in session.messages:
        parts = clean_parts(message)
        items = [
            item
            for part in parts
            if (item := _item(part, session, settings, results, paired, attachments, resolve))
        ]
        if not items:
            continue
        role = "assistant" if message.role == "tool" else message.role
        queued = any(isinstance(p, NoticePart) and p.notice == "queued" for p in parts)
        # A command's output arrives as its own message; it belongs to the command's turn.
        output_only = all(i["kind"] == "command_output" for i in items)
        continues = turns and turns[-1]["role"] == role and (role != "user" or output_only)
        if not continues:
            when = _local(message.timestamp, settings.timezone)
            turns.append({"role": role, "time": when, "when": _when(when, first_day),
                          "queued": queued, "items": [], "messages": []})  # fmt: skip
        turns[-1]["items"].extend(items)
        if message.role != "tool":
            turns[-1]["messages"].append(message.source_id)
    return turns


def _when(when: datetime | None, first_day: Any) -> str:
    """A turn's time; the date too once the session has run past its first day."""
    if when is None:
        return ""
    return when.strftime("%H:%M" if when.date() == first_day else "%Y-%m-%d %H:%M")


def _item(
    part: Part,
    session: Session,
    settings: NoteSettings,
    results: Mapping[str, ToolResultPart],
    paired: set[str],
    attachments: list[Attachment],
    resolve: LinkResolver,
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
        result = results.get(part.call_id) if part.call_id else None
        if result is not None and part.call_id:
            paired.add(part.call_id)
        return {
            "kind": "tool_call",
            "name": part.name,
            "description": part.description,
            "summary": _call_summary(part),
            "inputs": _input_blocks(part.input),
            "output": _output(result.output) if result else None,
            "is_error": bool(result and result.is_error),
            "subagent": _link(resolve, session.source, part.subagent_id),
            "prompt": _field(part.input, "prompt"),
            "agent_type": _field(part.input, "subagent_type"),
        }
    if isinstance(part, ToolResultPart):
        if part.call_id and part.call_id in paired:
            return None
        return {"kind": "tool_result", "output": _output(part.output), "is_error": part.is_error}
    if isinstance(part, AttachmentPart):
        return _attachment_item(part, settings, attachments)
    if isinstance(part, CommandPart):
        return {"kind": "command", "command": part.command, "shell": part.shell}
    if isinstance(part, CommandOutputPart):
        text = clean.strip_control(part.output).strip("\n")
        return {"kind": "command_output", "output": text, "is_error": part.is_error}
    if isinstance(part, SummaryPart):
        return {"kind": "summary", "text": clean.strip_control(part.text), "trigger": part.trigger}
    if isinstance(part, NoticePart):
        if part.notice == "queued":
            return None
        return {"kind": "notice", "notice": part.notice, "text": part.text}
    return None


def _field(value: Any, key: str) -> str | None:
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def _attachment_item(
    part: AttachmentPart, settings: NoteSettings, attachments: list[Attachment]
) -> dict[str, Any] | None:
    if not part.data:
        return None
    digest = hashlib.sha256(part.data).hexdigest()[:16]
    ext = _MEDIA_EXT.get(part.media_type, "bin")
    relpath = f"{settings.attachments_folder.strip('/')}/{digest}.{ext}"
    if all(a.relpath != relpath for a in attachments):
        attachments.append(Attachment(relpath, part.data))
    return {"kind": "attachment", "path": relpath, "media_type": part.media_type}


def _output(text: str) -> str:
    text = clean.strip_control(clean.strip_injected(text)).strip("\n")
    if len(text) <= MAX_TOOL_OUTPUT:
        return text
    half = MAX_TOOL_OUTPUT // 2
    omitted = len(text) - 2 * half
    return f"{text[:half]}\n[… {omitted} characters omitted by ccexport …]\n{text[-half:]}"


_SUMMARY_KEYS = ("command", "file_path", "path", "pattern", "url", "query", "notebook_path")


def _call_summary(part: ToolCallPart) -> str | None:
    """One line saying what the call did: its description, else its main argument."""
    if part.description:
        return part.description
    if isinstance(part.input, dict):
        for key in _SUMMARY_KEYS:
            value = part.input.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip().split("\n", 1)[0][:120]
    return None


_LANG_BY_EXT = {
    "py": "python", "js": "javascript", "ts": "typescript", "tsx": "tsx", "jsx": "jsx",
    "rs": "rust", "go": "go", "md": "markdown", "json": "json", "yaml": "yaml", "yml": "yaml",
    "toml": "toml", "sh": "sh", "html": "html", "css": "css", "java": "java", "rb": "ruby",
    "c": "c", "h": "c", "cpp": "cpp", "sql": "sql",
}  # fmt: skip


def _input_blocks(value: Any) -> list[dict[str, str]]:
    """A tool's input as code blocks: long text fields on their own, the rest as JSON."""
    if isinstance(value, str):
        return [{"label": "", "text": value, "lang": "text"}]
    if not isinstance(value, dict):
        return [{"label": "", "text": _json(value), "lang": "json"}] if value is not None else []
    path = next(
        (value[k] for k in ("file_path", "path", "notebook_path") if isinstance(value.get(k), str)),
        "",
    )
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    rest = {}
    blocks = []
    for key, item in value.items():
        if key == "description":
            continue  # shown in the call's title
        if key == "command" and isinstance(item, str):
            blocks.append({"label": "", "text": item, "lang": "sh"})
        elif isinstance(item, str) and ("\n" in item or len(item) > 200):
            blocks.append({"label": key, "text": item, "lang": _LANG_BY_EXT.get(ext, "text")})
        else:
            rest[key] = item
    if rest and set(rest) - {_primary_key(value)}:
        blocks.insert(0 if not blocks or blocks[0]["lang"] != "sh" else 1,
                      {"label": "", "text": _json(rest), "lang": "json"})  # fmt: skip
    return blocks


def _primary_key(value: dict[str, Any]) -> str | None:
    """The argument already shown in a call's title (when it has no description)."""
    if isinstance(value.get("description"), str):
        return None
    return next((k for k in _SUMMARY_KEYS if isinstance(value.get(k), str)), None)


def _json(value: Any) -> str:
    import json

    return json.dumps(value, indent=2, ensure_ascii=False, default=str)
