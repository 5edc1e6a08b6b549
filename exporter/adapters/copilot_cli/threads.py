"""A thread of a Copilot CLI session: the main agent's messages, or one sub-agent's, as
events.py reads them in order and sessions.py makes notes of them."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ...model import Message, Part, ToolCallPart


@dataclass(slots=True)
class Thread:
    """The messages of the main agent or of one sub-agent."""

    messages: list[Message] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    output_tokens: int = 0
    reasoning: set[str] = field(default_factory=set)  # shown since the last prompt
    first: datetime | None = None  # of its first event
    # Of its last message: not its last event (``session.shutdown`` is written when the
    # process exits, maybe hours after the last message; a resume, before any).
    last: datetime | None = None
    label: str | None = None
    seen: bool = False  # a message was added (a caller streaming it may have taken it)
    keep: bool = True  # False: messages are only noted as seen (a reading for another thread)

    def add(
        self,
        role: str,
        parts: list[Part],
        source_id: Any,
        when: datetime | None,
        model: str | None = None,
    ) -> None:
        if parts:
            self.seen = True
            if when:  # the latest message: the thread's end (an event out of order moves it not)
                self.last = max(self.last or when, when)
            if self.keep:
                sid = source_id if isinstance(source_id, str) else None
                self.messages.append(Message(role, tuple(parts), sid, when, model))  # type: ignore[arg-type]

    def model(self, name: Any) -> str | None:
        if isinstance(name, str) and name.strip():
            if name not in self.models:
                self.models.append(name)
            return name
        return None

    def given(self, call_id: str, arguments: Any) -> None:
        """The arguments of a call (``call_id``) added without them, in the message that
        holds it, if it is still held."""
        for n in range(len(self.messages) - 1, -1, -1):
            parts = self.messages[n].parts
            if any(isinstance(p, ToolCallPart) and p.call_id == call_id for p in parts):
                mended = tuple(
                    replace(p, input=arguments)
                    if isinstance(p, ToolCallPart) and p.call_id == call_id
                    else p
                    for p in parts
                )
                self.messages[n] = replace(self.messages[n], parts=mended)
                return
