"""The images of Codex records: data URLs in a message's or a tool output's content, base64
of a generated image, and the images a prompt was given from files that the rollout holds
no bytes of (named by their paths)."""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
from typing import Any

from ..model import AttachmentPart, Part
from ._values import some_text


def images(content: Any) -> list[Part]:
    """The images of a message's content, in order; an image Codex could not read from its
    file (its placeholder text in the model's copy of a prompt) is one named by its path,
    with no bytes."""
    out: list[Part] = []
    for c in content if isinstance(content, list) else []:
        if isinstance(c, dict) and c.get("type") == "input_image":
            image = decoded_image(c.get("image_url"))
            if image:
                out.append(image)
        elif (path := unread_image(c)) is not None:
            out.append(not_copied(path))
    return out


def decoded_image(url: Any) -> AttachmentPart | None:
    decoded = decode_data_url(url)
    return AttachmentPart(decoded[0], decoded[1]) if decoded else None


def not_copied(path: str) -> AttachmentPart:
    """An image attached from a file whose bytes the rollout does not hold: named by its
    path (the note says it was attached, not stored in the session)."""
    return AttachmentPart(mimetypes.guess_type(path)[0] or "application/octet-stream", None, path)


# The text Codex sends the model in place of an image it could not attach from its file
# (missing, unreadable, not an image it takes), one content item of its own.
_UNREAD_IMAGE = re.compile(
    r"(?:Codex could not read the local image at `(?P<unread>[^\n]+?)`: "
    r"|Image located at `(?P<invalid>[^\n]+?)` is invalid: "
    r"|Codex cannot attach image at `(?P<unsupported>[^\n]+?)`: unsupported image)[^\n]*"
)


def unread_image(item: Any) -> str | None:
    """The path of the image a content item says Codex could not attach, else None."""
    if not isinstance(item, dict) or item.get("type") != "input_text":
        return None
    text = item.get("text")
    found = _UNREAD_IMAGE.fullmatch(text.strip()) if isinstance(text, str) else None
    return next((path for path in found.groups() if path), None) if found else None


def local_image_paths(p: dict[str, Any]) -> list[str]:
    """The paths of the images a UI copy of a prompt was given from files (``local_images``)."""
    paths = p.get("local_images")
    return [path for path in paths if some_text(path)] if isinstance(paths, list) else []


_MAGIC = ((b"\x89PNG", "image/png"), (b"\xff\xd8", "image/jpeg"), (b"GIF8", "image/gif"))


def image_bytes(data: Any) -> tuple[str, bytes] | None:
    """Base64 that decodes to an image (its media type from its first bytes), else None."""
    if not isinstance(data, str):
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp", raw
    return next(((kind, raw) for magic, kind in _MAGIC if raw.startswith(magic)), None)


def decode_data_url(url: Any) -> tuple[str, bytes] | None:
    """``data:image/png;base64,…`` as (media type, bytes)."""
    if not isinstance(url, str) or not url.startswith("data:") or "," not in url:
        return None
    head, data = url[5:].split(",", 1)
    media_type = head.split(";", 1)[0] or "application/octet-stream"
    try:
        return media_type, base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None
