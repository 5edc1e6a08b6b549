"""Builds synthetic Claude Code transcripts line by line (FORMATS.md §1 shapes).

Used by the tests and by ``examples/make_demo_home.py``. Everything it writes is invented:
ids come from uuid5 over the session id, times from a clock that ticks per line.
"""

from __future__ import annotations

import base64
import json
import struct
import uuid
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

NAMESPACE = uuid.UUID("6f1c1d8e-6c0b-4b7e-9a57-2f7b1b0c0a11")


def tiny_png(rgb: tuple[int, int, int] = (200, 40, 40), size: int = 4) -> bytes:
    """A valid PNG of one colour, made here (no image files in the repository)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * size
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * size))
        + chunk(b"IEND", b"")
    )


class ClaudeSession:
    """One transcript file. Conversational lines chain by ``parentUuid`` automatically."""

    def __init__(
        self,
        session_id: str,
        cwd: str = "/home/dev/work/project",
        *,
        branch: str = "main",
        start: str = "2026-11-20T09:01:07Z",
        version: str = "2.1.0",
        sidechain: bool = False,
        agent_id: str | None = None,
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.branch = branch
        self.version = version
        self.sidechain = sidechain
        self.agent_id = agent_id
        self.clock = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)
        self.lines: list[str] = []
        self.last: str | None = None
        self._n = 0

    # -- helpers -------------------------------------------------------------------------

    def uid(self) -> str:
        self._n += 1
        return str(uuid.uuid5(NAMESPACE, f"{self.session_id}/{self.agent_id}/{self._n}"))

    def tick(self, seconds: float = 5) -> str:
        self.clock += timedelta(seconds=seconds)
        return self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def continued(self, session_id: str, start: str) -> ClaudeSession:
        """A resume or fork of this session (older Claude Code, ``--fork-session``): a new
        file, with a new session id, that starts with a copy of this one's lines."""
        copy = ClaudeSession(session_id, self.cwd, start=start)
        copy.lines = [line.replace(self.session_id, session_id) for line in self.lines]
        copy.last = self.last
        return copy

    def at(self, hhmm: str) -> ClaudeSession:
        """Move the clock to a time of the same day (UTC)."""
        h, m = (int(x) for x in hhmm.split(":"))
        self.clock = self.clock.replace(hour=h, minute=m, second=0, microsecond=0)
        return self

    def raw(self, obj: dict[str, Any] | str) -> ClaudeSession:
        self.lines.append(obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False))
        return self

    def _envelope(self, kind: str, parent: str | None = "last", **fields: Any) -> dict[str, Any]:
        uuid_ = self.uid()
        rec: dict[str, Any] = {
            "parentUuid": self.last if parent == "last" else parent,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": self.branch,
            "type": kind,
            "uuid": uuid_,
            "timestamp": self.tick(fields.pop("seconds", 5)),
        }
        if self.agent_id:
            rec["agentId"] = self.agent_id
        rec.update(fields)
        self.last = uuid_
        return rec

    # -- lines ---------------------------------------------------------------------------

    def user(
        self, content: str | list[dict[str, Any]], parent: str | None = "last", **fields: Any
    ) -> str:
        rec = self._envelope("user", parent, message={"role": "user", "content": content}, **fields)
        self.raw(rec)
        return rec["uuid"]

    def assistant(
        self,
        blocks: list[dict[str, Any]] | str,
        *,
        msg_id: str | None = None,
        model: str = "claude-sonnet-4-5-20250929",
        usage: tuple[int, int] = (10, 5),
        split: bool = True,
        **fields: Any,
    ) -> str:
        """One API response; ``split`` writes one line per block, as Claude Code streams."""
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        msg_id = msg_id or f"msg_{self.uid()[:12]}"
        chunks = [[b] for b in blocks] if split else [blocks]
        for i, chunk in enumerate(chunks):
            out_tokens = usage[1] * (i + 1) // len(chunks)
            message = {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": chunk,
                "usage": {
                    "input_tokens": usage[0],
                    "output_tokens": out_tokens,
                    "cache_read_input_tokens": 100,
                    "cache_creation_input_tokens": 20,
                },
            }
            self.raw(
                self._envelope(
                    "assistant", message=message, requestId=f"req_{msg_id}", seconds=2, **fields
                )
            )
        return msg_id

    def tool_result(
        self,
        tool_use_id: str,
        output: str | list[dict[str, Any]],
        *,
        is_error: bool = False,
        rich: Any = None,
    ) -> str:
        block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": output}
        if is_error:
            block["is_error"] = True
        extra = {"toolUseResult": rich} if rich is not None else {}
        return self.user([block], **extra)

    def system(self, subtype: str, parent: str | None = "last", **fields: Any) -> str:
        rec = self._envelope("system", parent, subtype=subtype, **fields)
        self.raw(rec)
        return rec["uuid"]

    def meta(self, kind: str, **fields: Any) -> ClaudeSession:
        """A metadata line without uuid (titles, summaries, snapshots, queue operations)."""
        return self.raw({"type": kind, **fields})

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(), encoding="utf-8")
        return path


