"""Builds synthetic Cursor Agent histories (``~/.cursor``, FORMATS.md §3.7), made here.

``AgentChat`` writes one transcript line by line the way Cursor does: user text wrapped in
``<timestamp>``/``<user_info>``/``<user_query>``, assistant lines of content blocks without
ids, ``[REDACTED]`` where thinking was, roleless ``turn_ended`` lines. ``store_db``,
``meta_json`` and ``summaries_db`` write the metadata stores beside it.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

USER_INFO = "<user_info>\nOS Version: linux 6.8\nShell: bash\nWorkspace Path: {cwd}\n</user_info>"


def slug(cwd: str) -> str:
    """Cursor's project folder name: separators and dots become dashes, no leading dash."""
    text = re.sub(r"^([A-Za-z]):", lambda m: m.group(1).lower(), cwd)
    return re.sub(r"[\\/.]+", "-", text).strip("-")


def human_time(when: datetime, offset_hours: float = 0) -> str:
    """``Tuesday, Apr 28, 2026, 10:15 AM (UTC+3)``: the form of Cursor's ``<timestamp>``."""
    tz = timezone(timedelta(hours=offset_hours))
    local = when.astimezone(tz)
    hours, minutes = divmod(int(abs(offset_hours) * 60), 60)
    sign = "+" if offset_hours >= 0 else "-"
    zone = f"UTC{sign}{hours}" + (f":{minutes:02d}" if minutes else "")
    clock = local.strftime("%I:%M %p").lstrip("0")
    return f"{local.strftime('%A, %b')} {local.day}, {local.year}, {clock} ({zone})"


class AgentChat:
    """One transcript: ``<home>/.cursor/projects/<slug>/agent-transcripts/<id>/<id>.jsonl``."""

    def __init__(
        self, home: Path, cwd: str, chat_id: str, *, layout: str = "nested", parent: AgentChat | None = None
    ) -> None:  # fmt: skip
        self.home, self.cwd, self.id = home, cwd, chat_id
        folder = home / ".cursor" / "projects" / slug(cwd) / "agent-transcripts"
        if parent is not None:
            self.path = parent.path.parent / "subagents" / f"{chat_id}.jsonl"
        elif layout == "nested":
            self.path = folder / chat_id / f"{chat_id}.jsonl"
        else:
            self.path = folder / f"{chat_id}.{'txt' if layout == 'txt' else 'jsonl'}"
        self.lines: list[str] = []

    def user(
        self, text: str, when: datetime | None = None, offset: float = 0, *, info: bool = False,
        attached: str | None = None, query: bool = True,
    ) -> AgentChat:  # fmt: skip
        pieces = []
        if when is not None:
            pieces.append(f"<timestamp>{human_time(when, offset)}</timestamp>")
        if info:
            pieces.append(USER_INFO.format(cwd=self.cwd))
        if attached:
            pieces.append(f"<attached_files>\n{attached}\n</attached_files>")
        pieces.append(f"<user_query>\n{text}\n</user_query>" if query else text)
        return self.line(
            {"role": "user", "message": {"content": [{"type": "text", "text": "\n".join(pieces)}]}}
        )

    def reply(self, *blocks: dict[str, Any] | str) -> AgentChat:
        content = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
        return self.line({"role": "assistant", "message": {"content": content}})

    def results(self, *outputs: str, **extra: Any) -> AgentChat:
        blocks = [
            {"type": "tool_result", "content": [{"type": "text", "text": o}], **extra}
            for o in outputs
        ]
        return self.line({"role": "user", "message": {"content": blocks}})

    def turn_ended(self) -> AgentChat:
        return self.line({"type": "turn_ended", "status": "success"})

    def line(self, obj: Any) -> AgentChat:
        self.lines.append(json.dumps(obj, ensure_ascii=False))
        return self

    def raw(self, text: str) -> AgentChat:
        self.lines.append(text)
        return self

    def write(self, *, unterminated: str | None = None) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(line + "\n" for line in self.lines) + (unterminated or "")
        self.path.write_text(body, encoding="utf-8")
        return self.path

    def subagent(self, child_id: str) -> AgentChat:
        return AgentChat(self.home, self.cwd, child_id, parent=self)

    def chat_folder(self, cwd: str | None = None) -> Path:
        digest = hashlib.md5((cwd or self.cwd).encode()).hexdigest()
        return self.home / ".cursor" / "chats" / digest / self.id


def tool(name: str, **data: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": data}


def thinking(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": text}


def store_db(folder: Path, meta: dict[str, Any] | None, *, hex_encoded: bool = True) -> Path:
    """A ``cursor-agent`` ``store.db``: ``meta`` (key ``'0'``, hex JSON) and ``blobs``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "store.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    if meta is not None:
        text = json.dumps(meta)
        conn.execute(
            "INSERT INTO meta VALUES ('0', ?)", (text.encode().hex() if hex_encoded else text,)
        )
    data = b"\x0a\x20" + bytes(32)  # an index node of the protobuf graph: never read
    conn.execute("INSERT INTO blobs VALUES (?, ?)", (hashlib.sha256(data).hexdigest(), data))
    conn.commit()
    conn.close()
    return path


def meta_json(folder: Path, **fields: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "meta.json"
    path.write_text(json.dumps({"schemaVersion": 1, **fields}), encoding="utf-8")
    return path


def summaries_db(home: Path, rows: list[dict[str, Any]]) -> Path:
    """``~/.cursor/ai-tracking/ai-code-tracking.db`` with ``conversation_summaries`` rows."""
    path = home / ".cursor" / "ai-tracking" / "ai-code-tracking.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    columns = (
        "conversationId",
        "title",
        "tldr",
        "overview",
        "summaryBullets",
        "model",
        "mode",
        "updatedAt",
    )
    conn.execute(f"CREATE TABLE conversation_summaries ({', '.join(columns)})")
    conn.execute("CREATE TABLE ai_code_hashes (hash TEXT, source TEXT)")
    for row in rows:
        conn.execute(
            f"INSERT INTO conversation_summaries VALUES ({', '.join('?' * len(columns))})",
            tuple(row.get(c) for c in columns),
        )
    conn.commit()
    conn.close()
    return path
