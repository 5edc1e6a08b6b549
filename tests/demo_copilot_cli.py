"""Demo data for the GitHub Copilot CLI: ``write(home)`` adds it to a demo home.

Invented sessions: one in the current layout with a ``workspace.yaml`` title, reasoning,
tool calls (a diff as the full result), a sub-agent, a model switch, a compaction and token
totals; one in the legacy flat layout from a Windows machine, with a failed command and
an interruption.
"""

from __future__ import annotations

from pathlib import Path

from copilot_cli_builder import CopilotCliSession, request

API_ID = "b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e"
WIN_ID = "e0d1c2b3-a4f5-4e6d-9c7b-8a9f0e1d2c3b"


def write(home: Path) -> None:
    root = home / ".copilot"
    _api(root)
    _windows(root)


def _api(root: Path) -> None:
    s = CopilotCliSession(
        API_ID,
        "/home/dev/work/api",
        start="2026-11-24T10:15:00Z",
        model="claude-sonnet-4.5",
        branch="feat/rate-limit",
    )
    s.event("session.model_change", {"newModel": "claude-sonnet-4.5", "previousModel": "auto"})
    s.event("system.message", {"content": "You are the GitHub Copilot CLI.", "role": "system"})
    s.user("Add rate limiting to `POST /notes` — 10 requests per minute per user, please.")
    s.event("assistant.turn_start", {"turnId": "0"})
    s.event(
        "assistant.reasoning",
        {"reasoningId": "r1", "content": "Find where routes are registered, then add a limiter."},
    )
    s.assistant(
        "Let me find where the routes are registered.",
        [
            request(
                "call-grep",
                "grep",
                '{"pattern": "app.post", "path": "src"}',
                intentionSummary="Find route registrations",
            )
        ],
        reasoningText="Find where routes are registered, then add a limiter.",
        model="claude-sonnet-4.5",
    )
    s.tool(
        "call-grep",
        "grep",
        {"pattern": "app.post", "path": "src"},
        "src/routes.ts:14: app.post('/notes', createNote)",
    )
    s.assistant(
        "Delegating the test search to a sub-agent.",
        [
            request(
                "call-task",
                "task",
                {"prompt": "Find the tests that cover POST /notes", "agent_type": "explore"},
                intentionSummary="Find the POST /notes tests",
            )
        ],
        model="claude-sonnet-4.5",
    )
    s.event(
        "subagent.started",
        {"toolCallId": "call-task", "agentName": "explore", "agentDisplayName": "Explore agent"},
        agentId="explore-1",
    )
    s.event(
        "assistant.message",
        {
            "content": "Searching the test folder.",
            "toolRequests": [request("sub-1", "glob", {"pattern": "test/**/notes*.ts"})],
        },
        agentId="explore-1",
    )
    s.tool(
        "sub-1", "glob", {"pattern": "test/**/notes*.ts"}, "test/notes.test.ts", agentId="explore-1"
    )
    s.event(
        "assistant.message",
        {"content": "`test/notes.test.ts` covers POST /notes.", "toolRequests": []},
        agentId="explore-1",
    )
    s.event(
        "subagent.completed",
        {
            "toolCallId": "call-task",
            "agentName": "explore",
            "model": "claude-haiku-4.5",
            "totalToolCalls": 1,
        },
        agentId="explore-1",
    )
    s.event(
        "tool.execution_complete",
        {
            "toolCallId": "call-task",
            "success": True,
            "result": {"content": "test/notes.test.ts covers it."},
        },
    )
    s.assistant(
        "",
        [
            request(
                "call-edit", "edit", {"path": "src/routes.ts"}, intentionSummary="Add the limiter"
            )
        ],
    )
    s.tool(
        "call-edit",
        "edit",
        {"path": "src/routes.ts"},
        "File updated",
        detailed="-app.post('/notes', createNote)\n+app.post('/notes', limit(10, '1m'), createNote)",
    )
    s.event("hook.start", {"hookInvocationId": "h1", "hookType": "postToolUse"})
    s.event("hook.end", {"hookInvocationId": "h1", "success": True})
    s.assistant("Done: `POST /notes` now allows 10 requests per minute per user.")
    s.event("assistant.turn_end", {"turnId": "0"})
    s.event("session.model_change", {"newModel": "gpt-5", "reasoningEffort": "high"})
    s.event(
        "session.compaction_complete",
        {
            "success": True,
            "summaryContent": "The user asked for rate limiting on POST /notes; a limiter was added in routes.ts.",
        },
    )
    s.user("Now return `Retry-After` on 429 responses.")
    s.assistant(
        "Added a `Retry-After` header with the seconds until the window resets.", model="gpt-5"
    )
    s.shutdown(
        {
            "claude-sonnet-4.5": {
                "inputTokens": 48000,
                "outputTokens": 1900,
                "cacheReadTokens": 30000,
                "cacheWriteTokens": 0,
            },
            "gpt-5": {
                "inputTokens": 9000,
                "outputTokens": 400,
                "cacheReadTokens": 0,
                "cacheWriteTokens": 0,
            },
        },
        totalPremiumRequests=3,
    )
    s.write(root, workspace="name: Rate limit for POST /notes\ncwd: /home/dev/work/api\n")


def _windows(root: Path) -> None:
    s = CopilotCliSession(
        WIN_ID,
        "C:\\Users\\dev\\work\\win-app",
        start="2026-11-25T18:00:00Z",
        model=None,
        branch="main",
    )
    s.event("session.model_change", {"newModel": "gpt-4.1"})
    s.user("Warum schlägt `cargo test` fehl? Bitte die Ausgabe prüfen.")
    s.assistant("", [request("c1", "powershell", {"command": "cargo test"})], model="gpt-4.1")
    s.tool(
        "c1",
        "powershell",
        {"command": "cargo test"},
        "error[E0425]: cannot find value `größe` in this scope",
        success=False,
    )
    s.assistant(
        "`größe` ist nicht definiert: in `src\\lib.rs` heißt die Variable `groesse`.",
        model="gpt-4.1",
    )
    s.event("abort", {"reason": "user"})
    s.write_legacy(root)
