"""What Claude Code's IDE integration sent with a prompt in lines of their own: newer
versions write, after the prompt's line, an ``attachment`` line of type
``opened_file_in_ide`` (``filename``: the file open in the editor) or
``selected_lines_in_ide`` (``filename``, ``lineStart``, ``lineEnd`` and the lines'
``content``). Older ones put ``<ide_opened_file>`` / ``<ide_selection>`` in the prompt's text,
which clean.py reads. Either way the note shows it as other sources' editor context is: an
attachment of the person's prompt whose origin is the editor ("Open in the editor", "Selected
in the editor"). Part of the transcript builder (claude_transcript.py), kept apart to be read
on its own: its state is the builder's."""

from __future__ import annotations

from typing import Any

from ..model import AttachmentPart, NoticePart, TextPart
from .claude_drafts import Draft

_ORIGINS = {
    "opened_file_in_ide": "editor-file",
    "selected_lines_in_ide": "editor-selection",
    # lines selected in the editor's diff view: the same fields
    "selected_lines_in_diff": "editor-selection",
}
# The tags an older version put in the prompt's text for the same thing
_TAGS = ("<ide_opened_file>", "<ide_selection>")


def editor_context(attachment: dict[str, Any]) -> AttachmentPart | None:
    """The attachment an IDE attachment line stands for; None for any other line, or one
    that names no file."""
    kind, path = attachment.get("type"), attachment.get("filename")
    origin = _ORIGINS.get(kind) if isinstance(kind, str) else None
    if origin is None or not isinstance(path, str) or not path.strip():
        return None
    if origin == "editor-file":  # (its text is not in the session)
        return AttachmentPart("text/plain", None, path, origin=origin)
    first, last = (_line(attachment.get(key)) for key in ("lineStart", "lineEnd"))
    lines = f"{first}-{last}" if first and last and last != first else first
    content = attachment.get("content")
    data = content.encode("utf-8", "replace") if isinstance(content, str) else None
    name = f"{path}:{lines}" if lines else path
    return AttachmentPart("text/plain", data, name, origin=origin)


def _line(value: Any) -> str | None:
    return str(value) if type(value) is int and value > 0 else None


class EditorContext:
    """The builder's handling of IDE attachment lines (a mixin of ``TranscriptBuilder``)."""

    prompt: Draft | None  # the person's last prompt, while no other message followed it

    def _editor_context(self, attachment: dict[str, Any]) -> bool:
        """Is ``attachment`` the editor's context? It goes with the prompt it was sent
        with, before the prompt's text (as the older tags stand); Claude Code sends it with
        a prompt only, so there is nowhere else for it."""
        part = editor_context(attachment)
        if part is None:
            return False
        prompt = self.prompt
        if prompt is None or _tagged(prompt, attachment["filename"]):
            return True
        at = 0  # after a notice (a rewind) and the editor's context already there
        while at < len(prompt.parts) and (
            isinstance(prompt.parts[at], NoticePart)
            or getattr(prompt.parts[at], "origin", None) in _ORIGINS.values()
        ):
            at += 1
        prompt.parts.insert(at, part)
        return True


def _tagged(prompt: Draft, path: str) -> bool:
    """Does the prompt's text already name the file in an older version's tag?"""
    return any(
        isinstance(p, TextPart) and path in p.text and any(t in p.text for t in _TAGS)
        for p in prompt.parts
    )
