"""One Codex rollout's records turned into model messages (FORMATS.md §2.5–§2.9), record by
record (``RolloutBuilder``), once codex_scan.py has said what must be known before they are
read in order. The parts of one record are read by codex_items.py."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ..errors import clipped
from ..model import (
    AttachmentPart,
    Message,
    NoticePart,
    Part,
    Role,
    SummaryPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Usage,
    add_usage,
)
from ._jsonl import parse_timestamp
from ._times import Times
from ._values import json_kind, tool_name
from .codex_events import EventReader, text_of, with_images
from .codex_images import images, not_copied
from .codex_items import (
    agent_message,
    content_text,
    ended,
    image_generation,
    item_call_id,
    reasoning_texts,
    tool_call,
    tool_result,
    tool_search_call,
    tool_search_output,
)
from .codex_odd import content_odd, item_odd, meta_odd, text_odd
from .codex_scan import (
    ChildLookup,
    OriginLookup,
    Record,
    RolloutLookup,
    Scan,
    scan_rollout,
    spawn_result,
)

# Item types that hold nothing of the conversation (FORMATS.md §2.5: an undo checkpoint,
# encrypted compaction state, the tools offered); any other type not read is reported.
_IGNORED_ITEMS = frozenset(
    {"ghost_snapshot", "compaction", "compaction_summary", "context_compaction", "additional_tools"}
)


@dataclass(slots=True)
class Rollout:
    meta: dict[str, Any] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    cwd: str | None = None
    models: list[str] = field(default_factory=list)
    started: datetime | None = None
    ended: datetime | None = None
    usage: Usage = Usage()
    # ``usage`` per turn_context model: what each total added to the last, counted to the
    # model of its turn (None once a total went down: which model used what is not known).
    per_model: dict[str | None, Usage] | None = field(default_factory=dict)
    parent_id: str | None = None
    forked_from: str | None = None
    agent_label: str | None = None
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, why) of bad lines
    # (line, why) of a value of the wrong type in a line read all the same
    odd: list[tuple[int, str]] = field(default_factory=list)
    # Items of a type not read (a newer Codex's): type -> (first line, how many)
    unknown: dict[str, tuple[int, int]] = field(default_factory=dict)
    times: Times = field(default_factory=Times)  # the times that could not be read
    # Ids of calls the API ran itself (a web search, an image generated): no output item
    # ever answers them, what they found is the item itself.
    inline: set[str] = field(default_factory=set)

    def waits(self, call: ToolCallPart) -> bool:
        """Does this call wait for an output item (one that never got it is marked)?"""
        return call.call_id is not None and call.call_id not in self.inline


def build_rollout(
    records: list[Record],
    origin: OriginLookup,
    children: ChildLookup | None = None,
    on_disk: RolloutLookup | None = None,
) -> Rollout:
    builder = RolloutBuilder(scan_rollout(records, records, origin, children, on_disk))
    for record in records[builder.skip :]:
        builder.add(record)
    builder.flush()
    return builder.out


def spawning_thread(meta: dict[str, Any]) -> str | None:
    """The thread that spawned a subagent's, from its ``session_meta`` (None: not one)."""
    source = meta.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    if sub is None:
        return None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    parent = (spawn if isinstance(spawn, dict) else {}).get("parent_thread_id")
    parent = parent or meta.get("parent_thread_id")
    return parent.lower() if isinstance(parent, str) else None


# event_msg types that may make a message (any other is bookkeeping: turn starts, tokens)
_EVENT_MESSAGES = frozenset(
    {"user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content",
     "turn_aborted", "context_compacted", "entered_review_mode", "exited_review_mode", "error",
     "undo_completed"}
)  # fmt: skip


def _makes_messages(kind: str, p: dict[str, Any]) -> bool:
    """May this record make a message, other than the model's copy of a prompt?"""
    if kind == "response_item":  # developer and system messages make none either
        return not (p.get("type") == "message" and p.get("role") in ("user", "developer", "system"))
    if kind == "event_msg":
        etype = p.get("type")  # a damaged line may hold a list here
        return isinstance(etype, str) and etype in _EVENT_MESSAGES
    return kind in ("compacted", "inter_agent_communication")


# A model copy of a prompt that is injected context: the AGENTS.md instructions, or one
# block wrapped in a tag (<environment_context>, <user_instructions>, <turn_aborted>, …)
_CONTEXT = re.compile(r"\s*(?:# AGENTS\.md instructions for |<([\w-]+)[^<>\n]*>.*</\1>\s*\Z)", re.S)


