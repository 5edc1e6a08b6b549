"""The Cline family: Cline, Roo Code, Zoo Code and the legacy Kilo Code extension, in their
three storage generations (FORMATS.md §6.2).

Generation A/B fixtures follow the Cline 3.x schema (``ClineMessage``, ``HistoryItem``,
``task_metadata.json``); the Roo Code ones Roo Code 3.x (``HistoryItem.workspace``,
``condense_context``), as do the Zoo Code ones (its fork, same files), the Kilo ones Kilo Code 4.x before its rebuild (task files only, no
``model_usage``). No real sample of those could be redistributed. Generation C follows the
Cline 4 SDK (messages file version 1, the ``sessions`` table), of which the corpus holds a
real session (tests/test_corpus_cline.py).
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

import cline_builder as cb
import pytest
from conftest import load_sessions, note_files, texts
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from exporter.adapters import SourceContext
from exporter.adapters.cline import ClineAdapter, KiloCodeAdapter, RooCodeAdapter, ZooCodeAdapter
from exporter.adapters.cline.blocks import parse_messages
from exporter.adapters.cline.ui import parse_ui
from exporter.cli import app
from exporter.export import ExportOptions, run_export
from exporter.model import (
    AttachmentPart,
    NoticePart,
    SummaryPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()


def cline_task_ui() -> list[dict]:
    """Every kind of ``ui_messages.json`` entry the reader turns into something."""
    return [
        cb.say(0, "task", "Add a --verbose flag to cli.py"),
        cb.api_request(1, 1200, 300, 0.0123, cache_reads=800, cache_writes=100),
        cb.say(2, "reasoning", "The flag belongs in the argument parser."),
        cb.say(3, "text", "I'll read cli.py first."),
        cb.tool(4, "readFile", path="cli.py", content="/home/me/tool/cli.py"),
        cb.tool(5, "listFilesTopLevel", path=".", content="cli.py\nREADME.md"),
        cb.tool(6, "editedExistingFile", kind="ask", path="cli.py", diff="+ --verbose"),
        cb.ask(7, "command", "pytest -q"),
        cb.say(8, "command_output", "..."),
        cb.say(9, "command_output", "3 passed"),
        cb.ask(
            10,
            "use_mcp_server",
            json.dumps(
                {
                    "type": "use_mcp_tool",
                    "serverName": "docs",
                    "toolName": "search",
                    "arguments": json.dumps({"q": "argparse"}),
                }
            ),
        ),  # fmt: skip
        cb.say(11, "mcp_server_response", "argparse docs"),
        cb.api_request(12, 2000, 100, 0.02),
        cb.ask(
            13, "followup", json.dumps({"question": "Short flag too?", "options": ["-v", "none"]})
        ),
        cb.say(14, "user_feedback", "yes, -v", images=[f"data:image/png;base64,{PNG}"]),
        cb.say(15, "text", "Adding -v as wel", partial=True),  # streaming leftover
        cb.say(16, "error", "Cline tried to use write_to_file without value for 'path'."),
        cb.say(17, "checkpoint_created"),
        cb.api_request(17, 100, 0, 0.001, cancelReason="user_cancelled"),
        cb.say(18, "completion_result", "Added --verbose and -v."),
        cb.say(19, "brand_new_kind", "?"),
    ]


def test_a_cline_task_folder_becomes_a_session_with_every_kind_of_entry(tmp_path):
    """Cline 3.x schema (no real sample of a task folder could be redistributed)."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000000", ui=cline_task_ui(), metadata={
        "files_in_context": [],
        "model_usage": [
            {"ts": cb.ts(0), "model_id": "claude-sonnet-4-5", "model_provider_id": "anthropic", "mode": "act"},
            {"ts": cb.ts(12), "model_id": "gpt-5", "model_provider_id": "openai", "mode": "act"},
        ]})  # fmt: skip
    cb.history(root, [cb.history_item("1762500000000", "Add a --verbose flag\nto cli.py",
                                      cwdOnTaskInitialization="/home/me/tool")])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert session.source == "cline" and session.session_id == "1762500000000"
    assert session.title == "Add a --verbose flag to cli.py"  # the index's task, one line
    assert session.cwd == "/home/me/tool" and session.project == "tool"
    assert session.started_at == datetime(2025, 11, 7, 7, 20, tzinfo=UTC)
    assert session.ended_at == datetime(2025, 11, 7, 7, 20, 19, tzinfo=UTC)
    assert texts(session, "user") == ["Add a --verbose flag to cli.py", "yes, -v"]
    assert texts(session, "assistant") == [
        "I'll read cli.py first.",
        "Short flag too?\n\n- -v\n- none",
        "Added --verbose and -v.",
    ]
    parts = [p for m in session.messages for p in m.parts]
    assert ThinkingPart("The flag belongs in the argument parser.") in parts
    calls = {p.name: p for p in parts if isinstance(p, ToolCallPart)}
    assert list(calls) == ["readFile", "listFilesTopLevel", "editedExistingFile",
                           "execute_command", "docs/search"]  # fmt: skip
    assert calls["readFile"].input == {"path": "cli.py"}
    assert calls["editedExistingFile"].input == {"path": "cli.py", "diff": "+ --verbose"}
    assert calls["docs/search"].input == {"q": "argparse"}
    results = {p.call_id: p.output for p in parts if isinstance(p, ToolResultPart)}
    assert results[calls["listFilesTopLevel"].call_id] == "cli.py\nREADME.md"
    assert results[calls["execute_command"].call_id] == "...\n3 passed"  # streamed pieces
    assert results[calls["docs/search"].call_id] == "argparse docs"
    assert calls["readFile"].call_id not in results
    assert any(isinstance(p, AttachmentPart) and p.media_type == "image/png" for p in parts)
    assert (
        NoticePart("error", "Cline tried to use write_to_file without value for 'path'.", app=True)
        in parts
    )
    assert not any("as wel" in t for t in texts(session))
    # tokens and cost: the api_req_started entries, summed
    assert (session.usage.input_tokens, session.usage.output_tokens) == (3300, 400)
    assert (session.usage.cache_read_tokens, session.usage.cache_write_tokens) == (800, 100)
    assert abs(session.cost - 0.0333) < 1e-9
    assert NoticePart("interrupted") in parts  # the request the person cancelled
    # the model in force when each reply was written
    models = [m.model for m in session.messages if m.role == "assistant"]
    assert models[0] == "claude-sonnet-4-5" and models[-1] == "gpt-5"
    assert session.models == ("claude-sonnet-4-5", "gpt-5")
    (problem,) = problems
    assert problem.severity == "warning" and "brand_new_kind ×1" in problem.message


