"""GitHub Copilot CLI adapter: both layouts, prompts and replies, reasoning, tools paired by
id, sub-agents as linked notes, session events, token totals, and bad input."""

from __future__ import annotations

import base64
import builtins
import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from conftest import load_sessions, normalize, note_files, texts, the_exported_note
from copilot_cli_builder import CopilotCliSession, request
from fuzz_lines import MARKER, damaged, lines, markers_of
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from exporter.adapters import SourceContext
from exporter.adapters._jsonl import UNFINISHED_LAST_LINE
from exporter.adapters.copilot_cli import CopilotCliAdapter
from exporter.export import ExportOptions, run_export

SID = "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f"


def load_all(home: Path, env: dict | None = None, real_home: bool = False):
    return load_sessions(CopilotCliAdapter(), home, env, real_home)


def export(home: Path, vault: Path):
    return run_export(ExportOptions(vault=vault, home=home, sources=["copilot-cli"], timezone=UTC))


def parts(session, kind):
    return [p for m in session.messages for p in m.parts if p.kind == kind]


def conversation(session_id: str = SID, **kwargs) -> CopilotCliSession:
    s = CopilotCliSession(session_id, **kwargs)
    s.event("session.model_change", {"newModel": "claude-sonnet-4.5", "previousModel": "auto"})
    s.event("system.message", {"content": "You are GitHub Copilot.", "role": "system"})
    s.user("Add a /health endpoint")
    s.event("assistant.turn_start", {"turnId": "0"})
    s.event("assistant.reasoning", {"reasoningId": "r1", "content": "Read the server first."})
    s.assistant(
        "Reading the server.",
        [request("call-1", "view", '{"path": "server.py"}', intentionSummary="Read server.py")],
        reasoningText="Read the server first.",
        reasoningOpaque="b3BhcXVl",
        model="claude-sonnet-4.5",
    )
    s.tool("call-1", "view", {"path": "server.py"}, "app = Flask()")
    s.event("hook.start", {"hookInvocationId": "h1", "hookType": "postToolUse"})
    s.event("session.usage_checkpoint", {"totalPremiumRequests": 1})
    s.assistant("Added `GET /health`.", model="claude-sonnet-4.5")
    s.event("assistant.turn_end", {"turnId": "0"})
    return s


def test_discovery_is_stat_only_and_finds_both_layouts(tmp_path, monkeypatch):
    root = tmp_path / ".copilot"
    conversation().write(root, workspace="name: Health endpoint\n")
    conversation("legacy-0001").write_legacy(root)
    archived = conversation("archived-0002").write(tmp_path / "old")
    (root / "history-session-state").mkdir()
    archived.parent.rename(root / "history-session-state" / "archived-0002")

    def no_open(*args, **kwargs):
        raise AssertionError("discovery must not open files")

    monkeypatch.setattr(builtins, "open", no_open)
    refs = list(CopilotCliAdapter().discover(SourceContext(tmp_path, {}, False)))
    monkeypatch.undo()
    assert [r.session_id for r in refs] == [SID, "legacy-0001", "archived-0002"]
    assert [f.path.name for f in refs[0].related] == ["workspace.yaml"]


