"""The parts of one Claude Code message: its ``content`` (a string, or a list of text,
thinking, tool use, tool result, image and document blocks) as model parts. A server tool's
result (``web_search_tool_result`` and the like, in the assistant's own content) is the
result of its ``server_tool_use`` call; a ``tool_reference`` in a tool's result (a tool
search's) names the tool found. A block of an unknown type that carries a ``text`` is kept
as text; other blocks of an unknown type, or with a field of the wrong type, are left out;
empty text is no part.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..model import (
    AttachmentPart,
    NotRun,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from ._values import json_kind


def _has_text(text: str) -> bool:
    """``bool(text.strip())`` without copying a long text to find out (both methods stop
    at the same characters: str.isspace's)."""
    return bool(text) and not text.isspace()


def plain_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


def user_parts(content: Any) -> list[Part]:
    if isinstance(content, str):
        return [TextPart(content)] if _has_text(content) else []
    parts: list[Part] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(text := block.get("text"), str):
            if _has_text(text):
                parts.append(TextPart(text))
        elif kind in ("image", "document"):
            attachment = _attachment(block)
            if attachment:
                parts.append(attachment)
        elif kind == "tool_result":
            output, attachments = _tool_output(block.get("content"))
            if not output and isinstance(block.get("text"), str):
                output = block["text"]
            call_id = block.get("tool_use_id")
            call_id = call_id if isinstance(call_id, str) else None
            is_error = bool(block.get("is_error"))
            not_run = _not_run(output) if is_error else None
            if not_run:
                parts.append(ToolResultPart(output, call_id, not_run=not_run))
            else:
                parts.append(ToolResultPart(output, call_id, is_error))
            parts.extend(attachments)
    return parts


def beside_results(content: Any) -> tuple[list[Any], list[Any]] | None:
    """A user line's tool results and, apart, the blocks the person sent with them (text
    typed while the tool ran, an image pasted into it); None unless there is such text
    (an image alone beside a result stays the tool's, as it always was)."""
    if not isinstance(content, list):
        return None
    results: list[Any] = []
    rest: list[Any] = []
    for block in content:
        is_result = isinstance(block, dict) and block.get("type") == "tool_result"
        (results if is_result else rest).append(block)
    typed = any(
        isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        and _has_text(b["text"])
        for b in rest
    )  # fmt: skip
    return (results, rest) if results and typed else None


# What Claude Code returns, as an error, for a call that did not run: the person rejected
# it at the permission prompt (what they said to do instead may follow), the turn was
# stopped before it ran (a call beside a rejected one, an interruption), or it needed a
# permission not granted (a non-interactive run: "Claude requested permissions to write
# to <path>, but you haven't granted it yet.").
_REJECTED = "The user doesn't want to proceed with this tool use."
_CANCELLED = "The user doesn't want to take this action right now."
_NOT_GRANTED = ("Claude requested permissions to ", "but you haven't granted it yet.")


def _not_run(output: str) -> NotRun | None:
    if output.startswith(_REJECTED):
        return "rejected"
    if output.startswith(_CANCELLED):
        return "cancelled"
    if output.startswith(_NOT_GRANTED[0]) and output.rstrip().endswith(_NOT_GRANTED[1]):
        return "denied"
    return None


def _tool_output(content: Any) -> tuple[str, list[Part]]:
    if isinstance(content, str):
        return content, []
    texts: list[str] = []
    attachments: list[Part] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_reference" and isinstance(block.get("tool_name"), str):
            texts.append(block["tool_name"])
        elif block.get("type") in ("image", "document"):
            attachment = _attachment(block)
            if isinstance(attachment, TextPart):  # a text document: what the tool returned
                texts.append(attachment.text)  # (as a part of its own: a prompt of the person's)
            elif attachment:
                attachments.append(attachment)
    return "\n".join(texts), attachments


def _attachment(block: dict[str, Any]) -> Part | None:
    source = block.get("source")
    if not isinstance(source, dict):
        return None
    media_type = str(source.get("media_type") or "application/octet-stream")
    data = source.get("data")
    if source.get("type") == "text" and isinstance(data, str):
        return TextPart(data)
    url = source.get("url")
    if source.get("type") == "url" and isinstance(url, str) and url.strip():
        return AttachmentPart(media_type, None, name=url.strip())  # named, not held
    if source.get("type") != "base64" or not isinstance(data, str):
        return None
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        raw = b""
    if not raw:  # the note says there was one rather than leave no trace of it
        return AttachmentPart(media_type, None, withheld=_UNREADABLE)
    return AttachmentPart(media_type, raw)


_UNREADABLE = "the session holds it, but its data could not be decoded"


def assistant_parts(content: Any) -> list[Part]:
    if isinstance(content, str):
        return [TextPart(content)] if _has_text(content) else []
    parts: list[Part] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(text := block.get("text"), str):
            if _has_text(text):
                parts.append(TextPart(text))
        elif kind == "thinking" and isinstance(thinking := block.get("thinking"), str):
            if _has_text(thinking):
                parts.append(ThinkingPart(thinking))
        elif kind == "redacted_thinking":
            parts.append(ThinkingPart("", redacted=True))
        elif kind in ("tool_use", "server_tool_use"):
            call_id = block.get("id") if isinstance(block.get("id"), str) else None
            tool_input = block.get("input")
            description = tool_input.get("description") if isinstance(tool_input, dict) else None
            parts.append(
                ToolCallPart(
                    str(block.get("name") or "tool"),
                    tool_input,
                    call_id,
                    description if isinstance(description, str) else None,
                )
            )
        elif isinstance(kind, str) and kind.endswith("_tool_result"):
            parts.append(_server_tool_result(block))
        elif isinstance(text := block.get("text"), str) and _has_text(text):
            parts.append(TextPart(text))  # a block of a newer kind, with words to keep
    return parts


def _server_tool_result(block: dict[str, Any]) -> ToolResultPart:
    """What a server tool (web search, web fetch, code execution) returned: its text, the
    title and address of each result found, or its error code."""
    content = block.get("content")
    call_id = block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else None
    lines: list[str] = []
    error = False
    for item in content if isinstance(content, list) else [content]:
        if isinstance(item, str):
            lines.append(item)
        elif isinstance(item, dict):
            if isinstance(item.get("error_code"), str):
                error = True
                lines.append(item["error_code"])
            elif isinstance(item.get("url"), str):
                title = item.get("title")
                lines.append(f"{title} — {item['url']}" if isinstance(title, str) else item["url"])
            elif isinstance(item.get("text"), str):
                lines.append(item["text"])
            else:
                for key in ("stdout", "stderr"):
                    if isinstance(item.get(key), str) and item[key]:
                        lines.append(item[key])
    return ToolResultPart("\n".join(lines), call_id, error)


# The field that holds the words of each kind of block read (a block of another kind is
# kept if it has text or, like a newer kind Claude Code may write, left out unsaid).
_WORDS = {"text": "text", "thinking": "thinking"}


def odd_block(block: dict[str, Any], name: str = "a content block") -> list[str]:
    """Why ``block`` (an object), or an item of its tool output, is damaged and left out:
    a ``type`` absent or not text, words that are not text, or a tool output that is
    neither text nor a list. Empty: nothing is."""
    kind = block.get("type")
    if kind is None or kind == "":
        return [f"{name} has no type: left out"]
    if not isinstance(kind, str):
        return [f"{name} has a type that is {json_kind(kind)}: left out"]
    words = _WORDS.get(kind)
    if words and not isinstance(block.get(words), str):
        return [f"{name}'s {words} is {json_kind(block.get(words))}, not text: left out"]
    if kind != "tool_result":
        return []
    output = block.get("content")
    if output is not None and not isinstance(output, str | list):
        return [f"a tool result's output is {json_kind(output)}, not text or a list: left out"]
    return odd_blocks(output, "a tool result's item")


def odd_blocks(blocks: Any, name: str) -> list[str]:
    """Why each of a list's blocks (``name``: what one is called) is damaged and left out:
    one that is no object, or one ``odd_block`` finds damaged; nothing for no list."""
    found: list[str] = []
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            found.append(f"{name} is {json_kind(block)}, not an object: left out")
        else:
            found += odd_block(block, name)
    return found