def _context(text: str) -> bool:
    return _CONTEXT.match(text) is not None


class RolloutBuilder(EventReader):
    """Builds a rollout one record at a time (from ``skip`` on). A message, once made, never
    changes: a caller streaming a long rollout takes them out of ``out.messages`` as they
    come and lets them go."""

    def __init__(self, scan: Scan) -> None:
        self.out = Rollout()
        self.skip = scan.skip
        self.has_user_events = scan.has_user_events
        self.has_compacted = scan.has_compacted
        self.exec_ends = scan.exec_ends  # (read, never changed: a stream is read again)
        self.spawned = scan.spawned  # spawn_agent call -> the thread it started (the same)
        self.saved_images = scan.saved_images  # generated image -> where it was saved
        self.spawns = scan.spawns  # spawn_agent call -> why its agent has no note ("")
        self.model: str | None = None
        # Replies and reasoning arrive twice (model and UI streams): a text seen in one
        # stream cancels one copy from the other, repeats within a stream are kept. Kept
        # as digests: a long rollout's replies are not held for this.
        self.pending: dict[str, Counter[bytes]] = {"item": Counter(), "event": Counter()}
        # A prompt's two copies (when the file has UI copies): the UI copy is the prompt,
        # but the model's copy holds the bytes of an image pasted from a file (the UI copy
        # names it only by path, ``local_images``), and a prompt typed while a turn ran was
        # written by older builds as a model copy alone. The model's copy comes just before
        # its UI copy (it waits in ``model_prompt`` for it: with none, it is the prompt) or,
        # in some builds, just after (``ui_made``: the UI copy is in the note, this one is
        # dropped; a UI copy that names local images waits in ``held`` for their bytes).
        # Each waits as (parts, line, time). Two copies pair only when their text is the
        # same: a prompt typed mid-turn (a model copy alone) next to another keeps its words.
        self.model_prompt: tuple[list[Part], int, datetime | None] | None = None
        self.ui_made: str | None = None  # the text of the UI copy just made
        self.rewound = False  # the person went back (thread_rolled_back): mark the next prompt
        self.held: tuple[list[Part], int, datetime | None] | None = None
        self.held_paths: list[str] = []  # the paths of the held UI copy's local images
        if scan.first_meta is not None:
            self._meta(scan.first_meta, scan.meta_line or 0)
            stamp = scan.first_meta.get("timestamp")  # the session's start
            parse_timestamp(stamp) or self.out.times.unread(stamp, scan.meta_line)
        if scan.origin_id:
            self.out.forked_from = scan.origin_id

    def add(self, record: Record) -> None:
        number, kind, p, ts = record
        if _makes_messages(kind, p):
            ui_copy = kind == "event_msg" and p.get("type") == "user_message"
            self.ui_made = None  # a model copy that comes now is no twin of the last UI copy
            if self.held is not None:
                self.flush()  # the model's copy did not follow: the prompt as the UI had it
            if self.model_prompt is not None and not ui_copy:
                self._add("user", *self.model_prompt)  # no UI copy came: the model's is it
                self.model_prompt = None
        try:
            self._record(number, kind, p, ts)
        except Exception as exc:  # a line of a shape no one expected costs that line
            self.out.skipped.append((number, clipped(f"{type(exc).__name__}: {exc}", 200)))

    def flush(self) -> None:
        """Make the prompt still waiting for its other copy (called at the end, too)."""
        if self.model_prompt is not None:
            self._add("user", *self.model_prompt)
        self.model_prompt = None
        self._held_alone()

    def _held_alone(self) -> None:
        """Make the held UI copy a prompt as it is, its model copy not having come: the
        rollout holds none of its local images' bytes, each is named by its path."""
        if self.held is not None:
            parts, at, when = self.held
            self._add("user", parts + [not_copied(path) for path in self.held_paths], at, when)
        self.held, self.held_paths = None, []

    def _record(self, number: int, kind: str, p: dict[str, Any], ts: Any) -> None:
        when = parse_timestamp(ts) or self.out.times.unread(ts, number)
        if when:  # the earliest and latest: a line out of order (a clock set back) moves neither
            self.out.started = min(self.out.started or when, when)
            if kind != "session_meta":  # (when a session began: no sign of how long it went on)
                self.out.ended = max(self.out.ended or when, when)
        if kind == "session_meta":
            self._meta(p, number)
        elif kind == "turn_context":
            self._turn_context(p)
        elif kind == "response_item":
            self._item(number, p, when)
        elif kind == "event_msg":
            self._event(number, p, when)
        elif kind == "inter_agent_communication":
            self._between_agents(number, p, "event", when)
        elif kind == "compacted":
            summary = p.get("message")
            self.out.odd += [(number, why) for why in text_odd(summary, "its summary")]
            text = summary if isinstance(summary, str) else ""
            self._add("system", [SummaryPart(text)], number, when)

    # -- identity, forks -------------------------------------------------------------------

    def _meta(self, p: dict[str, Any], number: int) -> None:
        if self.out.meta:
            return  # the first session_meta owns identity
        self.out.meta = p
        self.out.odd += [(number, why) for why in meta_odd(p)]
        if isinstance(p.get("cwd"), str):
            self.out.cwd = p["cwd"]
        source = p.get("source")
        sub = source.get("subagent") if isinstance(source, dict) else None
        if sub is not None:
            spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
            self.out.parent_id = spawning_thread(p)
            label = (
                p.get("agent_nickname")
                or p.get("agent_role")
                or (spawn or {}).get("agent_nickname")
            )
            if not label:  # a kind of helper ("review", {"other": name}), never the way
                # it was started ("thread_spawn" says how, not who: no label)
                label = sub if isinstance(sub, str) else None
                if isinstance(sub, dict) and isinstance(sub.get("other"), str):
                    label = sub["other"]
            self.out.agent_label = str(label) if label else None
        if isinstance(p.get("forked_from_id"), str):
            self.out.forked_from = p["forked_from_id"].lower()

    def _cwd_from_context(self, text: str) -> None:
        """Early rollouts name the working directory only in the injected context."""
        if not self.out.cwd and "<cwd>" in text:
            found = re.search(r"<cwd>(.*?)</cwd>", text, re.DOTALL)
            if found and found.group(1).strip():
                self.out.cwd = found.group(1).strip()

    def _count(self, total: Usage) -> None:
        """A new cumulative total: what it adds to the last is the current turn's model's."""
        last, per_model = self.out.usage, self.out.per_model
        self.out.usage = total
        if per_model is None:
            return
        added = (
            total.input_tokens - last.input_tokens,
            total.output_tokens - last.output_tokens,
            total.cache_read_tokens - last.cache_read_tokens,
        )
        if min(added) < 0:
            self.out.per_model = None
        elif any(added):
            add_usage(per_model, self.model, Usage(*added))

    def _turn_context(self, p: dict[str, Any]) -> None:
        model = p.get("model")
        if isinstance(model, str) and model:
            self.model = model
        if isinstance(p.get("cwd"), str) and not self.out.cwd:
            self.out.cwd = p["cwd"]

    # -- conversation ----------------------------------------------------------------------

    def _add(self, role: Role, parts: list[Part], number: int, when: datetime | None) -> None:
        if self.rewound and role == "user" and any(p.kind != "notice" for p in parts):
            self.rewound = False  # the prompt the person typed after going back
            parts = [NoticePart("rewound"), *parts]
        if parts:
            model = self.model if role == "assistant" else None
            if model and model not in self.out.models:
                self.out.models.append(model)
            self.out.messages.append(Message(role, tuple(parts), f"line {number}", when, model))

    def _once(self, stream: str, text: str) -> bool:
        """True if ``text`` is new; False if it is the twin of a text from the other stream."""
        other = "event" if stream == "item" else "item"
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]
        if self.pending[other][key]:
            self.pending[other][key] -= 1
            return False
        self.pending[stream][key] += 1
        return True

    def _item(self, number: int, p: dict[str, Any], when: datetime | None) -> None:
        ptype = p.get("type")
        if not isinstance(ptype, str):
            self.out.skipped.append((number, f"its item type is {json_kind(ptype)}, not text"))
            return
        self.out.odd += [(number, why) for why in item_odd(ptype, p)]
        if ptype == "message":
            self._message(number, p, when)
        elif ptype == "reasoning":
            parts: list[Part] = [
                ThinkingPart(t) for t in reasoning_texts(p) if self._once("item", "r:" + t)
            ]
            self._add("assistant", parts, number, when)
        elif ptype in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
            if ptype == "web_search_call" and item_call_id(p):
                self.out.inline.add(str(item_call_id(p)))
            _name, why = tool_name(p.get("name"))
            if why:
                self.out.odd.append((number, why))
                p = {**p, "name": None}
            call = tool_call(p)
            if self.spawned and call.call_id in self.spawned:  # its subagent's note: linked
                call = replace(call, subagent_id=self.spawned[call.call_id])
            self._add("assistant", [call], number, when)
        elif ptype in ("function_call_output", "custom_tool_call_output"):
            result = tool_result(p)
            if result.call_id in self.spawns:  # the agent it started, in words
                thread, why = self.spawned.get(result.call_id), self.spawns[result.call_id]
                result = spawn_result(result, p.get("output"), thread, why)
            end = self.exec_ends.get(result.call_id) if self.exec_ends else None
            if end is not None:  # a unified-exec command: its own exit code and duration
                result = ended(result, end)
            # An output may hold images too (view_image, a screenshot tool's)
            self._add("tool", [result, *images(p.get("output"))], number, when)
        elif ptype == "tool_search_call":
            self._add("assistant", [tool_search_call(p)], number, when)
        elif ptype == "tool_search_output":
            odd: list[str] = []
            self._add("tool", [tool_search_output(p, odd)], number, when)
            self.out.odd += [(number, why) for why in odd]
        elif ptype == "image_generation_call":
            if item_call_id(p):
                self.out.inline.add(str(item_call_id(p)))
            call, *output = image_generation(p, self.saved_images.get(str(item_call_id(p))))
            self._add("assistant", [call], number, when)
            self._add("tool", output, number, when)  # (the image, as the call's result)
        elif ptype == "agent_message":
            self._between_agents(number, p, "item", when)
        elif ptype not in _IGNORED_ITEMS:
            kind = clipped(ptype)
            first, seen = self.out.unknown.get(kind, (number, 0))
            self.out.unknown[kind] = (first, seen + 1)

    def _between_agents(
        self, number: int, p: dict[str, Any], stream: str, when: datetime | None
    ) -> None:
        """A message one agent sent another: the model's ``agent_message`` item, or (multi-
        agent v2 builds that keep no such item) the ``inter_agent_communication`` record
        itself (``content`` a text). Kept once should a build write both."""
        if stream == "event":
            self.out.odd += [(number, why) for why in item_odd("agent_message", p)]
        parts = agent_message(p)
        said = f"m:{p.get('author')}>{p.get('recipient')}:{content_text(p.get('content'))}"
        if parts and self._once(stream, said):
            self._add("system", parts, number, when)

    def _message(self, number: int, p: dict[str, Any], when: datetime | None) -> None:
        role, content = p.get("role"), p.get("content")
        if role not in ("user", "assistant", "developer", "system"):
            why = f"unknown role {clipped(role)!r}" if isinstance(role, str) else None
            self.out.skipped.append((number, why or f"its role is {json_kind(role)}, not text"))
            return
        self.out.odd += [(number, why) for why in content_odd(content)]
        text = content_text(content)
        if role == "assistant":
            if text.strip() and self._once("item", "a:" + text):
                self._add("assistant", [TextPart(text)], number, when)
        elif role == "user":
            self._cwd_from_context(text)
            # The model's copy of a prompt carries injected context; the UI copy is used
            # when the file has one, except for shell commands the person ran.
            parts: list[Part] = [TextPart(text)] if text.strip() else []
            parts += images(content)
            if self.has_user_events and "<user_shell_command>" not in text:
                if _context(text):
                    return  # injected context (AGENTS.md, environment), never a prompt
                found = [i for i in parts if isinstance(i, AttachmentPart)]
                said = text_of(parts)
                if self.held is not None and text_of(self.held[0]) == said:
                    held, at, held_when = self.held  # the UI copy came first: it gets these
                    self.held, self.held_paths = None, []
                    self._add("user", with_images(held, found), at, held_when)
                elif self.ui_made is not None and self.ui_made == said:
                    self.ui_made = None  # the UI copy, just before, is in the note
                else:
                    self.ui_made = None
                    self._held_alone()  # a UI copy whose model copy did not follow
                    if self.model_prompt is not None:  # one before it got no UI copy
                        self._add("user", *self.model_prompt)
                    self.model_prompt = (parts, number, when)
                return
            self._add("user", parts, number, when)
        # developer and system messages are instructions for the model, not conversation
