"""A transcript's messages while they are built (``claude_transcript``): a draft is a
message whose parts may still grow (the rest of an API response, images of a steering
prompt), and what a draft becomes."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime

from ..model import Message, Part, Role, ToolCallPart

# A manual compaction's command, and what a local command printed (``_before_summary``).
COMPACT_COMMAND = re.compile(r"<command-name>/compact</command-name>")
COMMAND_OUTPUT = "<local-command-stdout>"


@dataclass(slots=True)
class Draft:
    role: Role
    parts: list[Part]
    source_id: str | None
    timestamp: datetime | None
    model: str | None = None
    response_id: str | None = None


def tool_output_only(parts: list[Part]) -> bool:
    """Tool results, with perhaps the attachments they returned: a tool's turn."""
    result = False
    for p in parts:
        if p.kind == "tool_result":
            result = True
        elif p.kind != "attachment":
            return False
    return result


def message_of(d: Draft, links: dict[str, str]) -> Message:
    return Message(d.role, tuple(linked(d.parts, links)), d.source_id, d.timestamp, d.model)


def linked(parts: list[Part], links: dict[str, str]) -> list[Part]:
    """Tool calls that started a subagent, given its session id."""
    if not links:
        return parts
    return [
        replace(p, subagent_id=links[p.call_id])
        if isinstance(p, ToolCallPart) and p.call_id in links
        else p
        for p in parts
    ]
