"""What a person attached to a Cursor prompt (FORMATS.md §3.2-§3.4): code selections, files,
folders, screenshots, terminal text, docs, commits and links, as attachments of their message.

A bubble of the current storage keeps them in its ``context`` object; a bubble of the legacy
AI-chat panel at its top level (and a screenshot as ``image: {path}``). A selection keeps
the text that was selected (its bytes go into the vault); a file, folder or image is only
named by its path (Cursor does not store its content with the chat), but for an image
pasted from the clipboard, whose copy Cursor keeps in its ``User`` folder
(``pasted_images.py``): its bytes go into the vault while that copy is there. Rules Cursor applies
by itself (``cursorRules``) and the ``mentions`` bookkeeping are not attachments.
"""

from __future__ import annotations

import mimetypes
from datetime import datetime
from pathlib import Path
from typing import Any

from ...model import AttachmentPart
from .._jsonl import parse_timestamp
from ..vscode import path_from_uri
from .pasted_images import pasted_image

TEXT = "text/plain"
UNKNOWN = "application/octet-stream"
FOLDER = "inode/directory"


def context_parts(bubble: dict[str, Any], user_dir: Path | None = None) -> list[AttachmentPart]:
    """The attachments of one user bubble, in a stable order, each once; ``user_dir``, the
    ``User`` folder the bubble was read from, holds the images pasted into it."""
    held = bubble.get("context")
    context = held if isinstance(held, dict) else bubble
    found: list[AttachmentPart] = []
    for item in _items(context, "selections"):
        found.append(_selection(item))
    for item in _items(context, "terminalSelections"):
        text = _str(item.get("text")) or _str(item.get("rawText"))
        if text:
            found.append(AttachmentPart(TEXT, text.encode(), "terminal selection"))
    for key, media in (
        ("fileSelections", None),
        ("terminalFiles", None),
        ("folderSelections", FOLDER),
    ):
        for item in _items(context, key):
            path = _path(item)
            if path:
                found.append(AttachmentPart(media or UNKNOWN, None, path))
    images = [*_items(context, "selectedImages"), *_items(bubble, "images")]
    if isinstance(bubble.get("image"), dict):
        images.append(bubble["image"])
    for item in images:
        path = _path(item)
        if path:
            data, withheld = pasted_image(path, user_dir)
            found.append(AttachmentPart(_media_of(path, "image/png"), data, path, withheld))
    for key in ("selectedDocs", "selectedCommits", "selectedPullRequests", "externalLinks"):
        for item in _items(context, key):
            name = _label(item)
            if name:
                found.append(AttachmentPart(UNKNOWN, None, name))
    unique: dict[tuple[str | None, bytes | None], AttachmentPart] = {}
    for part in found:
        unique.setdefault((part.name, part.data), part)
    return list(unique.values())


def images_loaded(bubble: dict[str, Any]) -> list[datetime]:
    """When each image of a prompt was put into Cursor's input box (``loadedAt``, epoch
    ms): a time the person was writing that prompt, before it was sent."""
    context = bubble.get("context") if isinstance(bubble.get("context"), dict) else {}
    images = [*_items(bubble, "selectedImages"), *_items(context, "selectedImages"),
              *_items(bubble, "images")]  # fmt: skip
    if isinstance(bubble.get("image"), dict):
        images.append(bubble["image"])
    found = (parse_timestamp(item.get("loadedAt")) for item in images)
    return [when for when in found if when is not None]


def _items(context: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = context.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _selection(item: dict[str, Any]) -> AttachmentPart:
    """Selected code: its plain text (``rawText``; ``text`` is the same as a Markdown block),
    named by its file and lines."""
    path = _path(item) or "selection"
    lines = item.get("range") if isinstance(item.get("range"), dict) else {}
    ends = [
        n
        for key in (
            "selectionStartLineNumber",
            "startLineNumber",
            "positionLineNumber",
            "endLineNumber",
        )  # fmt: skip
        if isinstance(n := lines.get(key), int) and not isinstance(n, bool)
    ]
    name = f"{path}:{min(ends)}-{max(ends)}" if ends else path
    text = _str(item.get("rawText")) or _str(item.get("text"))
    return AttachmentPart(TEXT, text.encode() if text else None, name)


def _path(item: dict[str, Any]) -> str | None:
    uri = item.get("uri")
    if isinstance(uri, dict):
        for key in ("fsPath", "path"):
            if _str(uri.get(key)):
                return uri[key]
        if _str(uri.get("external")):
            return path_from_uri(uri["external"])
    if _str(uri):
        return path_from_uri(uri)
    for key in ("path", "relativePath", "fsPath", "relativeWorkspacePath"):
        if _str(item.get(key)):
            return item[key]
    return None


def _label(item: dict[str, Any]) -> str | None:
    """A doc, commit, pull request or link: how Cursor names it."""
    for key in ("name", "title", "url", "link", "sha", "number"):
        value = item.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if _str(value):
            message = _str(item.get("message"))
            return f"{value} {message}".strip() if key == "sha" and message else value
    return None


def _media_of(path: str, default: str) -> str:
    guessed, _ = mimetypes.guess_type(path.replace("\\", "/"), strict=False)
    return guessed if guessed and guessed.startswith("image/") else default


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
