"""Synthetic OpenCode / Kilo stores for tests and the demo home.

The database follows the schema of OpenCode 1.18.5 (``session``, ``message``, ``part``,
``project`` as in the real dump in the corpus, plus an ``account`` table that must never
be read); Kilo has no public sample, so its database is built from the same schema
(FORMATS.md §6.3: "same schema"). The JSON tree follows the layout OpenCode wrote before
1.2: ``storage/session/<project>/<id>.json``, ``storage/message/<session>/<id>.json``,
``storage/part/<message>/<id>.json``.

Ids sort by creation like OpenCode's (``msg_…``/``prt_…``) and a clock ticks one second
per message, so notes are stable across runs.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text,
  time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text,
  parent_id text, slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL,
  version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer,
  summary_files integer, summary_diffs text, metadata text, cost real DEFAULT 0 NOT NULL,
  tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
  tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL,
  tokens_cache_write integer DEFAULT 0 NOT NULL, revert text, permission text, agent text,
  model text, time_created integer NOT NULL, time_updated integer NOT NULL,
  time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE account (id text PRIMARY KEY, email text NOT NULL, access_token text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE INDEX session_parent_idx ON session (parent_id);
"""

START_MS = 1_780_000_000_000  # 2026-05-28


# --- parts (the ``data`` of a ``part`` row) ---------------------------------------------


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def reasoning(value: str) -> dict[str, Any]:
    return {"type": "reasoning", "text": value, "time": {"start": START_MS}}


def tool(
    name: str,
    input: dict[str, Any],
    output: str | None = None,
    *,
    status: str = "completed",
    title: str | None = None,
    error: str | None = None,
    metadata: dict[str, Any] | None = None,
    call_id: str | None = None,
    seconds: float = 1.5,
) -> dict[str, Any]:
    state: dict[str, Any] = {"status": status, "input": input}
    if status in ("completed", "error"):
        state["time"] = {"start": START_MS, "end": START_MS + int(seconds * 1000)}
    if output is not None:
        state["output"] = output
    if error is not None:
        state["error"] = error
    if title is not None:
        state["title"] = title
    state["metadata"] = metadata or {}
    return {"type": "tool", "callID": call_id or f"call_{name}", "tool": name, "state": state}


def patch(*files: str) -> dict[str, Any]:
    return {
        "type": "patch",
        "hash": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "files": list(files),
    }


def step_start() -> dict[str, Any]:
    return {"type": "step-start"}


def step_finish(
    cost: float, input: int, output: int, reasoning: int = 0, read: int = 0, write: int = 0
) -> dict[str, Any]:
    tokens = {"total": input + output + reasoning + read + write, "input": input,
              "output": output, "reasoning": reasoning, "cache": {"read": read, "write": write}}  # fmt: skip
    return {"type": "step-finish", "reason": "stop", "cost": cost, "tokens": tokens}


def compaction(auto: bool = True) -> dict[str, Any]:
    return {"type": "compaction", "auto": auto}


def file(mime: str, data_url: str, filename: str) -> dict[str, Any]:
    return {"type": "file", "mime": mime, "filename": filename, "url": data_url}


# --- sessions ---------------------------------------------------------------------------


@dataclass
class Msg:
    id: str
    data: dict[str, Any]
    parts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


@dataclass
class OcSession:
    id: str
    title: str
    directory: str
    parent_id: str | None = None
    project_id: str = "global"
    created: int = START_MS
    updated: int = START_MS
    model: dict[str, str] | None = None
    messages: list[Msg] = field(default_factory=list)
    revert: dict[str, str] | None = None  # a pending /undo: {messageID, partID?, snapshot?}

    def info(self) -> dict[str, Any]:
        """The legacy tree's ``session/<project>/<id>.json``."""
        info = {"id": self.id, "projectID": self.project_id, "directory": self.directory,
                "parentID": self.parent_id, "title": self.title, "version": "1.1.0",
                "time": {"created": self.created, "updated": self.updated}}  # fmt: skip
        return info | ({"revert": self.revert} if self.revert else {})


