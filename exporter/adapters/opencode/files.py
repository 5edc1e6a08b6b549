"""OpenCode's ``file`` parts (an image pasted, a file @-mentioned, a file a tool returned)
as attachments (FORMATS.md §6.3)."""

from __future__ import annotations

import base64
import binascii
from typing import Any
from urllib.parse import unquote, urlparse

from ...model import AttachmentPart
from .values import text_of


def attachment(part: dict[str, Any]) -> AttachmentPart:
    """A file part; a ``data:`` URL is decoded, other URLs name a file kept elsewhere."""
    mime = text_of(part.get("mime")) or "application/octet-stream"
    url = part.get("url")
    source = part.get("source") if isinstance(part.get("source"), dict) else {}
    # An @-mentioned file without a filename is named by its path (source, or file:// URL).
    name = text_of(part.get("filename")) or text_of(source.get("path")) or _file_path(url)
    data = None
    if isinstance(url, str) and url.startswith("data:") and ";base64," in url[:200]:
        try:
            data = base64.b64decode(url.split(",", 1)[1], validate=False)
        except (binascii.Error, ValueError):
            data = None
    return AttachmentPart(mime, data, name)


def _file_path(url: Any) -> str | None:
    if not isinstance(url, str) or not url.startswith("file://"):
        return None
    try:
        return text_of(unquote(urlparse(url).path))
    except ValueError:  # "file://[host/…": not a URL; the prompt around it still counts
        return None
