"""Demo data for the Cline family: ``write(home)`` adds it to a demo home.

Invented sessions showing what the reader handles: a Cline task in VS Code (reasoning, file
tools, a command with its output, an MCP call, a question, cost per request, a model
switch), a Roo Code task on Windows with a condensed context, a Zoo Code task in VSCodium on
Linux, a legacy Kilo Code task known only from the model's history, and a Cline 4 session with its index, an attached file and a
subagent. (A half-written task file is covered by tests/test_cline_adapter.py, not here:
the demo export exits 0.)
"""

from __future__ import annotations

import json
from pathlib import Path

import cline_builder as cb

CLINE_TASK = "1764059100000"
ROO_TASK = "5b1e2c4d-6f70-4a8b-9c0d-1e2f3a4b5c6d"
ZOO_TASK = "9e3f4a5b-6c7d-4e8f-a0b1-c2d3e4f5a6b7"
KILO_TASK = "7c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
SDK_SESSION = "1764145500000_demo1"


def write(home: Path) -> None:
    _cline_task(home)
    _roo_task(home)
    _zoo_task(home)
    _kilo_task(home)
    _cline_sdk(home)


def _cline_task(home: Path) -> None:
    root = cb.storage(home, cb.CLINE)
    ui = [
        cb.say(0, "task", "Add a `--dry-run` flag to `sync.py` that prints what would change"),
        cb.api_request(1, 4210, 380, 0.0189, cache_reads=3100, cache_writes=900),
        cb.say(2, "reasoning", "The flag has to reach `apply_changes`; check how it is called."),
        cb.say(3, "text", "I'll look at how `sync.py` applies changes first."),
        cb.tool(4, "readFile", path="sync.py", content="/home/dev/work/syncer/sync.py"),
        cb.tool(5, "searchFiles", path=".", regex="apply_changes",
                content="sync.py:41: def apply_changes(plan):\nsync.py:88:     apply_changes(plan)"),
        cb.tool(6, "editedExistingFile", kind="ask", path="sync.py",
                diff="@@ -85,3 +85,6 @@\n+    if args.dry_run:\n+        print_plan(plan)\n+        return 0\n"),
        cb.ask(7, "command", "python -m pytest -q tests/test_sync.py"),
        cb.say(8, "command_output", "....                                   [100%]"),
        cb.say(9, "command_output", "4 passed in 0.12s"),
        cb.api_request(10, 5020, 210, 0.0114, cache_reads=4200),
        cb.ask(11, "followup", json.dumps({"question": "Should `--dry-run` also skip the lock file?",
                                           "options": ["Yes, skip it", "No, take the lock"]})),
        cb.say(12, "user_feedback", "yes, skip the lock — nothing is written anyway"),
        cb.ask(13, "use_mcp_server", json.dumps({"type": "use_mcp_tool", "serverName": "github",
               "toolName": "search_issues", "arguments": json.dumps({"q": "dry-run lock"})})),
        cb.say(14, "mcp_server_response", "#12 dry-run should not take the lock (open)"),
        cb.api_request(15, 5600, 160, 0.0131, cache_reads=5000),
        cb.say(16, "completion_result",
               "`--dry-run` prints the plan and returns before taking the lock (closes #12)."),
    ]  # fmt: skip
    metadata = {"files_in_context": [], "model_usage": [
        {"ts": cb.ts(0), "model_id": "claude-sonnet-4-5", "model_provider_id": "anthropic", "mode": "act"},
        {"ts": cb.ts(10), "model_id": "claude-haiku-4-5", "model_provider_id": "anthropic", "mode": "act"},
    ]}  # fmt: skip
    cb.task(root, CLINE_TASK, ui=ui, metadata=metadata)
    cb.history(root, [cb.history_item(CLINE_TASK, "Add a --dry-run flag to sync.py",
                                      cwdOnTaskInitialization="/home/dev/work/syncer",
                                      modelId="claude-sonnet-4-5", isFavorited=True)])  # fmt: skip


def _roo_task(home: Path) -> None:
    root = cb.storage(home, cb.ROO, layout="windows")
    ui = [
        cb.say(0, "task", "Why does `Build.ps1` fail on a path with spaces?"),
        cb.api_request(1, 2300, 150, 0.0082),
        cb.say(2, "text", "Paths with spaces need quoting: `& \"$PSScriptRoot\\tools\\pack.exe\"`."),
        cb.say(3, "condense_context", "", contextCondense={
            "summary": "Build.ps1 called pack.exe with an unquoted path; quoting it fixed the build.",
            "cost": 0.002, "prevContextTokens": 41000, "newContextTokens": 900}),
        cb.say(4, "user_feedback", "works now, thanks"),
        cb.say(5, "completion_result", "Quoted the tool path in `Build.ps1`."),
    ]  # fmt: skip
    cb.task(root, ROO_TASK, ui=ui)
    cb.history(root, [cb.history_item(ROO_TASK, "Why does Build.ps1 fail on a path with spaces?",
                                      workspace="C:\\Users\\dev\\work\\win-build")])  # fmt: skip