def test_roo_code_on_windows_is_its_own_source_with_its_workspace_and_summaries(tmp_path):
    """Roo Code 3.x schema (no real sample): ``HistoryItem.workspace``, ``condense_context``."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.ROO, layout="windows", editor="Cursor")
    task_id = "0f8fad5b-d9cb-469f-a165-70867728950e"
    cb.task(root, task_id, ui=[
        cb.say(0, "task", "Rename the helper"),
        cb.say(1, "text", "Renamed."),
        cb.say(2, "condense_context", "", contextCondense={"summary": "We renamed a helper.",
                                                          "cost": 0.01}),
        cb.say(3, "user_feedback", "thanks"),
    ])  # fmt: skip
    cb.history(root, [cb.history_item(task_id, "Rename the helper",
                                      workspace="C:\\Users\\me\\Roo Project")])  # fmt: skip
    (session,), problems = load_sessions(RooCodeAdapter(), home)
    assert problems == []
    assert session.source == "roo-code" and session.session_id == task_id
    assert session.cwd == "C:\\Users\\me\\Roo Project" and session.project == "Roo Project"
    assert SummaryPart("We renamed a helper.") in [p for m in session.messages for p in m.parts]
    assert load_sessions(ClineAdapter(), home)[0] == []  # another extension's folder
    assert load_sessions(KiloCodeAdapter(), home)[0] == []
    assert load_sessions(ZooCodeAdapter(), home)[0] == []  # Roo's fork, its own folder


@pytest.mark.parametrize("layout", ["linux", "mac", "windows", "remote"])
def test_zoo_code_tasks_are_their_own_source_on_every_layout(tmp_path, layout):
    """Zoo Code (``zoocodeorganization.zoo-code``, the Roo Code fork) writes Roo's files."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.ZOO, layout=layout, editor="VSCodium")
    task_id = "3a7c9e1f-2b4d-4f6a-8c0e-1d3f5a7b9c2e"
    cb.task(root, task_id, ui=[
        cb.say(0, "task", "Why is the last CSV row missing?"),
        cb.api_request(1, 900, 40, 0.004),
        cb.say(2, "text", "An off-by-one slice."),
    ])  # fmt: skip
    cb.history(root, [cb.history_item(task_id, "Why is the last CSV row missing?",
                                      workspace="/home/me/csv-report")])  # fmt: skip
    (session,), problems = load_sessions(ZooCodeAdapter(), home)
    assert problems == []
    assert session.source == "zoo-code" and session.session_id == task_id
    assert session.title == "Why is the last CSV row missing?"
    assert session.cwd == "/home/me/csv-report" and session.project == "csv-report"
    assert session.cost == 0.004
    for other in (ClineAdapter(), RooCodeAdapter(), KiloCodeAdapter()):
        assert load_sessions(other, home)[0] == []  # another extension's folder