def with_inline_warmup(session_id: str) -> ClaudeSession:
    """A session of Claude Code < 2.0.28 whose only sidechain lines are its "Warmup" agent
    (written into the session file, between two turns)."""
    s = ClaudeSession(session_id)
    s.user("first question")
    s.assistant("first answer")
    warm = ClaudeSession(session_id, sidechain=True)
    warm._n = 50
    warm.user("Warmup", parent=None)
    warm.assistant("Ready.")
    s.lines.extend(warm.lines)
    s.user("second question")
    s.assistant("second answer")
    return s


def tool_use(name: str, tool_input: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}


def image_block(data: bytes, media_type: str = "image/png") -> dict[str, Any]:
    return {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": media_type,
            "data": base64.b64encode(data).decode(),
        },
    }


RESUMED = "d1d1d1d1-0000-4000-8000-000000000002"
RESUMED_AGAIN = "d1d1d1d1-0000-4000-8000-000000000003"


def resumed_sessions(folder: Path, first_id: str = "5e55e55e-0000-4000-8000-000000000001") -> None:
    """A session, a resume of it (older Claude Code, or ``--fork-session``: a new file
    with a new session id that starts with a copy of the conversation), and a resume of
    the resume."""
    first = ClaudeSession(first_id)
    first.user("add a cache")
    first.assistant("Added an LRU cache.", usage=(100, 10))
    first.write(folder / f"{first_id}.jsonl")
    second = first.continued(RESUMED, "2026-11-21T10:00:00Z")
    second.user("now make it thread-safe")
    second.assistant("Wrapped it in a lock.", usage=(200, 20))
    second.write(folder / f"{RESUMED}.jsonl")
    third = second.continued(RESUMED_AGAIN, "2026-11-22T10:00:00Z")
    third.user("and add metrics")
    third.assistant("Counted hits and misses.", usage=(300, 30))
    third.write(folder / f"{RESUMED_AGAIN}.jsonl")


def both_readings(path: Path) -> tuple[list, list]:
    """A transcript's messages read line by line, each closed message let go as a long
    session's are, and read whole: the two must be equal."""
    from exporter.adapters import claude_mainfile
    from exporter.adapters.claude_transcript import TranscriptBuilder, build_transcript

    records = list(claude_mainfile.read_records(path, [], claude_mainfile.FileMeta()))
    builder, streamed = TranscriptBuilder(), []
    for rec in records:
        builder.add(rec)
        streamed += builder.closed({})
    streamed += builder.finish({}).messages
    return streamed, list(build_transcript(records, {}).messages)


def cowork_task(desktop: Path, session_id: str, sidecar: dict[str, Any]) -> Path:
    """A Claude Desktop Cowork task under the app's folder ``desktop``: its own Claude Code
    home holding one short session, and its sidecar (``cliSessionId`` added); the task's
    folder is returned."""
    workspace = desktop / "local-agent-mode-sessions" / "org1" / "ws1"
    task = ClaudeSession(session_id, cwd="/sessions/brave-otter")
    task.user("tidy the photo folder")
    task.assistant("Sorted 40 photos by date.")
    task.write(workspace / "local_t1" / ".claude" / "projects" / "-sessions-brave-otter"
               / f"{session_id}.jsonl")  # fmt: skip
    (workspace / "local_t1.json").write_text(json.dumps({"cliSessionId": session_id, **sidecar}))
    return workspace / "local_t1"
