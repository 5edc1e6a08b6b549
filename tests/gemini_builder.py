"""Builds synthetic Gemini CLI homes (FORMATS.md §6.1 shapes): chats, checkpoints, logs.

Everything is invented. ``GeminiChat`` records messages and writes them as the legacy whole
document (``write_json``) or the JSONL log (``write_jsonl``, with upserts, ``$set`` and
``$rewindTo`` lines added through ``extra_lines``). ``project_folder`` lays out
``~/.gemini/tmp/<slug>`` with its registry entry or marker.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote


def project_folder(
    home: Path, root: str, slug: str, *, registry: bool = True, marker: bool = False
) -> Path:
    """``<home>/.gemini/tmp/<slug>``, named in ``projects.json`` and/or by ``.project_root``."""
    gemini = home / ".gemini"
    folder = gemini / "tmp" / slug
    (folder / "chats").mkdir(parents=True, exist_ok=True)
    if registry:
        path = gemini / "projects.json"
        doc = json.loads(path.read_text()) if path.exists() else {"projects": {}}
        doc["projects"][root] = slug
        path.write_text(json.dumps(doc))
    if marker:
        (folder / ".project_root").write_text(root, encoding="utf-8")
    return folder


def project_hash(root: str) -> str:
    return hashlib.sha256(root.encode("utf-8")).hexdigest()


def tool_call(
    call_id: str,
    name: str,
    args: dict[str, Any],
    output: str | None = None,
    *,
    error: str | None = None,
    status: str = "success",
    agent_id: str | None = None,
) -> dict[str, Any]:
    call: dict[str, Any] = {
        "id": call_id,
        "name": name,
        "args": args,
        "status": status,
        "displayName": name.title(),
        "timestamp": "2026-05-01T10:00:00Z",
    }
    response: dict[str, Any] = {}
    if output is not None:
        response["output"] = output
    if error is not None:
        response["error"] = error
        call["status"] = "error"
    if response:
        call["result"] = [{"functionResponse": {"id": call_id, "name": name, "response": response}}]
    if agent_id:
        call["agentId"] = agent_id
    return call


class GeminiChat:
    def __init__(
        self,
        session_id: str,
        root: str = "/home/dev/work/api",
        *,
        start: str = "2026-05-01T10:00:00Z",
        kind: str = "main",
    ) -> None:
        self.session_id = session_id
        self.root = root
        self.kind = kind
        self.clock = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)
        self.start = self.stamp(0)
        self.messages: list[dict[str, Any]] = []
        self.summary: str | None = None

    def stamp(self, seconds: float = 1) -> str:
        self.clock += timedelta(seconds=seconds)
        return self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def _add(self, message: dict[str, Any]) -> dict[str, Any]:
        message.setdefault("id", f"{self.session_id[:8]}-m{len(self.messages) + 1}")
        message.setdefault("timestamp", self.stamp())
        self.messages.append(message)
        return message

    def user(self, content: Any, **more: Any) -> dict[str, Any]:
        return self._add({"type": "user", "content": content, **more})

    def gemini(
        self,
        content: Any = "",
        *,
        thoughts: list[dict[str, str]] | None = None,
        calls: list[dict[str, Any]] | None = None,
        tokens: dict[str, int] | None = None,
        model: str = "gemini-2.5-pro",
    ) -> dict[str, Any]:
        message: dict[str, Any] = {
            "type": "gemini",
            "content": content,
            "model": model,
            "thoughts": thoughts or [],
        }
        if calls:
            message["toolCalls"] = calls
        message["tokens"] = tokens or {
            "input": 1000,
            "output": 50,
            "cached": 400,
            "thoughts": 10,
            "tool": 0,
            "total": 1060,
        }
        return self._add(message)

    def notice(self, kind: str, content: str) -> dict[str, Any]:
        return self._add({"type": kind, "content": content})

    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "sessionId": self.session_id,
            "projectHash": project_hash(self.root),
            "startTime": self.start,
            "lastUpdated": self.stamp(0),
            "kind": self.kind,
        }
        if self.summary:
            meta["summary"] = self.summary
        return meta

    def file_name(self, suffix: str) -> str:
        when = self.start[:16].replace(":", "-")
        return f"session-{when}-{self.session_id[:8]}{suffix}"

    def write_json(self, folder: Path, name: str | None = None) -> Path:
        path = folder / (name or self.file_name(".json"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps({**self.meta(), "messages": self.messages}, indent=2, ensure_ascii=False),
            encoding="utf-8",
        )
        return path

    def write_jsonl(
        self, folder: Path, name: str | None = None, extra_lines: list[Any] | None = None
    ) -> Path:
        path = folder / (name or self.file_name(".jsonl"))
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [self.meta(), *self.messages, *(extra_lines or [])]
        path.write_text(
            "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8"
        )
        return path


def write_checkpoint(
    folder: Path, tag: str, history: list[dict[str, Any]], *, bare: bool = False
) -> Path:
    """``checkpoint-<tag>.json`` as ``/chat save <tag>`` writes it."""
    path = folder / f"checkpoint-{quote(tag, safe='')}.json"
    doc: Any = history if bare else {"history": history, "authType": "oauth-personal"}
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def setup_turns(root: str) -> list[dict[str, Any]]:
    """The environment turn the CLI sends first, and the model's acknowledgement."""
    context = (
        "This is the Gemini CLI. We are setting up the context for our chat.\n"
        f"Today's date is Friday, May 1, 2026.\nI'm currently working in the directory: {root}"
    )
    return [
        {"role": "user", "parts": [{"text": context}]},
        {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]},
    ]


def write_prompt_log(folder: Path, entries: list[tuple[str, str, str]]) -> Path:
    """``logs.json`` from (session id, ISO time, message) triples."""
    counters: dict[str, int] = {}
    rows = []
    for session_id, when, message in entries:
        n = counters[session_id] = counters.get(session_id, -1) + 1
        rows.append(
            {
                "sessionId": session_id,
                "messageId": n,
                "type": "user",
                "message": message,
                "timestamp": when,
            }
        )
    path = folder / "logs.json"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return path