def test_ccexport_sources_lists_zoo_code_where_it_is(tmp_path):
    home = tmp_path / "home"
    root = cb.storage(home, cb.ZOO)
    cb.task(root, "z1", ui=[cb.say(0, "task", "a"), cb.say(1, "text", "b")])
    result = CliRunner().invoke(app, ["sources", "--home", str(home), "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["source"]: r for r in json.loads(result.stdout)["sources"] if r["sessions"]}
    assert list(rows) == ["zoo-code"] and rows["zoo-code"]["sessions"] == 1
    assert str(root) in json.dumps(rows["zoo-code"])
    listing = CliRunner().invoke(app, ["sources", "--home", str(home)]).output
    assert any(line.startswith("zoo-code") and str(root) in line for line in listing.splitlines())


def test_kilo_code_task_without_ui_file_is_read_from_the_model_history(tmp_path):
    """Kilo Code 4.x legacy-extension schema (no real sample); XML tool calls in text, as
    the Cline 3.x line it forked from sent them."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.KILO, layout="mac")
    env = ("<environment_details>\n# Current Working Directory (/Users/me/kilo-app) Files\n"
           "app.py\n</environment_details>")  # fmt: skip
    cb.task(root, "6f1c3a52-kilo", api=[
        cb.message("user", cb.text("<task>\nWhy does app.py crash?\n</task>"), cb.text(env)),
        cb.message("assistant", {"type": "thinking", "thinking": "Read it first."},
                   cb.text("<read_file><path>app.py</path></read_file>")),
        cb.message("user", cb.text("[read_file for 'app.py'] Result:\nimport sys"), cb.text(env)),
        cb.message("assistant", cb.text("Let me run it."),
                   cb.tool_use("toolu_1", "execute_command", {"command": "python app.py"})),
        cb.message("user", cb.tool_result("toolu_1", [cb.text("Traceback: boom")], is_error=True)),
        cb.message("assistant", {"type": "redacted_thinking", "data": "opaque"},
                   cb.text("It crashes on a missing argument.")),
        cb.message("user", cb.text("<feedback>\nfix it\n</feedback>")),
    ])  # fmt: skip
    (session,), problems = load_sessions(KiloCodeAdapter(), home)
    assert problems == []
    assert session.source == "kilo-code"
    assert session.cwd == "/Users/me/kilo-app" and session.project == "kilo-app"
    assert texts(session, "user") == ["Why does app.py crash?", "fix it"]
    parts = [p for m in session.messages for p in m.parts]
    # the call written as XML in the reply, its result paired with it
    assert ToolCallPart("read_file", {"path": "app.py"}, "6f1c3a52-kilo:1#1") in parts
    assert ToolResultPart("import sys", "6f1c3a52-kilo:1#1") in parts
    # results sent back to the model belong to its turn, not to the person's
    roles = [m.role for m in session.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant", "user"]
    assert ToolResultPart("Traceback: boom", "toolu_1", True) in parts
    assert ThinkingPart("Read it first.") in parts and ThinkingPart("", redacted=True) in parts
    assert not any("environment_details" in t for t in texts(session))
    assert session.started_at is None  # this generation's history has no times…
    cb.history(root, [cb.history_item("6f1c3a52-kilo", "Why?", ts=cb.ts(30))])
    (session,), _ = load_sessions(KiloCodeAdapter(), home)
    # One time known: the start alone, no end (review33 6: not a span of no length)
    assert session.started_at == datetime(2025, 11, 7, 7, 20, 30, tzinfo=UTC)
    assert session.ended_at is None
    cline_root = cb.storage(home, cb.CLINE)  # …and Cline's task ids are their creation times
    cb.task(cline_root, "1762500000000", api=[cb.message("user", "hi"),
                                              cb.message("assistant", "hello")])  # fmt: skip
    (session,), _ = load_sessions(ClineAdapter(), home)
    assert session.started_at == datetime(2025, 11, 7, 7, 20, tzinfo=UTC)


def test_a_task_read_from_the_model_history_is_dated_by_its_messages_times(tmp_path):
    """Newer builds stamp each message of the model's history (``ts``): those times, not
    the task id's or the index's, give the session its start and end."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000000", api=[cb.message("user", "hi", n=60),
                                        cb.message("assistant", "hello", n=95)])  # fmt: skip
    cb.history(root, [cb.history_item("1762500000000", "hi", ts=cb.ts(400))])
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    assert [m.timestamp for m in session.messages] == [
        datetime(2025, 11, 7, 7, 21, tzinfo=UTC),
        datetime(2025, 11, 7, 7, 21, 35, tzinfo=UTC),
    ]
    assert session.started_at == datetime(2025, 11, 7, 7, 21, tzinfo=UTC)
    assert session.ended_at == datetime(2025, 11, 7, 7, 21, 35, tzinfo=UTC)


def test_cline_cli_tasks_and_sdk_sessions_with_index_manifest_and_subagents(tmp_path):
    home = tmp_path / "home"
    data = home / ".cline" / "data"
    cb.task(data, "1762500000001", ui=[cb.say(0, "task", "legacy CLI task"),
                                       cb.say(1, "text", "done")])  # fmt: skip
    cb.task(data, "sdk-1", ui=[cb.say(0, "task", "OLD COPY OF A RESUMED TASK")])
    cb.sdk_session(data, "sdk-1", [
        cb.message("user", cb.text("Summarise the README"),
                   {"type": "file", "path": "/w/README.md", "content": "# Project"},
                   {"type": "image", "data": PNG, "mediaType": "image/png"}, n=0),
        cb.message("assistant", {"type": "thinking", "thinking": "Read it."},
                   cb.tool_use("t1", "read_files", {"files": [{"path": "/w/README.md"}]}), n=1,
                   modelInfo={"id": "anthropic/claude-sonnet-4.5", "provider": "cline"},
                   **cb.metrics(1000, 50, 0.01, read=10, write=5)),
        cb.message("user", cb.tool_result("t1", [{"query": "/w/README.md", "result": "# Project"}]),
                   n=2),
        cb.message("assistant", cb.text("A small project."), n=3,
                   modelInfo={"id": "openai/gpt-5", "provider": "cline"},
                   **cb.metrics(1100, 20, 0.02)),
    ], manifest={"cwd": "/manifest/cwd", "model": "m", "started_at": "2025-11-07T07:19:00Z"},
       agents={"agent_7": [cb.message("user", "look for tests", n=1),
                           cb.message("assistant", cb.text("Found 3 tests."), n=2)]})  # fmt: skip
    cb.sessions_db(data, [{"session_id": "sdk-1", "cwd": "/w/project", "model": "x",
                           "started_at": "2025-11-07T07:18:00.000Z",
                           "metadata_json": json.dumps({"title": "README summary"})}])  # fmt: skip
    sessions, problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    by_id = {s.session_id: s for s in sessions}
    assert set(by_id) == {"sdk-1", "sdk-1/agent-agent_7", "1762500000001"}  # SDK copy wins
    sdk, agent = by_id["sdk-1"], by_id["sdk-1/agent-agent_7"]
    assert sdk.title == "README summary" and sdk.cwd == "/w/project" and sdk.project == "project"
    assert sdk.started_at == datetime(2025, 11, 7, 7, 18, tzinfo=UTC)  # the index wins
    assert sdk.models == ("anthropic/claude-sonnet-4.5", "openai/gpt-5")
    # The SDK's inputTokens holds the cache reads and writes: 1000 - 10 - 5, then 1100
    assert (sdk.usage.input_tokens, sdk.usage.output_tokens) == (2085, 70)
    assert (sdk.usage.cache_read_tokens, sdk.usage.cache_write_tokens) == (10, 5)
    assert abs(sdk.cost - 0.03) < 1e-9
    parts = [p for m in sdk.messages for p in m.parts]
    attached = [p for p in parts if isinstance(p, AttachmentPart)]
    assert attached[0] == AttachmentPart("text/plain", b"# Project", "/w/README.md")
    assert attached[1].media_type == "image/png" and attached[1].data.startswith(b"\x89PNG")
    assert ToolResultPart("/w/README.md\n# Project", "t1") in parts
    assert sdk.subagent_ids == ("sdk-1/agent-agent_7",)
    # "subagent", the role every Cline 4 subagent file gives, is no name ("Subagent
    # (subagent) of …" said nothing)
    assert agent.parent_id == "sdk-1" and agent.agent_label is None
    assert agent.cwd == "/manifest/cwd" and texts(agent, "assistant") == ["Found 3 tests."]


def test_sdk_session_without_index_uses_its_manifest(tmp_path):
    data = tmp_path / "home" / ".cline" / "data"
    cb.sdk_session(data, "s2", [cb.message("user", "hi", n=0),
                                cb.message("assistant", cb.text("hello"), n=1)],
                   manifest={"cwd": "D:\\work\\app", "model": "claude-haiku-4-5",
                             "started_at": "2025-11-07T07:19:00Z"})  # fmt: skip
    (session,), _ = load_sessions(ClineAdapter(), tmp_path / "home")
    assert session.cwd == "D:\\work\\app" and session.project == "app"
    assert session.models == ("claude-haiku-4-5",)
    assert session.started_at == datetime(2025, 11, 7, 7, 19, tzinfo=UTC)


SDK_PROMPT = (
    "You are Cline.\n\nEnvironment you are running in:\n<env>\n1. Platform: darwin\n"
    "2. Date: 7/15/2026\n3. IDE: Terminal Shell\n4. Working Directory: /Users/dev/src/cline\n"
    "</env>\n\nA Working Directory: /not/this/one outside the block is not it."
)


def test_sdk_session_without_index_or_manifest_takes_its_folder_from_the_system_prompt(
    tmp_path,
):
    """The SDK's system prompt names the working folder in its ``<env>`` block (the real
    corpus session's only record of it): used when neither the index nor a manifest says."""
    data = tmp_path / "home" / ".cline" / "data"
    chat = [cb.message("user", "hi", n=0), cb.message("assistant", cb.text("hello"), n=1)]
    cb.sdk_session(data, "s4", chat, system_prompt=SDK_PROMPT, agents={"agent_1": chat})
    cb.sdk_session(data, "s5", chat, system_prompt=SDK_PROMPT, manifest={"cwd": "/manifest"})
    cb.sdk_session(data, "s6", chat, system_prompt="Working Directory: /no/env/block")
    sessions, problems = load_sessions(ClineAdapter(), tmp_path / "home")
    assert problems == []
    by_id = {s.session_id: (s.cwd, s.project) for s in sessions}
    assert by_id == {
        "s4": ("/Users/dev/src/cline", "cline"),
        "s4/agent-agent_1": ("/Users/dev/src/cline", "cline"),  # its session's folder
        "s5": ("/manifest", "manifest"),  # the manifest (and the index) first
        "s6": (None, None),  # (the note calls it unknown-project)
    }


def test_environment_variables_move_cline_folders_on_the_real_home_only(tmp_path):
    elsewhere = tmp_path / "cline-data"
    cb.sdk_session(elsewhere, "s3", [cb.message("user", "hi"),
                                     cb.message("assistant", cb.text("hello"))])  # fmt: skip
    env = {"CLINE_DATA_DIR": str(elsewhere)}
    home = tmp_path / "home"
    assert len(load_sessions(ClineAdapter(), home, env, real_home=True)[0]) == 1
    assert load_sessions(ClineAdapter(), home, env, real_home=False)[0] == []
    sessions_only = {"CLINE_SESSION_DATA_DIR": str(elsewhere / "sessions")}
    assert len(load_sessions(ClineAdapter(), home, sessions_only, real_home=True)[0]) == 1


def test_every_editor_and_remote_server_is_searched_and_a_task_is_exported_once(tmp_path):
    home = tmp_path / "home"
    ui = [cb.say(0, "task", "hello"), cb.say(1, "text", "hi")]
    cb.task(cb.storage(home, cb.CLINE, "linux", "Windsurf"), "t1", ui=ui)
    cb.task(cb.storage(home, cb.CLINE, "remote"), "t2", ui=ui)
    cb.task(cb.storage(home, cb.CLINE, "linux", "Code"), "t2", ui=ui)  # the same task twice
    cb.task(
        cb.storage(home, cb.CLINE, "cursor-remote"), "t3", ui=ui
    )  # Cline in a Cursor SSH window
    sessions, _ = load_sessions(ClineAdapter(), home)
    assert sorted(s.session_id for s in sessions) == ["t1", "t2", "t3"]


def test_configured_folders_may_be_user_folders_or_storage_folders(tmp_path):
    user = tmp_path / "portable" / "User"
    cb.task(
        user / "globalStorage" / cb.ROO, "r1", ui=[cb.say(0, "task", "a"), cb.say(1, "text", "b")]
    )
    storage = tmp_path / "backup" / "roo"
    cb.task(storage, "r2", ui=[cb.say(0, "task", "c"), cb.say(1, "text", "d")])
    ctx = SourceContext(tmp_path / "home", {}, True, {"roo-code": (user, storage)})
    adapter = RooCodeAdapter()
    assert sorted(r.session_id for r in adapter.discover(ctx)) == ["r1", "r2"]


def test_a_new_title_in_the_index_changes_the_fingerprint_of_that_task_only(tmp_path):
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    for task_id in ("a", "b"):
        cb.task(root, task_id, ui=[cb.say(0, "task", task_id), cb.say(1, "text", "ok")])
    cb.history(root, [cb.history_item("a", "first"), cb.history_item("b", "second")])
    ctx = SourceContext(home, {}, False)
    before = {r.session_id: r.fingerprint() for r in ClineAdapter().discover(ctx)}
    cb.history(root, [cb.history_item("a", "renamed"), cb.history_item("b", "second")])
    after = {r.session_id: r.fingerprint() for r in ClineAdapter().discover(ctx)}
    assert after["a"] != before["a"] and after["b"] == before["b"]


def test_bad_files_are_reported_and_cost_nothing_else(tmp_path):
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    good = [cb.say(0, "task", "good task"), cb.say(1, "text", "fine")]
    cb.task(root, "good", ui=good)
    cb.task(root, "truncated-ui", ui=json.dumps(good)[:40], api=[
        cb.message("user", cb.text("<task>\nfrom the model history\n</task>")),
        cb.message("assistant", cb.text("still readable")),
    ])  # fmt: skip
    cb.task(root, "both-bad", ui="[{", api="not json")
    cb.task(root, "wrong-shape", ui={"not": "a list"})
    cb.task(root, "metadata-only", metadata={"files_in_context": []})
    data = home / ".cline" / "data"
    cb.sdk_session(data, "sdk-bad", [])
    (data / "sessions" / "sdk-bad" / "sdk-bad.messages.json").write_text('{"version": 1, "mess')
    cb.sdk_session(data, "sdk-good", [cb.message("user", "hi"),
                                      cb.message("assistant", cb.text("hello"))])  # fmt: skip
    (data / "db").mkdir(parents=True)
    (data / "db" / "sessions.db").write_bytes(b"this is not a database" * 100)
    sessions, problems = load_sessions(ClineAdapter(), home)
    assert sorted(s.session_id for s in sessions) == ["good", "sdk-good", "truncated-ui"]
    truncated = next(s for s in sessions if s.session_id == "truncated-ui")
    assert texts(truncated) == ["from the model history", "still readable"]
    where = sorted((p.path.rsplit("/", 2)[-2:][0], p.severity) for p in problems)
    # Cut off mid-write (a file rewritten whole): a warning, read again once it changes.
    assert where == [("both-bad", "error"), ("both-bad", "warning"), ("sdk-bad", "warning"),
                     ("truncated-ui", "warning"), ("wrong-shape", "error")]  # fmt: skip
    messages = {p.path.rsplit("/", 1)[-1]: p.message for p in problems}
    assert "ends in the middle of a JSON value" in messages["sdk-bad.messages.json"]
    assert messages["ui_messages.json"] == "not a list of messages; skipped"  # wrong-shape
    assert all(p.path.endswith(".json") for p in problems)  # each names the bad file


def test_export_writes_one_note_per_extension_with_cost(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    for extension in (cb.CLINE, cb.ROO, cb.ZOO, cb.KILO):
        root = cb.storage(home, extension)
        cb.task(root, f"task-{extension[:4]}", ui=cline_task_ui())
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC,
                                      sources=["cline", "roo-code", "zoo-code", "kilo-code"]))  # fmt: skip
    assert {s: c.created for s, c in report.per_source.items()} == {
        "cline": 1, "roo-code": 1, "zoo-code": 1, "kilo-code": 1}  # fmt: skip
    notes = note_files(vault)
    assert sorted(k.split("/")[1] for k in notes) == ["cline", "kilo-code", "roo-code", "zoo-code"]
    zoo = next(v.decode() for k, v in notes.items() if k.split("/")[1] == "zoo-code")
    assert "source: zoo-code" in zoo and "[!info] Zoo Code ·" in zoo
    for note in notes.values():
        text = note.decode()
        assert "cost: 0.0333" in text and "tokens_in: 3300" in text
        assert "Add a --verbose flag to cli.py" in text and "Added --verbose and -v." in text


