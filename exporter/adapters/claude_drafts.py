"""A transcript's messages while they are built (``claude_transcript``): a draft is a
message whose parts may still grow (the rest of an API response, images of a steering
prompt), and what a draft becomes."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime

from ..model import Message, Part, Role, ToolCallPart, ToolResultPart
from ._unanswered import noticed

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


def mark_unanswered(drafts: list[Draft]) -> None:
    """Each call of the last reply that no result answers (the session ended, or was read
    while the tool ran) is followed by a notice saying so: a call with no output looked
    the same as one whose output was empty. Only a reply that ends the session but for
    tool results: a reader streaming the file has let go every draft before the last
    reply, and that reply too once anything but a result followed it, and its notes must
    be the same (a prompt after a call's reply was not waiting for it)."""
    last = next((i for i in range(len(drafts) - 1, -1, -1) if drafts[i].role != "tool"), None)
    if last is None or drafts[last].role != "assistant":
        return
    answered = {p.call_id for d in drafts[last:] for p in d.parts if isinstance(p, ToolResultPart)}
    parts = drafts[last].parts
    if not any(isinstance(p, ToolCallPart) and p.call_id not in answered for p in parts):
        return
    drafts[last].parts = noticed(parts, lambda call: call.call_id not in answered)
