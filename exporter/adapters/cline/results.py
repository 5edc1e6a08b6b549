"""Tool results and attachments of the Cline family's message lists (``blocks.py``): a
result's text, images and failure, as Anthropic blocks or the Cline 4 SDK's ``{query,
result, success}`` items; an image or document block decoded."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import orjson

from ...model import AttachmentPart, Part
from .._jsonl import json_text
from .._values import json_kind

_SDK_ITEM_KEYS = frozenset({"query", "result", "error", "success"})


def tool_output(content: Any) -> tuple[str, list[Part], bool]:
    """A tool result's text, its images, and whether it failed: a string, text blocks, or
    the SDK's ``{query, result, success}`` items. The SDK stores some results (its
    ``editor`` tool's) as those items JSON-encoded in a string: they are decoded, so the
    note shows the diff, not a line of escaped JSON."""
    if isinstance(content, str):
        decoded = _sdk_items(content)
        if decoded is None:
            return content, [], False
        content = decoded
    texts: list[str] = []
    attachments: list[Part] = []
    failed = False
    for item in content if isinstance(content, list) else [content]:
        if isinstance(item, str):
            texts.append(item)
        elif not isinstance(item, dict):
            continue
        elif item.get("type") == "text" and isinstance(item.get("text"), str):
            texts.append(item["text"])
        elif item.get("type") in ("image", "document"):
            attachment = attachment_of(item)
            if attachment:
                attachments.append(attachment)
        elif _is_sdk_item(item):
            query = item.get("query")  # (anything but text as JSON, never a Python repr)
            head = query if isinstance(query, str) else _json(query) if query else ""
            body = item.get("result") if item.get("result") is not None else item.get("error")
            body = body if isinstance(body, str) else _json(body)
            texts.append(f"{head}\n{body}" if head else body)
            failed = failed or item.get("success") is False or item.get("error") is not None
        else:
            texts.append(_json(item))
    return "\n\n".join(texts), attachments, failed


def _is_sdk_item(item: dict[str, Any]) -> bool:
    return ("result" in item or "error" in item) and set(item) <= _SDK_ITEM_KEYS


def _sdk_items(text: str) -> list[Any] | None:
    """The SDK's result items, when a result string is exactly their JSON."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        value = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return None
    items = value if isinstance(value, list) else [value]
    # Each names its query: a file's own JSON (``{"result": 1}``) is not taken for them.
    if items and all(isinstance(i, dict) and _is_sdk_item(i) and "query" in i for i in items):
        return items
    return None


def attachment_of(block: dict[str, Any]) -> AttachmentPart | None:
    """An image or document block (Anthropic ``source`` or the SDK's ``data``/``mediaType``),
    decoded; a ``data:`` URL too."""
    source = block.get("source") if isinstance(block.get("source"), dict) else block
    data = source.get("data")
    media_type = source.get("media_type") or source.get("mediaType")
    if not isinstance(data, str):
        return None
    if data.startswith("data:") and "," in data:
        header, data = data.split(",", 1)
        media_type = media_type or header[5:].split(";", 1)[0]
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None
    return AttachmentPart(str(media_type or "application/octet-stream"), raw) if raw else None


def _json(value: Any) -> str:
    return json_text(value, indent=True)


def odd_output(content: Any) -> str | None:
    """What is wrong with a tool result's content that ``tool_output`` cannot show (a value
    that is neither text nor an object, whole or as an item of its list), in words."""
    if content is None or isinstance(content, str | dict):
        return None
    if not isinstance(content, list):
        return f"is {json_kind(content)}"
    odd = [i for i in content if not isinstance(i, str | dict)]
    return f"holds {json_kind(odd[0])}" if odd else None


def json_object(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
