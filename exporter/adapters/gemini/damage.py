"""Values of a Gemini CLI record that are of the wrong type or of no known kind (a damaged
file): each is said, with where it is, by the reader that leaves it out (FORMATS.md §6.1)."""

from __future__ import annotations

import base64
import binascii
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._values import json_kind, listed_objects, quoted

if TYPE_CHECKING:
    from ...errors import Problem
    from ..base import SessionRef
    from .chatfiles import Chat

# The keys of a Gemini API ``Part`` (one of them makes it a part of a known kind, read or
# not: a thought's signature, a file by reference, code the model ran).
PART_KEYS = frozenset(
    (
        "text",
        "inlineData",
        "fileData",
        "functionCall",
        "functionResponse",
        "executableCode",
        "codeExecutionResult",
        "thought",
        "thoughtSignature",
        "videoMetadata",
        "partMetadata",
        "mediaResolution",
    )
)


def part_list(value: Any) -> list[Any]:
    """A chat record's ``PartListUnion`` (a message's content, a tool call's result) as a
    list: gemini-cli's types allow text, a single Part, or a list of Parts and texts
    (``PartUnion[] | PartUnion``, ``PartUnion = Part | string``); anything else is none."""
    if isinstance(value, str | dict):
        return [value]
    return value if isinstance(value, list) else []


def part_text(part: Any) -> str | None:
    """The text of one ``PartUnion``: text as it is, or a text part's ``text``."""
    if isinstance(part, str):
        return part
    text = part.get("text") if isinstance(part, dict) else None
    return text if isinstance(text, str) else None


def odd_parts(value: Any, what: str, texts: bool = False) -> list[str]:
    """Why each part of a Part or Part list (``what``: "its content") is left out: it is no
    object (``texts``: nor text, which a chat record's ``PartListUnion`` may hold), has no
    key a part has, or its text is not text."""
    if isinstance(value, dict):
        return [f"{what} {why}" for why in _odd_part(value)]
    if not isinstance(value, list):
        return []
    found = []
    for n, part in enumerate(value, start=1):
        if texts and isinstance(part, str):
            continue
        if not isinstance(part, dict):
            found.append(f"{what}: part {n} is {json_kind(part)}, not an object: left out")
        else:
            found += [f"{what}: part {n} {why}" for why in _odd_part(part)]
    return found


def _odd_part(part: dict[str, Any]) -> list[str]:
    if not PART_KEYS.intersection(part):
        return ["is of no known kind (no text, data or call): left out"]
    found = []
    text = part.get("text")
    if "text" in part and not isinstance(text, str):
        found.append(f"has a text that is {json_kind(text)}, not text: left out")
    for key in ("functionCall", "functionResponse", "inlineData"):
        if key in part and not isinstance(part[key], dict):
            found.append(f"has a {key} that is {json_kind(part[key])}, not an object: left out")
    blob = part.get("inlineData")
    if isinstance(blob, dict) and isinstance(blob.get("data"), str) and inline_bytes(blob) is None:
        kind = blob.get("mimeType") if isinstance(blob.get("mimeType"), str) else "a file"
        found.append(f"has inlineData ({kind}) whose data is not valid base64: left out")
    return found


def inline_bytes(blob: dict[str, Any]) -> bytes | None:
    """The bytes of an ``inlineData`` Blob (base64 ``data``), or None if they cannot be
    decoded (a damaged or cut file)."""
    try:
        return base64.b64decode(blob["data"], validate=True)
    except (binascii.Error, ValueError, KeyError, TypeError):
        return None