def test_copilot_home_is_used_only_on_the_real_home(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    conversation().write(elsewhere)
    env = {"COPILOT_HOME": str(elsewhere)}
    assert [s.session_id for s in load_all(tmp_path / "h", env, real_home=True)[0]] == [SID]
    assert load_all(tmp_path / "h", env, real_home=False)[0] == []


def test_prompt_reply_reasoning_once_and_a_paired_tool_call(tmp_path):
    conversation().write(tmp_path / ".copilot")
    (session,), problems = load_all(tmp_path)
    assert problems == []
    assert texts(session, "user") == ["Add a /health endpoint"]  # not transformedContent
    assert texts(session, "assistant") == ["Reading the server.", "Added `GET /health`."]
    assert [p.text for p in parts(session, "thinking")] == ["Read the server first."]
    (call,), (result,) = parts(session, "tool_call"), parts(session, "tool_result")
    assert (call.name, call.input, call.description) == (
        "view",
        {"path": "server.py"},
        "Read server.py",
    )
    assert (result.call_id, result.output, result.duration) == ("call-1", "app = Flask()", 1.5)
    assert "You are GitHub Copilot." not in texts(session)


def test_metadata_from_start_workspace_and_title_events(tmp_path):
    s = conversation(cwd="C:\\Users\\dev\\work\\win-app", branch="feat/ünï")
    s.event("session.title_changed", {"title": "From the event"})
    s.write(
        tmp_path / ".copilot",
        workspace="name: Health endpoint ✓\ncwd: /ignored\nnested:\n  name: x\n",
    )
    (session,), _ = load_all(tmp_path)
    assert session.title == "Health endpoint ✓"
    assert (session.cwd, session.project) == ("C:\\Users\\dev\\work\\win-app", "win-app")
    assert (session.git_branch, session.git_commit, session.git_remote) == (
        "feat/ünï",
        "0" * 40,
        "github.com/dev/api",
    )
    assert session.models == ("claude-sonnet-4.5",)
    assert session.started_at.isoformat() == "2026-06-01T09:00:00+00:00"
    assert session.ended_at > session.started_at
    conversation("no-workspace").write(tmp_path / ".copilot")
    s2 = CopilotCliSession("titled")
    s2.user("hello")
    s2.event("session.title_changed", {"title": "First"})
    s2.event("session.title_changed", {"title": "Second"})
    s2.write(tmp_path / ".copilot")
    by_id = {x.session_id: x for x in load_all(tmp_path)[0]}
    assert by_id["titled"].title == "Second" and by_id["no-workspace"].title is None


def test_model_change_compaction_truncation_abort_and_errors(tmp_path):
    s = conversation()
    s.event("session.model_change", {"newModel": "gpt-5", "reasoningEffort": "high"})
    s.event("session.compaction_start", {})
    s.event(
        "session.compaction_complete",
        {"success": True, "summaryContent": "We added /health.", "preCompactionTokens": 90000},
    )
    s.event("session.truncation", {"messagesRemovedDuringTruncation": 4})
    s.event("session.truncation", {"messagesRemovedDuringTruncation": 1,
                                   "tokensRemovedDuringTruncation": 52310})  # fmt: skip
    s.event("session.truncation", {"reason": "context_limit", "droppedTokens": 1234})
    s.event("abort", {"reason": "user interrupted"})
    s.event("session.error", {"errorType": "query", "message": "rate limited"})
    s.event("session.error", {"message": "Bad request", "statusCode": 400})
    s.event("session.error", {"message": "Error 429: too many requests", "statusCode": 429})
    s.event("session.warning", {"message": "slow network"})
    s.assistant("On gpt-5 now.", model="gpt-5")
    s.write(tmp_path / ".copilot")
    (session,), _ = load_all(tmp_path)
    assert session.models == ("claude-sonnet-4.5", "gpt-5")
    assert [(p.text, p.tokens) for p in parts(session, "summary")] == [("We added /health.", 90000)]
    assert [(p.notice, p.text) for p in parts(session, "notice")] == [
        ("notification", "Model changed to gpt-5 (reasoning effort high)"),
        ("notification", "Context truncated: 4 messages removed"),
        ("notification", "Context truncated: 1 message and 52,310 tokens removed"),
        ("notification", "Context truncated: 1,234 tokens removed"),
        ("interrupted", "user interrupted"),
        ("error", "rate limited"),
        ("error", "Bad request (status 400)"),
        ("error", "Error 429: too many requests"),  # the message says it already
        ("notification", "slow network"),
    ]
    assert session.messages[-1].model == "gpt-5"


def test_token_totals_from_shutdown_metrics_else_reply_tokens(tmp_path):
    s = conversation()
    s.shutdown(
        {
            "claude-sonnet-4.5": {
                "inputTokens": 1000,
                "outputTokens": 80,
                "cacheReadTokens": 600,
                "cacheWriteTokens": 10,
            }
        }
    )
    s.event("session.resume", {"resumeTime": s.stamp(0), "eventCount": 12})
    s.user("And a test?")
    s.assistant("Added.", model="gpt-5")
    s.shutdown(
        {
            "gpt-5": {
                "inputTokens": 200,
                "outputTokens": 20,
                "cacheReadTokens": 0,
                "cacheWriteTokens": 0,
            }
        }
    )
    s.write(tmp_path / ".copilot")
    conversation("crashed").write(tmp_path / ".copilot")  # no shutdown: replies' outputTokens
    by_id = {x.session_id: x for x in load_all(tmp_path)[0]}
    usage = by_id[SID].usage
    assert (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
    ) == (1000 - 600 - 10 + 200, 100, 600, 10)  # inputTokens counts the cached tokens too
    assert by_id["crashed"].usage.output_tokens == 40 and by_id["crashed"].usage.input_tokens == 0


def _shutdown(s: CopilotCliSession, **data) -> None:
    s.event("session.shutdown", {"shutdownType": "routine", **data})


def test_input_tokens_are_the_uncached_part_of_the_prompt(tmp_path):
    """modelMetrics.usage.inputTokens is the whole prompt: in a real CLI 1.0.75 log,
    inputTokens 24210 = tokenDetails.input 2 + cache_write 24208. The input counted is the
    rest, so the cached tokens are not counted twice (in ``tokens`` and in the estimated
    cost); a model's own tokenDetails give it as written."""
    s = conversation()
    _shutdown(s, modelMetrics={
        "claude-sonnet-5": {"requests": {"count": 1, "cost": 1},
                            "usage": {"inputTokens": 24210, "outputTokens": 4, "cacheReadTokens": 0,
                                      "cacheWriteTokens": 24208, "reasoningTokens": 0}},
        "gpt-5": {"requests": {"count": 1},
                  "usage": {"inputTokens": 393500, "outputTokens": 3546,
                            "cacheReadTokens": 311321, "cacheWriteTokens": 82162},
                  "tokenDetails": {"input": {"tokenCount": 17}, "cache_read": {"tokenCount": 311321},
                                   "cache_write": {"tokenCount": 82162}, "output": {"tokenCount": 3546}}},
    })  # fmt: skip
    s.write(tmp_path / ".copilot")
    (session,), _ = load_all(tmp_path)
    u = session.usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens) == (
        2 + 17, 4 + 3546, 311321, 24208 + 82162)  # fmt: skip


