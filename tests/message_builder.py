"""Builds normalized sessions directly (model.py), for tests of the note builder that need
no source format: a session of given messages, each a given number of minutes in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from exporter.model import Message, Session

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def session(
    *messages: Message, session_id: str = "5e0c1a77-3f0e-4c52-9a0b-0d1f6b2c7a10", **fields
) -> Session:
    return Session(
        source="claude-code",
        session_id=session_id,
        messages=tuple(messages),
        source_path=Path("/x.jsonl"),
        started_at=T0,
        ended_at=T0 + timedelta(minutes=9),
        **fields,
    )


def msg(role: str, *parts, minute: int = 0) -> Message:
    return Message(role, parts, source_id=f"m{minute}", timestamp=T0 + timedelta(minutes=minute))
