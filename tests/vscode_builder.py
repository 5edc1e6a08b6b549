"""Builds synthetic VS Code-family ``state.vscdb`` databases (Cursor, Trae), made here."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

TABLE = "CREATE TABLE IF NOT EXISTS {} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"


def make_db(
    path: Path,
    items: dict[str, Any] | None = None,
    disk: dict[str, Any] | None = None,
    *,
    blob: bool = False,
) -> Path:
    """A ``state.vscdb`` with ``ItemTable`` (and ``cursorDiskKV`` when ``disk`` is given)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute(TABLE.format("ItemTable"))
    if disk is not None:
        conn.execute(TABLE.format("cursorDiskKV"))
    for table, values in (("ItemTable", items or {}), ("cursorDiskKV", disk or {})):
        for key, value in values.items():
            data = (
                value if isinstance(value, str | bytes) else json.dumps(value, ensure_ascii=False)
            )
            if blob and isinstance(data, str):
                data = data.encode("utf-8")
            conn.execute(f"INSERT INTO {table} (key, value) VALUES (?, ?)", (key, data))
    conn.commit()
    conn.close()
    return path


def workspace(user_dir: Path, name: str, folder_uri: str, items: dict[str, Any], **kw: Any) -> Path:
    ws = user_dir / "workspaceStorage" / name
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "workspace.json").write_text(json.dumps({"folder": folder_uri}), encoding="utf-8")
    return make_db(ws / "state.vscdb", items, **kw)


def lexical(text: str) -> str:
    """A Lexical editor state holding ``text`` (one paragraph per line)."""
    paragraphs = [
        {"children": [{"detail": 0, "format": 0, "mode": "normal", "text": line, "type": "text", "version": 1}],
         "type": "paragraph", "version": 1}
        for line in text.split("\n")
    ]  # fmt: skip
    return json.dumps({"root": {"children": paragraphs, "type": "root", "version": 1}})


def dump(path: Path) -> list[tuple[str, str, Any]]:
    """The logical content of a database (its bytes depend on the SQLite version)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = [
        r[0]
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
    ]
    rows = [
        (t, k, v)
        for t in tables
        for k, v in conn.execute(f"SELECT key, value FROM {t} ORDER BY key")
    ]
    conn.close()
    return rows


def cursor_composer(disk: dict, cid: str, turns: list[tuple[int, dict]], **fields: Any) -> None:
    """A Cursor composer in ``disk`` (``cursorDiskKV`` rows for ``make_db``): its bubbles,
    each ``(type, body)`` (1 the person's, 2 the assistant's), and its ``composerData``."""
    headers = []
    for number, (kind, body) in enumerate(turns):
        bid = f"{cid[:8]}-{number}"
        headers.append({"bubbleId": bid, "type": kind})
        disk[f"bubbleId:{cid}:{bid}"] = {"_v": 3, "type": kind, "bubbleId": bid, **body}
    disk[f"composerData:{cid}"] = {
        "_v": 10, "composerId": cid, "name": f"Task {cid[:8]}", "createdAt": 1759861723898,
        "lastUpdatedAt": 1759863763312, "fullConversationHeadersOnly": headers,
        "subComposerIds": [], "subagentComposerIds": [], **fields,
    }  # fmt: skip


def cursor_task(call_id: str) -> dict:
    """A bubble of a composer's ``task_v2`` call, which started a subagent composer."""
    args = '{"description": "Look", "prompt": "Look inside"}'
    return {"toolFormerData": {"tool": 48, "toolCallId": call_id, "name": "task_v2",
                               "status": "completed", "rawArgs": args, "params": args,
                               "result": '{"output": "seen"}'}}  # fmt: skip
