"""A Codex rollout's ``event_msg`` records (FORMATS.md §2.6): the UI's copy of a prompt,
replies and reasoning, token counts, a turn's end, a review, an undo, an error. Read by
``EventReader._event``, one of ``RolloutBuilder``'s parts (codex_rollout.py), whose
state it shares: the prompt copies waiting for their twin, the streams already seen."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ..errors import clipped
from ..model import (
    AttachmentPart,
    CommandPart,
    NoticePart,
    Part,
    SummaryPart,
    TextPart,
    ThinkingPart,
    Usage,
)
from ._jsonl import token_count
from ._values import json_kind
from .codex_images import decoded_image, local_image_paths
from .codex_items import review_request, review_text
from .codex_odd import text_odd

# event_msg/user_message kinds that carry injected context, not a prompt
_INJECTED_KINDS = {"user_instructions", "environment_context"}


def with_images(parts: list[Part], found: list[AttachmentPart]) -> list[Part]:
    """A prompt's parts and the images of its other copy that it lacks (same bytes)."""
    have = {p.data for p in parts if isinstance(p, AttachmentPart)}
    return parts + [image for image in found if image.data not in have]


class EventReader:
    """The ``event_msg`` half of ``RolloutBuilder``: uses its ``out``, ``model_prompt``,
    ``held``, ``held_paths``, ``ui_made``, ``has_compacted``, ``rewound``, ``_add``, ``_once`` and
    ``_count``."""

    def _event(self, number: int, p: dict[str, Any], when: datetime | None) -> None:
        etype = p.get("type")
        if not isinstance(etype, str):
            self.out.skipped.append((number, f"its event type is {json_kind(etype)}, not text"))
        elif etype == "user_message":
            if isinstance(p.get("kind"), str) and p["kind"] in _INJECTED_KINDS:
                return
            message = p.get("message")
            parts: list[Part] = (
                [TextPart(message)] if isinstance(message, str) and message.strip() else []
            )
            for url in p.get("images") or []:
                image = decoded_image(url)
                if image:
                    parts.append(image)
            model, self.model_prompt = self.model_prompt, None
            said = text_of(parts)
            if model is not None and text_of(model[0]) != said:
                self._add("user", *model)  # a prompt of its own, with no UI copy
                model = None
            if model is not None:  # its model copy came just before: it may hold images
                found = [i for i in model[0] if isinstance(i, AttachmentPart)]
                self._add("user", with_images(parts, found), number, when)
            elif p.get("local_images"):
                # its images may follow in the model's copy; if none does, the rollout holds
                # no bytes of them: each is named by its path (``_held_alone``)
                self.held = (parts, number, when)
                self.held_paths = local_image_paths(p)
            else:
                self._add("user", parts, number, when)
                self.ui_made = said  # its model copy, if it comes next, is dropped
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
                cached = token_count(total.get("cached_input_tokens"))
                usage = Usage(
                    max(0, token_count(total.get("input_tokens")) - cached),
                    token_count(total.get("output_tokens")),
                    cached,
                    0,
                )
                # (an all-zero report counts nothing: it never undoes the totals before it)
                if usage != Usage() or self.out.usage == Usage():
                    self._count(usage)
        elif etype == "turn_aborted":
            # The person stopped the turn, or sent a request that replaced it: their
            # interruption. A review thread's end is none (Codex shows none); any other
            # reason (its budget ran out) is the harness's.
            reason = p.get("reason")
            if reason is not None and not isinstance(reason, str):
                why = f"the turn's end reason is {json_kind(reason)}, not text: left out"
                self.out.odd.append((number, why))
                reason = None
            if reason in (None, "interrupted", "replaced"):
                text = "" if reason in (None, "interrupted") else str(reason)
                self._add("user", [NoticePart("interrupted", text)], number, when)
            elif reason != "review_ended":
                notice = NoticePart("notification", f"Turn ended: {clipped(str(reason), 200)}")
                self._add("system", [notice], number, when)
        elif etype == "context_compacted" and not self.has_compacted:
            self._add("system", [SummaryPart("")], number, when)
        elif etype == "entered_review_mode":
            # The person started a review (``/review``, or the app's button): what it was to
            # look at is their request, as the review that follows is the answer.
            asked = review_request(p)
            request: list[Part] = [CommandPart("/review", asks=True)]
            self._add("user", request + ([TextPart(asked)] if asked else []), number, when)
        elif etype == "exited_review_mode":
            odd: list[str] = []
            review = review_text(p.get("review_output"), odd)
            self.out.odd += [(number, why) for why in odd]
            if review:
                self._add("assistant", [TextPart(review)], number, when)
        elif etype == "thread_rolled_back":
            self.rewound = True
        elif etype == "undo_completed":
            message = p.get("message")
            self.out.odd += [(number, why) for why in text_odd(message, "the undo's message")]
            message = message if isinstance(message, str) else ""
            # The person undid the turn's file changes: their decision, said as Codex did
            # ("Restored 3 files."); a failed undo changed nothing, and is Codex's notice.
            done = p.get("success") is not False
            head = "The user undid the turn's changes" if done else "Undo failed"
            text = f"{head}: {message}" if message.strip() else head
            kind = "decision" if done else "notification"
            self._add("system", [NoticePart(kind, text)], number, when)
        elif etype == "error":
            if isinstance(p.get("message"), str):
                self._add("assistant", [NoticePart("error", p["message"])], number, when)
            else:
                why = f"the error's message is {json_kind(p.get('message'))}, not text"
                self.out.skipped.append((number, why))


_IMAGE_TAG = re.compile(r"</?image\b[^>]*>")


def text_of(parts: list[Part]) -> str:
    """The words of one copy of a prompt, to tell whether two copies are one prompt (the
    model's wraps each image in ``<image name=[Image #1]>`` tags; spacing may differ)."""
    text = "\n".join(p.text for p in parts if isinstance(p, TextPart))
    return " ".join(_IMAGE_TAG.sub(" ", text).split())
