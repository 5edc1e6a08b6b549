"""Builds synthetic VS Code chat sessions (FORMATS.md §5.3 shapes) and their mutation logs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

START = 1762500000000  # 2025-11-07T07:20:00Z, in ms


def markdown(text: str) -> dict[str, Any]:
    return {"value": text, "supportThemeIcons": False, "supportHtml": False}


def request(
    n: int,
    prompt: str,
    response: list[Any],
    *,
    model: str = "copilot/gpt-5",
    state: int = 1,
    **extra: Any,
) -> dict[str, Any]:
    sent = START + n * 60_000
    return {
        "requestId": f"request_{n}",
        "timestamp": sent,
        "message": {"text": prompt, "parts": [{"kind": "text", "text": prompt}]},
        "variableData": {"variables": []},
        "response": response,
        "responseId": f"response_{n}",
        "modelId": model,
        "modelState": {"value": state, "completedAt": sent + 5_000},
        "result": {"timings": {"firstProgress": 800, "totalElapsed": 5_000}},
        **extra,
    }


def terminal_tool(call_id: str, command: str, output: str) -> dict[str, Any]:
    return {
        "kind": "toolInvocationSerialized", "toolId": "run_in_terminal", "toolCallId": call_id,
        "invocationMessage": {"value": f"Running `{command}`"}, "pastTenseMessage": {"value": f"Ran `{command}`"},
        "isConfirmed": {"type": 1}, "isComplete": True,
        "toolSpecificData": {"kind": "terminal", "commandLine": {"original": command}, "language": "sh"},
        "resultDetails": {"input": command, "output": [{"type": "embed", "isText": True, "value": output}], "isError": False},
    }  # fmt: skip


def tsx_result(*chunks: str) -> dict[str, Any]:
    """A tool result as Copilot keeps it: prompt-tsx elements holding text chunks (the
    first a block: a chunk that asks for a line break before it)."""
    nodes = [
        {"type": 1, "children": [{"type": 2, "text": c, "lineBreakBefore": i == 0}]}
        for i, c in enumerate(chunks)
    ]
    return {
        "$mid": 20,
        "content": [{"$mid": 23, "value": {"node": {"type": 1, "children": nodes}}}],
    }


def session(session_id: str, requests: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "version": 3,
        "sessionId": session_id,
        "creationDate": START - 10_000,
        "initialLocation": "panel",
        "responderUsername": "GitHub Copilot",
        "requests": requests,
        "pendingRequests": [{"requestId": "queued", "message": {"text": "QUEUED-NOT-SENT"}}],
        "inputState": {"inputText": "DRAFT-NOT-SENT"},
        **extra,
    }


def log_lines(entries: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)


def write(path: Path, content: str | dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        content if isinstance(content, str) else json.dumps(content, indent=1), encoding="utf-8"
    )
    return path