def test_windows_working_folder_named_in_the_environment_details(tmp_path):
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE, layout="windows")
    env = "<environment_details>\n# Current Working Directory (C:\\Users\\me\\My App) Files\n"
    cb.task(root, "1762500000000", api=[cb.message("user", cb.text("hi"), cb.text(env)),
                                        cb.message("assistant", "hello")])  # fmt: skip
    (session,), _ = load_sessions(ClineAdapter(), home)
    assert session.cwd == "C:\\Users\\me\\My App" and session.project == "My App"


def test_discovery_reads_the_indexes_but_no_transcript(tmp_path, monkeypatch):
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "t1", ui=[cb.say(0, "task", "a")], api=[], metadata={})
    cb.history(root, [cb.history_item("t1", "title")])
    data = home / ".cline" / "data"
    cb.sdk_session(data, "s1", [cb.message("user", "hi")], manifest={"cwd": "/w"},
                   agents={"a1": []})  # fmt: skip
    cb.sessions_db(data, [{"session_id": "s1", "cwd": "/w"}])
    real_read = Path.read_bytes

    def guarded(path: Path) -> bytes:
        assert path.name in ("taskHistory.json",), f"discovery read {path}"
        return real_read(path)

    monkeypatch.setattr(Path, "read_bytes", guarded)
    monkeypatch.setattr(Path, "read_text", lambda *a, **k: pytest.fail("read_text"))
    refs = {r.session_id: r for r in ClineAdapter().discover(SourceContext(home, {}, False))}
    assert set(refs) == {"t1", "s1"}
    assert refs["t1"].fact("title") == "title" and refs["s1"].fact("cwd") == "/w"
    assert len(refs["s1"].related) == 2  # the manifest and the subagent transcript


def test_sdk_sessions_name_their_parent_from_the_index(tmp_path):
    data = tmp_path / "home" / ".cline" / "data"
    for sid in ("lead", "child"):
        cb.sdk_session(data, sid, [cb.message("user", f"{sid} prompt", n=0),
                                   cb.message("assistant", cb.text("ok"), n=1)])  # fmt: skip
    cb.sessions_db(data, [{"session_id": "child", "parent_session_id": "lead"}])
    by_id = {s.session_id: s for s in load_sessions(ClineAdapter(), tmp_path / "home")[0]}
    assert by_id["child"].parent_id == "lead" and by_id["lead"].parent_id is None


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
_keys = st.sampled_from(["ts", "type", "say", "ask", "text", "partial", "images", "role",
                         "content", "metrics", "modelInfo", "reasoning", "contextCondense"])  # fmt: skip
_entry = st.dictionaries(_keys, _json | st.sampled_from(["say", "ask", "tool", "command",
                         "user", "assistant", "api_req_started", "{}", '{"tool": 1}']), max_size=6)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_entry | _json, max_size=6))
def test_any_json_in_either_transcript_is_read_without_an_exception(items):
    parse_ui(items, "x:", lambda ts: None)
    parse_messages(items, "x:", legacy=True)


