"""A Copilot CLI event log's threads into sessions: the main agent's, and one per sub-agent,
linked both ways with the call that delegated to it."""

from __future__ import annotations

import math
from typing import Any

from ...model import Message, Session, TextPart, Usage, linked_message, usage_per_model
from ..base import project_name
from . import SOURCE
from .events import EventLog
from .threads import Thread
from .values import text_of


def log_sessions(log: EventLog, facts: dict[str, str]) -> list[Session]:
    """The main session first, then the sub-agents that said something. ``facts``: the
    top-level strings of ``workspace.yaml`` (title ``name``, ``cwd``, ``branch``)."""
    context = log.context
    cwd = text_of(context.get("cwd")) or text_of(context.get("gitRoot")) or facts.get("cwd")
    cwd = cwd or log.trusted
    host, repo = text_of(context.get("repositoryHost")), text_of(context.get("repository"))
    if not host and text_of(context.get("hostType")) == "github":
        host = "github.com"  # (CLI 1.0.11 names no host; later ones write it for GitHub)
    common: dict[str, Any] = {
        "source": SOURCE,
        "source_path": log.path,
        "cwd": cwd,
        "project": project_name(cwd),
        "git_branch": text_of(context.get("branch")) or facts.get("branch"),
        "git_commit": text_of(context.get("headCommit")),
        "git_remote": f"{host}/{repo}" if host and repo else repo,
    }
    links = agent_links(log)
    children = []
    for call_id, thread in log.agents.items():
        if not thread.messages:
            continue
        call = log.calls.get(call_id)
        prompt = call.input.get("prompt") if call and isinstance(call.input, dict) else None
        if isinstance(prompt, str) and prompt.strip():
            thread.messages.insert(0, Message("user", (TextPart(prompt),), None, thread.first))
        children.append(
            _session(
                thread,
                f"{log.session_id}/agent-{call_id}",
                common,
                parent_id=log.session_id,
                agent_label=thread.label,
                title=call.description if call else None,
            )
        )
    log.main.messages = [linked_message(m, links) for m in log.main.messages]
    usage = log.tokens.total() if log.metrics else Usage(output_tokens=log.main.output_tokens)
    per_model = usage_per_model(log.tokens.per_model()) if log.metrics else ()
    main = _session(
        log.main,
        log.session_id,
        common,
        title=facts.get("name") or log.title,
        usage=usage,
        model_usage=per_model,
        subagent_ids=tuple(c.session_id for c in children),
        started_at=log.started,
        extra=_premium(log.premium.total()),
    )
    return [main, *children]


def _premium(count: float | None) -> dict[str, Any]:
    """The session's premium requests, a whole number where it is one (``3``, not ``3.0``);
    a model with a multiplier below one costs a fraction (``0.33``)."""
    if count is None or not math.isfinite(count):  # (never NaN: ``usage.premium_requests``)
        return {}
    return {"premium_requests": int(count) if float(count).is_integer() else round(count, 4)}


def agent_links(log: EventLog) -> dict[str, str]:
    """Delegating call id -> the session id of the sub-agent it started, for sub-agents that
    said something and whose call is known."""
    return {
        call_id: f"{log.session_id}/agent-{call_id}"
        for call_id, thread in log.agents.items()
        if thread.seen and call_id in log.calls
    }


def _session(thread: Thread, session_id: str, common: dict[str, Any], **more: Any) -> Session:
    usage = more.pop("usage", Usage(output_tokens=thread.output_tokens))
    started = more.pop("started_at", None) or thread.first
    return Session(
        session_id=session_id,
        messages=tuple(thread.messages),
        models=tuple(thread.models),
        started_at=started,
        ended_at=thread.last or started,
        usage=usage,
        **common,
        **more,
    )
