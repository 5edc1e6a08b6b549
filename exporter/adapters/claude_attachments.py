"""Claude Code's ``attachment`` lines beyond the editor's context (claude_editor.py) and
queued prompts (claude_queued.py): what of them is evidence of what happened in the
session. A file the person attached with ``@`` (``file``, with the prompt it came with), a
file changed since Claude Code read it (``edited_text_file``: by the person, a linter or a
command), a hook that blocked something or failed, and plan mode or ultra effort entered
and left are shown; the rest is what the harness told the model (reminders, listings, deltas, memory
files, a budget's tally) and stays out, as the cleaning of a prompt's text leaves such
reminders out. docs/sources/claude-code.md has the table, with the reason for each kind.
Part of the transcript builder (claude_transcript.py), kept apart to be read on its own:
its state is the builder's."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..model import AttachmentPart, NoticePart
from ._values import stripped_text as _text
from .claude_drafts import Draft

# A mode the person switches on and off: the reminder Claude Code attaches on every turn
# while it is on, and the line it writes once when it is left. Only the change is shown.
_MODES = {
    "plan_mode": ("Plan mode", True),
    "plan_mode_exit": ("Plan mode", False),
    "ultra_effort_enter": ("Ultra effort", True),
    "ultra_effort_exit": ("Ultra effort", False),
}

# What blocked a hook's event stops (exit code 2, or a "block" decision)
_BLOCKED = {
    "PreToolUse": "blocked the tool call",
    "PermissionRequest": "blocked the tool call",
    "UserPromptSubmit": "blocked the prompt",
    "Stop": "kept the assistant from stopping",
    "SubagentStop": "kept the subagent from stopping",
}


def attached_file(attachment: dict[str, Any]) -> AttachmentPart | None:
    """The file a ``file`` attachment line holds (what Claude Code read for an ``@``
    mention): its text, or an image's bytes; named, without its bytes, when it is of
    another kind (a notebook, a PDF). None when it names no file."""
    content = attachment.get("content")
    content = content if isinstance(content, dict) else {}
    read = content.get("file") if isinstance(content.get("file"), dict) else {}
    name = _text(attachment.get("displayPath")) or _text(attachment.get("filename"))
    name = name or _text(read.get("filePath"))
    if name is None:
        return None
    if content.get("type") == "text" and isinstance(read.get("content"), str):
        return AttachmentPart("text/plain", read["content"].encode("utf-8", "replace"), name)
    if content.get("type") == "image" and isinstance(read.get("base64"), str):
        media = _text(read.get("type")) or "image/png"
        try:
            return AttachmentPart(media, base64.b64decode(read["base64"], validate=True), name)
        except (binascii.Error, ValueError):
            pass
    return AttachmentPart("application/octet-stream", None, name)


def attachment_notice(attachment: dict[str, Any]) -> NoticePart | None:
    """The notice an attachment line stands for: a file changed outside the session, a
    hook that blocked or failed; None for any other."""
    kind = attachment.get("type")
    if kind == "edited_text_file":
        path = _text(attachment.get("filename"))
        if path is None:
            return None
        # (Claude Code tells the model the user or a linter did it; a command can too)
        by = "an edit of the user's, a linter or a command"
        return NoticePart("notification", f"{path} changed since Claude Code read it ({by})")
    if kind == "hook_blocking_error":
        return _blocked(attachment)
    if kind == "hook_non_blocking_error":
        said = _text(attachment.get("stderr")) or _text(attachment.get("stdout"))
        text = f"A hook failed{_which(attachment)}" + (f": {said}" if said else "")
        return NoticePart("notification", text)
    return None


def _blocked(attachment: dict[str, Any]) -> NoticePart:
    error = attachment.get("blockingError")
    reason = _text(error.get("blockingError")) if isinstance(error, dict) else _text(error)
    event = attachment.get("hookEvent")
    what = _BLOCKED.get(event, "blocked") if isinstance(event, str) else "blocked"
    text = f"A hook {what}{_which(attachment)}" + (f": {reason}" if reason else "")
    return NoticePart("notification", text)


def _which(attachment: dict[str, Any]) -> str:
    """The hook's name (``PreToolUse:Bash``) and exit code, in brackets, as far as known."""
    said = [_text(attachment.get("hookName")) or _text(attachment.get("hookEvent")) or ""]
    code = attachment.get("exitCode")
    if type(code) is int and code != 0:
        said.append(f"exit code {code}")
    said = [s for s in said if s]
    return f" ({', '.join(said)})" if said else ""


class SessionAttachments:
    """The builder's handling of these lines (a mixin of ``TranscriptBuilder``)."""

    prompt: Draft | None  # the person's last prompt, while no other message followed it
    modes_on: set[str]  # the modes (plan mode, ultra effort) on, as the lines said
    _notice: Any  # the builder's: a notice of Claude Code's own where it happened
    _queued_command: Any  # the builder's (claude_queued.py): a prompt typed while it worked

    def _session_attachment(self, attachment: dict[str, Any], rec: dict[str, Any]) -> None:
        kind = attachment.get("type")
        if type(kind) is not str:
            return  # (a damaged line: a kind that is a list would fail the lookups below)
        if kind == "queued_command":
            self._queued_command(attachment, rec)
        elif kind == "file":
            # The person's ``@`` mention, read for them: with the prompt it was sent with.
            # With none (a file read again after a compaction) it is the harness's.
            if self.prompt is not None and (part := attached_file(attachment)) is not None:
                self.prompt.parts.append(part)
        elif kind in _MODES:
            mode, on = _MODES[kind]
            if on != (mode in self.modes_on):
                (self.modes_on.add if on else self.modes_on.discard)(mode)
                said = f"{mode} entered" if on else f"{mode} left"
                self._notice(NoticePart("notification", said), rec, retry=False)
        elif notice := attachment_notice(attachment):
            self._notice(notice, rec, retry=False)
