"""Copilot CLI events read in order into threads: the main agent's and one per sub-agent
(sessions.py makes sessions of them)."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from ...errors import Problem, how_many
from ...model import (
    CommandOutputPart,
    CommandPart,
    NoticePart,
    NotRun,
    Part,
    SummaryPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
    add_usage,
)
from .._jsonl import json_or_text, json_text, parse_timestamp
from .._times import Times
from .._values import json_kind, tool_name
from . import SOURCE, values
from .attachments import attachment_parts, result_extras
from .threads import Thread
from .usage import PremiumRequests, TokenTotals, positive, shutdown_totals
from .values import arguments_of, error_text, result_text, seconds, text_of, truncation_text

# Known types that carry nothing for a note (system prompt, notices, hooks, bookkeeping).
DROPPED = {
    "system.message", "system.notification", "session.idle", "session.auto_mode_resolved",
    "session.tools_updated", "session.compaction_start",
    "assistant.turn_start", "assistant.turn_end", "assistant.usage", "assistant.intent",
    "pending_messages.modified",
}  # fmt: skip
DROPPED_PREFIXES = ("hook.", "permission.", "skill.", "session.mcp_")
_TRUSTED = re.compile(r"^Folder (.+) has been added to trusted folders\.?$")
# Abort reasons that name the CLI's own failure (tool_failure), not the person stopping it.
_CLI_ABORT = re.compile(r"fail|error|timeout|limit", re.I)


class EventLog:
    """One events file read event by event into the main thread and sub-agent threads.

    For a long log whose main thread a caller streams (taking ``main.messages`` as they
    come), ``slim`` keeps of each tool call only what linking a sub-agent needs (its id,
    name, description and prompt), and ``keep_agents=False`` keeps no sub-agent message."""

    def __init__(
        self,
        session_id: str,
        path: Path,
        problems: list[Problem],
        *,
        slim: bool = False,
        keep_agents: bool = True,
    ) -> None:
        self.session_id = session_id
        self.path = path
        self.problems = problems
        self.slim = slim
        self.keep_agents = keep_agents
        self.main = Thread()
        self.agents: dict[str, Thread] = {}  # delegating toolCallId -> thread
        self.agent_calls: dict[str, str] = {}  # envelope agentId -> delegating toolCallId
        self.calls: dict[str, ToolCallPart] = {}
        # Calls whose request gave no arguments, and their thread, until their start (which
        # gives the arguments they ran with), their result, or the thread's next reply.
        self.unargued: dict[str, Thread] = {}
        self.user_calls: set[str] = set()  # tools the person ran themselves (``!cmd``)
        self.context: dict[str, Any] = {}
        self.trusted: str | None = None
        self.title: str | None = None
        self.model: str | None = None
        self.started: datetime | None = None
        self.tokens = TokenTotals()  # per model, from modelMetrics (usage.TokenTotals)
        self.metrics = False
        self.premium = PremiumRequests()  # what Copilot bills by (usage.PremiumRequests)
        self.unknown: dict[str, tuple[int | None, int]] = {}  # type -> its first line, count
        self.line: int | None = None  # of the event being read
        self.times = Times(lambda: self.line)  # the times that could not be read

    def said(self, why: str) -> None:
        """A damaged value of the event being read, and what came of it."""
        self.problems.append(Problem(str(self.path), why, self.line, source=SOURCE))

    def text(self, data: dict[str, Any], key: str, what: str) -> str | None:
        """``data[key]`` when it is text; a value of another type is said (left out)."""
        value = data.get(key)
        if isinstance(value, str):
            return value
        if value is not None:
            self.said(f"{what} is {json_kind(value)}, not text: left out")
        return None

    def call_id(self, data: dict[str, Any], what: str) -> str | None:
        """A ``toolCallId``; one missing or not text is said (``what`` it cost)."""
        call_id = data.get("toolCallId")
        if isinstance(call_id, str) and call_id:
            return call_id
        why = (
            "no toolCallId"
            if call_id in (None, "")
            else f"a toolCallId that is {json_kind(call_id)}"
        )
        self.said(f"{what} with {why}: left out")
        return None

    def _tool_name(self, value: Any) -> str:
        name, why = tool_name(value)
        if why:
            self.problems.append(Problem(str(self.path), why, self.line, source=SOURCE))
        return name

    def thread(self, event: dict[str, Any], data: dict[str, Any]) -> Thread:
        agent = event.get("agentId")
        call = data.get("parentToolCallId")
        if call is not None and not isinstance(call, str):
            self.said(
                f"its parentToolCallId is {json_kind(call)}, not text: read as the main agent's"
            )
        if not isinstance(call, str) and isinstance(agent, str):
            call = self.agent_calls.get(agent, agent)
        if isinstance(call, str) and call:
            return self._agent(call)
        return self.main

    def _agent(self, call_id: str) -> Thread:
        thread = self.agents.get(call_id)
        if thread is None:
            thread = self.agents[call_id] = Thread(keep=self.keep_agents)
        return thread

    def _remember(self, call: ToolCallPart) -> None:
        """A call, for later events to find by id: whole, or only what linking needs."""
        if self.slim:
            prompt = call.input.get("prompt") if isinstance(call.input, dict) else None
            kept = {"prompt": prompt} if isinstance(prompt, str) else None
            call = ToolCallPart(call.name, kept, call.call_id, call.description)
        self.calls[str(call.call_id)] = call

    def event(self, event: dict[str, Any], line: int | None = None) -> None:
        kind: str = event["type"]
        raw = event.get("data")
        data = raw if isinstance(raw, dict) else {}
        self.line = line
        if kind in _HANDLERS and not isinstance(raw, dict):
            # (a damaged event: what it held is lost, and said)
            why = (
                f"the event's data is {json_kind(raw)}, not an object"
                if "data" in event
                else "the event has no data"
            )
            self.said(f"{why}: left out")
        stamp = event.get("timestamp")
        when = parse_timestamp(stamp) or self.times.unread(stamp)
        if event.get("ephemeral") is True:
            return
        thread = self.thread(event, data)
        if when:  # the earliest: an event out of order does not move it (nor the last message)
            thread.first = min(thread.first or when, when)
        handler = _HANDLERS.get(kind)
        if handler:
            handler(self, thread, event, data, when)
        elif kind not in DROPPED and not kind.startswith(DROPPED_PREFIXES):
            first, seen = self.unknown.get(kind, (line, 0))
            self.unknown[kind] = (first, seen + 1)

    # -- session bookkeeping -------------------------------------------------------------

    def on_start(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        start = data.get("startTime")
        self.started = self.started or parse_timestamp(start) or self.times.unread(start) or when
        self.on_resume(thread, event, data, when)

    def on_resume(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        context = data.get("context")
        if isinstance(context, dict) and not self.context:
            self.context = context
        self.model = text_of(data.get("selectedModel")) or self.model

    def on_title(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        self.title = text_of(data.get("title")) or self.title

    def on_model(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        new = text_of(data.get("newModel"))
        if not new:
            return
        if thread.seen:  # the model picked at start-up is no news
            effort = text_of(data.get("reasoningEffort"))
            text = values.MODEL_CHANGED + new + (f" (reasoning effort {effort})" if effort else "")
            thread.add("system", [NoticePart("notification", text)], event.get("id"), when)
        self.model = new
        thread.model(new)

    def on_info(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        found = _TRUSTED.match(str(data.get("message") or ""))
        if data.get("infoType") == "folder_trust" and found:
            self.trusted = self.trusted or found.group(1)

    def on_shutdown(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        """The process's token totals (``usage.shutdown_totals``) and premium requests."""
        models, session_wide = shutdown_totals(data)
        counts: dict[str | None, Usage] = {}
        for model, usage in models:
            self.main.model(model)
            if usage is not None:
                add_usage(counts, model, usage)
        if session_wide is not None:
            add_usage(counts, None, session_wide)
        if counts:
            self.tokens.shutdown(counts)
            self.metrics = True
        self.premium.shutdown(data)

    def on_checkpoint(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        self.premium.checkpoint(data)

    # -- conversation --------------------------------------------------------------------

    def _current_model(self, thread: Thread) -> str | None:
        """The model selected for the main agent; a sub-agent's is its own (named when it
        completes), never the main one."""
        return thread.model(self.model) if thread is self.main else None

    def _turn_over(self, thread: Thread) -> None:
        """A new prompt or reply: the calls of the thread's last reply whose start never
        came ran with no arguments, or not at all."""
        for waiting in [c for c, t in self.unargued.items() if t is thread]:
            del self.unargued[waiting]

    def on_user(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        self._turn_over(thread)
        if text_of(data.get("source")) not in (None, "user") or data.get("isAutopilotContinuation"):
            return  # injected by a skill, autopilot's continuation loop or the harness
        text = self.text(data, "content", "the prompt's content")
        parts: list[Part] = [TextPart(text)] if text and text.strip() else []
        parts += attachment_parts(data.get("attachments"))  # files, selections, images
        if not parts and data and data.get("content") is None:
            self.said("a prompt with no content: left out")
        if parts:
            thread.add("user", parts, event.get("id"), when)
            thread.reasoning.clear()

    def on_reasoning(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        text = self.text(data, "content", "the reasoning's content")
        if text and text.strip() and text not in thread.reasoning:
            thread.reasoning.add(text)
            model = self._current_model(thread)
            thread.add("assistant", [ThinkingPart(text)], event.get("id"), when, model)

    def on_assistant(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        self._turn_over(thread)
        model = thread.model(data.get("model")) or self._current_model(thread)
        thread.output_tokens += positive(data.get("outputTokens"))
        parts: list[Part] = []
        reasoning = self.text(data, "reasoningText", "the reply's reasoningText")
        if reasoning and reasoning.strip() and reasoning not in thread.reasoning:
            thread.reasoning.add(reasoning)
            parts.append(ThinkingPart(reasoning))
        text = self.text(data, "content", "the reply's content")
        if text and text.strip():
            parts.append(TextPart(text))
        requests = data.get("toolRequests")
        if requests is not None and not isinstance(requests, list):
            self.said(f"the reply's toolRequests are {json_kind(requests)}, not a list: left out")
        for number, request in enumerate(requests if isinstance(requests, list) else [], 1):
            if not isinstance(request, dict):
                why = f"tool request {number} is {json_kind(request)}, not an object: left out"
                self.said(why)
                continue
            call_id = self.call_id(request, f"tool request {number}")
            if call_id:
                if call_id in self.calls:
                    continue  # announced by an earlier execution_start
                description = text_of(request.get("intentionSummary")) or text_of(
                    request.get("toolTitle")
                )
                call = ToolCallPart(
                    self._tool_name(request.get("name")),
                    arguments_of(json_or_text(request.get("arguments"))),
                    call_id,
                    description,
                )
                self._remember(call)
                parts.append(call)
                if call.input is None:
                    self.unargued[call_id] = thread
        opaque = data.get("reasoningOpaque") or data.get("encryptedContent")
        if data and data.get("content") is None and not (parts or requests or opaque):
            self.said("a reply with no content: left out")
        thread.add("assistant", parts, event.get("id"), when, model)

    def on_user_tool(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        """``tool.user_requested``: the person ran a tool themselves (a ``!`` shell command):
        their turn, as a command, and its output theirs too (not the model's tool call)."""
        call_id = data.get("toolCallId")
        if not isinstance(call_id, str) or call_id in self.calls:
            return
        self.user_calls.add(call_id)
        name = text_of(data.get("toolName")) or "tool"
        arguments = json_or_text(data.get("arguments"))
        command = arguments.get("command") if isinstance(arguments, dict) else None
        if isinstance(command, str) and command.strip():
            part = CommandPart(command, shell=True)
        else:
            shown = f" {json_text(arguments)}" if arguments else ""
            part = CommandPart(f"{name}{shown}")
        thread.add("user", [part], event.get("id"), when)

    def on_tool_start(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        call_id = self.call_id(data, "a tool call")
        if call_id in self.unargued:
            arguments = arguments_of(data.get("arguments"))
            self._argued(call_id, self.unargued.pop(call_id), arguments)
        if not call_id or call_id in self.calls or call_id in self.user_calls:
            return
        name = self._tool_name(data.get("toolName"))
        call = ToolCallPart(name, arguments_of(data.get("arguments")), call_id)
        self._remember(call)
        thread.add("assistant", [call], event.get("id"), when, self._current_model(thread))

    def _argued(self, call_id: str, thread: Thread, arguments: Any) -> None:
        """A call whose request gave no arguments (``null``, or none at all: the schema
        allows both) gets those its ``tool.execution_start`` gives, the ones it ran with;
        its reply, still held (``waiting``), shows them."""
        if arguments is not None:  # (else a tool called with none: nothing to show)
            known = self.calls[call_id]
            self._remember(ToolCallPart(known.name, arguments, call_id, known.description))
            thread.given(call_id, arguments)

    def waiting(self, thread: Thread) -> bool:
        """A call of the thread's last reply waits for its arguments: a reader streaming
        the thread holds its messages until then."""
        return any(t is thread for t in self.unargued.values())

    def on_tool_done(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        call_id = self.call_id(data, "a tool result")
        if not call_id:
            return
        self.unargued.pop(call_id, None)  # (a result with no start before it: none will come)
        result = data.get("result") if isinstance(data.get("result"), dict) else {}
        error = data.get("error") if isinstance(data.get("error"), dict) else {}
        output = result_text(result) or text_of(error.get("message")) or ""
        # An older result's ``result_type`` says when a call did not run: "rejected"
        # (before it ran; the SDK does not say by whom) or "denied" (by a permission
        # policy). Both read "not permitted", naming no one; such a call did not fail.
        kind = result.get("result_type")
        not_run: NotRun | None = "denied" if kind in ("rejected", "denied") else None
        failed = not not_run and (
            data.get("success") is False or bool(error) or kind in ("failure", "error")
        )
        telemetry = data.get("toolTelemetry")
        metrics = telemetry.get("metrics") if isinstance(telemetry, dict) else None
        millis = metrics.get("durationMs") if isinstance(metrics, dict) else None
        duration = seconds(millis)
        exit_code, media = result_extras(result.get("contents"), data.get("shellExecution"))
        if call_id in self.user_calls:
            thread.add("user", [CommandOutputPart(output, failed), *media], event.get("id"), when)
            return
        part = ToolResultPart(output, call_id, failed, exit_code, duration, not_run)
        thread.add("tool", [part, *media], event.get("id"), when)

    def on_subagent(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        call_id = self.call_id(data, "a sub-agent event")
        if not call_id:
            return
        agent = event.get("agentId")
        if isinstance(agent, str):
            self.agent_calls[agent] = call_id
        child = self._agent(call_id)
        # The display name wins, whichever event carries it; the bare name stands in.
        child.label = (
            text_of(data.get("agentDisplayName")) or child.label or text_of(data.get("agentName"))
        )
        child.model(data.get("model"))
        if event["type"] == "subagent.failed":
            text = text_of(data.get("error")) or "the sub-agent failed"
            child.add("system", [NoticePart("error", text, app=True)], event.get("id"), when)

    def on_compaction(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        summary, tokens = data.get("summaryContent"), data.get("preCompactionTokens")
        tokens = tokens if type(tokens) is int and tokens > 0 else None  # (the context's size)
        if isinstance(summary, str) and summary.strip():
            thread.add("system", [SummaryPart(summary, tokens=tokens)], event.get("id"), when)

    def on_truncation(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        text = truncation_text(data)
        thread.add("system", [NoticePart("notification", text)], event.get("id"), when)

    def on_abort(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        text = text_of(data.get("reason")) or ""
        if _CLI_ABORT.search(text) and "user" not in text.lower():  # not the person's doing
            notice = NoticePart("notification", f"Turn aborted: {text}")
            thread.add("system", [notice], event.get("id"), when)
            return
        thread.add("system", [NoticePart("interrupted", text)], event.get("id"), when)

    def on_rewind(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        """``session.snapshot_rewind`` ``{upToEventId, eventsRemoved}``: the person went back
        to an earlier point; the events it removed stay above (the log keeps them), and the
        conversation goes on from here."""
        thread.add("system", [NoticePart("rewound")], event.get("id"), when)

    def on_error(self, thread: Thread, event: dict, data: dict, when: datetime | None) -> None:
        text = error_text(data)
        notice = "error" if event["type"] == "session.error" else "notification"
        thread.add("system", [NoticePart(notice, text)], event.get("id"), when)  # type: ignore[arg-type]

    # -- results -------------------------------------------------------------------------

    def report_unknown(self) -> None:
        for kind, (first, count) in self.unknown.items():
            why = f"unknown event type {kind!r}{how_many(count, 'event')} skipped"
            self.problems.append(Problem(str(self.path), why, first, source=SOURCE))


_HANDLERS = {
    "session.start": EventLog.on_start,
    "session.resume": EventLog.on_resume,
    "session.title_changed": EventLog.on_title,
    "session.model_change": EventLog.on_model,
    "session.info": EventLog.on_info,
    "session.shutdown": EventLog.on_shutdown,
    "session.usage_checkpoint": EventLog.on_checkpoint,
    "session.compaction_complete": EventLog.on_compaction,
    "session.truncation": EventLog.on_truncation,
    "session.error": EventLog.on_error,
    "session.warning": EventLog.on_error,
    "abort": EventLog.on_abort,
    "session.snapshot_rewind": EventLog.on_rewind,
    "user.message": EventLog.on_user,
    "assistant.message": EventLog.on_assistant,
    "assistant.reasoning": EventLog.on_reasoning,
    "tool.user_requested": EventLog.on_user_tool,
    "tool.execution_start": EventLog.on_tool_start,
    "tool.execution_complete": EventLog.on_tool_done,
    "subagent.started": EventLog.on_subagent,
    "subagent.completed": EventLog.on_subagent,
    "subagent.failed": EventLog.on_subagent,
}
