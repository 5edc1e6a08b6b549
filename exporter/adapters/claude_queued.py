"""Prompts typed while Claude Code's model worked (FORMATS.md §1): a ``queue-operation``
enqueue the model consumed mid-turn, or a ``queued_command`` attachment, kept once and marked
as queued; a background task's notification or another agent's message delivered the same
way is not the person's. Part of the transcript builder (claude_transcript.py), kept apart
to be read on its own: its state is the builder's."""

from __future__ import annotations

from typing import Any

from ..model import AttachmentPart, NoticePart
from .claude_content import plain_text, user_parts
from .claude_drafts import Draft


class QueuedPrompts:
    """The builder's handling of queued prompts (a mixin of ``TranscriptBuilder``)."""

    queued: list[tuple[str, Any]]  # typed ahead: its text, when it was typed
    steering_seen: dict[str, Draft]  # steering text kept, with the draft that holds it
    not_typed: set[str]  # queued text the person did not type
    drafts: list[Draft]

    _add: Any  # the builder's: a message of ``role`` made of ``parts``, dated by ``rec``

    def _queue(self, rec: dict[str, Any]) -> None:
        op, content = rec.get("operation"), rec.get("content")
        if op == "enqueue" and isinstance(content, str):
            self.queued.append((content, rec.get("timestamp")))
        elif op == "remove":
            # Consumed mid-turn: the model saw it, no user line will carry it. It stands
            # where the model saw it, at the time the person typed it.
            text = content if isinstance(content, str) else None
            if self.queued:
                queued, typed = self.queued.pop(0)
                text = text or queued
                rec = {**rec, "timestamp": typed or rec.get("timestamp")}
            self._steering(text, rec)
        elif op == "dequeue" and self.queued:
            self.queued.pop(0)  # it arrives as an ordinary user line
        elif op == "popAll":
            self.queued.clear()  # returned to the input box for editing

    def _queued_command(self, attachment: dict[str, Any], rec: dict[str, Any]) -> None:
        """A ``queued_command`` attachment: what the model was given mid-turn. The person's
        steering message, unless it is a background task's notification (delivered like
        its user line, which the note shows as a notification) or another agent's message
        (``origin.kind`` peer, or meta: left out, like its meta user line)."""
        prompt = attachment.get("prompt")
        origin = attachment.get("origin")
        kind = origin.get("kind") if isinstance(origin, dict) else None
        notification = "task-notification" in (attachment.get("commandMode"), kind)
        if not notification and kind != "peer" and attachment.get("isMeta") is not True:
            self._steering(prompt, rec)
            return
        text = plain_text(prompt)
        self.not_typed.add(text)
        seen = self.steering_seen.pop(text, None)  # its queue copy, taken for steering
        held = seen is not None and any(d is seen for d in self.drafts)
        if held:  # (one already handed on stays: it is its only copy)
            self.drafts = [d for d in self.drafts if d is not seen]  # drafts compare by value
        parts = user_parts(prompt) if isinstance(prompt, str | list) else []
        if notification and parts and (seen is None or held):
            self._add("user", parts, rec)

    def _steering(self, prompt: Any, rec: dict[str, Any]) -> None:
        """A prompt typed while the model worked: text, or (a ``queued_command``
        attachment's) content blocks, a pasted image among them."""
        parts = user_parts(prompt) if isinstance(prompt, str | list) else []
        if not parts:
            return
        text = plain_text(prompt)
        if text in self.not_typed:
            return  # the queue's copy of a notification or another agent's message
        images = [p for p in parts if isinstance(p, AttachmentPart)]
        seen = self.steering_seen.get(text)
        if seen is not None:
            have = {p.data for p in seen.parts if isinstance(p, AttachmentPart)}
            # (an image whose data could not be read adds nothing worth a second message)
            images = [p for p in images if p.data is not None and p.data not in have]
            if not images:
                return
            if any(d is seen for d in self.drafts):
                seen.parts.extend(images)  # its other copy held the text alone
                return
            parts = images  # (its message is made already: the images follow it)
        self.steering_seen[text] = self._add("user", [NoticePart("queued"), *parts], rec)