def test_an_input_count_smaller_than_the_cached_tokens_is_taken_as_it_is(tmp_path):
    s = conversation()
    _shutdown(s, modelMetrics={"gpt-5": {"usage": {"inputTokens": 50, "outputTokens": 5,
                                                   "cacheReadTokens": 900}}})  # fmt: skip
    s.write(tmp_path / ".copilot")
    (session,), _ = load_all(tmp_path)
    assert (session.usage.input_tokens, session.usage.cache_read_tokens) == (50, 900)


def test_session_token_details_when_no_model_has_usage(tmp_path):
    """CLI 1.0.77: modelMetrics {model: {requests: 2}} with no usage, and the session's
    totals in tokenDetails. They are read (no input count at all, and an estimated cost of
    the output alone, before); a model's entry with neither is not a count of zero."""
    s = conversation()
    _shutdown(s, modelMetrics={"claude-sonnet-4.5": {"requests": 2}},
              tokenDetails={"input": {"tokenCount": 100}, "output": {"tokenCount": 15},
                            "cache_read": {"tokenCount": 5}, "cache_write": {"tokenCount": 0}})  # fmt: skip
    s.write(tmp_path / ".copilot")
    by_id = {x.session_id: x for x in load_all(tmp_path)[0]}
    u = by_id[SID].usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens) == (
        100, 15, 5, 0)  # fmt: skip
    other = CopilotCliSession("only-reasoning")
    other.user("hi")
    other.assistant("hello", model="gpt-5")
    _shutdown(other, modelMetrics={"gpt-5": {"usage": {"reasoningTokens": 2}}})
    other.write(tmp_path / ".copilot")
    by_id = {x.session_id: x for x in load_all(tmp_path)[0]}
    assert by_id["only-reasoning"].usage.output_tokens > 0  # the replies' own count, kept


def test_a_github_remote_is_named_with_its_host_when_the_cli_leaves_it_out(tmp_path):
    """CLI 1.0.11 writes hostType 'github' and no repositoryHost; later builds write
    'github.com'. One remote is spelled one way, so its sessions group together."""
    s = conversation()
    s.events[0]["data"]["context"].pop("repositoryHost")
    s.write(tmp_path / ".copilot")
    ado = conversation("ado")
    ado.events[0]["data"]["context"].update(hostType="ado", repository="org/proj/repo")
    ado.events[0]["data"]["context"].pop("repositoryHost")
    ado.write(tmp_path / ".copilot")
    by_id = {x.session_id: x for x in load_all(tmp_path)[0]}
    assert by_id[SID].git_remote == "github.com/dev/api"
    assert by_id["ado"].git_remote == "org/proj/repo"  # no host guessed for another kind


