"""One Codex rollout's records turned into model messages (FORMATS.md §2.5–§2.9)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

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
    ToolResultPart,
    Usage,
)
from ._jsonl import parse_timestamp

Record = tuple[int, str, dict[str, Any], Any]
OriginLookup = Callable[[str], "list[tuple[str, str]] | None"]
# event_msg/user_message kinds that carry injected context, not a prompt
_INJECTED_KINDS = {"user_instructions", "environment_context"}
_SHELL_TOOLS = {"shell", "container.exec", "local_shell", "shell_command", "exec_command"}


@dataclass(slots=True)
class Rollout:
    meta: dict[str, Any] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    cwd: str | None = None
    models: list[str] = field(default_factory=list)
    started: datetime | None = None
    ended: datetime | None = None
    usage: Usage = Usage()
    parent_id: str | None = None
    forked_from: str | None = None
    agent_label: str | None = None
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, why) of bad lines


def signatures(records: list[Record]) -> list[tuple[str, str]]:
    """The conversational items of a rollout, in order, as comparable signatures."""
    return [sig for rec in records if (sig := _signature(rec[1], rec[2])) is not None]


def _signature(kind: str, p: dict[str, Any]) -> tuple[str, str] | None:
    ptype = p.get("type")
    if kind == "response_item":
        if ptype == "message":
            return ("message:" + str(p.get("role")), _content_text(p.get("content")))
        if ptype in ("function_call", "function_call_output", "custom_tool_call",
                     "custom_tool_call_output", "local_shell_call"):  # fmt: skip
            return (str(ptype), str(p.get("call_id")))
        if ptype == "reasoning":
            return ("reasoning", "\n".join(_reasoning_texts(p)))
    elif kind == "event_msg" and ptype in ("user_message", "agent_message", "agent_reasoning"):
        return (str(ptype), str(p.get("message") or p.get("text") or ""))
    return None


@dataclass(slots=True)
class Scan:
    """What must be known of a whole rollout before its records are read in order."""

    has_user_events: bool = False  # prompts come from the UI's copies, not the model's
    has_compacted: bool = False
    first_meta: dict[str, Any] | None = None  # the first session_meta owns identity
    origin_id: str | None = None  # the thread a fork copied
    skip: int = 0  # records at the start that replay the origin (dropped)
    kinds: set[str] = field(default_factory=set)
    last_line: int = 0  # later readings stop here (lines written since wait for next run)


def scan_rollout(prefix: Iterable[Record], records: Iterable[Record], origin: OriginLookup) -> Scan:
    """Scan a rollout: ``prefix`` is read only as far as identity and a fork's origin go,
    ``records`` (the same records, from the start) through."""
    scan = Scan()
    first_at = origin_at = own = None
    for i, (_, kind, p, _) in enumerate(prefix):
        if first_at is None:
            if kind == "session_meta":
                first_at, scan.first_meta, own = i, p, p.get("id")
            continue
        if kind == "session_meta" and p.get("id") not in (None, own):
            origin_at, scan.origin_id = i, str(p["id"]).lower()
            break
        if kind in ("response_item", "event_msg"):
            break
    history = None
    if first_at is not None:
        forked = scan.first_meta.get("forked_from_id") if scan.first_meta else None
        if scan.origin_id is None and isinstance(forked, str):
            scan.origin_id = forked.lower()
        history = origin(scan.origin_id) if scan.origin_id else None
    # A fork starts by replaying its origin: the records that match the origin's
    # conversation in order are dropped (when the origin is gone, nothing is).
    start = (origin_at if origin_at is not None else (first_at or 0)) + 1
    j, replaying = 0, bool(history)
    if replaying:
        scan.skip = start  # the session_meta lines of the copy, at least
    for i, (number, kind, p, _) in enumerate(records):
        scan.kinds.add(kind)
        scan.last_line = number
        if kind == "event_msg" and p.get("type") == "user_message":
            scan.has_user_events = True
        elif kind == "compacted":
            scan.has_compacted = True
        if replaying and i >= start and history:
            sig = _signature(kind, p)
            if sig is None:
                continue
            try:
                j = history.index(sig, j) + 1
            except ValueError:
                replaying = False
                continue
            scan.skip = i + 1
    return scan


def build_rollout(records: list[Record], origin: OriginLookup) -> Rollout:
    builder = RolloutBuilder(scan_rollout(records, records, origin))
    for record in records[builder.skip :]:
        builder.add(record)
    return builder.out


class RolloutBuilder:
    """Builds a rollout one record at a time (from ``skip`` on). A message, once made, never
    changes: a caller streaming a long rollout takes them out of ``out.messages`` as they
    come and lets them go."""

    def __init__(self, scan: Scan) -> None:
        self.out = Rollout()
        self.skip = scan.skip
        self.has_user_events = scan.has_user_events
        self.has_compacted = scan.has_compacted
        self.model: str | None = None
        # Replies and reasoning arrive twice (model and UI streams): a text seen in one
        # stream cancels one copy from the other, repeats within a stream are kept. Kept
        # as digests: a long rollout's replies are not held for this.
        self.pending: dict[str, Counter[bytes]] = {"item": Counter(), "event": Counter()}
        if scan.first_meta is not None:
            self._meta(scan.first_meta)
        if scan.origin_id:
            self.out.forked_from = scan.origin_id

    def add(self, record: Record) -> None:
        number, kind, p, ts = record
        try:
            self._record(number, kind, p, ts)
        except Exception as exc:  # a line of a shape no one expected costs that line
            self.out.skipped.append((number, f"{type(exc).__name__}: {exc}"[:200]))

    def _record(self, number: int, kind: str, p: dict[str, Any], ts: Any) -> None:
        when = parse_timestamp(ts)
        if when:
            self.out.started = self.out.started or when
            self.out.ended = when
        if kind == "session_meta":
            self._meta(p)
        elif kind == "turn_context":
            self._turn_context(p)
        elif kind == "response_item":
            self._item(number, p, when)
        elif kind == "event_msg":
            self._event(number, p, when)
        elif kind == "compacted":
            self._add("system", [SummaryPart(str(p.get("message") or ""))], number, when)

    # -- identity, forks -------------------------------------------------------------------

    def _meta(self, p: dict[str, Any]) -> None:
        if self.out.meta:
            return  # the first session_meta owns identity
        self.out.meta = p
        if isinstance(p.get("cwd"), str):
            self.out.cwd = p["cwd"]
        source = p.get("source")
        sub = source.get("subagent") if isinstance(source, dict) else None
        if sub is not None:
            spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
            parent = (spawn or {}).get("parent_thread_id") or p.get("parent_thread_id")
            self.out.parent_id = str(parent).lower() if isinstance(parent, str) else None
            label = (
                p.get("agent_nickname")
                or p.get("agent_role")
                or (spawn or {}).get("agent_nickname")
            )
            if not label:
                label = (
                    sub
                    if isinstance(sub, str)
                    else next(iter(sub), None)
                    if isinstance(sub, dict)
                    else None
                )
            self.out.agent_label = str(label) if label else "subagent"
        if isinstance(p.get("forked_from_id"), str):
            self.out.forked_from = p["forked_from_id"].lower()

    def _cwd_from_context(self, text: str) -> None:
        """Early rollouts name the working directory only in the injected context."""
        if not self.out.cwd and "<cwd>" in text:
            found = re.search(r"<cwd>(.*?)</cwd>", text, re.DOTALL)
            if found and found.group(1).strip():
                self.out.cwd = found.group(1).strip()

    def _turn_context(self, p: dict[str, Any]) -> None:
        model = p.get("model")
        if isinstance(model, str) and model:
            self.model = model
        if isinstance(p.get("cwd"), str) and not self.out.cwd:
            self.out.cwd = p["cwd"]

    # -- conversation ----------------------------------------------------------------------

    def _add(self, role: Role, parts: list[Part], number: int, when: datetime | None) -> None:
        if parts:
            model = self.model if role == "assistant" else None
            if model and model not in self.out.models:
                self.out.models.append(model)
            self.out.messages.append(Message(role, tuple(parts), f"line {number}", when, model))

    def _once(self, stream: str, text: str) -> bool:
        """True if ``text`` is new; False if it is the twin of a text from the other stream."""
        other = "event" if stream == "item" else "item"
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        if self.pending[other][key]:
            self.pending[other][key] -= 1
            return False
        self.pending[stream][key] += 1
        return True

    def _item(self, number: int, p: dict[str, Any], when: datetime | None) -> None:
        ptype = p.get("type")
        if ptype == "message":
            self._message(number, p, when)
        elif ptype == "reasoning":
            parts: list[Part] = [
                ThinkingPart(t) for t in _reasoning_texts(p) if self._once("item", "r:" + t)
            ]
            self._add("assistant", parts, number, when)
        elif ptype in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
            self._add("assistant", [_tool_call(p)], number, when)
        elif ptype in ("function_call_output", "custom_tool_call_output"):
            self._add("tool", [_tool_result(p)], number, when)

    def _message(self, number: int, p: dict[str, Any], when: datetime | None) -> None:
        role, content = p.get("role"), p.get("content")
        text = _content_text(content)
        if role == "assistant":
            if text.strip() and self._once("item", "a:" + text):
                self._add("assistant", [TextPart(text)], number, when)
        elif role == "user":
            self._cwd_from_context(text)
            # The model's copy of a prompt carries injected context; the UI copy is used
            # when the file has one, except for shell commands the person ran.
            if self.has_user_events and "<user_shell_command>" not in text:
                return
            parts: list[Part] = [TextPart(text)] if text.strip() else []
            parts += _images(content)
            self._add("user", parts, number, when)
        # developer and system messages are instructions for the model, not conversation

    def _event(self, number: int, p: dict[str, Any], when: datetime | None) -> None:
        etype = p.get("type")
        if etype == "user_message":
            if p.get("kind") in _INJECTED_KINDS:
                return
            message = p.get("message")
            parts: list[Part] = (
                [TextPart(message)] if isinstance(message, str) and message.strip() else []
            )
            for url in p.get("images") or []:
                image = _decode(url)
                if image:
                    parts.append(image)
            self._add("user", parts, number, when)
        elif etype == "agent_message":
            text = p.get("message")
            if isinstance(text, str) and text.strip() and self._once("event", "a:" + text):
                self._add("assistant", [TextPart(text)], number, when)
        elif etype in ("agent_reasoning", "agent_reasoning_raw_content"):
            text = p.get("text")
            if isinstance(text, str) and text.strip() and self._once("event", "r:" + text):
                self._add("assistant", [ThinkingPart(text)], number, when)
        elif etype == "token_count":
            info = p.get("info")
            total = info.get("total_token_usage") if isinstance(info, dict) else None
            if isinstance(total, dict):  # cumulative: the last one is the session's total
                cached = _int(total.get("cached_input_tokens"))
                self.out.usage = Usage(
                    max(0, _int(total.get("input_tokens")) - cached),
                    _int(total.get("output_tokens")),
                    cached,
                    0,
                )
        elif etype == "turn_aborted":
            reason = p.get("reason")
            text = "" if reason in (None, "interrupted") else str(reason)
            self._add("user", [NoticePart("interrupted", text)], number, when)
        elif etype == "context_compacted" and not self.has_compacted:
            self._add("system", [SummaryPart("")], number, when)
        elif etype == "exited_review_mode":
            review = _review_text(p.get("review_output"))
            if review:
                self._add("assistant", [TextPart(review)], number, when)
        elif etype == "error" and isinstance(p.get("message"), str):
            self._add("assistant", [NoticePart("error", p["message"])], number, when)


def _int(value: Any) -> int:
    """A token count; anything else (a damaged value, a number past 2**53) counts 0."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53
    return value if ok else 0


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    texts = []
    for c in content if isinstance(content, list) else []:
        if isinstance(c, dict) and c.get("type") in ("input_text", "output_text", "text"):
            if isinstance(c.get("text"), str):
                texts.append(c["text"])
    return "\n\n".join(texts)


