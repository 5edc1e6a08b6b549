"""A tool's output too large for Claude Code to keep in its transcript: the transcript holds
a ``<persisted-output>`` wrapper (its size, where Claude Code saved it whole, a 2 KB preview)
and the whole output is in ``<session>/tool-results/<call id>.txt`` beside it, and for a
shell command in the line's ``toolUseResult`` too. The note shows the whole output, as the
tool gave it; where neither is there, the wrapper stays as Claude Code wrote it (it says the
output was cut)."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from .base import read_regular

_WRAPPER = "<persisted-output>"
_SAVED_TO = re.compile(r"\A<persisted-output>\s*\n[^\n]*Full output saved to: ([^\n]+?)\s*\n")
# A whole output larger than this stays cut: a note would show only its first lines anyway.
MAX_RESTORED = 32 * 1024 * 1024


def restore_persisted(record: dict[str, Any], transcript: Path) -> None:
    """Each tool result of ``record`` (a user line) that Claude Code cut to a preview, given
    its whole output again (from the saved file, else from the line's ``toolUseResult``)."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        text = _text_of(block.get("content"))
        if text is None or not text.startswith(_WRAPPER):
            continue
        # (an empty saved file or result holds nothing of an output too large to keep: one
        # cut short, or not yet written; the preview then stays)
        whole = _saved(text, transcript) or _from_result(record.get("toolUseResult"))
        if whole:
            block["content"] = whole


def _text_of(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        text = content[0].get("text")
        return text if isinstance(text, str) else None
    return None


def _saved(text: str, transcript: Path) -> str | None:
    """The saved file, found by its name where Claude Code keeps it for this transcript's
    session (the path the wrapper gives is the machine's it was written on): only a plain
    file name in that session's ``tool-results`` folder is read, nothing else it names."""
    found = _SAVED_TO.match(text)
    if not found:
        return None
    given = found.group(1)
    flavour = PureWindowsPath if re.match(r"^[A-Za-z]:[\\/]", given) else PurePosixPath
    saved = flavour(given)
    name, session = saved.name, saved.parent.parent.name
    if saved.parent.name != "tool-results" or not name or not session:
        return None
    if transcript.parent.name == "subagents":  # <project>/<session>/subagents/agent-….jsonl
        folder = transcript.parent.parent
    else:  # <project>/<session>.jsonl
        folder = transcript.parent / transcript.stem
    if folder.name != session:
        return None
    try:
        path = folder / "tool-results" / name
        if path.stat().st_size > MAX_RESTORED:
            return None
        return read_regular(path).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None


def _from_result(rich: Any) -> str | None:
    """A shell command's whole output as the line's ``toolUseResult`` keeps it."""
    if not isinstance(rich, dict) or not isinstance(rich.get("stdout"), str):
        return None
    stderr = rich.get("stderr")
    if isinstance(stderr, str) and stderr.strip():
        return f"{rich['stdout']}\n{stderr}" if rich["stdout"] else stderr
    return rich["stdout"]