def test_request_arguments_as_object_and_start_before_request(tmp_path):
    s = CopilotCliSession(SID)
    s.user("Run it")
    # an older build: the execution starts before (without) the request that announces it
    s.event(
        "tool.execution_start",
        {"toolCallId": "c9", "toolName": "bash", "arguments": {"command": "make"}},
    )
    s.assistant("", [request("c9", "bash", {"command": "make"})])
    s.event(
        "tool.execution_complete",
        {
            "toolCallId": "c9",
            "success": False,
            "result": {"result_type": "failure", "text_result_for_llm": "make: *** Error 2"},
        },
    )
    s.assistant("", [request("c10", "edit", {"path": "a.py"})])
    s.event(
        "tool.execution_complete",
        {
            "toolCallId": "c10",
            "success": True,
            "result": {"content": "File updated", "detailedContent": "-old\n+new"},
        },
    )
    s.write(tmp_path / ".copilot")
    (session,), _ = load_all(tmp_path)
    calls = parts(session, "tool_call")
    assert [(c.name, c.input) for c in calls] == [
        ("bash", {"command": "make"}),
        ("edit", {"path": "a.py"}),
    ]
    results = {r.call_id: r for r in parts(session, "tool_result")}
    assert (results["c9"].output, results["c9"].is_error) == ("make: *** Error 2", True)
    assert results["c10"].output == "-old\n+new"  # the full diff, not the model's summary


def test_an_older_result_rejected_or_denied_did_not_run(tmp_path):
    """An older result's ``result_type`` ``rejected`` (before it ran, the SDK says, not by
    whom) or ``denied`` (by a permission policy) is a call that did not run (``success``
    false all the same): "not permitted", naming no one; no error, and the write's path
    is not in ``files``. It was a failed call. ``failure`` stays an error."""
    s = CopilotCliSession(SID)
    s.user("Tidy up")
    outcomes = {
        "c1": ("rejected", "create", {"path": "/w/NOTES.md", "file_text": "# Notes"}),
        "c2": ("denied", "bash", {"command": "rm -r build"}),
        "c3": ("failure", "bash", {"command": "make"}),
    }
    for call_id, (kind, name, arguments) in outcomes.items():
        s.assistant("", [request(call_id, name, arguments)])
        s.event(
            "tool.execution_complete",
            {"toolCallId": call_id, "success": False,
             "result": {"result_type": kind, "text_result_for_llm": f"{kind} by the CLI"}},
        )  # fmt: skip
    s.write(tmp_path / ".copilot")
    (session,), _ = load_all(tmp_path)
    got = [(r.call_id, r.is_error, r.not_run) for r in parts(session, "tool_result")]
    assert got == [("c1", False, "denied"), ("c2", False, "denied"), ("c3", True, None)]
    text = the_exported_note(tmp_path, "copilot-cli")
    assert "> [!note]- `create` — `/w/NOTES.md` (not permitted)\n" in text
    assert "> [!note]- `bash` — `rm -r build` (not permitted)\n" in text
    assert "> [!failure]- `bash` — `make` (error)\n" in text
    assert "\nerrors: 1\n" in text and "\nfiles:" not in text


