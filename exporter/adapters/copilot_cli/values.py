"""Values read from Copilot CLI events: a request's arguments, a result's text, a time in
milliseconds, and the words of a truncation or error notice. Kept apart from events.py,
which turns events into messages."""

from __future__ import annotations

from typing import Any

from ...model import Message, NoticePart, SummaryPart
from .usage import positive

TRUNCATED = "Context truncated"
MODEL_CHANGED = "Model changed to "


def seconds(millis: Any) -> float | None:
    """Milliseconds as seconds; none for what is no length of time (not a positive number,
    or one too large for a float: a damaged line's)."""
    if not isinstance(millis, int | float) or not millis > 0:
        return None
    try:
        return millis / 1000
    except OverflowError:
        return None


def arguments_of(value: Any) -> Any:
    """A call's arguments as given: none for ``null``, no key or blank text (a tool called
    with none, which a note shows no input for; an empty string would be an empty block)."""
    return None if isinstance(value, str) and not value.strip() else value


def result_text(result: dict[str, Any]) -> str | None:
    """The fullest text of a result: ``detailedContent`` (diffs), else ``content``, else the
    1.0.45-era ``text_result_for_llm``, else the text items of ``contents``."""
    for key in ("detailedContent", "content", "text_result_for_llm"):
        if text_of(result.get(key)):
            return result[key]
    items = result.get("contents")
    texts = (
        [i["text"] for i in items if isinstance(i, dict) and isinstance(i.get("text"), str)]
        if isinstance(items, list)
        else []
    )
    return "\n".join(texts) or None


def text_of(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def truncation_text(data: dict[str, Any]) -> str:
    """``session.truncation``'s notice, saying what it removed (newer builds count messages
    and tokens; an early one only ``droppedTokens``)."""
    messages = positive(data.get("messagesRemovedDuringTruncation"))
    tokens = positive(data.get("tokensRemovedDuringTruncation")) or positive(
        data.get("droppedTokens")
    )
    removed = [
        *([f"{messages:,} message{'s' if messages != 1 else ''}"] if messages else []),
        *([f"{tokens:,} token{'s' if tokens != 1 else ''}"] if tokens else []),
    ]
    return TRUNCATED + (f": {' and '.join(removed)} removed" if removed else "")


def aside(message: Message) -> bool:
    """A notice that says nothing of a call still running (the context cut or summed up,
    the model switched): the call stays without a result (``last_reply_marked``)."""
    return (
        message.role == "system"
        and bool(message.parts)
        and all(_aside_part(part) for part in message.parts)
    )


def _aside_part(part: object) -> bool:
    if isinstance(part, SummaryPart):
        return True
    return (
        isinstance(part, NoticePart)
        and part.notice == "notification"
        and part.text.startswith((TRUNCATED, MODEL_CHANGED))
    )


def error_text(data: dict[str, Any]) -> str:
    """An error's or warning's message, with its ``statusCode`` where the message does not
    say it."""
    text = text_of(data.get("message")) or ""
    status = data.get("statusCode")
    if isinstance(status, int) and not isinstance(status, bool) and str(status) not in text:
        text = f"{text} (status {status})" if text else f"status {status}"
    return text