def _reasoning_texts(p: dict[str, Any]) -> list[str]:
    texts = []
    for key in ("summary", "content"):
        for c in p.get(key) or []:
            if isinstance(c, dict) and isinstance(c.get("text"), str) and c["text"].strip():
                texts.append(c["text"])
    return texts


def _images(content: Any) -> list[Part]:
    out: list[Part] = []
    for c in content if isinstance(content, list) else []:
        if isinstance(c, dict) and c.get("type") == "input_image":
            image = _decode(c.get("image_url"))
            if image:
                out.append(image)
    return out


def _decode(url: Any) -> AttachmentPart | None:
    decoded = decode_data_url(url)
    return AttachmentPart(decoded[0], decoded[1]) if decoded else None


def _tool_call(p: dict[str, Any]) -> ToolCallPart:
    ptype = p.get("type")
    call_id = p.get("call_id") if isinstance(p.get("call_id"), str) else p.get("id")
    call_id = call_id if isinstance(call_id, str) else None
    if ptype == "local_shell_call":
        action = p.get("action") if isinstance(p.get("action"), dict) else {}
        args = {
            "command": command_text(action.get("command")),
            "workdir": action.get("working_directory"),
        }
        return ToolCallPart("shell", {k: v for k, v in args.items() if v}, call_id)
    if ptype == "web_search_call":
        action = p.get("action") if isinstance(p.get("action"), dict) else {}
        return ToolCallPart(
            "web_search", {k: v for k, v in action.items() if k != "type" and v}, call_id
        )
    name = str(p.get("name") or "tool")
    if ptype == "custom_tool_call":
        return ToolCallPart(name, p.get("input"), call_id)
    args: Any = p.get("arguments")
    if isinstance(args, str):
        try:
            args = orjson.loads(args)
        except orjson.JSONDecodeError:
            pass
    if isinstance(args, dict) and name in _SHELL_TOOLS and "command" in args:
        args = {**args, "command": command_text(args["command"])}
    return ToolCallPart(name, args, call_id)


