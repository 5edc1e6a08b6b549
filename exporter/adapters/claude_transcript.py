"""One Claude Code transcript (a list of JSONL records) turned into model messages.

Rules from FORMATS.md §1, in the order they apply:

- records are read in file order; a line whose ``uuid`` was seen is that line written
  again, and dropped, when it shows nothing or what an earlier line of the uuid showed
  (its parent, branch, version or flags may differ); one that shows something else is
  another line, kept, and the lines kept so are reported (``report_reused``); a compaction
  replay (same parent, timestamp, type and content under a new uuid) is dropped;
- the lines of one streamed API response (same ``message.id``) become one message, and its
  usage is counted once, from its last line;
- ``<synthetic>`` placeholder replies, ``isMeta`` lines, a skill's launch marker (the
  command tags Claude Code writes after the model's own ``Skill`` call, under its
  ``sourceToolUseID``), progress and snapshots are not conversation; what Claude Code's own
  ``system`` lines report (a hook that failed, an API error, once for a request's retries,
  a refusal) is a notice (claude_notices.py);
- ``compact_boundary`` plus the ``isCompactSummary`` line become one marked summary;
- a prompt whose parent already had a reply is a rewind (the person went back), and is
  marked so;
- a steering message typed while the model worked (a ``queue-operation`` enqueue that was
  consumed mid-turn, or a ``queued_command`` attachment) is kept once, marked as queued;
  a background task's notification or another agent's message delivered the same way is
  not the person's (the first is kept as its user line would be, the second left out);
- what the person said or decided through a tool (their answers to ``AskUserQuestion``,
  what to do instead of a call they rejected, a plan approved, an edit they changed) is
  theirs: a message of their own after the tool's result (a notice when they said
  nothing), and so is text they sent on a tool result's line (claude_answers.py).

User text is kept raw: removing injected wrappers is the note builder's job (clean.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import Problem
from ..model import (
    CommandOutputPart,
    Message,
    ModelUsage,
    NoticePart,
    Part,
    Role,
    SummaryPart,
    TextPart,
    ToolResultPart,
    Usage,
    add_usage,
    usage_per_model,
)
from ._jsonl import parse_timestamp, token_count
from ._times import Times
from .claude_answers import PersonsAnswers, as_done
from .claude_attachments import SessionAttachments
from .claude_content import assistant_parts, beside_results, plain_text, user_parts
from .claude_drafts import (
    COMMAND_OUTPUT,
    COMPACT_COMMAND,
    Draft,
    mark_unanswered,
    message_of,
    tool_output_only,
)
from .claude_editor import EditorContext
from .claude_lines import compaction, harness_line, replay_keys, shown_key, uuid_key
from .claude_notices import RETRY_SUBTYPES, system_notice
from .claude_queued import QueuedPrompts
from .claude_uuids import LineUuids, report_reused

SYNTHETIC_MODEL = "<synthetic>"
CONVERSATIONAL = {"user", "assistant", "system", "attachment", "progress"}


@dataclass(slots=True)
class Transcript:
    """What one transcript yields: messages plus the metadata read along the way."""

    messages: list[Message] = field(default_factory=list)
    uuids: AbstractSet[str] = field(default_factory=set)  # of the lines read
    started: datetime | None = None
    ended: datetime | None = None
    cwd: str | None = None
    git_branch: str | None = None
    models: list[str] = field(default_factory=list)
    usage: Usage = Usage()
    model_usage: ModelUsage = ()  # ``usage`` per model (of the responses that name theirs)
    first_prompt: str | None = None
    # The lines read, by uuid (the reused ones counted): how they were read, not what
    # they say, so no part of comparing two transcripts.
    lines: LineUuids | None = field(default=None, compare=False, repr=False)


def build_transcript(
    records: Iterable[dict[str, Any]],
    links: dict[str, str],
    locate: Callable[[], object] | None = None,
) -> Transcript:
    """Messages of one conversation. ``links`` maps a Task call id to its subagent id;
    ``locate``, when given, tells the number of the line being read."""
    builder = TranscriptBuilder(locate=locate)
    for rec in records:
        builder.add(rec)
    return builder.finish(links)


class TranscriptBuilder(QueuedPrompts, EditorContext, SessionAttachments):
    """Builds a transcript one record at a time, so a caller can read a file line by line
    and let each parsed line go once it is turned into parts: a long session is held as
    its messages, never as its JSON. ``times``, when given, counts the times that are there
    but cannot be read (the first reading of a file gives one; a second reading does not);
    ``locate`` (else ``times.locate``) tells the number of the line being read."""

    def __init__(
        self, times: Times | None = None, locate: Callable[[], object] | None = None
    ) -> None:
        if locate is None and times is not None:
            locate = times.locate
        self.lines = LineUuids(locate)  # (``out.uuids`` is a view of the uuids it holds)
        self.out = Transcript(uuids=self.lines.first.keys(), lines=self.lines)
        self.times = times
        self.drafts: list[Draft] = []
        # The last line's model and token counts, per response: summed at the end.
        self.usage_by_response: dict[str, tuple[str | None, int, int, int, int]] = {}
        self.queued: list[tuple[str, Any]] = []  # typed ahead: its text, when it was typed
        # Steering text kept, with the draft that holds it (so that the attachment copy of a
        # queued prompt can add the images the queue's text-only copy lacks)
        self.steering_seen: dict[str, Draft] = {}
        self.not_typed: set[str] = set()  # queued text the person did not type
        self.pending_boundary: Draft | None = None
        # A manual compaction's summary, written before the /compact that asked for it: the
        # command and its output, if they come next, go before it (``_before_summary``).
        self.compact_summary: Draft | None = None
        self.compact_moved = False
        # For every parent uuid, the uuid of its first user/assistant child in file order:
        # known for a record's parent by the time the record is read. Both as uuid_key (the
        # child's is mostly the very string kept in ``out.uuids``). Per signature (parent,
        # time, type), a digest of the first message seen (see replay_keys): these hold an
        # entry per line of a long session, and the message itself would keep every line's
        # content alive. The same digest is the first line's key in ``lines``: a prompt or
        # reply pays for one digest, which the replay check needs anyway.
        self.first_child: dict[str | bytes, str | bytes] = {}
        self.seen_sig: dict[int | bytes, bytes | None] = {}
        self.last_time: tuple[str | None, datetime | None] = (None, None)
        self.retrying: Draft | None = None  # a failed request's notice, while it is retried
        self.command: Draft | None = None  # a slash command's, until its prompt may come
        self.prompt: Draft | None = None  # the person's, until the editor's context may come
        self.modes_on: set[str] = set()  # plan mode, ultra effort: as the attachment lines said
        self.answers = PersonsAnswers()  # questions asked the person, until answered

    def add(self, rec: dict[str, Any]) -> None:
        kind = rec.get("type")
        uuid = rec.get("uuid")
        talk = kind in ("user", "assistant")
        said = talk and not harness_line(rec)
        if said:
            parent = rec.get("parentUuid")
            if isinstance(parent, str) and isinstance(uuid, str):
                self.first_child.setdefault(uuid_key(parent), uuid_key(uuid))
        if kind in CONVERSATIONAL and isinstance(uuid, str):
            if talk:
                timestamp = rec.get("timestamp")
                sig, digest = replay_keys(
                    rec.get("parentUuid"), timestamp, kind, rec.get("message")
                )
                key = digest if said else None
                # (a harness line is known by what it says too: written again without its
                # flag, it is the same line, not a prompt)
                kept = digest
            else:
                timestamp, key = None, None if kind == "progress" else shown_key(rec, kind)
                kept = key
            seen = uuid in self.lines.first
            if seen and not self.lines.another_line(uuid, key):
                return  # the same line written again
            if timestamp:
                if self.seen_sig.get(sig) == digest:
                    return  # a compaction replay under a new uuid
                self.seen_sig.setdefault(sig, digest)
            if seen:
                self.lines.kept_again(rec)
            else:
                self.lines.first[uuid] = kept
            self._note_metadata(rec)
        if kind == "user":
            if said:  # (a line no person wrote shows nothing, but what a command sent)
                self._user(rec)
            elif rec.get("isMeta"):
                self._command_prompt(rec)
        elif kind == "assistant":
            self._assistant(rec)
        elif kind == "system":
            self._system(rec)
        elif kind == "attachment":
            attachment = rec.get("attachment")
            if isinstance(attachment, dict) and not self._editor_context(attachment):
                self._session_attachment(attachment, rec)  # (a queued prompt among them)
        elif kind == "queue-operation":
            self._queue(rec)

    def report_reused(self, problems: list[Problem], path: Path, source: str) -> None:
        report_reused(problems, path, source, [self.lines])

    def closed(self, links: dict[str, str]) -> list[Message]:
        """The messages no later record can change, taken out of the builder: a caller
        streaming a long session lets them go as they come. (``finish`` gives the rest.)"""
        end = len(self.drafts)
        for i in range(end - 1, -1, -1):
            if self.drafts[i].role != "tool":
                if self.drafts[i].role == "assistant":
                    end = i  # it may still gain the rest of its API response
                break
        waits = (self.pending_boundary, self.compact_summary, self.retrying, self.command)
        for waiting in (*waits, self.prompt):
            if waiting is None:
                continue
            for i in range(end):  # from the front: once left waiting, it is soon first
                if self.drafts[i] is waiting:
                    end = i  # its summary, or the command that asked for it, is to come
                    break
        if end == 0:
            return []
        done, self.drafts = self.drafts[:end], self.drafts[end:]
        return [message_of(d, links) for d in done if d.parts]

    def finish(self, links: dict[str, str]) -> Transcript:
        """The transcript; ``links`` (Task call id -> subagent id) is known only once the
        whole file is read (a call's result, which names its agent, comes after it)."""
        self._finish(links)
        return self.out

    def _note_metadata(self, rec: dict[str, Any]) -> None:
        ts = self._time(rec.get("timestamp"))
        if ts is not None:
            if self.out.started is None or ts < self.out.started:
                self.out.started = ts
            if self.out.ended is None or ts > self.out.ended:
                self.out.ended = ts
        cwd = rec.get("cwd")
        if isinstance(cwd, str) and cwd and self.out.cwd is None:
            self.out.cwd = cwd
        branch = rec.get("gitBranch")
        if isinstance(branch, str) and branch:
            self.out.git_branch = branch

    def _time(self, value: Any) -> datetime | None:
        """A line's time, read once though wanted twice (for the session's span, then for
        its message): the last string read is kept with its time (not a damaged line's
        megabytes, though)."""
        if type(value) is not str or len(value) > 100:
            return parse_timestamp(value) or self._unread(value)
        if value is not self.last_time[0]:
            self.last_time = (value, parse_timestamp(value) or self._unread(value))
        return self.last_time[1]

    def _unread(self, value: Any) -> None:
        if self.times is not None:
            self.times.unread(value)

    def _add(
        self,
        role: Role,
        parts: list[Part],
        rec: dict[str, Any],
        model: str | None = None,
        response_id: str | None = None,
    ) -> Draft:
        # A compaction's summary is the line right after its boundary, or there is none: a
        # boundary waits for it only until the next message (a long session streamed past
        # a boundary without one is not held from there on).
        self.pending_boundary = None
        self.compact_summary, self.compact_moved = None, False
        self.retrying = self.command = self.prompt = None
        time = self._time(rec.get("timestamp"))
        draft = Draft(role, parts, rec.get("uuid"), time, model, response_id)
        self.drafts.append(draft)
        return draft

    def _before_summary(self, parts: list[Part], rec: dict[str, Any]) -> bool:
        """Claude Code writes a manual compaction's boundary and summary, then the
        ``/compact`` command that asked for it (with the person's instructions) and what it
        printed: the note shows the command first, as it happened."""
        summary = self.compact_summary
        text = next((p.text.lstrip() for p in parts if isinstance(p, TextPart)), None)
        if summary is None or text is None:
            return False
        if not (
            COMPACT_COMMAND.search(text)
            if not self.compact_moved
            else text.startswith(COMMAND_OUTPUT)
        ):
            return False
        at = next((i for i, d in enumerate(self.drafts) if d is summary), None)
        if at is None:  # (handed on already: not while it waits, but never an error)
            return False
        draft = Draft("user", parts, rec.get("uuid"), self._time(rec.get("timestamp")))
        self.drafts.insert(at, draft)
        self.compact_moved = True
        return True

    def _user(self, rec: dict[str, Any]) -> None:
        message = rec.get("message") or {}
        content = message.get("content") if isinstance(message, dict) else None
        if rec.get("isCompactSummary"):
            text = plain_text(content)
            if self.pending_boundary is not None:
                old = self.pending_boundary.parts[0]
                trigger = old.trigger if isinstance(old, SummaryPart) else None
                tokens = old.tokens if isinstance(old, SummaryPart) else None
                self.pending_boundary.parts[0] = SummaryPart(text, trigger, tokens=tokens)
                if trigger == "manual":
                    self.compact_summary = self.pending_boundary
                self.pending_boundary = None
            else:
                self._add("system", [SummaryPart(text)], rec)
            return
        parts = user_parts(content)
        if not parts:
            return
        if tool_output_only(parts):
            self._tool_results(parts, rec)
            return
        if any(isinstance(p, ToolResultPart) for p in parts) and (apart := beside_results(content)):
            # Text the person sent with a tool's result (typed while it ran): the result is
            # the tool's, the text a message of theirs after it (no new prompt off an
            # earlier point: the line's parent is the call's), shown once.
            self._tool_results(user_parts(apart[0]), rec)
            said = user_parts(apart[1])
            if plain_text(apart[1]) not in self.steering_seen:
                self._add("user", said, rec)
            return
        parent, uuid = rec.get("parentUuid"), rec.get("uuid")
        first = self.first_child.get(uuid_key(parent)) if isinstance(parent, str) else None
        if first is not None and (not isinstance(uuid, str) or first != uuid_key(uuid)):
            parts.insert(0, NoticePart("rewound"))
        if self._before_summary(parts, rec):
            return
        if self.out.first_prompt is None:
            text = next((p.text for p in parts if isinstance(p, TextPart)), None)
            self.out.first_prompt = text
        draft = self.prompt = self._add("user", parts, rec)
        if any(isinstance(p, TextPart) and "<command-name>" in p.text for p in parts):
            self.command = draft  # the prompt it sent may come next (``_command_prompt``)

    def _tool_results(self, parts: list[Part], rec: dict[str, Any]) -> None:
        """A tool's turn; then what the person said or decided through the tool (an answer,
        why they said no, a plan approved, an edit they changed): theirs (claude_answers)."""
        rich = rec.get("toolUseResult")
        parts = as_done(parts, rich)
        self._add("tool", parts, rec)
        if said := self.answers.said(parts, rich):
            spoken = any(isinstance(p, TextPart) for p in said)
            self._add("user" if spoken else "system", said, rec)

    def _command_prompt(self, rec: dict[str, Any]) -> None:
        """The prompt a slash command sent (a custom command's file, ``/init``'s): an
        ``isMeta`` line right after the command's own, folded under it as its output."""
        command, self.command = self.command, None
        if command is None or command.source_id != rec.get("parentUuid"):
            return
        message = rec.get("message")
        text = plain_text(message.get("content")) if isinstance(message, dict) else ""
        if text.strip() and not text.startswith("Caveat: "):  # (the next command's caveat)
            command.parts.append(CommandOutputPart(text, sent=True))

    def _assistant(self, rec: dict[str, Any]) -> None:
        message = rec.get("message")
        if not isinstance(message, dict):
            return
        model = message.get("model")
        # A damaged line may hold anything. Interned: one string for every message of a model.
        model = sys.intern(model) if isinstance(model, str) else None
        if rec.get("isApiErrorMessage"):
            text = plain_text(message.get("content")).strip()
            self._add("assistant", [NoticePart("error", text)], rec)
            return
        if model == SYNTHETIC_MODEL:
            return  # a placeholder the harness wrote, not a reply
        response = message.get("id") or rec.get("requestId") or rec.get("uuid")
        usage = message.get("usage")
        if isinstance(usage, dict) and response:
            self.usage_by_response[str(response)] = (
                model,
                token_count(usage.get("input_tokens")),
                token_count(usage.get("output_tokens")),
                token_count(usage.get("cache_read_input_tokens")),
                token_count(usage.get("cache_creation_input_tokens")),
            )
        parts = assistant_parts(message.get("content"))
        if not parts:
            return
        self.answers.asked(parts)
        if isinstance(model, str) and model and model not in self.out.models:
            self.out.models.append(model)
        target = self._open_response(response)
        if target is not None:
            target.parts.extend(parts)
        else:
            self._add("assistant", parts, rec, model=model, response_id=response)

    def _open_response(self, response: Any) -> Draft | None:
        """The draft of the same API response, if only tool results came since."""
        for draft in reversed(self.drafts):
            if draft.role == "assistant":
                return draft if response and draft.response_id == response else None
            if draft.role != "tool":
                return None
        return None

    def _system(self, rec: dict[str, Any]) -> None:
        subtype = rec.get("subtype")
        if subtype == "compact_boundary":
            trigger, tokens = compaction(rec.get("compactMetadata"))
            summary = SummaryPart("", trigger, tokens=tokens)
            self.pending_boundary = self._add("system", [summary], rec)
        elif subtype == "local_command" and isinstance(rec.get("content"), str):
            self._add("user", [TextPart(rec["content"])], rec)
        elif notice := system_notice(rec):
            self._notice(notice, rec, retry=subtype in RETRY_SUBTYPES)

    def _notice(self, notice: NoticePart, rec: dict[str, Any], retry: bool) -> None:
        """Claude Code's own notice (no message: a compaction still waits for its summary);
        a request's retries, one after another, one notice, saying the last."""
        if retry and self.drafts and self.drafts[-1] is self.retrying:
            self.drafts[-1].parts[0] = notice
            return
        time = self._time(rec.get("timestamp"))
        draft = Draft("system", [notice], rec.get("uuid"), time)
        self.drafts.append(draft)
        self.retrying = draft if retry else None

    def _finish(self, links: dict[str, str]) -> None:
        per_model: dict[str | None, Usage] = {}
        for model, *counts in self.usage_by_response.values():
            add_usage(per_model, model, Usage(*counts))
        self.out.usage = sum(per_model.values(), Usage())  # Usage() if none
        self.out.model_usage = usage_per_model(per_model)
        mark_unanswered(self.drafts)
        # Each draft goes as its message is made: a long session is never held twice.
        drafts, self.drafts = self.drafts, []
        drafts.reverse()
        while drafts:
            d = drafts.pop()
            if d.parts:
                self.out.messages.append(message_of(d, links))
