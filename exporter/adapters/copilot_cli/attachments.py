"""What a person attached to a Copilot CLI prompt (``user.message.attachments``).

Five kinds (the CLI's session-event schema): ``file`` ``{path, displayName, lineRange?
{start, end}}`` (1-based lines) and ``directory`` ``{path, displayName}``, which the CLI
reads from disk when it sends the prompt, so the log holds only their path; ``selection``
``{filePath, displayName, text, selection{start, end{line, character}}}`` (0-based lines),
whose selected text the log holds; ``github_reference`` ``{number, title, referenceType,
state, url}``; and ``blob`` ``{data (base64), mimeType, displayName?}``, a pasted image.
A kind not seen before is named by whatever path or name it carries.

A tool's result can hold such media too: ``result.contents`` items ``image``/``audio``
``{data, mimeType}``, next to ``terminal`` ``{text, exitCode?}`` (the command's exit code,
also in the event's ``shellExecution`` since 1.0.88).
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
from typing import Any

from ...model import AttachmentPart
from .values import text_of

_UNKNOWN_MEDIA = "application/octet-stream"


def attachment_parts(items: Any) -> list[AttachmentPart]:
    """The attachments of one prompt, in the order given; entries that name nothing are
    left out."""
    out = []
    for item in items if isinstance(items, list) else []:
        part = _attachment(item) if isinstance(item, dict) else None
        if part:
            out.append(part)
    return out


def result_extras(contents: Any, shell: Any = None) -> tuple[int | None, list[AttachmentPart]]:
    """A tool result's exit code (``shellExecution.exitCode``, 1.0.88+, else its ``terminal``
    item's) and its images and audio."""
    code = shell.get("exitCode") if isinstance(shell, dict) else None
    exit_code = int(code) if _whole(code) else None
    media = []
    for item in contents if isinstance(contents, list) else []:
        if not isinstance(item, dict):
            continue
        code = item.get("exitCode")
        if item.get("type") == "terminal" and exit_code is None and _whole(code):
            exit_code = int(code)
        elif item.get("type") in ("image", "audio"):
            raw = _decoded(item.get("data"))
            if raw:
                media.append(AttachmentPart(text_of(item.get("mimeType")) or _UNKNOWN_MEDIA, raw))
    return exit_code, media


def _attachment(item: dict[str, Any]) -> AttachmentPart | None:
    kind = item.get("type")
    label = text_of(item.get("displayName"))
    if kind == "blob":
        raw = _decoded(item.get("data"))
        media = text_of(item.get("mimeType")) or _UNKNOWN_MEDIA
        return AttachmentPart(media, raw, label) if raw or label else None
    if kind == "selection":
        path = text_of(item.get("filePath")) or label
        text = item.get("text") if isinstance(item.get("text"), str) else ""
        name = _with_lines(path, _selected_lines(item.get("selection")))
        return AttachmentPart("text/plain", text.encode() or None, name) if name or text else None
    if kind == "github_reference":
        return _reference(item)
    path = text_of(item.get("path")) or label
    if not path:
        return None
    if kind == "directory":
        return AttachmentPart("inode/directory", None, path)
    lines = item.get("lineRange")
    span = (lines.get("start"), lines.get("end")) if isinstance(lines, dict) else None
    media = mimetypes.guess_type(path)[0] or _UNKNOWN_MEDIA
    return AttachmentPart(media, None, _with_lines(path, span))


def _reference(item: dict[str, Any]) -> AttachmentPart | None:
    """An issue or pull request: ``#12 Fix the login (https://…)``."""
    number, title, url = item.get("number"), text_of(item.get("title")), text_of(item.get("url"))
    whole = _whole(number) or (isinstance(number, str) and number.strip())
    head = f"#{int(number) if _whole(number) else number}" if whole else None
    text = " ".join(p for p in (head, title) if p)
    name = f"{text} ({url})" if text and url else text or url
    return AttachmentPart("text/uri-list", None, name) if name else None


def _selected_lines(selection: Any) -> tuple[Any, Any] | None:
    """A selection's 0-based start and end lines as 1-based numbers."""
    if not isinstance(selection, dict):
        return None
    ends = [selection.get(k) for k in ("start", "end")]
    lines = [e.get("line") if isinstance(e, dict) else None for e in ends]
    if not all(_whole(n) for n in lines):
        return None
    return int(lines[0]) + 1, int(lines[1]) + 1


def _with_lines(path: str | None, span: tuple[Any, Any] | None) -> str | None:
    if not path or not span or not all(_whole(n) for n in span):
        return path
    start, end = int(span[0]), int(span[1])
    return f"{path}:{start}" if start == end else f"{path}:{start}-{end}"


def _whole(value: Any) -> bool:
    """A whole number (an exit code written as ``1`` or ``1.0``), not a flag or NaN."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, int) or value.is_integer()


def _decoded(data: Any) -> bytes | None:
    if not isinstance(data, str) or not data:
        return None
    try:
        return base64.b64decode(data, validate=False) or None
    except (binascii.Error, ValueError):
        return None
