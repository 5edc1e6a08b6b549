"""Redacting what a session is made of: its text fields, each message and each part of it
(text, tool inputs and outputs, an attached file's bytes, an image's metadata), and the
facts an index gave its unit. The strings themselves go through ``Redactor.text`` and
``value``; the passes over sessions and families are ``redact_sessions``."""

from __future__ import annotations

from collections import Counter
from dataclasses import fields, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .model import AttachmentPart, Message, MessageStream, Session, TextPart, decode_text
from .session_secrets import without_carried

if TYPE_CHECKING:
    from .adapters import SessionRef
    from .redact_spread import Spread


class PartRedaction:
    """A session's fields, messages and parts; each string redacted by ``Redactor``."""

    # (``text``, ``value`` and ``_recurring`` are Redactor's and ValueRedaction's: first in
    # its bases, this class's ``_session`` is the one ``FamilyRedaction`` calls)
    _spread: Spread | None
    text: Any
    value: Any
    _recurring: Any

    def facts(self, ref: SessionRef) -> SessionRef:
        """``ref`` with the facts an index gave it (a title, a folder, a model) redacted: a
        unit's facts are recorded in the state with its fingerprint. The facts that say
        where its data is read stay as they are."""
        if not ref.extra:
            return ref
        extra = tuple(self._fact(fact) for fact in ref.extra)
        return ref if extra == ref.extra else replace(ref, extra=extra)

    def _fact(self, fact: str) -> str:
        name, sep, value = fact.partition("=")
        if not sep:
            return self.text(fact)
        if name in _PATH_FACTS:
            return fact
        new = self.text(value)
        return fact if new is value else f"{name}={new}"

    def _session(self, session: Session, counts: Counter[str] | None) -> Session:
        changes: dict[str, Any] = {}
        for name in _SESSION_TEXT:
            old = getattr(session, name)
            if old:
                new = self.text(old, counts)
                if new != old:
                    changes[name] = new
        if isinstance(session.messages, MessageStream):
            # Redacted as they are read; counted on the pass that renders them (``counted``).
            source = session.source
            changes["messages"] = session.messages.mapped(
                lambda message, tally: self.message(message, tally, source)
            )
        else:
            messages = tuple(self.message(m, counts, session.source) for m in session.messages)
            if any(a is not b for a, b in zip(messages, session.messages, strict=True)):
                changes["messages"] = messages
        if session.models:
            models = tuple(self._recurring(m, counts) for m in session.models)
            if models != session.models:
                changes["models"] = models
        if session.extra:  # (the secrets it may carry are no text of it: ``session_secrets``)
            extra = self.value(without_carried(session.extra), counts)
            if extra != without_carried(session.extra):
                changes["extra"] = {**session.extra, **extra}
        return replace(session, **changes) if changes else session

    def message(self, message: Message, counts: Counter[str] | None, source: str) -> Message:
        """A message of ``source`` (whose harness's wrappers its prompts are cleaned of)."""
        parts = tuple(self._part(p, counts) for p in message.parts)
        user = message.role == "user" and self._spread is None
        if user and any(type(p) is TextPart and "</" in p.text for p in parts):
            parts = self._prompt_parts(parts, counts, source)
        model = message.model and self._recurring(message.model, counts)
        if model is message.model and all(
            a is b for a, b in zip(parts, message.parts, strict=True)
        ):
            return message
        return replace(message, parts=parts, model=model)

    def _prompt_parts(self, parts: tuple, counts: Counter[str] | None, source: str) -> tuple:
        """A prompt's parts, where taking out what its harness injected (as the note does,
        ``clean.clean_user_text``) joins the two halves of a secret around it
        (``ghp_…<system-reminder>…</system-reminder>…``): that prompt cleaned here, and
        redacted as the note will show it. Any other prompt stays as it was."""
        from .clean import clean_user_text, joins_text

        out: list[Any] = []
        for part in parts:
            joined = type(part) is TextPart and "</" in part.text and joins_text(part.text, source)
            if not joined:
                out.append(part)
                continue
            cleaned = clean_user_text(part.text, source)
            texts = [p.text for p in cleaned if type(p) is TextPart]
            if all(self.text(t) is t for t in texts):
                out.append(part)
                continue
            out += (self._part(p, counts) for p in cleaned)
        return tuple(out)

    def _part(self, part: Any, counts: Counter[str] | None) -> Any:
        changes: dict[str, Any] = {}
        for name in _part_fields(type(part)):
            old = getattr(part, name)
            if not old:
                continue
            new = self.text(old, counts) if isinstance(old, str) else self.value(old, counts)
            if new is not old and new != old:
                changes[name] = new
        if type(part) is AttachmentPart and part.data and part.is_text:
            data = self._text_bytes(part.data, counts)
            if data is not part.data:
                changes["data"] = data
        elif type(part) is AttachmentPart and part.data:
            data = part.data
            if part.is_media:
                # An image without the metadata that holds a secret (the same pixels)
                from .redact_media import without_secrets  # (imported by a run that meets one)

                data = without_secrets(data, lambda text: self.text(text, counts) is not text)
            if self._binary_secret(data, counts):
                # Bytes that are not text cannot be redacted without breaking the file: it is
                # not copied, and the note says why (the session's own copy is untouched).
                changes["data"], changes["withheld"] = None, WITHHELD
            elif data is not part.data:
                changes["data"] = data
        return replace(part, **changes) if changes else part

    def _binary_secret(self, data: bytes, counts: Counter[str] | None) -> bool:
        """Does a file that is not text (an image, audio, a PDF, an archive, a binary) hold
        a secret: in its bytes, its UTF-16 runs or the text it compresses
        (``redact_binary``)?"""
        from .redact_binary import texts

        return any(self.text(text, counts) is not text for text in texts(data))

    def _text_bytes(self, data: bytes, counts: Counter[str] | None) -> bytes:
        """A text file's bytes with every secret replaced, written back in the codec it was
        read with (``decode_text``), so the file is as it was but for the secrets."""
        text, codec, bom = decode_text(data)
        redacted = self.text(text, counts)
        return data if redacted is text else bom + redacted.encode(codec, "surrogatepass")


WITHHELD = "it is not text and holds a secret"  # why an attachment is not copied
# Session fields that hold text from the session (ids, paths of sources and times do not).
_SESSION_TEXT = (
    "title", "project", "cwd", "git_branch", "git_commit", "git_remote", "agent_label", "command",
)  # fmt: skip
# Facts of a unit (``SessionRef.extra``) that name the files or rows its data is read from.
PATH_FACTS = _PATH_FACTS = frozenset({"file", "db", "user_dir", "part"})
# Part fields that are not text a person or tool wrote.
_NOT_TEXT = {"kind", "call_id", "subagent_id", "media_type", "data", "notice", "is_error",
             "exit_code", "duration", "redacted", "shell", "withheld", "origin",
             "asks", "shortened"}  # fmt: skip


@lru_cache(maxsize=32)
def _part_fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.name not in _NOT_TEXT)
