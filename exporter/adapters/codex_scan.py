"""What must be known of a whole Codex rollout before its records are read in order
(FORMATS.md §2.5–§2.9): whether prompts come from the UI's copies, which session_meta owns
the identity, and which records at the start replay a fork's origin (dropped); and the
signatures by which a fork's replay is matched against its origin."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .codex_items import content_text, item_call_id, reasoning_texts

Record = tuple[int, str, dict[str, Any], Any]
OriginLookup = Callable[[str], "list[tuple[str, str]] | None"]


def signatures(records: list[Record]) -> list[tuple[str, str]]:
    """The conversational items of a rollout, in order, as comparable signatures."""
    return [sig for rec in records if (sig := _signature(rec[1], rec[2])) is not None]


def _signature(kind: str, p: dict[str, Any]) -> tuple[str, str] | None:
    ptype = p.get("type")
    if kind == "response_item":
        if ptype == "message":
            return ("message:" + str(p.get("role")), content_text(p.get("content")))
        if ptype in ("function_call", "function_call_output", "custom_tool_call",
                     "custom_tool_call_output", "local_shell_call"):  # fmt: skip
            return (str(ptype), str(p.get("call_id")))
        if ptype == "reasoning":
            return ("reasoning", "\n".join(reasoning_texts(p)))
        if ptype in ("tool_search_call", "tool_search_output", "image_generation_call"):
            return (str(ptype), str(item_call_id(p)))
        if ptype == "web_search_call":
            return (str(ptype), str(p.get("action")))  # a replay copies the record as it was
        if ptype == "agent_message":
            return ("item:agent_message", f"{p.get('author')}>{p.get('recipient')}:"
                    + content_text(p.get("content")))  # fmt: skip
    elif kind == "event_msg" and ptype in ("user_message", "agent_message", "agent_reasoning"):
        return (str(ptype), str(p.get("message") or p.get("text") or ""))
    return None


@dataclass(slots=True)
class Scan:
    """What must be known of a whole rollout before its records are read in order."""

    has_user_events: bool = False  # prompts come from the UI's copies, not the model's
    has_compacted: bool = False
    first_meta: dict[str, Any] | None = None  # the first session_meta owns identity
    meta_line: int | None = None  # and its line
    origin_id: str | None = None  # the thread a fork copied
    skip: int = 0  # records at the start that replay the origin (dropped)
    kinds: set[str] = field(default_factory=set)
    last_line: int = 0  # later readings stop here (lines written since wait for next run)


def scan_rollout(prefix: Iterable[Record], records: Iterable[Record], origin: OriginLookup) -> Scan:
    """Scan a rollout: ``prefix`` is read only as far as identity and a fork's origin go,
    ``records`` (the same records, from the start) through."""
    scan = Scan()
    first_at = origin_at = own = None
    for i, (number, kind, p, _) in enumerate(prefix):
        if first_at is None:
            if kind == "session_meta":
                first_at, scan.first_meta, own = i, p, p.get("id")
                scan.meta_line = number
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