def _tool_result(p: dict[str, Any]) -> ToolResultPart:
    call_id = p.get("call_id") if isinstance(p.get("call_id"), str) else None
    output, is_error, exit_code, duration = _unwrap_output(p.get("output"))
    return ToolResultPart(output, call_id, is_error, exit_code, duration)


def _unwrap_output(output: Any) -> tuple[str, bool, int | None, float | None]:
    """A tool's output as text, with the exit code and duration the shell tool wraps in."""
    if isinstance(output, str) and output.startswith("{"):
        try:
            parsed = orjson.loads(output)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and "output" in parsed:
            output = parsed
    if isinstance(output, dict):
        if "output" in output:
            meta = output.get("metadata") if isinstance(output.get("metadata"), dict) else {}
            code = meta.get("exit_code")
            duration = meta.get("duration_seconds")
            code = code if isinstance(code, int) else None
            return (
                str(output.get("output") or ""),
                bool(code),
                code,
                float(duration) if isinstance(duration, int | float) else None,
            )
        if "content" in output:
            return str(output.get("content") or ""), output.get("success") is False, None, None
        return _content_text([output]), False, None, None
    if isinstance(output, list):
        return _content_text(output), False, None, None
    return ("" if output is None else str(output)), False, None, None


def _review_text(review: Any) -> str:
    """A review's explanation, then each finding (its title on a line, then its body), as
    plain text: the note decides how text looks."""
    if not isinstance(review, dict):
        return ""
    lines = []
    if isinstance(review.get("overall_explanation"), str):
        lines.append(review["overall_explanation"])
    for finding in review.get("findings") or []:
        if isinstance(finding, dict):
            lines.append(f"{finding.get('title') or ''}\n{finding.get('body') or ''}".strip())
    return "\n\n".join(line for line in lines if line).strip()


def command_text(command: Any) -> str:
    """A shell command as a person would type it: argv joined, ``bash -lc`` unwrapped."""
    if isinstance(command, str):
        return command
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        if (
            len(command) == 3
            and command[1] in ("-lc", "-c")
            and command[0].endswith(("sh", "bash", "zsh"))
        ):
            return command[2]
        return shlex.join(command)
    return str(command)


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