def _zoo_task(home: Path) -> None:
    root = cb.storage(home, cb.ZOO, editor="VSCodium")
    day = 2 * 86_400  # two days after the Roo task, in seconds
    ui = [
        cb.say(day, "task", "Why does `export_csv` drop the last row?"),
        cb.api_request(day + 1, 3100, 180, 0.0121),
        cb.tool(day + 2, "readFile", path="src/export.py"),
        cb.say(day + 3, "text", "`rows[:-1]` skips the last row; the header is not in `rows`."),
        cb.api_request(day + 4, 3600, 90, 0.0063),
        cb.say(day + 5, "completion_result", "Changed `rows[:-1]` to `rows` in `export_csv`."),
    ]  # fmt: skip
    cb.task(root, ZOO_TASK, ui=ui)
    cb.history(root, [cb.history_item(ZOO_TASK, "Why does export_csv drop the last row?",
                                      ts=cb.ts(day), workspace="/home/dev/work/csv-report")])  # fmt: skip


def _kilo_task(home: Path) -> None:
    root = cb.storage(home, cb.KILO, layout="mac")
    env = ("<environment_details>\n# Current Working Directory (/Users/dev/work/kilo-notes) "
           "Files\nnotes.md\n</environment_details>")  # fmt: skip
    cb.task(root, KILO_TASK, api=[
        cb.message("user", cb.text("<task>\nTurn the TODO list in notes.md into a table\n</task>"),
                   cb.text(env)),
        cb.message("assistant", cb.text("<read_file>\n<path>notes.md</path>\n</read_file>")),
        cb.message("user", cb.text("[read_file for 'notes.md'] Result:\n- [ ] backup\n- [x] sync"),
                   cb.text(env)),
        cb.message("assistant", cb.text("| task | done |\n| --- | --- |\n| backup | no |\n| sync | yes |")),
    ])  # fmt: skip
    cb.history(root, [cb.history_item(KILO_TASK, "Turn the TODO list in notes.md into a table",
                                      ts=cb.START + 3 * 86_400_000)])  # fmt: skip


def _cline_sdk(home: Path) -> None:
    data = home / ".cline" / "data"
    cb.sdk_session(data, SDK_SESSION, [
        cb.message("user", cb.text("Explain what `retry()` in net.ts does"),
                   {"type": "file", "path": "/home/dev/work/fetcher/src/net.ts",
                    "content": "export async function retry(f, n = 3) { /* … */ }\n"}, n=0),
        cb.message("assistant", {"type": "thinking", "thinking": "Delegate the call-site search."},
                   cb.tool_use("toolu_demo_1", "use_subagents",
                               {"tasks": [{"prompt": "find every caller of retry()"}]}),
                   n=1, modelInfo={"id": "anthropic/claude-sonnet-4.5", "provider": "cline"},
                   **cb.metrics(8200, 120, 0.0281, read=7000)),
        cb.message("user", cb.tool_result("toolu_demo_1", "2 callers: api.ts:14, sync.ts:52"), n=2),
        cb.message("assistant", cb.text("`retry()` calls `f` up to 3 times, doubling the wait."),
                   n=3, modelInfo={"id": "anthropic/claude-sonnet-4.5", "provider": "cline"},
                   **cb.metrics(8500, 60, 0.0094, read=8100)),
    ], manifest={"cwd": "/home/dev/work/fetcher", "model": "anthropic/claude-sonnet-4.5",
                 "started_at": "2025-11-07T07:19:30.000Z", "status": "completed"},
       agents={"agent_callers": [
           cb.message("user", "find every caller of retry()", n=1),
           cb.message("assistant", cb.tool_use("toolu_demo_2", "search_codebase", {"query": "retry("}), n=1),
           cb.message("user", cb.tool_result("toolu_demo_2", [{"query": "retry(", "result": "api.ts:14\nsync.ts:52"}]), n=2),
           cb.message("assistant", cb.text("2 callers: api.ts:14, sync.ts:52"), n=2),
       ]})  # fmt: skip
    cb.sessions_db(data, [{"session_id": SDK_SESSION, "source": "cli", "status": "completed",
                           "cwd": "/home/dev/work/fetcher", "model": "anthropic/claude-sonnet-4.5",
                           "started_at": "2025-11-07T07:19:30.000Z",
                           "metadata_json": json.dumps({"title": "What retry() does"})}])  # fmt: skip