def test_subagent_events_become_a_linked_session(tmp_path):
    s = conversation()
    s.assistant(
        "Delegating.",
        [
            request(
                "task-1",
                "task",
                {"prompt": "Find the tests for /health", "agent_type": "explore"},
                intentionSummary="Find tests",
            )
        ],
    )
    s.event(
        "subagent.started",
        {"toolCallId": "task-1", "agentName": "explore", "agentDisplayName": "Explore"},
        agentId="agent-1",
    )
    # newer builds: the envelope agentId; older ones: data.parentToolCallId
    s.assistant(
        "Searching tests.", [request("sub-c1", "grep", {"pattern": "health"})], agentId=None
    )
    s.events[-1]["agentId"] = "agent-1"
    s.tool("sub-c1", "grep", {"pattern": "health"}, "tests/test_health.py", agentId="agent-1")
    s.event("assistant.message", {"content": "Found one test.", "parentToolCallId": "task-1"})
    s.event(
        "subagent.completed",
        {
            "toolCallId": "task-1",
            "agentName": "explore",
            "model": "claude-haiku-4.5",
            "totalToolCalls": 1,
        },
    )
    s.event(
        "tool.execution_complete",
        {
            "toolCallId": "task-1",
            "success": True,
            "result": {"content": "One test: tests/test_health.py"},
        },
    )
    s.write(tmp_path / ".copilot")
    main, child = load_all(tmp_path)[0]
    assert child.session_id == f"{SID}/agent-task-1"
    assert (child.parent_id, child.agent_label, child.title) == (SID, "Explore", "Find tests")
    assert texts(child, "user") == ["Find the tests for /health"]
    assert texts(child, "assistant") == ["Searching tests.", "Found one test."]
    assert child.models == ("claude-haiku-4.5",) and child.project == main.project
    assert [p.output for p in parts(child, "tool_result")] == ["tests/test_health.py"]
    assert "Searching tests." not in texts(main)
    assert main.subagent_ids == (child.session_id,)
    delegation = next(c for c in parts(main, "tool_call") if c.call_id == "task-1")
    assert delegation.subagent_id == child.session_id
    vault = tmp_path / "vault"
    export(tmp_path, vault)
    notes = {Path(rel).stem: b.decode() for rel, b in note_files(vault).items()}
    kid = next(stem for stem, text in notes.items() if "parent:" in text)
    parent = next(stem for stem in notes if stem != kid)
    assert f"[[{kid}" in notes[parent] and f"[[{parent}]]" in notes[kid]


def test_skill_injected_prompts_ephemeral_and_dropped_events_are_left_out(tmp_path):
    s = CopilotCliSession(SID)
    s.user("Typed by me")
    s.user("Injected by a skill", source="skill")
    # autopilot's continuation loop: not typed by the person
    s.user("Continue with the next step.", isAutopilotContinuation=True)
    s.event("assistant.message", {"content": "streaming piece"}, ephemeral=True)
    for kind in (
        "system.notification",
        "permission.requested",
        "skill.invoked",
        "session.mcp_servers_loaded",
        "session.idle",
        "session.info",
    ):
        s.event(kind, {"content": "noise", "message": "noise"})
    s.assistant("A real reply.")
    s.write(tmp_path / ".copilot")
    (session,), problems = load_all(tmp_path)
    assert texts(session) == ["Typed by me", "A real reply."]
    assert problems == []


def test_folder_trust_notice_is_the_last_resort_for_the_cwd(tmp_path):
    s = CopilotCliSession(SID)
    s.events[0]["data"].pop("context")
    s.event(
        "session.info",
        {
            "infoType": "folder_trust",
            "message": "Folder /home/dev/work/trusted has been added to trusted folders.",
        },
    )
    s.user("hi")
    s.write(tmp_path / ".copilot")
    (session,), _ = load_all(tmp_path)
    assert (session.cwd, session.project) == ("/home/dev/work/trusted", "trusted")


def test_bad_lines_unknown_types_and_a_line_being_written(tmp_path):
    path = conversation().write(tmp_path / ".copilot")
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(2, "{not json\n")
    lines.insert(3, '"a string"\n')
    lines.insert(4, json.dumps({"type": "brand.new_event", "data": {}}) + "\n")
    path.write_text("".join(lines) + '{"type":"user.message","data":{"content":"half')
    (session,), problems = load_all(tmp_path)
    assert texts(session, "user") == ["Add a /health endpoint"]
    assert [(p.line, p.message) for p in problems] == [
        (3, problems[0].message),
        (4, "not an event (no type), line skipped"),
        (len(lines) + 1, UNFINISHED_LAST_LINE),  # the event being written: left for now
        (5, "unknown event type 'brand.new_event' skipped"),
    ]
    assert problems[0].message.startswith("not valid JSON")


