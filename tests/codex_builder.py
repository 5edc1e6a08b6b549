"""Builds synthetic Codex CLI rollouts (FORMATS.md §2 shapes), in every generation.

Everything here is invented: ids, paths and text. ``CodexRollout`` writes the current
enveloped JSONL; ``bare_lines`` turns it into the early-Rust shape, ``ts_document`` into
the TypeScript CLI's JSON document.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ENV_CONTEXT = (
    "<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
    "  <sandbox_mode>workspace-write</sandbox_mode>\n  <shell>zsh</shell>\n</environment_context>"
)


class CodexRollout:
    def __init__(
        self,
        thread_id: str,
        cwd: str = "/home/dev/work/api",
        *,
        start: str = "2026-03-10T08:00:00Z",
        model: str = "gpt-5-codex",
        source: Any = "cli",
        git: dict[str, str] | None = None,
        forked_from: str | None = None,
        meta: bool = True,
        meta_fields: dict[str, Any] | None = None,
    ) -> None:
        self.thread_id = thread_id
        self.cwd = cwd
        self.clock = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)
        self.lines: list[dict[str, Any]] = []
        self.model = model
        self._n = 0
        if meta:
            payload: dict[str, Any] = {
                "id": thread_id,
                "timestamp": self.stamp(),
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "cli_version": "0.63.0",
                "instructions": None,
                "source": source,
                "git": git if git is not None else {"branch": "main", "commit_hash": "0" * 40,
                                                    "repository_url": "git@example.invalid:dev/api.git"},
            }  # fmt: skip
            if forked_from:
                payload["forked_from_id"] = forked_from
            payload.update(meta_fields or {})  # (originator, model_provider, …)
            self.envelope("session_meta", payload)

    def stamp(self, seconds: float = 1) -> str:
        self.clock += timedelta(seconds=seconds)
        return self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def envelope(self, kind: str, payload: dict[str, Any]) -> CodexRollout:
        self.lines.append({"timestamp": self.stamp(), "type": kind, "payload": payload})
        return self

    def item(self, payload: dict[str, Any]) -> CodexRollout:
        return self.envelope("response_item", payload)

    def event(self, payload: dict[str, Any]) -> CodexRollout:
        return self.envelope("event_msg", payload)

    def call_id(self) -> str:
        self._n += 1
        return f"call_{self.thread_id[:4]}_{self._n}"

    # -- conversation ------------------------------------------------------------------

    def turn(self, model: str | None = None) -> CodexRollout:
        return self.envelope("turn_context", {"cwd": self.cwd, "approval_policy": "on-request",
                                              "model": model or self.model, "summary": "auto"})  # fmt: skip

    def context(self) -> CodexRollout:
        text = ENV_CONTEXT.format(cwd=self.cwd)
        return self.item(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        )

    def user(
        self, text: str, *, events: bool = True, images: list[str] | None = None
    ) -> CodexRollout:
        content: list[dict[str, Any]] = [{"type": "input_text", "text": text}]
        content += [{"type": "input_image", "image_url": url} for url in images or []]
        self.item({"type": "message", "role": "user", "content": content})
        if events:
            self.event(
                {"type": "user_message", "message": text, "kind": "plain", "images": images or []}
            )
        return self.turn()

    def user_with_local_images(
        self,
        text: str,
        urls: list[str | None],
        *,
        event_first: bool = False,
        model_copy: bool = True,
    ) -> CodexRollout:
        """A prompt with images attached from files (a pasted screenshot, newer Codex): the
        model's copy holds each image's bytes, wrapped in ``<image>`` tags; the UI copy
        names only their paths. A ``None`` url: Codex could not read that file, and the
        model's copy says so in a text of its own in place of the image. ``model_copy``
        False: the rollout holds the UI copy alone."""
        content: list[dict[str, Any]] = [{"type": "input_text", "text": text}]
        paths = [f"/tmp/codex-clipboard-{n}.png" for n in range(1, len(urls) + 1)]
        for n, (url, path) in enumerate(zip(urls, paths, strict=True), start=1):
            if url is None:
                unread = f"Codex could not read the local image at `{path}`: No such file or directory (os error 2)"
                content.append({"type": "input_text", "text": unread})
                continue
            content += [
                {"type": "input_text", "text": f"<image name=[Image #{n}]>"},
                {"type": "input_image", "image_url": url},
                {"type": "input_text", "text": "</image>"},
            ]
        event = {"type": "user_message", "message": text, "images": [], "local_images": paths,
                 "text_elements": []}  # fmt: skip
        if event_first or not model_copy:
            self.event(event)
            self.event({"type": "task_started", "turn_id": "t1"})
        if model_copy:
            self.item({"type": "message", "role": "user", "content": content})
        if not event_first and model_copy:
            self.event(event)
        return self.turn()

    def developer(self, text: str) -> CodexRollout:
        return self.item(
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": text}],
            }
        )

    def assistant(
        self, text: str, *, events: bool = True, event_first: bool = False
    ) -> CodexRollout:
        item = {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text}],
        }
        event = {"type": "agent_message", "message": text}
        if event_first and events:
            self.event(event)
        self.item(item)
        if events and not event_first:
            self.event(event)
        return self

    def reasoning(self, summary: str, *, events: bool = True) -> CodexRollout:
        if events:
            self.event({"type": "agent_reasoning", "text": summary})
        return self.item({"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}],
                          "content": None, "encrypted_content": "gAAAAB-opaque-SECRET-BLOB"})  # fmt: skip

    def shell(
        self, argv: list[str], output: str, *, exit_code: int = 0, wrapped: bool = True
    ) -> str:
        cid = self.call_id()
        args = json.dumps({"command": argv, "workdir": self.cwd, "timeout_ms": 10000})
        self.item({"type": "function_call", "name": "shell", "arguments": args, "call_id": cid})
        out = json.dumps(
            {"output": output, "metadata": {"exit_code": exit_code, "duration_seconds": 0.4}}
        )
        self.item(
            {"type": "function_call_output", "call_id": cid, "output": out if wrapped else output}
        )
        return cid

    def patch(
        self, patch: str, result: str = "Success. Updated the following files:\nM app.py\n"
    ) -> str:
        cid = self.call_id()
        self.item(
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": cid,
                "name": "apply_patch",
                "input": patch,
            }
        )
        out = json.dumps({"output": result, "metadata": {"exit_code": 0, "duration_seconds": 0.0}})
        self.item({"type": "custom_tool_call_output", "call_id": cid, "output": out})
        return cid

    def spawn_agent(
        self,
        message: str,
        output: Any,
        *,
        agent_type: str | None = None,
        spawned: str | None = None,
        task: str | None = None,
        activity: tuple[str, str] | None = None,
    ) -> str:
        """A ``spawn_agent`` call (multi-agent Codex) and its output (JSON as text when not
        text already: ``{"agent_id": …}`` in the first version, ``{"task_name": …}`` in the
        second); ``spawned``: the thread its ``collab_agent_spawn_end`` event names; ``task``:
        the task name the call gives (the second version's); ``activity``: (thread, agent
        path) its ``sub_agent_activity`` event names (newer builds of the second version)."""
        cid = self.call_id()
        args = {"message": message, **({"task_name": task} if task else {}),
                **({"agent_type": agent_type} if agent_type else {})}  # fmt: skip
        self.item({"type": "function_call", "name": "spawn_agent", "arguments": json.dumps(args),
                   "call_id": cid})  # fmt: skip
        if activity is not None:
            self.event({"type": "sub_agent_activity", "event_id": cid, "occurred_at_ms": 0,
                        "agent_thread_id": activity[0], "agent_path": activity[1],
                        "kind": "started"})  # fmt: skip
        if spawned is not None:
            self.event({"type": "collab_agent_spawn_end", "call_id": cid,
                        "sender_thread_id": self.thread_id, "new_thread_id": spawned,
                        "new_agent_nickname": "Ada", "new_agent_role": agent_type,
                        "prompt": message, "model": self.model, "status": "pending_init"})  # fmt: skip
        text = output if isinstance(output, str) else json.dumps(output)
        self.item({"type": "function_call_output", "call_id": cid, "output": text})
        return cid

    def local_shell(self, argv: list[str], output: str) -> str:
        cid = self.call_id()
        self.item({"type": "local_shell_call", "call_id": cid, "status": "completed",
                   "action": {"type": "exec", "command": argv, "working_directory": self.cwd}})  # fmt: skip
        self.item({"type": "function_call_output", "call_id": cid, "output": output})
        return cid

    def view_image(self, path: str, png: bytes) -> CodexRollout:
        """A view_image call whose output is the file's name and the image (a data URL)."""
        self.item({"type": "function_call", "name": "view_image", "call_id": "c1",
                   "arguments": json.dumps({"path": path})})  # fmt: skip
        url = "data:image/png;base64," + base64.b64encode(png).decode()
        output = [{"type": "input_text", "text": path}, {"type": "input_image", "image_url": url}]
        return self.item({"type": "function_call_output", "call_id": "c1", "output": output})

    def web_search(self, query: str) -> CodexRollout:
        return self.item(
            {
                "type": "web_search_call",
                "status": "completed",
                "action": {"type": "search", "query": query},
            }
        )

    def tokens(self, input_tokens: int, cached: int, output: int) -> CodexRollout:
        usage = {"input_tokens": input_tokens, "cached_input_tokens": cached, "output_tokens": output,
                 "reasoning_output_tokens": 0, "total_tokens": input_tokens + output}  # fmt: skip
        return self.event(
            {"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage}}
        )

    def shell_command_by_user(self, command: str, result: str) -> CodexRollout:
        text = f"<user_shell_command>\n<command>{command}</command>\n<result>\n{result}\n</result>\n</user_shell_command>"
        return self.item(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        )

    def compacted(self, summary: str) -> CodexRollout:
        self.event({"type": "context_compacted"})
        return self.envelope("compacted", {"message": summary, "replacement_history": []})

    def aborted(self) -> CodexRollout:
        return self.event({"type": "turn_aborted", "reason": "interrupted"})

    # -- files -------------------------------------------------------------------------

    def text(self) -> str:
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines)

    def filename(self, ext: str = "jsonl") -> str:
        stamp = (
            self.lines[0]["timestamp"][:19].replace(":", "-")
            if self.lines
            else "2026-01-01T00-00-00"
        )
        return f"rollout-{stamp}-{self.thread_id}.{ext}"

    def write(self, codex_home: Path, folder: str = "sessions") -> Path:
        day = self.clock.strftime("%Y/%m/%d")
        path = codex_home / folder / day / self.filename()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(), encoding="utf-8")
        return path