def test_sdk_results_stored_as_json_text_show_their_text_and_failures(tmp_path):
    """The SDK's editor tool stores its result as ``{query, result, success}`` JSON in a
    string (tests/test_corpus_cline.py's real session): the note shows the result's lines,
    not one line of escaped JSON; ``success: false`` marks a result failed, either way."""
    edited = {"query": "edit:/w/app.py", "result": "Edited /w/app.py\n```diff\n-a\n+b\n```",
              "success": True}  # fmt: skip
    refused = [{"query": "/w/missing.py", "error": "File not found", "success": False}]
    data = tmp_path / "home" / ".cline" / "data"
    cb.sdk_session(data, "s1", [
        cb.message("user", "edit it", n=0),
        cb.message("assistant", cb.tool_use("t1", "editor", {"path": "/w/app.py"}), n=1),
        cb.message("user", cb.tool_result("t1", json.dumps(edited)), n=2),
        cb.message("assistant", cb.tool_use("t2", "read_files", {"files": []}), n=3),
        cb.message("user", cb.tool_result("t2", refused), n=4),
        cb.message("assistant", cb.tool_use("t3", "run_commands", {"commands": []}), n=5),
        cb.message("user", cb.tool_result("t3", '{"query": "not all", "extra": 1}'), n=6),
        cb.message("assistant", cb.tool_use("t4", "read_files", {"files": []}), n=7),
        cb.message("user", cb.tool_result("t4", '{"result": 1}'), n=8),
    ])  # fmt: skip
    (session,), _ = load_sessions(ClineAdapter(), tmp_path / "home")
    results = [p for m in session.messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert [(r.output, r.is_error) for r in results] == [
        ("edit:/w/app.py\nEdited /w/app.py\n```diff\n-a\n+b\n```", False),
        ("/w/missing.py\nFile not found", True),
        ('{"query": "not all", "extra": 1}', False),  # not the SDK's shape: as stored
        ('{"result": 1}', False),  # a file's own JSON, named by no query: as stored
    ]


def test_the_persons_own_edits_to_a_proposed_change_are_their_turn(tmp_path):
    """``user_feedback_diff``: the person changed the model's edit in the diff editor before
    saving it. It was dropped as bookkeeping, so the note never showed what they changed;
    it is the person's turn, the diff kept whole (not as a prompt's text)."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    edits = "@@ -1,2 +1,2 @@\n-TIMEOUT = 5\n+TIMEOUT = 30  # the person's value\n"
    cb.task(root, "1762500000001", ui=[
        cb.say(0, "task", "Add a timeout"),
        cb.tool(1, "editedExistingFile", kind="ask", path="net.py", diff="+TIMEOUT = 5"),
        cb.say(2, "user_feedback_diff",
               json.dumps({"tool": "editedExistingFile", "path": "net.py", "diff": edits})),
        cb.say(3, "user_feedback_diff", json.dumps({"tool": "newFileCreated", "path": "x.py"})),
        cb.say(4, "completion_result", "Added the timeout."),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    assert [m.role for m in session.messages] == ["user", "assistant", "user", "assistant"]
    (edit,) = session.messages[2].parts
    assert edit == AttachmentPart("text/x-diff", edits.encode(), "net.py (edited by the user)")


def test_a_command_the_permission_settings_refused_did_not_run(tmp_path):
    """``command_permission_denied``: Cline's command permissions (``CLINE_COMMAND_PERMISSIONS``)
    refused a command the model wanted to run; it never ran. It was an error notice (and,
    before, dropped as bookkeeping): the note counted a failure and showed no call. Cline
    checks before it asks or says the command, so the entry alone names it: the model's
    call, not permitted (``not_run``), no error. A build that asked first has the command
    entry before it: that call is the one refused. A text naming no command is a result of
    no call, not permitted all the same."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    denied = ('Command "rm -rf "build dir"" was denied by CLINE_COMMAND_PERMISSIONS. '
              "Reason: denied (matched pattern: rm *)")  # fmt: skip
    asked = 'Command "git push" was denied by configured command permissions.'
    cb.task(root, "1762500000002", ui=[
        cb.say(0, "task", "Clean up"),
        cb.say(1, "command_permission_denied", denied),
        cb.ask(2, "command", "git push"),
        cb.say(3, "command_permission_denied", asked),
        cb.say(4, "command_permission_denied", "Sandbox preflight refused the command."),
        cb.say(5, "completion_result", "I could not remove build/."),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    got = [(m.role, m.parts) for m in session.messages[1:-1]]
    first, second = cb.ts(1), cb.ts(2)
    first_id, second_id = f"1762500000002:{first}", f"1762500000002:{second}"
    assert [(role, [type(p).__name__ for p in parts]) for role, parts in got] == [
        ("assistant", ["ToolCallPart", "ToolResultPart"]),
        ("assistant", ["ToolCallPart"]),
        ("tool", ["ToolResultPart"]),
        ("tool", ["ToolResultPart"]),
    ]
    assert got[0][1] == (
        ToolCallPart("execute_command", {"command": 'rm -rf "build dir"'}, first_id),
        ToolResultPart(denied, first_id, not_run="denied"),
    )
    assert got[2][1] == (ToolResultPart(asked, second_id, not_run="denied"),)
    assert got[3][1] == (
        ToolResultPart("Sandbox preflight refused the command.", None, not_run="denied"),
    )
    assert not any(isinstance(p, NoticePart) for m in session.messages for p in m.parts)
    assert not any(getattr(p, "is_error", False) for m in session.messages for p in m.parts)


def test_a_call_the_person_rejected_did_not_run(tmp_path):
    """The person clicked Reject at Cline's approval prompt: the UI file keeps the question
    (an ``ask``) but not the answer, and the note showed the call as if it had run with no
    output. The request Cline sent next holds the call's result as the model got it
    (``[execute_command for 'npm test'] Result:`` / ``The user denied this operation.``):
    that call was rejected (``not_run``), with what the person wrote instead. Only the call
    the header names is taken (not a read whose result never shows in the UI file)."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    feedback = ("The user denied this operation and provided the following feedback:\n"
                "<feedback>\nrun the unit tests only\n</feedback>")  # fmt: skip
    cb.task(root, "1762500000004", ui=[
        cb.say(0, "task", "Run the tests"),
        cb.ask(1, "command", "npm testREQ_APP"),
        cb.say(2, "user_feedback", "run the unit tests only"),
        cb.api_request(3, 10, 5, 0.01, request=(
            f"[execute_command for 'npm test'] Result:\n\n{feedback}\n\n"
            "<environment_details>\n# Current Time\n</environment_details>")),
        cb.tool(4, "readFile", path="src/a.ts", content="/abs/src/a.ts"),
        cb.api_request(5, 10, 5, 0.01, request=(
            "[read_file for 'src/a.ts'] Result:\n\nThe user denied this operation is "
            "a line of this file")),
        cb.tool(6, "editedExistingFile", kind="ask", path="src/b.ts", diff="+x"),
        cb.api_request(7, 10, 5, 0.01, request=(
            "[replace_in_file for 'src/b.ts'] Result:\n\nThe user denied this operation.")),
        cb.ask(8, "command", "ls"),
        cb.api_request(9, 10, 5, 0.01, request=(
            "[execute_command for 'npm test'] Result:\n\nThe user denied this operation.")),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    calls = {p.call_id: p for m in session.messages for p in m.parts
             if isinstance(p, ToolCallPart)}  # fmt: skip
    results = {p.call_id: p for m in session.messages for p in m.parts
               if isinstance(p, ToolResultPart)}  # fmt: skip
    call_id = lambda n: f"1762500000004:{cb.ts(n)}"  # noqa: E731
    assert calls[call_id(1)].input == {"command": "npm test"}  # REQ_APP is Cline's marker
    assert results[call_id(1)] == ToolResultPart(feedback, call_id(1), not_run="rejected")
    assert call_id(4) not in results  # a line of the file read, not the person's no
    assert results[call_id(6)] == ToolResultPart(
        "The user denied this operation.", call_id(6), not_run="rejected"
    )
    assert call_id(8) not in results  # the header names another command


def test_the_model_history_s_results_and_calls_that_did_not_run(tmp_path):
    """Read from the model's history (no UI file): Cline sends a result as two text blocks,
    ``[execute_command for 'x'] Result:`` then what the tool gave (``pushToolResult``). The
    header was a result and the text a prompt of the person's, ``The user denied this
    operation.`` too, and Cline's ``Skipping tool … due to user rejecting a previous tool.``
    for the next call. Now the two blocks are one result; the person's no is a call
    rejected (with their feedback), a call Cline skipped is cancelled, in Cline's words,
    and neither is a prompt or an error (a native ``tool_result`` with those words too)."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    env = "<environment_details>\n# Current Time\n</environment_details>"
    denied = ("The user denied this operation and provided the following feedback:\n"
              "<feedback>\nnot in production\n</feedback>")  # fmt: skip
    skipped = "Skipping tool [attempt_completion] due to user rejecting a previous tool."
    cb.task(root, "1762500000005", api=[
        cb.message("user", cb.text("<task>\nDeploy it\n</task>"), cb.text(env)),
        cb.message("assistant", cb.text("<read_file><path>a.txt</path></read_file>")),
        cb.message("user", cb.text("[read_file for 'a.txt'] Result:"), cb.text("alpha"),
                   cb.text(env)),
        cb.message("assistant", cb.text("<execute_command><command>make deploy</command>"
                                        "</execute_command><attempt_completion/>")),
        cb.message("user", cb.text("[execute_command for 'make deploy'] Result:"),
                   cb.text(denied), cb.text(skipped), cb.text(env)),
        cb.message("assistant", cb.tool_use("toolu_2", "execute_command", {"command": "ls"})),
        cb.message("user", cb.tool_result("toolu_2", "The user denied this operation.")),
        cb.message("assistant", cb.text("Understood.")),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    assert texts(session, "user") == ["Deploy it"]
    results = [p for m in session.messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert results == [  # (the calls written as XML are paired with their results)
        ToolResultPart("alpha", "1762500000005:1#1"),
        ToolResultPart(denied, "1762500000005:3#1", not_run="rejected"),
        ToolResultPart(skipped, not_run="cancelled"),  # (<attempt_completion/> is no call)
        ToolResultPart("The user denied this operation.", "toolu_2", not_run="rejected"),
    ]  # fmt: skip
    assert [m.role for m in session.messages] == [
        "user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant"
    ]  # fmt: skip


def test_files_attached_to_a_prompt_are_named(tmp_path):
    """``files`` of a task or feedback entry: paths of files the person attached (Cline
    read them when sending); they were left out, so the note never said which file the
    prompt was about."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000003", ui=[
        cb.say(0, "task", "Why does this fail?", files=["/home/me/tool/cli.py"]),
        cb.say(1, "text", "Because of the flag."),
        cb.say(2, "user_feedback", "", files=["/home/me/tool/log.txt"]),
    ])  # fmt: skip
    (session,), _ = load_sessions(ClineAdapter(), home)
    attached = [(m.role, p.name, p.data) for m in session.messages for p in m.parts
                if isinstance(p, AttachmentPart)]  # fmt: skip
    assert attached == [("user", "/home/me/tool/cli.py", None),
                        ("user", "/home/me/tool/log.txt", None)]  # fmt: skip


def test_subagents_prompts_and_results_are_calls(tmp_path):
    """``subagent`` entries (Cline 3.x ``use_subagents``): the batch's last status holds what
    each subagent was asked and what it found or why it failed. They were dropped as
    bookkeeping; each is now a call with its prompt and result (a failure an error)."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    status = {"status": "completed", "total": 2, "completed": 2, "successes": 1, "failures": 1,
              "items": [
                  {"index": 0, "prompt": "Find the config loader", "status": "completed",
                   "result": "src/config.ts loads it"},
                  {"index": 1, "prompt": "Find the tests", "status": "failed",
                   "error": "context window exceeded"}]}  # fmt: skip
    cb.task(root, "1762500000004", ui=[
        cb.say(0, "task", "Map the project"),
        cb.ask(1, "use_subagents", json.dumps({"prompts": ["Find the config loader",
                                                           "Find the tests"]})),
        cb.say(2, "subagent", json.dumps(dict(status, status="running")), partial=True),
        cb.say(3, "subagent", json.dumps(status)),
        cb.say(4, "completion_result", "Mapped."),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    parts = [p for m in session.messages for p in m.parts]
    calls = [p for p in parts if isinstance(p, ToolCallPart)]
    assert [(c.name, c.input) for c in calls] == [
        ("subagent", {"prompt": "Find the config loader"}),
        ("subagent", {"prompt": "Find the tests"}),
    ]
    results = {p.call_id: (p.output, p.is_error) for p in parts if isinstance(p, ToolResultPart)}
    assert [results[c.call_id] for c in calls] == [
        ("src/config.ts loads it", False),
        ("context window exceeded", True),
    ]


def test_the_context_handed_to_a_new_task_is_a_call(tmp_path):
    """``ask: new_task`` (Cline's new_task tool): the model's summary of the task so far,
    handed to a fresh task. It was dropped as bookkeeping."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000005", ui=[
        cb.say(0, "task", "Start over with a clean context"),
        cb.ask(1, "new_task", "Current work: the parser is done; next, the lexer tests."),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    (call,) = [p for m in session.messages for p in m.parts if isinstance(p, ToolCallPart)]
    assert (call.name, call.input) == (
        "new_task",
        {"context": "Current work: the parser is done; next, the lexer tests."},
    )


def test_act_mode_replies_and_task_summaries_are_kept(tmp_path):
    """``ask: act_mode_respond`` (the model speaking to the person mid-task, Cline 3.x) and
    ``ask: summarize_task`` (the summary a context compaction keeps) were unknown kinds,
    reported and dropped."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000006", ui=[
        cb.say(0, "task", "Fix the flaky test"),
        cb.ask(1, "act_mode_respond", json.dumps({"response": "Found it: a shared temp dir."})),
        cb.ask(2, "summarize_task", "The flaky test shared /tmp/x; now uses tmp_path."),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    assert texts(session, "assistant") == ["Found it: a shared temp dir."]
    summaries = [p for m in session.messages for p in m.parts if isinstance(p, SummaryPart)]
    assert [p.text for p in summaries] == ["The flaky test shared /tmp/x; now uses tmp_path."]


def test_a_subtask_s_result_is_the_result_of_the_call_that_started_it(tmp_path):
    """Roo Code's ``say: subtask_result`` is what a subtask (another agent) answered, shown
    in the parent task when it resumes: it was the parent model's own reply."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.ROO)
    cb.task(root, "1762500000007", ui=[
        cb.say(0, "task", "Split the parser work"),
        cb.tool(1, "newTask", kind="ask", mode="code", content="Write the lexer tests"),
        cb.say(2, "subtask_result", "Added 14 lexer tests; all pass."),
        cb.say(3, "subtask_result", "A second subtask's answer, its call not seen."),
        cb.say(4, "text", "Both parts are done."),
    ])  # fmt: skip
    (session,), problems = load_sessions(RooCodeAdapter(), home)
    assert problems == []
    assert texts(session, "assistant") == ["Both parts are done."]
    (call,) = [p for m in session.messages for p in m.parts if isinstance(p, ToolCallPart)]
    results = [p for m in session.messages for p in m.parts if p.kind == "tool_result"]
    assert [(r.output, r.call_id) for r in results] == [
        ("Added 14 lexer tests; all pass.", call.call_id),
        ("A second subtask's answer, its call not seen.", None),
    ]


def test_a_resumed_task_read_from_the_model_history_keeps_only_what_the_person_wrote(tmp_path):
    """With no UI file, a task is read from what the model saw, where Cline resumes a task
    with its own '[TASK RESUMPTION] This task was interrupted …' text (the person's new
    words, if any, inside <user_message>) and answers a reply without a tool with
    '[ERROR] You did not use a tool …': both were the person's prompts."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    resumed = (
        "[TASK RESUMPTION] This task was interrupted 20 minutes ago. It may or may not be "
        "complete, so please reassess the task context.\n\nNew instructions for task "
        "continuation:\n<user_message>\nalso handle the empty file\n</user_message>"
    )
    cb.task(root, "1762500000008", api=[
        cb.message("user", cb.text("<task>\nParse the config\n</task>")),
        cb.message("assistant", "I will read it."),
        cb.message("user", cb.text("[ERROR] You did not use a tool in your previous response! "
                                   "Please retry with a tool use.")),
        cb.message("assistant", "Reading."),
        cb.message("user", cb.text("[TASK RESUMPTION] This task was interrupted just now.")),
        cb.message("assistant", "Resuming."),
        cb.message("user", cb.text(resumed)),
        cb.message("assistant", "Done."),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    assert texts(session, "user") == ["Parse the config", "also handle the empty file"]


@pytest.mark.parametrize("unset", [0, -1, 0.0])
def test_an_epoch_time_of_zero_or_less_is_not_shown_as_1970(tmp_path, unset):
    """A ``ts`` of 0 (or below) marks a time not set: it neither starts the task in 1970 nor
    times its message there; the rest of the task keeps its times."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    unset_line = {"ts": unset, "type": "say", "say": "text", "text": "in between"}
    ui = [cb.say(0, "task", "hi"), unset_line, cb.say(5, "completion_result", "done")]
    cb.task(root, "1762500000000", ui=ui)
    (session,), _ = load_sessions(ClineAdapter(), home)
    assert session.started_at == datetime(2025, 11, 7, 7, 20, tzinfo=UTC)
    assert session.ended_at == datetime(2025, 11, 7, 7, 20, 5, tzinfo=UTC)
    assert [m.timestamp for m in session.messages if "in between" in str(m.parts)] == [None]


def test_the_model_and_tokens_cline_writes_on_each_message_are_read(tmp_path):
    """Cline names the model on each message (``modelInfo.modelId``, in the UI file and in
    the model's history) and counts its tokens as ``metrics.tokens`` (``prompt``,
    ``completion``, ``cached``): a task with no metadata file had no model, and one read
    from the model's history no tokens, where only the SDK's spelling was known."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    info = {"modelId": "claude-sonnet-4-5", "providerId": "anthropic", "mode": "act"}
    cb.task(root, "1762500000000", ui=[
        cb.say(0, "task", "Why does app.py crash?"),
        cb.say(1, "text", "It needs an argument.", modelInfo=info),
    ])  # fmt: skip
    cb.task(root, "1762500100000", api=[
        cb.message("user", cb.text("<task>\nfix it\n</task>")),
        cb.message("assistant", cb.text("Fixed."), modelInfo=info,
                   metrics={"tokens": {"prompt": 1000, "completion": 200, "cached": 50}, "cost": 0.05}),
    ])  # fmt: skip
    sessions, _ = load_sessions(ClineAdapter(), home)
    ui_task, api_task = sorted(sessions, key=lambda s: s.session_id)
    assert ui_task.models == ("claude-sonnet-4-5",) and api_task.models == ("claude-sonnet-4-5",)
    usage = api_task.usage  # (``cached``: writes and reads together, counted as reads)
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (1000, 200, 50)
    assert api_task.cost == 0.05
    # FORMATS.md §6.2's order on both paths: the model_usage timeline before the entry's own
    for task_id in ("1762500000000", "1762500100000"):
        usage_at = {"model_usage": [{"ts": cb.ts(0), "model_id": "model-a", "mode": "act"}]}
        (root / "tasks" / task_id / "task_metadata.json").write_text(json.dumps(usage_at))
    sessions, _ = load_sessions(ClineAdapter(), home)
    assert [s.models for s in sessions] == [("model-a",), ("model-a",)]


def test_cline_s_changes_flag_is_not_the_reply_and_a_retry_is_bookkeeping(tmp_path):
    """Cline appends ``HAS_CHANGES`` to a ``completion_result`` when the task changed files
    (its UI strips it): the note said "All done.HAS_CHANGES". A retried request
    (``error_retry``) is bookkeeping: it was warned about as an unknown kind in every such
    task; a request that failed for good is its ``api_req_failed``, an error."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000000", ui=[
        cb.say(0, "task", "Fix app.py"),
        cb.say(1, "error_retry", json.dumps({"attempt": 1, "maxAttempts": 3, "delaySec": 2})),
        cb.say(2, "completion_result", "All done.HAS_CHANGES"),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert texts(session, "assistant") == ["All done."]
    assert problems == []


def test_a_request_whose_retries_ran_out_shows_its_error_once(tmp_path):
    """Cline 3.16-3.18 (May to July 2025) marked a request whose automatic retries ran out
    ``cancelReason: "retries_exhausted"`` on its ``api_req_started``, with the error as
    ``streamingFailedMessage``, then asked ``api_req_failed`` with the same error (later
    builds leave the reason out). The error is shown once, from the ``api_req_failed``."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    failure = "429 Too Many Requests"
    cb.task(root, "1762500000000", ui=[
        cb.say(0, "task", "Fix app.py"),
        cb.api_request(1, 0, 0, 0, cancelReason="retries_exhausted",
                       streamingFailedMessage=failure),
        cb.ask(2, "api_req_failed", failure),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    notices = [p for m in session.messages for p in m.parts if isinstance(p, NoticePart)]
    assert notices == [NoticePart("error", failure)]
    assert problems == []


def _ui_entry(entry: dict, last: int, left_out: list | None = None) -> dict:
    """A UI entry as Cline 3.x writes it: the last message of the model's history when it
    was made and, once the context was truncated, the range left out of requests."""
    entry = {**entry, "conversationHistoryIndex": last}
    return {**entry, "conversationHistoryDeletedRange": left_out} if left_out else entry


def _notes_of(session) -> list[tuple[str, str]]:
    return [(m.role, p.text) for m in session.messages for p in m.parts
            if isinstance(p, NoticePart) and p.notice == "notification"]  # fmt: skip


def test_a_context_truncation_is_marked_where_it_happened(tmp_path):
    """Cline truncates a long task's context: from then on it leaves a range of the model's
    history (``conversationHistoryDeletedRange``, indices from 0, both included) out of every
    request, and gives each UI entry made after it that range. A marker stands before the
    first entry with a larger range, saying which messages (numbered from 1) the model no
    longer saw; the messages themselves stay in the note. A range that leaves out less is a
    checkpoint restored (no marker); one that is not a pair is reported."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000000", ui=[
        _ui_entry(cb.say(0, "task", "Port the parser"), -1),
        _ui_entry(cb.api_request(1, 100, 10, 0.01), 0),
        _ui_entry(cb.say(2, "text", "Reading the grammar."), 0),
        _ui_entry(cb.api_request(3, 90000, 10, 0.01), 2),
        _ui_entry(cb.say(4, "text", "Porting the lexer."), 2),
        _ui_entry(cb.api_request(5, 180000, 10, 0.01), 6),
        _ui_entry(cb.say(6, "text", "Porting the parser."), 6, [2, 5]),
        _ui_entry(cb.say(7, "checkpoint_created"), 6, [2, 5]),
        _ui_entry(cb.say(8, "text", "Porting the tests."), 8, [2, 3]),
        _ui_entry(cb.say(9, "text", "Running them."), 8, "bad"),
        _ui_entry(cb.say(10, "completion_result", "Done."), 10, [2, 7]),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    first = ("Context truncated: from here on, messages 3–6 of the model's history were left "
             "out of what the model saw (only 1–2 and 7 were sent). They stay in this note, "
             "above.")  # fmt: skip
    second = ("Context truncated: from here on, messages 3–8 of the model's history were left "
              "out of what the model saw (only 1–2 and 9–11 were sent). They stay in this "
              "note, above.")  # fmt: skip
    assert _notes_of(session) == [("system", first), ("system", second)]
    shown = [p.text if p.kind == "text" else p.kind for m in session.messages for p in m.parts]
    assert shown == [
        "Port the parser", "Reading the grammar.", "Porting the lexer.", "notice",
        "Porting the parser.", "Porting the tests.", "Running them.", "notice", "Done.",
    ]  # fmt: skip
    marker = session.messages[4]
    assert marker.timestamp == datetime.fromtimestamp(cb.ts(6) / 1000, UTC)
    ui_file = root / "tasks" / "1762500000000" / "ui_messages.json"
    assert [(p.path, p.message) for p in problems] == [
        (str(ui_file), "a conversationHistoryDeletedRange that is not a pair of message indices "
         "[start, end] (message 10); the note has no marker of that context truncation"),
    ]  # fmt: skip


def test_a_truncation_only_the_index_records_is_marked_without_a_place(tmp_path):
    """Older builds record the truncation in the task's index entry only
    (``HistoryItem.conversationHistoryDeletedRange``). Read from the UI file, the note says
    which messages were left out, at its end (where it happened is not recorded); read from
    the model's history, whose messages are the ones the range counts, the marker follows
    the last message left out. A range that is not a pair is reported with the index."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000000", ui=[
        cb.say(0, "task", "Port the parser"),
        cb.say(1, "text", "Reading the grammar."),
        cb.say(2, "completion_result", "Done."),
    ])  # fmt: skip
    model_history = [
        cb.message("user", "<task>Port the lexer</task>"),
        cb.message("assistant", "Reading the grammar."),
        cb.message("user", "[read_file for 'g.txt'] Result: expr := term"),
        cb.message("assistant", "Porting the lexer."),
        cb.message("user", "[write_to_file for 'lex.py'] Result: written"),
        cb.message("assistant", "Porting the tests."),
        cb.message("user", "[execute_command for 'pytest'] Result: 3 passed"),
        cb.message("assistant", "Done."),
    ]
    cb.task(root, "1762500000001", api=model_history)
    cb.task(root, "1762500000002", ui=[cb.say(0, "task", "Port the docs")])
    cb.history(root, [
        cb.history_item("1762500000000", "Port the parser", conversationHistoryDeletedRange=[2, 9]),
        cb.history_item("1762500000001", "Port the lexer", conversationHistoryDeletedRange=[2, 3]),
        cb.history_item("1762500000002", "Port the docs", conversationHistoryDeletedRange=[5, 2]),
    ])  # fmt: skip
    (from_ui, from_api, docs), problems = load_sessions(ClineAdapter(), home)
    assert _notes_of(from_ui) == [("system", (
        "Context truncated (when is not recorded): from then on, messages 3–10 of the model's "
        "history were left out of what the model saw (only 1–2 and those after 10 were sent). "
        "They stay in this note, above."))]  # fmt: skip
    assert from_ui.messages[-1].role == "system"
    assert _notes_of(from_api) == [("system", (
        "Context truncated: later requests left messages 3–4 of the model's history, up to "
        "here, out of what the model saw (only 1–2 and those after 4 were sent). They stay in "
        "this note."))]  # fmt: skip
    shown = [p.text if p.kind == "text" else p.kind for m in from_api.messages for p in m.parts]
    assert shown == ["Port the lexer", "Reading the grammar.", "tool_result",
                     "Porting the lexer.", "notice", "tool_result", "Porting the tests.",
                     "tool_result", "Done."]  # fmt: skip
    assert _notes_of(docs) == []
    index = root / "state" / "taskHistory.json"
    assert [(p.path, p.message) for p in problems] == [
        (str(index), "task 1762500000002: conversationHistoryDeletedRange [5, 2] is not a pair "
         "of message indices [start, end]; the note has no marker of that context truncation"),
    ]  # fmt: skip


def test_a_truncation_marker_in_the_note(tmp_path):
    """The marker is Cline's doing, not the model's: no "Assistant" heading of its own, the
    reply after it under a new one."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000000", ui=[
        _ui_entry(cb.say(0, "task", "Port the parser"), -1),
        _ui_entry(cb.say(2, "text", "Reading the grammar."), 0),
        _ui_entry(cb.say(6, "text", "Porting the parser."), 6, [2, 5]),
    ])  # fmt: skip
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    (note,) = note_files(vault).values()
    body = note.decode()
    assert (
        "Reading the grammar.\n\n> [!info] Notification\n>\n> Context truncated: from here on, "
        "messages 3–6 of the model's history were left out of what the model saw (only 1–2 "
        "and 7 were sent). They stay in this note, above.\n\n### Assistant · 07:20\n\n"
        "Porting the parser.\n"
    ) in body


def test_entries_of_an_unknown_kind_are_reported_with_the_message_they_are_in(tmp_path):
    """The warning names the file the entries were read from and the first message of each
    kind (its place in the file's list, from 1), so a person can find them."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000000", ui=[
        cb.say(0, "task", "Fix app.py"),
        cb.say(1, "hologram", "?"),
        cb.say(2, "text", "Looking."),
        cb.say(3, "hologram", "?"),
        "not an object",
        cb.say(5, "completion_result", "Done."),
    ])  # fmt: skip
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>Fix it</task>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Fixed."},
                                          {"type": "sparkle", "x": 1}]},
    ]  # fmt: skip
    cb.task(root, "1762500000001", api=history)
    sessions, problems = load_sessions(ClineAdapter(), home)
    assert len(sessions) == 2
    assert sorted((Path(p.path).relative_to(root).as_posix(), p.message) for p in problems) == [
        (
            "tasks/1762500000000/ui_messages.json",
            "skipped entries of unknown kind: hologram ×2 (first: message 2), "
            "message that is not a JSON object (str) ×1 (message 5)",
        ),
        (
            "tasks/1762500000001/api_conversation_history.json",
            "skipped entries of unknown kind: sparkle ×1 (message 2)",
        ),
    ]


def test_an_empty_deleted_range_is_no_truncation_and_nothing_wrong(tmp_path):
    """Cline's own arithmetic can give ``[n, n - 1]`` (a truncation that removes nothing):
    no marker, and no warning that the range is not a pair, in the UI file or the index."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000000", ui=[
        _ui_entry(cb.say(0, "task", "Port the parser"), -1),
        _ui_entry(cb.api_request(1, 100, 10, 0.01), 0),
        _ui_entry(cb.say(2, "text", "Reading the grammar."), 0, [2, 1]),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert _notes_of(session) == [] and problems == []


def test_an_empty_deleted_range_in_the_index_is_no_truncation_either(tmp_path):
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000000", ui=[
        cb.say(0, "task", "Port the parser"),
        cb.say(1, "text", "Reading the grammar."),
    ])  # fmt: skip
    cb.history(root, [
        cb.history_item("1762500000000", "Port the parser", conversationHistoryDeletedRange=[2, 1]),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert _notes_of(session) == [] and problems == []


def test_the_person_s_answer_or_feedback_after_a_result_header_stays_a_prompt(tmp_path):
    """The two blocks of a result are one result, but the text after an
    ``ask_followup_question`` or ``attempt_completion`` header is the person's: their
    ``<answer>`` or ``<feedback>``, a prompt as before, not a tool's output."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    feedback = ("The user has provided feedback on the results. Consider their input to "
                "continue the task, and then attempt completion again.\n"
                "<feedback>\nalso the docs\n</feedback>")  # fmt: skip
    cb.task(root, "1762500000006", api=[
        cb.message("user", cb.text("<task>\nPick a database\n</task>")),
        cb.message("assistant", cb.text("<ask_followup_question><question>Which one?"
                                        "</question></ask_followup_question>")),
        cb.message("user", cb.text("[ask_followup_question for 'Which one?'] Result:"),
                   cb.text("<answer>\nPostgres\n</answer>")),
        cb.message("assistant", cb.text("<attempt_completion><result>Done."
                                        "</result></attempt_completion>")),
        cb.message("user", cb.text("[attempt_completion] Result:"), cb.text(feedback)),
        cb.message("assistant", cb.text("Adding the docs.")),
    ])  # fmt: skip
    (session,), _ = load_sessions(ClineAdapter(), home)
    said = texts(session, "user")
    assert said[:2] == ["Pick a database", "Postgres"] and "also the docs" in said[2]


_TOKENS = st.integers(0, 10**7)


@given(st.lists(st.tuples(_TOKENS, _TOKENS, _TOKENS, _TOKENS), max_size=6))
def test_sdk_tokens_count_each_input_token_once(replies):
    """The SDK's ``inputTokens`` holds the reply's cache reads and writes: the note's input,
    cache reads and cache writes add up to it (each token once), never below 0 (a provider
    that reports its input apart from the cache, as some handlers do, gives 0 then)."""
    items = []
    for uncached, read, write, out in replies:
        items.append(cb.message("user", "go"))
        items.append(cb.message("assistant", cb.text("ok"),
                                **cb.metrics(uncached + read + write, out, 0.0, read, write)))  # fmt: skip
    usage = parse_messages(items, "s:").usage
    assert usage.input_tokens == sum(r[0] for r in replies)
    assert usage.cache_read_tokens == sum(r[1] for r in replies)
    assert usage.cache_write_tokens == sum(r[2] for r in replies)
    assert usage.output_tokens == sum(r[3] for r in replies)
    lone = parse_messages([cb.message("assistant", cb.text("ok"), **cb.metrics(5, 1, 0.0, 9, 2))],
                          "s:").usage  # fmt: skip
    assert (lone.input_tokens, lone.cache_read_tokens, lone.cache_write_tokens) == (0, 9, 2)