def test_export_finds_the_text_and_an_unchanged_rerun_reads_nothing(tmp_path, monkeypatch):
    conversation().write(tmp_path / ".copilot", workspace="name: Health endpoint\n")
    vault = tmp_path / "vault"
    report = export(tmp_path, vault)
    assert report.total("created") == 1
    (note,) = [b.decode() for b in note_files(vault).values()]
    assert "title: Health endpoint" in note
    body = normalize(note)
    assert "Add a /health endpoint" in body and "Added `GET /health`." in body
    loads = []
    real = CopilotCliAdapter.load
    monkeypatch.setattr(
        CopilotCliAdapter, "load", lambda self, ref: loads.append(ref) or real(self, ref)
    )
    again = export(tmp_path, vault)
    assert loads == [] and again.total("skipped") == 1 and again.total("written") == 0
    (tmp_path / ".copilot" / "session-state" / SID / "workspace.yaml").write_text("name: Renamed\n")
    export(tmp_path, vault)
    assert len(loads) == 1  # a new title re-reads the session


def marked_session() -> list[dict]:
    """Every event with text carries its own marker word."""
    s = CopilotCliSession(SID)
    s.event("session.title_changed", {"title": "Title mk1x"})
    s.user("Prompt mk2x")
    s.event("assistant.reasoning", {"reasoningId": "r", "content": "Reasoning mk3x"})
    s.assistant("Reply mk4x", [request("c1", "bash", '{"command": "echo mk5x"}')])
    s.tool("c1", "bash", {"command": "echo mk5x"}, "Output mk6x")
    s.assistant("Delegating mk7x", [request("t1", "task", {"prompt": "Sub prompt mk8x"})])
    s.event("subagent.started", {"toolCallId": "t1", "agentName": "explore"}, agentId="a1")
    s.event("assistant.message", {"content": "Sub reply mk9x"}, agentId="a1")
    s.event("session.compaction_complete", {"summaryContent": "Summary mk10x"})
    s.event("abort", {"reason": "user"})  # the note says "interrupted", not why
    s.user("Second prompt mk12x")
    s.assistant("Second reply mk13x")
    return s.events


def rendered(home: Path) -> str:
    from exporter.notes import NoteSettings, build_note

    out = []
    for session in load_all(home)[0]:
        note = build_note(session, "n.md", NoteSettings(), lambda key: None)
        out.append(note.body + json.dumps(note.frontmatter, default=str))
    return "\n".join(out)


def test_every_marker_of_the_undamaged_log_reaches_a_note(tmp_path):
    events = marked_session()
    path = tmp_path / ".copilot" / "session-state" / SID / "events.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(lines(events))
    assert set(MARKER.findall(rendered(tmp_path))) == markers_of(events)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_one_damaged_event_costs_at_most_itself(data):
    events = marked_session()
    index, bad = data.draw(damaged(events))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ".copilot" / "session-state" / SID / "events.jsonl"
        path.parent.mkdir(parents=True)
        path.write_bytes(lines([*events[:index], bad, *events[index + 1 :]]))
        text = rendered(Path(tmp))  # never raises
    others = markers_of(events[:index] + events[index + 1 :]) - markers_of([events[index]])
    assert not others - set(MARKER.findall(text)), index


def test_a_duration_too_large_for_a_float_is_no_duration(tmp_path):
    """Found by the test above: ``durationMs`` of 10**400 (a damaged line, read by the
    lenient JSON reader) raised OverflowError and lost the session."""
    s = CopilotCliSession(SID)
    s.user("Run it")
    s.assistant("", [request("c1", "bash", {"command": "make"})])
    s.event(
        "tool.execution_complete",
        {"toolCallId": "c1", "success": True, "result": {"content": "ok"},
         "toolTelemetry": {"metrics": {"durationMs": 10**400}}},
    )  # fmt: skip
    s.write(tmp_path / ".copilot")
    (session,), _ = load_all(tmp_path)
    (result,) = parts(session, "tool_result")
    assert (result.output, result.duration) == ("ok", None)


