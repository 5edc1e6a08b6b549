"""Gemini CLI's saved chats (``checkpoint-<tag>.json``, written by ``/chat save <tag>``):
a note of its own titled by the tag, dated and linked (``forked_from``) by the session on
disk whose chat file holds every prompt it saved."""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import orjson

from ...model import Message, Session, TextPart
from .._jsonl import parse_timestamp
from ..base import LoadResult, SessionRef, read_regular
from . import SOURCE, _project, _str, chat_key
from .chatfiles import Chat


def load_checkpoint(
    ref: SessionRef, folder: Path, registry: dict[str, str], result: LoadResult
) -> None:
    from .stores import checkpoint_messages, project_root, read_checkpoint, user_texts

    history = read_checkpoint(ref.main.path, result.problems)
    if not history:
        return
    messages = checkpoint_messages(history)
    origin = _matching_session(folder, user_texts(messages))
    cwd = project_root(folder, registry, origin.meta.get("projectHash") if origin else None, [])
    project = _project(folder, cwd)
    saved = datetime.fromtimestamp(ref.main.mtime_ns / 1e9, UTC)
    started, ended = saved, saved
    if origin:
        messages, started, ended = _dated(messages, origin, saved)
    tag = ref.session_id.rsplit("/checkpoint/", 1)[-1]
    result.sessions.append(
        Session(
            SOURCE,
            ref.session_id,
            tuple(messages),
            ref.main.path,
            title=tag,
            project=project,
            cwd=cwd,
            started_at=started,
            ended_at=ended,
            forked_from=_str(origin.meta.get("sessionId")) if origin else None,
            agent_label="saved chat",
            saved_copy=True,
        )
    )


def _matching_session(folder: Path, prompts: list[str]) -> Chat | None:
    """The session whose chat file holds every prompt of a saved chat (the newest such)."""
    from .chatfiles import read_chat
    from .damage import saved_origin_id

    needles = [orjson.dumps(p.strip())[1:-1] for p in prompts if p.strip()]
    chats = folder / "chats"
    if not needles or not chats.is_dir():
        return None
    names = sorted((e.name for e in os.scandir(chats) if chat_key(e.name)), reverse=True)
    for name in names:
        try:
            data = read_regular(chats / name)
        except OSError:
            continue
        if all(n in data for n in needles):
            problems: list = []
            chat = read_chat([chats / name], problems)
            if chat and _str(chat.meta.get("sessionId")):
                return chat
            if chat and (full := saved_origin_id(chats / name, chat, problems)):
                # (its header damaged: the id its session's note is exported under)
                chat.meta["sessionId"] = full
                return chat
    return None


def _dated(
    messages: list[Message], origin: Chat, saved: datetime
) -> tuple[list[Message], datetime, datetime]:
    """A saved chat has no times of its own: its prompts take their session's times, and it
    ends where the turn of its last prompt ended in the session."""
    from .prompts import user_parts
    from .stores import user_texts

    def first_text(m: Message) -> str:
        return next((p.text.strip() for p in m.parts if isinstance(p, TextPart)), "")

    held = {first_text(m) for m in messages if m.role == "user"}  # the saved chat's prompts
    when: dict[str, datetime] = {}
    records = list(origin.records.values())
    last = -1  # the session's record of the saved chat's last prompt
    for i, rec in enumerate(records):
        texts = (
            user_texts([Message("user", tuple(user_parts(rec)))])
            if rec.get("type") == "user"
            else []
        )
        stamp = parse_timestamp(rec.get("timestamp"))
        for text in texts:
            if stamp and text.strip() not in when:
                when[text.strip()] = stamp
                if text.strip() in held:
                    last = i
    dated = []
    for m in messages:
        text = first_text(m)
        dated.append(
            replace(m, timestamp=when.get(text)) if m.role == "user" and text in when else m
        )
    if last < 0:
        return messages, saved, saved
    end = last
    while end + 1 < len(records) and records[end + 1].get("type") != "user":
        end += 1
    times = [t for t in (parse_timestamp(r.get("timestamp")) for r in records[: end + 1]) if t]
    started = next((m.timestamp for m in dated if m.timestamp), times[0] if times else saved)
    return dated, started, max(times, default=saved)
