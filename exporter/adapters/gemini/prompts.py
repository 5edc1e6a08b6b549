"""What a person's prompt to the Gemini CLI holds (FORMATS.md §6.1): the text as typed
(``displayContent``, else ``content``), the files it @-mentions as the CLI read them for the
model, and images pasted into it; ``inline_data`` reads a tool's returned files too."""

from __future__ import annotations

import re
from typing import Any

from ...model import AttachmentPart, Part, TextPart
from .damage import inline_bytes, part_list, part_text

# The CLI appends the files a prompt @-mentions between these markers (model-facing only).
REFERENCES_START = "--- Content from referenced files ---"
REFERENCES_END = "--- End of content ---"


def content_text(content: Any) -> str:
    """The text of a string, a Part or a list of Parts and strings (thought parts are not
    the reply)."""
    texts = (
        part_text(p) for p in part_list(content) if not (isinstance(p, dict) and p.get("thought"))
    )
    return "".join(t for t in texts if t is not None)


def strip_references(text: str) -> str:
    """The prompt as typed: the contents of @-mentioned files the CLI appended are dropped
    (the mention itself stays)."""
    start = text.find(REFERENCES_START)
    if start < 0:
        return text
    end = text.find(REFERENCES_END, start)
    rest = text[end + len(REFERENCES_END) :] if end >= 0 else ""
    return (text[:start].rstrip() + ("\n\n" + rest.strip() if rest.strip() else "")).strip()


def user_parts(rec: dict[str, Any]) -> list[Part]:
    """What the person typed: ``displayContent`` when there is one (a string or, like
    ``content``, a Part list: a custom command as typed, not the prompt it expands to),
    else ``content``; the files it @-mentions, as the CLI read them, and images from
    ``content``."""
    sent = content_text(rec.get("content"))
    shown = content_text(rec.get("displayContent"))
    text = shown if shown.strip() else sent
    parts: list[Part] = []
    text = strip_references(text)
    if text.strip():
        parts.append(TextPart(text))
    parts.extend(referenced_files(sent))
    parts.extend(inline_data(rec.get("content")))
    return parts


# The line above each file's text in the referenced-files block (the path as the person
# wrote it, or relative to the workspace).
_REFERENCED = re.compile(r"\nContent from @([^\n]{1,1000}):\n")


def referenced_files(text: str) -> list[Part]:
    """The text of each file a prompt @-mentions, which the CLI appends to it for the model
    (``--- Content from referenced files ---``, then ``Content from @<path>:`` and the
    file, … ``--- End of content ---``): text attachments named by their paths, as a Cline
    prompt's attached files are. Text in the block under no such line is an attachment
    without a name."""
    start = text.find(REFERENCES_START)
    if start < 0:
        return []
    end = text.find(REFERENCES_END, start)
    block = text[start + len(REFERENCES_START) : end if end >= 0 else len(text)]
    pieces = _REFERENCED.split(block)
    found: list[tuple[str | None, str]] = [(None, pieces[0])]
    found += zip(pieces[1::2], pieces[2::2], strict=True)
    files: list[Part] = []
    for n, (name, body) in enumerate(found):
        if n == len(found) - 1 and body.endswith("\n"):
            body = body[:-1]  # (the line break before the block's end)
        if body.strip() or name is not None:
            files.append(AttachmentPart("text/plain", body.encode(), name))
    return files


def inline_data(content: Any) -> list[Part]:
    """Images and files in a Part list (``inlineData`` base64 parts): pasted into a prompt,
    or returned by a tool (``read_file`` of an image)."""
    out: list[Part] = []
    # A Part list, or a single Part (FORMATS.md §6.1: an image sent alone was lost)
    for part in content if isinstance(content, list) else [content]:
        data = part.get("inlineData") if isinstance(part, dict) else None
        if not isinstance(data, dict) or not isinstance(data.get("data"), str):
            continue
        raw = inline_bytes(data)
        if raw is None:
            continue  # (said by odd_parts, with the message it is in)
        out.append(AttachmentPart(str(data.get("mimeType") or "application/octet-stream"), raw))
    return out