class OpenCodeStore:
    """Sessions built turn by turn, then written to a database and/or a JSON tree."""

    def __init__(self) -> None:
        self.sessions: list[OcSession] = []
        self._clock = START_MS
        self._ids = 0

    def _next_id(self, prefix: str) -> str:
        self._ids += 1
        return f"{prefix}_{self._ids:012x}Synthetic"

    def _tick(self) -> int:
        self._clock += 1000
        return self._clock

    def session(
        self, title: str, directory: str, parent: OcSession | None = None, ident: str | None = None
    ) -> OcSession:
        now = self._tick()
        session = OcSession(ident or self._next_id("ses"), title, directory,
                            parent.id if parent else None, created=now, updated=now)  # fmt: skip
        self.sessions.append(session)
        return session

    def user(self, session: OcSession, *parts: dict[str, Any], agent: str = "build") -> Msg:
        now = self._tick()
        data = {"role": "user", "time": {"created": now}, "agent": agent,
                "model": {"providerID": "anthropic", "modelID": "claude-sonnet-5"}}  # fmt: skip
        return self._message(session, data, parts)

    def assistant(
        self,
        session: OcSession,
        *parts: dict[str, Any],
        model: tuple[str, str] = ("anthropic", "claude-sonnet-5"),
        **extra: Any,
    ) -> Msg:
        now = self._tick()
        data = {"role": "assistant", "time": {"created": now, "completed": now + 500},
                "providerID": model[0], "modelID": model[1], "mode": "build", "agent": "build",
                "path": {"cwd": session.directory, "root": session.directory}, **extra}  # fmt: skip
        steps = [p for p in parts if p["type"] == "step-finish"]
        if steps:  # the message repeats the sum of its steps, as OpenCode writes it
            data["cost"] = sum(p["cost"] for p in steps)
            data["tokens"] = {
                k: sum(p["tokens"][k] for p in steps) for k in ("input", "output", "reasoning")
            } | {
                "cache": {k: sum(p["tokens"]["cache"][k] for p in steps) for k in ("read", "write")}
            }
        return self._message(session, data, parts)

    def _message(self, session: OcSession, data: dict[str, Any], parts: Any) -> Msg:
        message = Msg(self._next_id("msg"), data)
        message.parts = [(self._next_id("prt"), dict(p)) for p in parts]
        session.messages.append(message)
        session.updated = self._clock
        return message

    # --- writing ------------------------------------------------------------------------

    def write_db(self, path: Path, sessions: list[OcSession] | None = None) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path)
        conn.executescript(SCHEMA)
        conn.execute("INSERT INTO account VALUES ('acc_1', 'me@example.invalid', 'secret')")
        conn.execute(
            "INSERT INTO project VALUES ('global', '/', NULL, NULL, ?, ?, '[]')",
            (START_MS, START_MS),
        )
        for s in self.sessions if sessions is None else sessions:
            conn.execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version,"
                " model, revert, time_created, time_updated)"
                " VALUES (?, ?, ?, ?, ?, ?, '1.18.5', ?, ?, ?, ?)",
                (s.id, s.project_id, s.parent_id, s.title.lower().replace(" ", "-"), s.directory,
                 s.title, json.dumps(s.model) if s.model else None,
                 json.dumps(s.revert) if s.revert else None, s.created, s.updated),
            )  # fmt: skip
            for m in s.messages:
                when = m.data["time"]["created"]
                conn.execute(
                    "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                    (m.id, s.id, when, when, json.dumps(m.data)),
                )
                for pid, p in m.parts:
                    conn.execute(
                        "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                        (pid, m.id, s.id, when, when, json.dumps(p)),
                    )
        conn.commit()
        conn.close()
        return path

    def write_tree(self, storage: Path, sessions: list[OcSession] | None = None) -> Path:
        (storage / "migration").parent.mkdir(parents=True, exist_ok=True)
        (storage / "migration").write_text("2")
        for s in self.sessions if sessions is None else sessions:
            _write_json(storage / "session" / s.project_id / f"{s.id}.json", s.info())
            for m in s.messages:
                data = {"id": m.id, "sessionID": s.id, **m.data}
                _write_json(storage / "message" / s.id / f"{m.id}.json", data)
                for pid, p in m.parts:
                    part = {"id": pid, "sessionID": s.id, "messageID": m.id, **p}
                    _write_json(storage / "part" / m.id / f"{pid}.json", part)
        return storage


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