def bare_lines(rollout: CodexRollout) -> str:
    """The early-Rust shape: a bare header, bare response items, ``record_type`` filler."""
    out = []
    for line in rollout.lines:
        if line["type"] == "session_meta":
            p = line["payload"]
            out.append(
                {
                    "id": p["id"],
                    "timestamp": p["timestamp"],
                    "instructions": None,
                    "git": p.get("git"),
                }
            )
        elif line["type"] == "response_item":
            out.append(line["payload"])
            out.append({"record_type": "state"})
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in out)


def ts_document(rollout: CodexRollout) -> str:
    """The TypeScript CLI's whole-session JSON document."""
    meta = next(x["payload"] for x in rollout.lines if x["type"] == "session_meta")
    items = [x["payload"] for x in rollout.lines if x["type"] == "response_item"]
    doc = {
        "session": {"timestamp": meta["timestamp"], "id": meta["id"], "instructions": ""},
        "items": items,
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


def write_generation(rollout: CodexRollout, folder: Path, generation: str) -> Path:
    """Write ``rollout`` into ``folder`` as one of Codex's file generations: ``envelope``
    (today's JSONL), ``bare`` (the early JSONL), ``document`` (the TypeScript CLI's JSON),
    or ``zst`` (today's, compressed)."""
    folder.mkdir(parents=True, exist_ok=True)
    if generation == "envelope":
        path = folder / rollout.filename()
        path.write_text(rollout.text())
    elif generation == "bare":
        path = folder / rollout.filename()
        path.write_text(bare_lines(rollout))
    elif generation == "document":
        path = folder / rollout.filename("json")
        path.write_text(ts_document(rollout))
    else:
        import zstandard

        path = folder / (rollout.filename() + ".zst")
        path.write_bytes(zstandard.ZstdCompressor().compress(rollout.text().encode()))
    return path
