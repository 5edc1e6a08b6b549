"""Builds synthetic Cline-family storage (FORMATS.md §6.2), all three generations.

No real task folder of the VS Code extensions could be redistributed, so generations A/B
follow the schema of Cline 3.x (``ClineMessage``, ``HistoryItem``, ``task_metadata.json``)
as FORMATS.md §6.2 gives it; Roo Code 3.x, its fork Zoo Code and Kilo Code 4.x write the same
shape. Generation C follows the Cline 4 SDK files (``<id>.messages.json`` version 1, the ``sessions`` table).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

START = 1762500000000  # 2025-11-07T07:20:00Z, in ms
CLINE = "saoudrizwan.claude-dev"
ROO = "rooveterinaryinc.roo-cline"
ZOO = "zoocodeorganization.zoo-code"
KILO = "kilocode.kilo-code"


def ts(n: int) -> int:
    """The n-th second of the session, in epoch ms."""
    return START + n * 1000


def say(n: int, kind: str, text: str = "", **extra: Any) -> dict[str, Any]:
    return {"ts": ts(n), "type": "say", "say": kind, "text": text, **extra}


def ask(n: int, kind: str, text: str = "", **extra: Any) -> dict[str, Any]:
    return {"ts": ts(n), "type": "ask", "ask": kind, "text": text, **extra}


def api_request(n: int, tokens_in: int, tokens_out: int, cost: float, **extra: Any) -> dict:
    info = {"request": "<task>…</task>", "tokensIn": tokens_in, "tokensOut": tokens_out,
            "cacheWrites": extra.pop("cache_writes", 0), "cacheReads": extra.pop("cache_reads", 0),
            "cost": cost, **extra}  # fmt: skip
    return say(n, "api_req_started", json.dumps(info))


def tool(n: int, name: str, *, kind: str = "say", **fields: Any) -> dict[str, Any]:
    make = say if kind == "say" else ask
    return make(n, "tool", json.dumps({"tool": name, **fields}))


def storage(home: Path, extension: str, layout: str = "linux", editor: str = "Code") -> Path:
    """``<User>/globalStorage/<extension>`` for an OS layout (or a remote server)."""
    user = {
        "linux": home / ".config" / editor / "User",
        "mac": home / "Library" / "Application Support" / editor / "User",
        "windows": home / "AppData" / "Roaming" / editor / "User",
        "remote": home / ".vscode-server" / "data" / "User",
        "cursor-remote": home / ".cursor-server" / "data" / "User",  # Cursor's Remote-SSH host
    }[layout]
    return user / "globalStorage" / extension


def task(
    root: Path,
    task_id: str,
    ui: list[Any] | str | None = None,
    api: list[Any] | str | None = None,
    metadata: dict[str, Any] | None = None,
) -> Path:
    """A task folder; a string is written as it is (for truncated or broken files)."""
    folder = root / "tasks" / task_id
    folder.mkdir(parents=True, exist_ok=True)
    for name, value in (("ui_messages.json", ui), ("api_conversation_history.json", api),
                        ("task_metadata.json", metadata)):  # fmt: skip
        if value is not None:
            text = value if isinstance(value, str) else json.dumps(value)
            (folder / name).write_text(text, encoding="utf-8")
    return folder


def history(root: Path, items: list[dict[str, Any]]) -> None:
    """``state/taskHistory.json``, the extension's task index."""
    (root / "state").mkdir(parents=True, exist_ok=True)
    (root / "state" / "taskHistory.json").write_text(json.dumps(items), encoding="utf-8")


def history_item(task_id: str, task_text: str, **extra: Any) -> dict[str, Any]:
    return {"id": task_id, "ts": START, "task": task_text, "tokensIn": 0, "tokensOut": 0,
            "totalCost": 0, **extra}  # fmt: skip


def sdk_session(
    data: Path,
    session_id: str,
    messages: list[dict[str, Any]],
    *,
    manifest: dict[str, Any] | None = None,
    agents: dict[str, list[dict[str, Any]]] | None = None,
    system_prompt: str | None = None,
) -> Path:
    """``<data>/sessions/<id>/<id>.messages.json`` (Cline 4 SDK), its manifest and any
    subagent transcripts beside it."""
    folder = data / "sessions" / session_id
    folder.mkdir(parents=True, exist_ok=True)
    doc = {"version": 1, "updated_at": "2025-11-07T08:00:00.000Z", "agent": "lead",
           "sessionId": session_id, "messages": messages}  # fmt: skip
    if system_prompt is not None:
        doc["system_prompt"] = system_prompt
    (folder / f"{session_id}.messages.json").write_text(json.dumps(doc), encoding="utf-8")
    if manifest is not None:
        full = {"version": 1, "session_id": session_id, "source": "cli", **manifest}
        (folder / f"{session_id}.json").write_text(json.dumps(full), encoding="utf-8")
    for agent, agent_messages in (agents or {}).items():
        doc = {"version": 1, "agent": "subagent", "sessionId": session_id,
               "messages": agent_messages}  # fmt: skip
        (folder / f"{agent}.messages.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


def sessions_db(data: Path, rows: list[dict[str, Any]]) -> Path:
    """``<data>/db/sessions.db`` with a ``sessions`` table of the SDK's columns."""
    path = data / "db" / "sessions.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = ["session_id", "source", "status", "provider", "model", "cwd", "workspace_root",
               "started_at", "ended_at", "parent_session_id", "prompt", "metadata_json",
               "messages_path", "updated_at"]  # fmt: skip
    with sqlite3.connect(path) as conn:
        conn.execute(f"CREATE TABLE sessions ({', '.join(columns)}, PRIMARY KEY (session_id))")
        for row in rows:
            values = [row.get(c) for c in columns]
            conn.execute(f"INSERT INTO sessions VALUES ({', '.join('?' * len(columns))})", values)
    conn.close()
    return path


def message(role: str, *blocks: dict[str, Any] | str, n: int | None = None, **extra: Any) -> dict:
    content: Any = blocks[0] if len(blocks) == 1 and isinstance(blocks[0], str) else list(blocks)
    out = {"role": role, "content": content, **extra}
    if n is not None:
        out["ts"] = ts(n)
    return out


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(call_id: str, name: str, tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}


def tool_result(call_id: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, **extra}


def metrics(tokens_in: int, tokens_out: int, cost: float, read: int = 0, write: int = 0) -> dict:
    return {"metrics": {"inputTokens": tokens_in, "outputTokens": tokens_out,
                        "cacheReadTokens": read, "cacheWriteTokens": write, "cost": cost}}  # fmt: skip
