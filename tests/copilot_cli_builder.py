"""Builds synthetic GitHub Copilot CLI session logs (FORMATS.md §6.6 event shapes).

Everything is invented. ``CopilotCliSession`` appends events with chained ``parentId``s and
a ticking clock, and writes them in the current layout (``<id>/events.jsonl`` with an
optional ``workspace.yaml``) or the legacy flat ``<id>.jsonl``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


class CopilotCliSession:
    def __init__(
        self,
        session_id: str,
        cwd: str = "/home/dev/work/api",
        *,
        start: str = "2026-06-01T09:00:00Z",
        model: str | None = "claude-sonnet-4.5",
        branch: str = "main",
    ) -> None:
        self.session_id = session_id
        self.clock = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)
        self.events: list[dict[str, Any]] = []
        self._n = 0
        context = {
            "cwd": cwd,
            "gitRoot": cwd,
            "branch": branch,
            "headCommit": "0" * 40,
            "repository": "dev/api",
            "repositoryHost": "github.com",
            "hostType": "github",
        }
        data: dict[str, Any] = {
            "sessionId": session_id,
            "version": 1,
            "producer": "copilot-agent",
            "copilotVersion": "1.0.80",
            "startTime": self.stamp(0),
            "context": context,
        }
        if model:
            data["selectedModel"] = model
        self.event("session.start", data)

    def stamp(self, seconds: float = 1) -> str:
        self.clock += timedelta(seconds=seconds)
        return self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def event(self, kind: str, data: dict[str, Any], **envelope: Any) -> dict[str, Any]:
        self._n += 1
        parent = self.events[-1]["id"] if self.events else None
        event = {
            "type": kind,
            "data": data,
            "id": f"ev-{self._n:04d}",
            "timestamp": self.stamp(),
            "parentId": parent,
            **envelope,
        }
        self.events.append(event)
        return event

    def user(self, content: str, **more: Any) -> dict[str, Any]:
        return self.event(
            "user.message",
            {
                "content": content,
                "attachments": [],
                "transformedContent": f"<ctx>now</ctx>{content}",
                **more,
            },
        )

    def assistant(
        self, content: str = "", requests: list[dict[str, Any]] | None = None, **more: Any
    ) -> dict[str, Any]:
        data = {
            "messageId": f"msg-{self._n}",
            "content": content,
            "toolRequests": requests or [],
            "outputTokens": 20,
            **more,
        }
        return self.event("assistant.message", data)

    def tool(
        self,
        call_id: str,
        name: str,
        arguments: dict[str, Any],
        output: str,
        *,
        success: bool = True,
        detailed: str | None = None,
        contents: list[dict[str, Any]] | None = None,
        **envelope: Any,
    ) -> None:
        self.event(
            "tool.execution_start",
            {"toolCallId": call_id, "toolName": name, "arguments": arguments},
            **envelope,
        )
        result: dict[str, Any] = {"content": output}
        if detailed is not None:
            result["detailedContent"] = detailed
        if contents is not None:
            result["contents"] = contents
        self.event(
            "tool.execution_complete",
            {
                "toolCallId": call_id,
                "success": success,
                "result": result,
                "toolTelemetry": {"metrics": {"durationMs": 1500}},
            },
            **envelope,
        )

    def shutdown(self, metrics: dict[str, dict[str, int]], **totals: Any) -> None:
        self.event(
            "session.shutdown",
            {
                "shutdownType": "routine",
                "sessionStartTime": 1780304400000,
                "modelMetrics": {
                    m: {"requests": {"count": 1, "cost": 1}, "usage": u} for m, u in metrics.items()
                },
                **totals,  # (totalPremiumRequests, …)
            },
        )

    def lines(self) -> str:
        return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in self.events)

    def write(self, root: Path, workspace: str | None = None) -> Path:
        """``<root>/session-state/<id>/events.jsonl`` (and ``workspace.yaml`` if given)."""
        folder = root / "session-state" / self.session_id
        folder.mkdir(parents=True, exist_ok=True)
        if workspace is not None:
            (folder / "workspace.yaml").write_text(workspace, encoding="utf-8")
        path = folder / "events.jsonl"
        path.write_text(self.lines(), encoding="utf-8")
        return path

    def write_legacy(self, root: Path) -> Path:
        path = root / "session-state" / f"{self.session_id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.lines(), encoding="utf-8")
        return path


def request(call_id: str, name: str, arguments: Any, **more: Any) -> dict[str, Any]:
    """A ``toolRequests`` entry; ``arguments`` may be a JSON string, as in some versions."""
    return {"toolCallId": call_id, "name": name, "arguments": arguments, "type": "function", **more}
