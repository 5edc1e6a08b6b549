"""Which lines of a Claude Code transcript are which (FORMATS.md §1.6, §1.7): a line no
person wrote, a uuid as a key that does not hold a damaged line's megabytes, and the
digests that tell a compaction's replay of a line from a new line, and a line written again
(same uuid, same content) from another line given the same uuid.

Kept apart from claude_transcript.py, which builds the messages.
"""

from __future__ import annotations

import hashlib
import re
import sys
from typing import Any

import orjson

from .claude_content import plain_text


def harness_line(rec: dict[str, Any]) -> bool:
    """A user line no person wrote: ``isMeta``, or a skill's launch marker. When the model
    calls ``Skill``, Claude Code writes ``<command-message>…</command-message>`` and
    ``<command-name>X</command-name>`` as a user line tied to that call by
    ``sourceToolUseID`` (the skill's body follows as an ``isMeta`` line): no one typed it."""
    if rec.get("isMeta"):
        return True
    if rec.get("type") != "user" or not isinstance(rec.get("sourceToolUseID"), str):
        return False
    message = rec.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    text = plain_text(content) if isinstance(content, str | list) else ""
    return "<command-name>" in text and not _COMMAND_TAGS.sub("", text).strip()


_COMMAND_TAGS = re.compile(r"<(command-message|command-name|command-args)>.*?</\1>", re.DOTALL)


def uuid_key(uuid: str) -> str | bytes:
    """A uuid as a key that equals another only for the same uuid: the string itself, as
    a real uuid is short, or a digest of a long one (a damaged line's) so as not to hold it."""
    if len(uuid) <= _LONGEST_KEPT_UUID:
        return uuid
    return hashlib.blake2b(uuid.encode("utf-8", "surrogatepass"), digest_size=16).digest()


_LONGEST_KEPT_UUID = 64


def replay_keys(
    parent: Any, timestamp: Any, kind: str, message: Any
) -> tuple[int | bytes, bytes | None]:
    """A prompt's or reply's signature, a hash of what a compaction replay shares with its
    original (parent, time, type), and a digest of what it says (its type and its message's
    ``content``; a message that is no object, whole): equal exactly when both are equal
    JSON. The second also tells a line that reuses an earlier line's uuid from that line
    written again (see ``TranscriptBuilder.add``). None for a line without a message: it
    matches any other (and an unseen signature, which reads as None too)."""
    # The signature only says which earlier line's digest to compare with: Python's 64-bit
    # hash of the triple, a tenth of a SHA-256's cost (a call to hashlib costs more than the
    # few bytes hashed). Two triples share one once in 2**64, and even then a line is taken
    # for the other's replay only if it says exactly the same. (The signature lives in one
    # process: the hash's per-process seed changes nothing.)
    if _NARROW_HASH:  # a 32-bit Python, whose hash would collide in some 10**5 lines
        signature: int | bytes = _digest("sig", [repr(parent), repr(timestamp), kind])
    elif type(parent) is str and type(timestamp) is str:  # the usual case
        signature = hash((parent, timestamp, kind))
    else:  # a line without parent, or a damaged one (a list where a string belongs)
        signature = hash(("r", repr(parent), repr(timestamp), kind))  # (4 items: apart)
    if message is None:
        return signature, None
    return signature, _digest(kind, _content(message))


def _content(message: Any) -> Any:
    return message.get("content") if isinstance(message, dict) else message


_NARROW_HASH = sys.hash_info.width < 64


def shown_key(rec: dict[str, Any], kind: str) -> bytes | None:
    """For a conversational line that is no prompt or reply, what ``replay_keys`` gives a
    prompt's message: a digest of what a note shows of it (a ``queued_command``
    attachment, a ``compact_boundary`` or ``local_command`` system line), equal exactly
    for equal JSON; None for a line a note shows nothing of (most: progress, hook and
    reminder attachments, other system lines), asked about nothing more."""
    if kind == "attachment":
        shown = rec.get("attachment")
        if not isinstance(shown, dict) or shown.get("type") != "queued_command":
            return None
    elif kind == "system" and (subtype := rec.get("subtype")) in _SHOWN_SYSTEM:
        shown = [subtype, rec.get("content"), *compaction(rec.get("compactMetadata"))]
    else:
        return None
    return _digest(kind, shown)


_SHOWN_SYSTEM = ("compact_boundary", "local_command")


def compaction(meta: Any) -> tuple[str | None, int | None]:
    """What a compaction's ``compactMetadata`` says: how it was started (``trigger``: auto,
    manual) and how many tokens the context held then (``preTokens``), each None if not."""
    if not isinstance(meta, dict):
        return None, None
    trigger = meta.get("trigger") if isinstance(meta.get("trigger"), str) else None
    tokens = meta.get("preTokens")
    # (a bool is no count; 0 says nothing)
    return trigger, tokens if type(tokens) is int and tokens > 0 else None


def _digest(kind: str, value: Any) -> bytes:
    # SHA-256 (cut to 16 bytes): most processors hash it in hardware, over twice the pace
    # of BLAKE2b, and a line's message is most of the bytes read. One call: the type, a
    # NUL (no type holds one: the type's name ends there), then the JSON.
    # (A long value, a tool's output of megabytes, is hashed where it is: joined to the
    # type it would be copied, twice the longest line in memory.)
    said = _json_bytes(value)
    head = b"%b\0" % kind.encode("utf-8", "surrogatepass")
    if len(said) > _JOINED_UP_TO:
        hasher = hashlib.sha256(head)
        hasher.update(said)
        return hasher.digest()[:16]
    return hashlib.sha256(head + said).digest()[:16]


_JOINED_UP_TO = 64 * 1024


def _json_bytes(value: Any) -> bytes:
    """A JSON value as bytes, equal for equal values (keys sorted, as dicts compare)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # a number past 64 bits (lenient parse)
        return repr(value).encode("utf-8", "replace")