def odd_calls(rec: dict[str, Any]) -> list[str]:
    """Why a reply's thoughts, tokens, tool calls or their results (each part of them) are
    left out."""
    found = []
    thoughts = rec.get("thoughts")
    if thoughts is not None and not isinstance(thoughts, str | list):
        found.append(f"its thoughts are {json_kind(thoughts)}, not a list: left out")
    for n, thought in enumerate(thoughts if isinstance(thoughts, list) else [], start=1):
        if not isinstance(thought, dict):
            found.append(f"thought {n} is {json_kind(thought)}, not an object: left out")
            continue
        for key in ("subject", "description"):
            if thought.get(key) is not None and not isinstance(thought[key], str):
                why = f"thought {n}'s {key} is {json_kind(thought[key])}, not text: left out"
                found.append(why)
    tokens = rec.get("tokens")
    if tokens is not None and not isinstance(tokens, dict):
        found.append(f"its tokens are {json_kind(tokens)}, not an object: not counted")
    for n, call in listed_objects(rec.get("toolCalls"), "its toolCalls", "tool call {n}", found):
        result = call.get("result")  # a PartListUnion: text, a Part, or a list of them
        if result is not None and not isinstance(result, str | dict | list):
            why = f"is {json_kind(result)}, not text, a part or a list: left out"
            found.append(f"tool call {n}'s result {why}")
        found += odd_parts(result, f"tool call {n}'s result", texts=True)
        for m, part in enumerate(part_list(result), start=1):
            response = part.get("functionResponse") if isinstance(part, dict) else None
            body = response.get("response") if isinstance(response, dict) else None
            if body is not None and not isinstance(body, dict):
                why = f"its response is {json_kind(body)}, not an object: left out"
                found.append(f"tool call {n}'s result: part {m}: {why}")
    return found


def header_damage(ref: SessionRef, chat: Chat, lost: bool, prompt_log: Path) -> tuple[str, str]:
    """The id to export a chat under whose header line (its first: the session's full id
    and title) is lost (``lost``) or holds an id that is not text, and the warning saying
    so. The full id is the one the folder of its subagents is named by, else the one id in
    the project's prompt log (``logs.json``) that begins with the file name's 8 characters:
    the note keeps the name it has when the line is mended. Neither known, it is keyed by
    those characters, as a file written with no header line is."""
    from . import _str

    key = ref.session_id
    found, whence = _id_from_folders(ref, key), "its subagents' folder"
    if found is None:
        found, whence = _id_from_log(prompt_log, key), "the prompt log (logs.json)"
    if lost:
        what = "the line naming the session (its first: id and title) could not be read"
    elif isinstance(value := chat.meta.get("sessionId"), str):
        what = "its session id is empty"
    else:
        what = f"its session id is {json_kind(value)}, not text"
    title = "" if _str(chat.meta.get("summary")) else ", titled by its first prompt"
    if found:
        return found, f"{what}: exported under the id {whence} gives{title}"
    said = (
        f"{what}: exported under the 8 characters of its file name, {quoted(key)}{title} (no "
        "other file names its full id: once the line is mended, the session's note is a "
        "second one beside this)"
    )
    return key, said


def _id_from_folders(ref: SessionRef, key: str) -> str | None:
    """The name of the folder of the chat's subagents (``chats/<session id>/``)."""
    chats = ref.main.path.parent
    from . import _UUID

    names = {s.path.parent.name for s in ref.related if s.path.parent.parent == chats}
    found = [n for n in names if _UUID.fullmatch(n) and n.lower().startswith(key)]
    return found[0] if len(found) == 1 else None


def _id_from_log(path: Path, key: str) -> str | None:
    """The one session id of the prompt log that begins with ``key`` (unread: none)."""
    from .stores import read_prompt_log

    if not path.is_file():
        return None
    sessions = read_prompt_log(path, []) or {}
    found = [i for i in sessions if isinstance(i, str) and i.lower().startswith(key)]
    return found[0] if len(found) == 1 else None


def saved_origin_id(path: Path, chat: Chat, problems: list[Problem]) -> str | None:
    """The id a chat whose header is damaged is exported under (``header_damage``), for a
    saved chat (``/chat save``) of that session: dated and linked as if the line were
    whole. None when the chat is no such chat, or no other file names its full id."""
    from . import _header_lost, chat_key

    lost = _header_lost(path, chat, problems)
    key = chat_key(path.name)
    if not key or not chat.records or not (lost or "sessionId" in chat.meta):
        return None
    chats = path.parent
    try:  # the folder of its subagents, as ``_id_from_folders`` finds it from the listing
        names = [e.name for e in os.scandir(chats) if e.is_dir(follow_symlinks=False)]
    except OSError:
        names = []
    from . import _UUID

    found = [n for n in names if _UUID.fullmatch(n) and n.lower().startswith(key)]
    if len(found) == 1:
        return found[0]
    return _id_from_log(chats.parent / "logs.json", key)
