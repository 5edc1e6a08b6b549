"""What the person decided about Copilot Chat's replies, which VS Code keeps in the chat's
file (FORMATS.md §5.3): their thumbs up or down on a reply (``vote``, ``voteDownReason``),
their Keep or Undo of each file the assistant's edits changed (``editedFileEvents``), and
edits neither kept nor undone when VS Code saved the chat (``hasPendingEdits``). Each is
said in words where it happened (no Markdown of the adapter's own): a vote, a Keep or Undo
as a ``decision`` notice, the person's; edits left pending as a ``notification``, since
that is what VS Code found, no decision of theirs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..model import Message, NoticePart
from .copilot_context import edit_path

# VS Code's ChatAgentVoteDirection (chat/common/chatService.ts): Down 0, Up 1.
_VOTES = {0: "unhelpful (thumbs down)", 1: "helpful (thumbs up)"}
# Its ChatAgentVoteDownReason (same file): the reasons VS Code offers, in words.
_REASONS = {
    "incorrectCode": "incorrect code",
    "didNotFollowInstructions": "did not follow instructions",
    "incompleteCode": "incomplete code",
    "missingContext": "missing context",
    "poorlyWrittenOrFormatted": "poorly written or formatted",
    "refusedAValidRequest": "refused a valid request",
    "offensiveOrUnsafe": "offensive or unsafe",
    "other": "other",
    "willReportIssue": "will report an issue",
}
# ChatRequestEditedFileEventKind (vscode.proposed.chatParticipantPrivate.d.ts): Keep 1,
# Undo 2, UserModification 3. VS Code collects them as the person acts on the edited files
# (chat/common/chatModel.ts ``notifyEditingAction``: a later Undo or change replaces a
# Keep) and hands them to the next request it sends (``addRequest``): they are about the
# replies before that request, done before it was sent.
_EDIT_EVENTS = {1: "kept the edits to {}", 2: "undid the edits to {}",
                3: "changed {} after the edits"}  # fmt: skip
PENDING_EDITS = NoticePart(  # (ccexport's remark on a state VS Code saved, no message)
    "remark",
    "When VS Code saved this chat, the assistant's edits were neither kept nor undone.",
)


def vote(request: dict[str, Any]) -> list[NoticePart]:
    """The person's thumbs up or down on this request's reply, with the reason they gave
    for a thumbs down (a reason not known here is said as VS Code wrote it)."""
    value = request.get("vote")
    if isinstance(value, bool) or value not in _VOTES:
        return []
    said = f"The user marked this reply {_VOTES[value]}"
    reason = request.get("voteDownReason")
    if value == 0 and isinstance(reason, str) and reason.strip():
        said += f": {_REASONS.get(reason, reason.strip())}"
    return [NoticePart("decision", said + ".")]


def edit_decisions(
    request: dict[str, Any], rid: str | None, when: datetime | None
) -> list[Message]:
    """What the person did with the files the earlier replies edited, before sending this
    request: one notice, before its prompt (events of a kind not known here are left out)."""
    events = request.get("editedFileEvents")
    files: dict[int, list[str]] = {}
    for event in events if isinstance(events, list) else []:
        kind = event.get("eventKind") if isinstance(event, dict) else None
        path = edit_path(event) if isinstance(event, dict) else None
        if kind in _EDIT_EVENTS and not isinstance(kind, bool) and path:
            files.setdefault(kind, []).append(path)
    clauses = [
        _EDIT_EVENTS[kind].format(", ".join(dict.fromkeys(files[kind]))) for kind in sorted(files)
    ]
    if not clauses:
        return []
    notice = NoticePart("decision", f"The user {'; '.join(clauses)}.")
    return [Message("system", (notice,), f"{rid or 'request'}#edits", when)]