def test_what_the_person_attached_to_a_prompt_is_in_the_note(tmp_path):
    """``user.message.attachments``: a file (with a line range) and a folder the CLI read
    from disk are named; a selection keeps its text, a pasted image its bytes; an issue is
    named with its link; a prompt of attachments alone is still the person's turn."""
    s = CopilotCliSession(SID)
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 8
    s.user(
        "Why does this fail?",
        attachments=[
            {"type": "file", "path": "/home/dev/work/api/server.py", "displayName": "server.py",
             "lineRange": {"start": 10, "end": 24}},
            {"type": "directory", "path": "/home/dev/work/api/tests", "displayName": "tests"},
            {"type": "selection", "filePath": "/home/dev/work/api/app.py", "displayName": "app.py",
             "text": "def handler():\n    raise KeyError",
             "selection": {"start": {"line": 4, "character": 0},
                           "end": {"line": 5, "character": 18}}},
            {"type": "github_reference", "number": 42, "title": "Login loops",
             "referenceType": "issue", "state": "open",
             "url": "https://github.com/dev/api/issues/42"},
        ],
    )  # fmt: skip
    s.assistant("Looking.")
    s.user("", attachments=[{"type": "blob", "data": base64.b64encode(png).decode(),
                             "mimeType": "image/png", "displayName": "screenshot.png"}])  # fmt: skip
    s.assistant("That is the login page.")
    s.write(tmp_path / "home" / ".copilot")
    (session,), problems = load_all(tmp_path / "home")
    assert problems == []
    first, second = [m for m in session.messages if m.role == "user"]
    attached = [(p.name, p.data) for p in first.parts if p.kind == "attachment"]
    assert attached == [
        ("/home/dev/work/api/server.py:10-24", None),
        ("/home/dev/work/api/tests", None),
        ("/home/dev/work/api/app.py:5-6", b"def handler():\n    raise KeyError"),
        ("#42 Login loops (https://github.com/dev/api/issues/42)", None),
    ]
    ((image),) = second.parts
    assert (image.kind, image.media_type, image.data, image.name) == (
        "attachment",
        "image/png",
        png,
        "screenshot.png",
    )
    export(tmp_path / "home", tmp_path / "v")
    (note,) = [b.decode() for rel, b in note_files(tmp_path / "v").items() if rel.endswith(".md")]
    assert "*Attached `/home/dev/work/api/server.py:10-24`, not stored in the session.*" in note
    assert (
        "> [!cite] Attached `/home/dev/work/api/app.py:5-6`\n> ```python\n"
        "> def handler():\n>     raise KeyError\n> ```\n"
    ) in note
    assert "Attached `screenshot.png`:\n![[attachments/ccexport/" in note
    assert "prompts: 2\n" in note


def test_a_results_exit_code_and_images_are_kept(tmp_path):
    """``result.contents``: a ``terminal`` item's ``exitCode`` is the command's exit code (so
    is ``shellExecution.exitCode``, 1.0.88+); an ``image`` item (a screenshot a tool took) is
    an attachment of the result. They were dropped."""
    s = CopilotCliSession(SID)
    s.user("Run the tests and show me the page")
    png = b"\x89PNG\r\n\x1a\n" + b"\1" * 8
    s.tool("call-1", "bash", {"command": "pytest"}, "1 failed", success=False,
           contents=[{"type": "terminal", "text": "1 failed", "exitCode": 1, "cwd": "/w"}])  # fmt: skip
    s.tool("call-2", "screenshot", {"url": "http://localhost"}, "Took a screenshot",
           contents=[{"type": "image", "data": base64.b64encode(png).decode(),
                      "mimeType": "image/png"}])  # fmt: skip
    s.tool("call-3", "bash", {"command": "false"}, "", success=False)
    s.events[-1]["data"]["shellExecution"] = {"exitCode": 2}  # 1.0.88+
    s.write(tmp_path / ".copilot")
    (session,), problems = load_all(tmp_path)
    assert problems == []
    first, second, third = parts(session, "tool_result")
    assert (first.exit_code, first.is_error, second.exit_code) == (1, True, None)
    assert third.exit_code == 2
    (image,) = parts(session, "attachment")
    assert (image.media_type, image.data) == ("image/png", png)


