"""Which kind of value a template's field belongs to: the session, a turn, an item. A
template that reads a field on a value of another kind (``session.items``, a turn's field on
the session; ``turn.session_id``) is told where the field is, where a misspelt field gets
"did you mean …": no field of the value missed on is near it, so the nearest name says
nothing (``sandbox.NearestUndefined`` asks ``other_kind`` when it finds none)."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

# A turn's fields (``turns.build_turns``) and every item's, of any kind (``turns._item``,
# docs/templates.md): a field named for one kind of item only is an item's all the same.
TURN_FIELDS = frozenset({"role", "when", "time", "queued", "task", "model", "items", "messages"})
ITEM_FIELDS = frozenset({
    "kind", "one_line", "text", "redacted", "name", "description", "summary", "summary_code",
    "summary_cut", "inputs", "output", "output_more", "output_path", "is_error", "not_run",
    "exit_code", "duration", "subagent", "prompt", "agent_type", "todos", "explanation",
    "attachments", "command", "shell", "sent", "trigger", "tokens", "path", "media_type",
    "origin", "lang", "lines", "cut", "shortened", "in_call", "notice", "app", "withheld",
})  # fmt: skip


@cache
def session_fields() -> frozenset[str]:
    """A session's fields a template reads (``model.Session``'s, and its properties)."""
    from .model import Session

    names = {f.name for f in dataclasses.fields(Session)}
    names |= {n for n, v in vars(Session).items() if isinstance(v, property)}
    return frozenset(n for n in names if not n.startswith("_"))


def kind_of(value: Any) -> str | None:
    """``"session"``, ``"turn"`` or ``"item"``: the kind of value a template was given, as
    the error names it; None for any other (a property's dict, text, a date)."""
    from .model import Session

    if isinstance(value, Session):
        return "session"
    if isinstance(value, dict) and "items" in value and "role" in value:
        return "turn"
    if isinstance(value, dict) and isinstance(value.get("kind"), str):
        return "item"
    return None


def other_kind(name: str, value: Any) -> str:
    """`` (items is a field of a turn, not of the session: turn.items)`` when ``name``, missed
    on ``value`` (the session, a turn, an item), is a field of another of those kinds; else
    ``""``. (Each is named as the shipped template names it.)"""
    this = kind_of(value)
    if this is None:
        return ""
    fields = {"session": session_fields(), "turn": TURN_FIELDS, "item": ITEM_FIELDS}
    holders = [kind for kind, names in fields.items() if kind != this and name in names]
    if not holders or name in fields[this]:
        return ""
    said = " or ".join(f"{_a(kind)}" for kind in holders)
    reads = ", ".join(f"{kind}.{name}" for kind in holders)
    return f" ({name} is a field of {said}, not of {_a(this)}: {reads})"


def _a(kind: str) -> str:
    return "the session" if kind == "session" else f"a {kind}" if kind != "item" else "an item"