def test_a_tool_the_person_ran_themselves_is_their_turn(tmp_path):
    """``tool.user_requested``: the person ran ``!git status`` in the CLI. The event was
    unknown (reported, skipped) and its start and result made it the model's tool call;
    it is the person's command now, with its output."""
    s = CopilotCliSession(SID)
    s.event("tool.user_requested",
            {"toolCallId": "u-1", "toolName": "bash", "arguments": {"command": "git status"}})  # fmt: skip
    s.tool("u-1", "bash", {"command": "git status"}, "nothing to commit")
    s.user("Why is the tree clean?")
    s.assistant("You committed everything.")
    s.write(tmp_path / ".copilot")
    (session,), problems = load_all(tmp_path)
    assert problems == []
    assert parts(session, "tool_call") == [] and parts(session, "tool_result") == []
    (command, output) = [m for m in session.messages if m.role == "user"][:2]
    assert [(p.kind, p.command, p.shell) for p in command.parts] == [
        ("command", "git status", True)
    ]
    assert [(p.kind, p.output) for p in output.parts] == [("command_output", "nothing to commit")]


@given(st.lists(st.dictionaries(
    st.sampled_from(["type", "path", "filePath", "displayName", "text", "selection", "lineRange",
                     "number", "title", "url", "data", "mimeType", "exitCode"]),
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
              st.sampled_from(["file", "directory", "selection", "github_reference", "blob",
                               "terminal", "image"]),
              st.dictionaries(st.sampled_from(["start", "end", "line"]),
                              st.one_of(st.integers(), st.floats(), st.booleans(),
                                        st.dictionaries(st.just("line"), st.floats())))),
), max_size=4))  # fmt: skip
@example(
    [
        {"type": "terminal", "exitCode": float("nan")},
        {"type": "github_reference", "number": True},
        {"type": "file", "path": "a", "lineRange": {"start": float("inf"), "end": 2}},
    ]
)
@settings(max_examples=200, deadline=None)
def test_any_attachment_or_result_contents_are_read_without_an_exception(items):
    """Whatever an attachment or a result item holds, it is read without an exception (a
    NaN exit code, a flag as a line number, base64 that is not): every part is an attachment
    and an exit code is a whole number or none."""
    from exporter.adapters.copilot_cli.attachments import attachment_parts, result_extras

    assert all(p.kind == "attachment" for p in attachment_parts(items))
    code, media = result_extras(items)
    assert (code is None or type(code) is int) and all(p.data for p in media)


def test_a_rewind_is_marked_where_the_conversation_goes_on(tmp_path):
    """``session.snapshot_rewind`` (the person went back to an earlier point) was an unknown
    event, reported and skipped, so the note read as one straight conversation."""
    s = CopilotCliSession(SID)
    first = s.user("Rename the module")
    s.assistant("Renamed.")
    s.event("session.snapshot_rewind", {"upToEventId": first["id"], "eventsRemoved": 2})
    s.user("Rename it to core instead")
    s.assistant("Renamed to core.")
    s.write(tmp_path / ".copilot")
    (session,), problems = load_all(tmp_path)
    assert problems == []
    roles = [(m.role, [p.kind for p in m.parts]) for m in session.messages]
    assert roles[2] == ("system", ["notice"]) and session.messages[2].parts[0].notice == "rewound"
    assert texts(session, "user") == ["Rename the module", "Rename it to core instead"]


def test_an_abort_the_cli_caused_is_not_the_person_s_interruption(tmp_path):
    """``abort`` ends a turn the person stopped (``user_initiated``, ``user initiated``,
    ``user_cancelled``) and one the CLI itself gave up on (``tool_failure``): the second was
    shown as interrupted by the user."""
    s = conversation()
    s.event("abort", {"reason": "user_initiated"})
    s.event("abort", {"reason": "tool_failure"})
    s.event("abort", {"reason": "cancelled"})  # not known to be the CLI's: the person's
    s.write(tmp_path / ".copilot")
    (session,), _ = load_all(tmp_path)
    assert [(p.notice, p.text) for p in parts(session, "notice")] == [
        ("interrupted", "user_initiated"),
        ("notification", "Turn aborted: tool_failure"),
        ("interrupted", "cancelled"),
    ]


def test_an_event_out_of_order_moves_neither_the_start_nor_the_end(tmp_path):
    """The end was the last event's time: a last event stamped before the ones above it
    (a clock set back) ended the session before it started."""
    s = conversation()
    latest = max(e["timestamp"] for e in s.events[:-1])
    s.events[-1]["timestamp"] = "2026-06-01T08:59:00.000Z"  # before session.start
    s.write(tmp_path / ".copilot")
    (session,), _ = load_all(tmp_path)
    assert session.started_at == datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
    assert session.ended_at == datetime.fromisoformat(latest)
