"""The Claude Code adapter, one FORMATS.md §1 rule per test, on synthetic transcripts."""

from __future__ import annotations

import builtins
import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from claude_builder import (
    RESUMED,
    RESUMED_AGAIN,
    ClaudeSession,
    cowork_task,
    image_block,
    resumed_sessions,
    tiny_png,
    tool_use,
)
from conftest import load_sessions, note_files, texts, the_exported_note
from markdown_it import MarkdownIt

from exporter.adapters import SourceContext
from exporter.adapters._jsonl import UNFINISHED_LAST_LINE
from exporter.adapters.base import project_name
from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.errors import Problem
from exporter.export import ExportOptions, run_export
from exporter.model import Session

SID = "11111111-2222-4333-8444-555555555555"


def projects(home: Path, folder: str = "-w-proj") -> Path:
    return home / ".claude" / "projects" / folder


def load_all(
    home: Path, real_home: bool = False, env: dict | None = None
) -> tuple[list[Session], list[Problem]]:
    return load_sessions(ClaudeCodeAdapter(), home, env, real_home)


def only(sessions: list[Session], session_id: str = SID) -> Session:
    return next(s for s in sessions if s.session_id == session_id)


def test_discovery_is_stat_only_and_finds_every_layout(tmp_path, monkeypatch):
    folder = projects(tmp_path)
    ClaudeSession(SID).write(folder / f"{SID}.jsonl")
    ClaudeSession(SID, sidechain=True, agent_id="abc").write(
        folder / SID / "subagents" / "agent-abc.jsonl"
    )
    ClaudeSession(SID, sidechain=True, agent_id="old").write(folder / "agent-old.jsonl")

    def no_open(*args, **kwargs):
        raise AssertionError("discovery must not open files")

    monkeypatch.setattr(builtins, "open", no_open)
    refs = list(ClaudeCodeAdapter().discover(SourceContext(tmp_path, {}, False)))
    monkeypatch.undo()
    assert [r.session_id for r in refs] == [SID, "agent-old"]
    assert [f.path.name for f in refs[0].related] == ["agent-abc.jsonl"]
    assert refs[0].size == sum(f.size for f in refs[0].files)


def test_claude_config_dir_is_read_on_the_real_home(tmp_path):
    configured = tmp_path / "elsewhere"
    s = ClaudeSession(SID)
    s.user("hello from the configured dir")
    s.assistant("hi")
    s.write(configured / "projects" / "-w" / f"{SID}.jsonl")
    sessions, _ = load_all(
        tmp_path / "home", real_home=True, env={"CLAUDE_CONFIG_DIR": str(configured)}
    )
    assert texts(only(sessions), "user") == ["hello from the configured dir"]
    # With an explicit --home, only that home is read.
    assert (
        load_all(tmp_path / "home", real_home=False, env={"CLAUDE_CONFIG_DIR": str(configured)})[0]
        == []
    )


def test_streamed_lines_merge_and_usage_counts_once(tmp_path):
    s = ClaudeSession(SID)
    s.user("explain")
    s.assistant(
        [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "part one"},
            {"type": "text", "text": "part two"},
        ],
        usage=(100, 30),
    )
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    assistant = [m for m in session.messages if m.role == "assistant"]
    assert len(assistant) == 1
    assert [p.kind for p in assistant[0].parts] == ["thinking", "text", "text"]
    # Three lines repeat the usage, growing; the last line's counts, once.
    assert (session.usage.input_tokens, session.usage.output_tokens) == (100, 30)
    assert session.usage.cache_read_tokens == 100


def test_repeated_uuids_are_kept_once(tmp_path):
    s = ClaudeSession(SID)
    s.user("only once please")
    s.lines.append(s.lines[-1])
    s.assistant("ok")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    assert texts(only(load_all(tmp_path)[0]), "user") == ["only once please"]


def test_a_line_written_again_with_other_metadata_is_kept_once(tmp_path):
    """Claude Code writes some lines a second time under their uuid, with another parent,
    branch, version or flags (a newer build, a reopened editor): the same line, once, and
    no warning."""
    s = ClaudeSession(SID)
    s.user("only once please")
    again = json.loads(s.lines[-1])
    again.update(parentUuid=None, gitBranch="other", version="2.2.0", isMeta=False, slug="x-y")
    again["message"] = {"content": "only once please", "role": "user"}  # keys reordered
    s.assistant("ok")
    s.raw(again)
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    sessions, problems = load_all(tmp_path)
    assert texts(only(sessions), "user") == ["only once please"]
    assert problems == []


def test_a_harness_line_written_again_without_its_flag_is_still_no_prompt(tmp_path):
    """An ``isMeta`` line (what the harness injected) written again under its uuid without
    the flag, with another parent and time: the same line, not the person's prompt."""
    s = ClaudeSession(SID)
    s.user("use the skill")
    s.user("injected skill body text", isMeta=True)
    again = json.loads(s.lines[-1])
    again.pop("isMeta")
    again.update(parentUuid=None, timestamp="2026-01-01T00:00:00Z")
    s.assistant("ok")
    s.raw(again)
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    sessions, _ = load_all(tmp_path)
    assert texts(only(sessions), "user") == ["use the skill"]


def test_a_line_reusing_a_uuid_with_other_content_is_kept_and_reported(tmp_path):
    """Found in the corpus (a fixture trimmed by hand gave every line one uuid): lines that
    share a uuid but say something else were merged into the first, and the prompts after
    it were lost without a word. Each is kept, a line written again (the same content) is
    still kept once, and one warning names the file and the first line kept."""
    s = ClaudeSession(SID)
    s.user("first prompt")
    first = json.loads(s.lines[-1])
    s.assistant("first answer")
    s.user("second prompt")
    second = json.loads(s.lines[-1])
    second["uuid"] = first["uuid"]
    s.lines[-1] = json.dumps(second)
    s.assistant("second answer")
    s.raw(dict(second, parentUuid=None))  # the second prompt written again
    attachment = {"type": "attachment", "uuid": first["uuid"], "parentUuid": s.last,
                  "timestamp": s.tick(), "attachment": {"type": "date_change"}}  # fmt: skip
    s.raw(attachment)  # shows nothing: no new line
    s.user("third prompt", uuid=first["uuid"])
    path = s.write(projects(tmp_path) / f"{SID}.jsonl")
    sessions, problems = load_all(tmp_path)
    session = only(sessions)
    assert texts(session, "user") == ["first prompt", "second prompt", "third prompt"]
    assert texts(session, "assistant") == ["first answer", "second answer"]
    assert [(p.path, p.line, p.severity) for p in problems] == [(str(path), 3, "warning")]
    assert problems[0].message.startswith("2 lines have the uuid of an earlier line")


def test_a_subagent_line_reusing_a_uuid_with_other_content_is_reported(tmp_path):
    folder = projects(tmp_path)
    main = ClaudeSession(SID)
    main.user("hello")
    main.write(folder / f"{SID}.jsonl")
    agent = ClaudeSession(SID, sidechain=True, agent_id="abc")
    uuid = agent.user("look around", parent=None)
    agent.assistant("Looked.")
    agent.user("and again", uuid=uuid)
    path = agent.write(folder / SID / "subagents" / "agent-abc.jsonl")
    sessions, problems = load_all(tmp_path)
    child = only(sessions, f"{SID}/agent-abc")
    assert texts(child, "user") == ["look around", "and again"]
    assert [(p.path, p.line) for p in problems] == [(str(path), 3)]


def test_a_session_of_nothing_but_notifications_has_no_conversation(tmp_path):
    """Claude Code's notification of a background shell (``<bash-notification>``) is shown
    as a notification under no heading; a session holding nothing else has no note: no
    one said anything in it. Nothing is dropped silently: the run counts it without a
    conversation and names its file (--verbose)."""
    notice = ("<bash-notification><shell-id>b1</shell-id><status>completed</status>"
              "<summary>Background command \"npm run dev\" completed</summary>"
              "</bash-notification>")  # fmt: skip
    alone = ClaudeSession(SID)
    alone.user(notice)
    path = alone.write(projects(tmp_path) / f"{SID}.jsonl")
    vault = tmp_path / "v"
    report = run_export(ExportOptions(vault=vault, home=tmp_path, timezone=UTC))
    assert note_files(vault) == {}
    assert report.empty_units == [("claude-code", str(path))]
    answered = ClaudeSession(SID)
    answered.user(notice)
    answered.assistant("The dev server stopped.")
    answered.write(path)
    run_export(ExportOptions(vault=vault, home=tmp_path, timezone=UTC))
    (note,) = note_files(vault).values()
    assert b'> Background command "npm run dev" completed\n' in note
    assert b"### User" not in note


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            [("custom-title", {"customTitle": "Renamed"}), ("ai-title", {"aiTitle": "AI one"})],
            "Renamed",
        ),
        ([("ai-title", {"aiTitle": "AI one"}), ("ai-title", {"aiTitle": "AI two"})], "AI two"),
        ([], None),
    ],
)
def test_title_priority(tmp_path, extra, expected):
    s = ClaudeSession(SID)
    s.user("the first prompt")
    s.assistant("reply")
    for kind, fields in extra:
        s.meta(kind, sessionId=SID, **fields)
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    assert only(load_all(tmp_path)[0]).title == expected


def test_summary_title_found_in_a_later_file_of_the_project(tmp_path):
    s = ClaudeSession(SID)
    s.user("first")
    leaf = s.assistant("reply") and s.last
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    later = ClaudeSession("99999999-2222-4333-8444-555555555555", start="2026-11-21T09:00:00Z")
    later.meta("summary", summary="Summarised elsewhere", leafUuid=leaf)
    later.meta("summary", summary="Someone else's", leafUuid="not-here")
    later.user("another session")
    later.assistant("ok")
    later.write(projects(tmp_path) / f"{later.session_id}.jsonl")
    sessions, _ = load_all(tmp_path)
    assert only(sessions).title == "Summarised elsewhere"
    assert only(sessions, later.session_id).title is None


def test_project_comes_from_cwd_not_the_folder_name(tmp_path):
    s = ClaudeSession(SID, cwd="/home/me/my-app")
    s.user("hi")
    s.assistant("hello")
    s.write(projects(tmp_path, "-home-me-my--totally-different") / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    assert (session.project, session.cwd, session.git_branch) == (
        "my-app",
        "/home/me/my-app",
        "main",
    )
    assert project_name("C:\\Users\\me\\win-proj") == "win-proj"
    assert project_name("d:\\coding\\x") == "x"


def test_models_times_and_branch(tmp_path):
    s = ClaudeSession(SID, start="2026-01-02T10:00:00Z")
    s.branch = "feat/x"
    s.user("go")
    s.assistant("a", model="model-a")
    s.assistant("b", model="<synthetic>")
    s.assistant("c", model="model-b")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    assert session.models == ("model-a", "model-b")
    assert session.git_branch == "feat/x"
    assert session.started_at.isoformat() == "2026-01-02T10:00:05+00:00"
    assert session.ended_at > session.started_at
    assert "b" not in texts(session)  # the synthetic placeholder is not a reply


def _task_session(folder: Path) -> ClaudeSession:
    s = ClaudeSession(SID)
    s.user("survey the tests")
    s.assistant(
        [
            tool_use(
                "Task",
                {"description": "Survey", "prompt": "List tests.", "subagent_type": "Explore"},
                "toolu_1",
            )
        ]
    )
    return s


def test_subagent_new_layout_links_by_meta_sidecar(tmp_path):
    folder = projects(tmp_path)
    s = _task_session(folder)
    s.tool_result("toolu_1", "Found 3.")
    s.write(folder / f"{SID}.jsonl")
    agent = ClaudeSession(SID, sidechain=True, agent_id="a1b2c3d")
    agent.user("List tests.", parent=None)
    agent.assistant("Found 3.")
    sub = folder / SID / "subagents"
    agent.write(sub / "agent-a1b2c3d.jsonl")
    (sub / "agent-a1b2c3d.meta.json").write_text(json.dumps({"toolUseId": "toolu_1"}))
    sessions, _ = load_all(tmp_path)
    parent, child = only(sessions), only(sessions, f"{SID}/agent-a1b2c3d")
    assert child.parent_id == SID and child.title == "Survey" and child.agent_label == "Explore"
    assert parent.subagent_ids == (child.session_id,)
    call = next(p for m in parent.messages for p in m.parts if p.kind == "tool_call")
    assert call.subagent_id == child.session_id


def test_a_parent_keeps_its_links_to_a_subagent_whose_file_was_cleaned_up(tmp_path):
    """Claude Code may delete an old subagent's file before its parent's (the parent was
    resumed later): the subagent's note stays in the vault, so the parent's next update
    still links to it, from the Task call and its properties."""
    folder = projects(tmp_path)
    s = _task_session(folder)
    s.tool_result("toolu_1", "Found 3.", rich={"status": "completed", "agentId": "a1b2c3d"})
    s.write(folder / f"{SID}.jsonl")
    agent = ClaudeSession(SID, sidechain=True, agent_id="a1b2c3d")
    agent.user("List tests.", parent=None)
    agent.assistant("Found 3.")
    agent.write(folder / SID / "subagents" / "agent-a1b2c3d.jsonl")
    vault = tmp_path / "vault"
    options = ExportOptions(vault=vault, home=tmp_path, sources=["claude-code"], timezone=UTC)
    run_export(options)
    child = next(Path(k).stem for k in note_files(vault) if "· agent" in k)
    parent_note = next(k for k in note_files(vault) if "· agent" not in k)
    before = (vault / parent_note).read_text()
    assert f"Full transcript: [[{child}]]" in before and f"[[{child}|Survey]]" in before
    shutil.rmtree(folder / SID / "subagents")
    s.user("And the slow ones?")
    s.assistant("Two are slow.")
    s.write(folder / f"{SID}.jsonl")
    assert run_export(options).total("updated") == 1
    after = (vault / parent_note).read_text()
    assert "Two are slow." in after
    assert f"Full transcript: [[{child}]]" in after and f"[[{child}|Survey]]" in after
    assert (vault / Path(parent_note).parent / f"{child}.md").is_file()


def test_subagent_old_top_level_file_links_by_task_result(tmp_path):
    folder = projects(tmp_path)
    s = _task_session(folder)
    s.tool_result("toolu_1", "Found 3.", rich={"status": "completed", "agentId": "0ld1d"})
    s.write(folder / f"{SID}.jsonl")
    agent = ClaudeSession(SID, sidechain=True, agent_id="0ld1d")
    agent.user("List tests.", parent=None)
    agent.assistant("Found 3.")
    agent.write(folder / "agent-0ld1d.jsonl")
    sessions, _ = load_all(tmp_path)
    child = only(sessions, f"{SID}/agent-0ld1d")
    assert child.parent_id == SID
    assert only(sessions).subagent_ids == (child.session_id,)


def test_subagent_inline_sidechain_lines(tmp_path):
    folder = projects(tmp_path)
    s = _task_session(folder)
    task = s.last
    side = ClaudeSession(SID, sidechain=True)
    side._n = 50
    side.user("List tests.", parent=None)
    side.assistant("Inline found 3.")
    s.lines.extend(side.lines)
    s.last = task
    s.tool_result("toolu_1", "Inline found 3.")
    s.assistant("Done.")
    s.write(folder / f"{SID}.jsonl")
    sessions, _ = load_all(tmp_path)
    parent = only(sessions)
    assert "Inline found 3." not in texts(parent, "assistant")  # not mixed into the parent
    child = next(x for x in sessions if x.parent_id == SID)
    assert texts(child, "assistant") == ["Inline found 3."] and child.title == "Survey"
    call = next(p for m in parent.messages for p in m.parts if p.kind == "tool_call")
    assert call.subagent_id == child.session_id


def test_warmup_agents_are_not_exported(tmp_path):
    folder = projects(tmp_path)
    warm = ClaudeSession(SID, sidechain=True, agent_id="w4rm")
    warm.user("Warmup", parent=None)
    warm.assistant("Ready.")
    warm.write(folder / "agent-w4rm.jsonl")
    assert load_all(tmp_path)[0] == []


def test_compaction_is_one_marked_summary(tmp_path):
    s = ClaudeSession(SID)
    s.user("before")
    s.assistant("reply")
    boundary = s.system(
        "compact_boundary",
        parent=None,
        compactMetadata={"trigger": "auto"},
        logicalParentUuid=s.last,
    )
    s.user(
        "This session is being continued from a previous conversation. Summary: X.",
        parent=boundary,
        isCompactSummary=True,
    )
    s.user("after")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    summaries = [p for m in session.messages for p in m.parts if p.kind == "summary"]
    assert (
        len(summaries) == 1
        and summaries[0].trigger == "auto"
        and "Summary: X." in summaries[0].text
    )
    assert texts(session, "user") == ["before", "after"]


def test_a_manual_compaction_comes_after_the_command_that_asked_for_it(tmp_path):
    """Claude Code writes a manual compaction's boundary and summary, then the /compact
    command (with the person's instructions) and what it printed: the note showed the
    summary first, the command two minutes earlier after it."""
    s = ClaudeSession(SID)
    s.user("hello")
    s.assistant("hi there")
    boundary = s.system("compact_boundary", parent=None, compactMetadata={"trigger": "manual"})
    s.user("This session is being continued. SUMMARY", parent=boundary, isCompactSummary=True)
    s.user("Caveat: The messages below were generated by the user while running local "
           "commands.", isMeta=True)  # fmt: skip
    s.user("<command-name>/compact</command-name>\n<command-args>keep the plan</command-args>")
    s.user("<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>")
    s.user("what next?")
    s.assistant("Next: the tests.")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    note = the_exported_note(tmp_path, "claude-code").partition("### User")[2]
    order = ["hello", "hi there", "`/compact keep the plan`", "Compacted (ctrl+o",
             "Conversation compacted (manual)", "SUMMARY", "what next?", "Next: the tests."]  # fmt: skip
    at = [note.index(text) for text in order]
    assert at == sorted(at)


def test_an_automatic_compaction_stays_where_it_was_written(tmp_path):
    s = ClaudeSession(SID)
    s.user("<command-name>/compact</command-name>")  # an earlier one, answered
    s.user("<local-command-stdout>Compacted</local-command-stdout>")
    s.user("hello")
    s.assistant("hi there")
    boundary = s.system("compact_boundary", parent=None, compactMetadata={"trigger": "auto"})
    s.user("Continued. SUMMARY", parent=boundary, isCompactSummary=True)
    s.user("<command-name>/cost</command-name>")
    s.user("what next?")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    note = the_exported_note(tmp_path, "claude-code").partition("### User")[2]
    at = [note.index(t) for t in ("hi there", "SUMMARY", "`/cost`", "what next?")]
    assert at == sorted(at)


def test_noise_is_not_conversation(tmp_path):
    s = ClaudeSession(SID)
    s.meta("file-history-snapshot", messageId="x", snapshot={}, isSnapshotUpdate=False)
    s.user(
        "Caveat: The messages below were generated by the user while running local commands.",
        isMeta=True,
    )
    s.user("real prompt")
    s.raw(
        {
            "type": "progress",
            "uuid": "p1",
            "parentUuid": s.last,
            "data": {"type": "hook_progress"},
            "timestamp": s.tick(),
        }
    )
    s.system("stop_hook_summary", hookCount=1, hookInfos=[], hookErrors=[])
    s.system("turn_duration", durationMs=5)
    s.assistant("No response requested.", model="<synthetic>")
    s.assistant("real reply")
    s.meta("queue-operation", operation="enqueue", content="typed ahead", sessionId=SID)
    s.meta("queue-operation", operation="dequeue", sessionId=SID)
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    assert [(m.role, [p.kind for p in m.parts]) for m in session.messages] == [
        ("user", ["text"]),
        ("assistant", ["text"]),
    ]


def test_a_skills_launch_marker_is_not_a_prompt(tmp_path):
    """When the model calls ``Skill``, Claude Code writes the skill's command tags as a
    user line tied to the call by ``sourceToolUseID`` (its body follows as an ``isMeta``
    line). No one typed it: it showed as the person's ``/Art`` (a User turn splitting the
    reply, a prompt counted, a subagent titled ``/CORE``). A command the person typed,
    with the same tags and no ``sourceToolUseID``, stays theirs."""
    s = ClaudeSession(SID)
    s.user("<command-name>/review</command-name>\n<command-message>review</command-message>")
    s.user("draw the logo")
    s.assistant([tool_use("Skill", {"skill": "Art"}, "toolu_skill1")])
    marker = '<command-message>The "Art" skill is running</command-message>\n<command-name>Art</command-name>'  # fmt: skip
    s.user(marker, sourceToolUseID="toolu_skill1")
    s.user([{"type": "text", "text": "Base directory for this skill: /skills/Art"}],
           isMeta=True, sourceToolUseID="toolu_skill1")  # fmt: skip
    s.tool_result("toolu_skill1", "Launching skill: Art")
    s.assistant("Here is the logo.")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    users = [m for m in session.messages if m.role == "user"]
    assert [[p.kind for p in m.parts] for m in users] == [["text"], ["text"]]
    assert "/review" in users[0].parts[0].text and users[1].parts[0].text == "draw the logo"
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path, sources=["claude-code"]))
    (note,) = note_files(vault).values()
    assert note.decode().count("### User") == 2 and "prompts: 2\n" in note.decode()


def test_each_edit_of_a_multiedit_is_code_as_an_edits_is(tmp_path):
    """A MultiEdit's edits were one JSON blob: every line of code an escaped string
    (``\\n``, ``\\"``), which search does not find (137 corpus lines). Each edit's strings
    are now code blocks of their own, byte for byte; its other fields stay with the arguments."""
    old = 'color: "red";\n  border: 1px solid;'
    new = 'color: "green";\n  border: none;'
    edits = [{"old_string": old, "new_string": new}, {"old_string": "a", "new_string": "b", "replace_all": True}]  # fmt: skip
    s = ClaudeSession(SID)
    s.user("make it green")
    s.assistant([tool_use("MultiEdit", {"file_path": "/w/app.css", "edits": edits}, "toolu_m1")])
    s.tool_result("toolu_m1", "Applied 2 edits")
    s.assistant("Done.")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path, sources=["claude-code"]))
    (note,) = note_files(vault).values()
    fences = [t for t in MarkdownIt("commonmark").parse(note.decode()) if t.type == "fence"]
    assert [t.content for t in fences if t.info == "css"] == [f"{old}\n", f"{new}\n", "a\n", "b\n"]
    (rest,) = [yaml.safe_load(t.content) for t in fences if t.info == "yaml"]
    assert rest == {"file_path": "/w/app.css", "edits": [{}, {"replace_all": True}]}
    assert "`edits[0].old_string`:" in note.decode() and "`edits[1].new_string`:" in note.decode()


def test_a_task_call_that_failed_is_shown_as_a_failure(tmp_path):
    """A Task call Claude Code refused (a missing prompt) started no agent: it showed as an
    ordinary subagent while ``errors`` counted it; now a failure, as any failed call is."""
    s = ClaudeSession(SID)
    s.user("analyse the project")
    s.assistant([tool_use("Task", {"description": "Analyze project structure", "subagent_type": "general-purpose"}, "toolu_t1")])  # fmt: skip
    s.tool_result("toolu_t1", "<tool_use_error>InputValidationError: prompt is missing</tool_use_error>", is_error=True)  # fmt: skip
    s.assistant("Retrying with a prompt.")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path, sources=["claude-code"]))
    (note,) = note_files(vault).values()
    text = note.decode()
    assert "> [!failure]- Subagent — `general-purpose`: Analyze project structure (error)" in text
    assert "[!abstract]" not in text and "errors: 1\n" in text


def test_steering_message_typed_mid_turn_is_kept_once(tmp_path):
    s = ClaudeSession(SID)
    s.user("start")
    s.meta("queue-operation", operation="enqueue", content="also do Y", sessionId=SID)
    s.meta("queue-operation", operation="remove", sessionId=SID)
    s.raw({"type": "attachment", "uuid": "att1", "parentUuid": s.last, "timestamp": s.tick(),
           "attachment": {"type": "queued_command", "prompt": "also do Y"}})  # fmt: skip
    s.assistant("doing X and Y")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    queued = [
        m
        for m in session.messages
        if any(p.kind == "notice" and p.notice == "queued" for p in m.parts)
    ]
    assert len(queued) == 1 and texts(session, "user") == ["start", "also do Y"]


def test_a_steering_message_shows_when_it_was_typed(tmp_path):
    """Typed at 10:00:40 while the model worked, handed to it at 10:01:30: the note placed
    it where the model saw it, with the time it was handed on (the audit's 21:09 for a
    message typed at 21:08:38). It keeps the place, with the time the person typed it."""
    s = ClaudeSession(SID, start="2026-03-01T10:00:00Z")
    s.user("start")
    s.assistant([tool_use("Bash", {"command": "make"}, "toolu_make")])
    typed = s.tick(35)
    s.meta("queue-operation", operation="enqueue", content="also do Y", sessionId=SID,
           timestamp=typed)  # fmt: skip
    s.tick(50)
    s.tool_result("toolu_make", "ok")
    s.meta("queue-operation", operation="remove", sessionId=SID, timestamp=s.tick())
    s.assistant("doing X and Y")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    (queued,) = [
        m
        for m in session.messages
        if any(p.kind == "notice" and p.notice == "queued" for p in m.parts)
    ]
    assert queued.timestamp == datetime.fromisoformat(typed)
    assert texts(session, "user")[-1] == "also do Y"


@pytest.mark.parametrize("queue_first", [False, True])
def test_a_queued_command_the_person_did_not_type_is_not_their_steering(tmp_path, queue_first):
    """The attachment that carries a steering message also delivers, mid-turn, a background
    task's notification (``commandMode: task-notification``) and another agent's message
    (``origin.kind: peer``, meta): both showed as the person's words, sent while the
    assistant was working. The notification is delivered like its user line (the note
    shows it as a notification); the peer's message is left out like its (meta) user line."""
    notification = "<task-notification><task-id>b1</task-id><summary>tests passed</summary></task-notification>"
    s = ClaudeSession(SID)
    s.user("start")
    for text in (notification, "from another agent"):
        if queue_first:
            s.meta("queue-operation", operation="enqueue", content=text, sessionId=SID)
            s.meta("queue-operation", operation="remove", sessionId=SID)
    s.raw({"type": "attachment", "uuid": "att1", "parentUuid": s.last, "timestamp": s.tick(),
           "attachment": {"type": "queued_command", "prompt": notification,
                          "commandMode": "task-notification"}})  # fmt: skip
    s.raw({"type": "attachment", "uuid": "att2", "parentUuid": "att1", "timestamp": s.tick(),
           "attachment": {"type": "queued_command", "prompt": "from another agent",
                          "commandMode": "prompt", "isMeta": True,
                          "origin": {"kind": "peer", "from": "uds:/tmp/x.sock"}}})  # fmt: skip
    s.raw({"type": "attachment", "uuid": "att3", "parentUuid": "att2", "timestamp": s.tick(),
           "attachment": {"type": "queued_command", "prompt": "and the docs",
                          "commandMode": "prompt", "origin": {"kind": "human"}}})  # fmt: skip
    s.assistant("done")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    queued = [
        [p.text for p in m.parts if p.kind == "text"]
        for m in session.messages
        if any(p.kind == "notice" and p.notice == "queued" for p in m.parts)
    ]
    assert queued == [["and the docs"]]
    assert texts(session, "user") == ["start", notification, "and the docs"]
    vault = tmp_path / "v"
    run_export(ExportOptions(vault=vault, home=tmp_path, sources=["claude-code"]))
    (note,) = note_files(vault).values()
    assert note.count(b"### User") == 2 and b"tests passed" in note
    assert b"from another agent" not in note


@pytest.mark.parametrize("queue_first", [False, True])
def test_a_steering_message_with_a_pasted_image_keeps_the_image(tmp_path, queue_first):
    """A ``queued_command`` attachment's prompt may be content blocks (text and a pasted
    image) rather than a string: the whole message was dropped. Its queue-operation copy
    holds the text alone; the image is kept once, with the text."""
    png = tiny_png()
    s = ClaudeSession(SID)
    s.user("start")
    if queue_first:
        s.meta("queue-operation", operation="enqueue", content="like this one", sessionId=SID)
        s.meta("queue-operation", operation="remove", sessionId=SID)
    prompt = [{"type": "text", "text": "like this one"}, image_block(png)]
    s.raw({"type": "attachment", "uuid": "att1", "parentUuid": s.last, "timestamp": s.tick(),
           "attachment": {"type": "queued_command", "prompt": prompt}})  # fmt: skip
    s.assistant("matching the screenshot")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    steering = session.messages[1]
    assert [p.kind for p in steering.parts] == ["notice", "text", "attachment"]
    assert steering.parts[1].text == "like this one" and steering.parts[2].data == png
    assert [m.role for m in session.messages] == ["user", "user", "assistant"]


def test_server_tool_results_tool_references_and_new_blocks_with_text_are_kept(tmp_path):
    """A server tool's result (in the assistant's own content), a tool search's
    ``tool_reference`` result and a block of a newer type with text were dropped: the call
    showed no result, the reply lost words."""
    s = ClaudeSession(SID)
    s.user("find the release notes")
    s.assistant(
        [
            {"type": "server_tool_use", "id": "srv1", "name": "web_search",
             "input": {"query": "release notes"}},
            {"type": "web_search_tool_result", "tool_use_id": "srv1", "content": [
                {"type": "web_search_result", "title": "Notes", "url": "https://example.invalid/n"}
            ]},
            {"type": "web_fetch_tool_result", "tool_use_id": "srv2",
             "content": {"type": "web_fetch_tool_error", "error_code": "url_not_accessible"}},
            {"type": "newer_block", "text": "Words in a block of a newer type."},
            {"type": "fallback", "from": {"model": "a"}, "to": {"model": "b"}},
            tool_use("ToolSearch", {"query": "notebook"}, "t1"),
        ]
    )  # fmt: skip
    s.tool_result("t1", [{"type": "tool_reference", "tool_name": "NotebookEdit"}])
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    reply = session.messages[1]
    assert [p.kind for p in reply.parts] == [
        "tool_call", "tool_result", "tool_result", "text", "tool_call"
    ]  # fmt: skip
    found, failed = reply.parts[1], reply.parts[2]
    assert (found.call_id, found.output, found.is_error) == (
        "srv1", "Notes — https://example.invalid/n", False
    )  # fmt: skip
    assert (failed.output, failed.is_error) == ("url_not_accessible", True)
    assert reply.parts[3].text == "Words in a block of a newer type."
    assert session.messages[2].parts[0].output == "NotebookEdit"


def test_rewind_is_marked(tmp_path):
    s = ClaudeSession(SID)
    first = s.user("version one")
    s.assistant("answer one")
    s.user("version two", parent=first)  # the person went back and asked again
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    last = session.messages[-1]
    assert [p.kind for p in last.parts] == ["notice", "text"] and last.parts[0].notice == "rewound"


def test_images_are_decoded_and_tool_results_kept(tmp_path):
    png = tiny_png()
    s = ClaudeSession(SID)
    s.user([image_block(png), {"type": "text", "text": "look"}])
    s.assistant([tool_use("Bash", {"command": "ls"}, "t1")])
    s.tool_result("t1", "a.txt", is_error=True)
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    image = session.messages[0].parts[0]
    assert image.kind == "attachment" and image.data == png and image.media_type == "image/png"
    result = session.messages[-1].parts[0]
    assert (result.kind, result.output, result.call_id, result.is_error) == (
        "tool_result",
        "a.txt",
        "t1",
        True,
    )
    assert session.messages[-1].role == "tool"
    assert all(m.source_id for m in session.messages)  # traceable to the line's uuid


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ({"type": "base64", "media_type": "image/png", "data": "=="},
         "An attachment, not copied into the vault: the session holds it, but its data could "
         "not be decoded."),
        ({"type": "url", "url": "https://example.com/shot.png"},
         "Attached `https://example.com/shot.png`, not stored in the session."),
    ],
)  # fmt: skip
def test_an_image_the_note_cannot_copy_is_still_said(tmp_path, source, shown):
    """An image block whose data does not decode, or that points to a URL, vanished from
    the note: the reader did not know the person had shown one."""
    s = ClaudeSession(SID)
    s.user([{"type": "image", "source": source}, {"type": "text", "text": "what is this?"}])
    s.assistant("a chart")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    (image, _) = only(load_all(tmp_path)[0]).messages[0].parts
    assert image.kind == "attachment" and image.data is None
    assert shown in the_exported_note(tmp_path, "claude-code")


def test_malformed_line_is_reported_and_the_rest_read(tmp_path):
    s = ClaudeSession(SID)
    s.user("before the damage")
    s.raw("{this is not json")
    s.raw("[1, 2]")
    s.assistant("after the damage")
    path = s.write(projects(tmp_path) / f"{SID}.jsonl")
    sessions, problems = load_all(tmp_path)
    assert texts(only(sessions)) == ["before the damage", "after the damage"]
    assert [(Path(p.path), p.line) for p in problems] == [(path, 2), (path, 3)]
    assert "not valid JSON" in problems[0].message and "not a JSON object" in problems[1].message


def test_unterminated_last_line_waits_for_the_next_run(tmp_path):
    s = ClaudeSession(SID)
    s.user("question")
    s.assistant("answer")
    path = projects(tmp_path) / f"{SID}.jsonl"
    complete = s.text()
    s.user("a prompt still being written")
    partial = s.lines[-1]
    path.parent.mkdir(parents=True)
    path.write_text(complete + partial[: len(partial) // 2])
    sessions, problems = load_all(tmp_path)
    assert texts(only(sessions)) == ["question", "answer"]
    # Said, as a warning naming its line (PRODUCT.md: a truncated last line is reported),
    # not counted as damage: nothing of the session is lost and the note is written.
    assert [(p.line, p.severity, p.message) for p in problems] == [
        (3, "warning", UNFINISHED_LAST_LINE)
    ]
    path.write_text(complete + partial + "\n")
    sessions, problems = load_all(tmp_path)
    assert texts(only(sessions))[-1] == "a prompt still being written" and problems == []


def test_unknown_record_types_are_reported_once_and_skipped(tmp_path):
    s = ClaudeSession(SID)
    s.user("hi")
    s.meta("brand-new-type", x=1)
    s.meta("brand-new-type", x=2)
    s.assistant("hello")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    sessions, problems = load_all(tmp_path)
    assert texts(only(sessions)) == ["hi", "hello"]
    assert [(p.line, p.message) for p in problems] == [
        (2, "unknown record type 'brand-new-type' (2 lines, the first here) skipped")
    ]


@pytest.mark.parametrize("content", ["", '{"type":"summary","summary":"S","leafUuid":"x"}\n'])
def test_empty_or_metadata_only_file_makes_no_session(tmp_path, content):
    path = projects(tmp_path) / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(content)
    assert load_all(tmp_path) == ([], [])


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+02:34:48", "9999-12-31T23:59:59-05:00"])
def test_a_time_that_has_no_utc_equivalent_costs_only_that_time(tmp_path, stamp):
    """Found by the load-identity property: year 1 east of UTC (or year 9999 west of it) made
    converting to UTC raise OverflowError, and the whole session failed."""
    s = ClaudeSession(SID)
    s.user("before")
    s.assistant("reply")
    s.user("at the end of time", timestamp=stamp)
    s.assistant("reply two")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    report = run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path, timezone=UTC))
    assert report.total("created") == 1 and not report.failed
    (note,) = [tmp_path / "v" / p for p in note_files(tmp_path / "v")]
    assert "at the end of time" in note.read_text()


COWORK_SID = "c0c0c0c0-0000-4000-8000-000000000001"


def test_claude_desktop_cowork_tasks_and_code_tab_titles(tmp_path):
    """FORMATS.md §1.1: Cowork tasks run Claude Code homes of their own under the Desktop
    app's folder, with their title and chosen folder in a sidecar; the Code tab keeps the
    title it shows in a sidecar per session (the newest wins). Cowork sessions were not
    found at all, and the app's titles were not used."""
    task = cowork_task(tmp_path / ".config" / "Claude", COWORK_SID, {
        "sessionId": "local_t1", "title": "Tidy photos",
        "userSelectedFolders": ["/home/dev/Pictures"], "createdAt": 1, "lastActivityAt": 2,
    })  # fmt: skip
    (task / "outputs").mkdir()
    s = ClaudeSession(SID)
    s.user("fix the flaky test")
    s.assistant("Fixed.")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    sidecars = tmp_path / "Library" / "Application Support" / "Claude" / "claude-code-sessions"
    for name, title, mtime in (("old", "Old title", 1_000), ("new", "Flaky test fix", 2_000)):
        path = sidecars / "acct" / name / "local_1.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"cliSessionId": SID, "title": title, "isArchived": False}))
        os.utime(path, (mtime, mtime))
    sessions, problems = load_all(tmp_path)
    assert not problems
    by_id = {x.session_id: x for x in sessions}
    cowork = by_id[COWORK_SID]
    assert (cowork.title, cowork.project, cowork.cwd) == (
        "Tidy photos", "Pictures", "/sessions/brave-otter"
    )  # fmt: skip
    assert texts(cowork, "user") == ["tidy the photo folder"]
    assert by_id[SID].title == "Flaky test fix"


def test_a_resumed_session_leaves_out_the_copy_of_the_one_it_continues(tmp_path):
    """FORMATS.md §1.7: a resumed or forked session's file starts with a copy of the
    conversation it continues (same uuids, new session id). Each note repeated every
    earlier session's conversation (and counted its tokens again)."""
    resumed_sessions(projects(tmp_path), SID)
    sessions, _ = load_all(tmp_path)
    by_id = {s.session_id: s for s in sessions}
    assert texts(by_id[SID], "user") == ["add a cache"]
    assert texts(by_id[RESUMED], "user") == ["now make it thread-safe"]
    assert texts(by_id[RESUMED_AGAIN], "user") == ["and add metrics"]
    assert [by_id[x].forked_from for x in (SID, RESUMED, RESUMED_AGAIN)] == [
        None, SID, RESUMED
    ]  # fmt: skip
    assert (by_id[RESUMED_AGAIN].usage.input_tokens, by_id[RESUMED_AGAIN].usage.output_tokens) == (
        300, 30
    )  # fmt: skip


def test_each_file_s_tail_is_read_once_however_many_sessions_resume_one(tmp_path, monkeypatch):
    """Every session that opens like another is compared with it, and each comparison read
    both files' tails: 300 sessions resumed from one read 90,000 tails, and a first export
    grew with the square of their number (3,000: about 290 s)."""
    from exporter.adapters import claude_discovery

    folder = projects(tmp_path)
    base = ClaudeSession(SID)
    base.user("add a cache")
    base.assistant("Added an LRU cache.")
    base.write(folder / f"{SID}.jsonl")
    for i in range(40):
        resumed = base.continued(f"5e55e55e-0000-4000-8000-{i + 100:012d}", "2026-11-21T10:00:00Z")
        resumed.user(f"then step {i}")
        resumed.assistant("Done.")
        resumed.write(folder / f"{resumed.session_id}.jsonl")
    reads: list[Path] = []
    real = claude_discovery._last_conversation
    monkeypatch.setattr(
        claude_discovery, "_last_conversation", lambda path: reads.append(path) or real(path)
    )
    sessions, _ = load_all(tmp_path)
    assert len(sessions) == 41 and len(reads) == len(set(reads)) <= 41
    assert all(s.forked_from == SID for s in sessions if s.session_id != SID)


@pytest.mark.parametrize("origin_file_old", [False, True])
def test_a_resumed_session_keeps_the_copy_of_one_since_leaves_out(tmp_path, origin_file_old):
    """With --since, a session that ended before it gets no note; the session resuming it
    left out its copy all the same, and the start of the conversation was in no note. Now
    the copy stays in the first note the run writes; a resume of that resume still leaves
    it out (the resume's note holds it). Whether discovery skips the old file (its time)
    or the export's filter does (the session's end), the notes are the same."""
    folder = projects(tmp_path)
    resumed_sessions(folder, SID)
    if origin_file_old:  # as on disk: written when the session ended
        os.utime(folder / f"{SID}.jsonl", (1_763_600_000, 1_763_600_000))  # 2025-11-20
    vault = tmp_path / "v"
    since = datetime(2026, 11, 21, tzinfo=UTC)
    run_export(ExportOptions(vault=vault, home=tmp_path, timezone=UTC, since=since))
    notes = {p: (vault / p).read_text() for p in note_files(vault)}
    assert not any(f"session_id: {SID}" in t for t in notes.values())
    resumed = next(t for t in notes.values() if f"session_id: {RESUMED}\n" in t)
    again = next(t for t in notes.values() if f"session_id: {RESUMED_AGAIN}" in t)
    assert "\nadd a cache\n" in resumed and "\nnow make it thread-safe\n" in resumed
    assert "forked_from" not in resumed  # no note to link to
    assert "\nadd a cache\n" not in again and "\nand add metrics\n" in again
    assert "forked_from" in again


@pytest.mark.parametrize("idle_fork", [False, True])
def test_a_fork_whose_origin_goes_on_loses_no_line_from_either_note(tmp_path, idle_fork):
    """--fork-session leaves the origin resumable: when it goes on after the fork, which file
    copies which can no longer be told from the lines, and a rule by which ended first
    flipped (the origin, read again, left out its own start as "the fork's", while the
    fork's note, unchanged, had left it out already: the start was in no note). Now only
    a file holding another one whole, and going further, leaves its lines out; every prompt
    stays in some note at every step, also beside a fork that never got a prompt."""
    folder = projects(tmp_path)
    fork_id, idle_id = RESUMED, RESUMED_AGAIN
    origin = ClaudeSession(SID)
    origin.user("add a cache")
    origin.assistant("Added an LRU cache.")
    origin.write(folder / f"{SID}.jsonl")
    if idle_fork:  # forked, never prompted: the same lines as the origin
        idle = origin.continued(idle_id, "2026-11-21T09:00:00Z")
        idle.write(folder / f"{idle_id}.jsonl")
    fork = origin.continued(fork_id, "2026-11-21T10:00:00Z")
    fork.user("in the fork")
    fork.assistant("forked reply")
    fork.write(folder / f"{fork_id}.jsonl")
    vault = tmp_path / "v"

    def prompts_in_notes() -> list[str]:
        run_export(ExportOptions(vault=vault, home=tmp_path, timezone=UTC))
        text = "\n".join((vault / p).read_text() for p in note_files(vault))
        return [p for p in ("add a cache", "in the fork", "back in the origin") if p in text]

    assert prompts_in_notes() == ["add a cache", "in the fork"]
    by_id = {s.session_id: s for s in load_all(tmp_path)[0]}
    assert texts(by_id[fork_id], "user") == ["in the fork"]
    assert by_id[fork_id].forked_from in (SID, idle_id)  # these two hold the same lines
    origin.user("back in the origin", seconds=5 * 86400)  # after the fork's last line
    origin.assistant("origin reply")
    origin.write(folder / f"{SID}.jsonl")
    assert prompts_in_notes() == ["add a cache", "in the fork", "back in the origin"]
    by_id = {s.session_id: s for s in load_all(tmp_path)[0]}
    assert "in the fork" in texts(by_id[fork_id], "user")  # read again: the start, too
    if not idle_fork:
        assert texts(by_id[SID], "user") == ["add a cache", "back in the origin"]


@pytest.mark.parametrize("odd", [["not", "an", "object"], "text", 7, True])
def test_an_attachment_line_that_is_no_object_costs_only_that_line(tmp_path, odd):
    """Found by review: ``attachment`` was taken for an object, and a list lost the session
    ("'list' object has no attribute 'get'", no line named)."""
    s = ClaudeSession(SID)
    s.user("first")
    s.assistant("reply one")
    s.raw({"type": "attachment", "uuid": "att1", "parentUuid": s.last, "timestamp": s.tick(),
           "attachment": odd})  # fmt: skip
    s.user("second")
    s.assistant("reply two")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    assert texts(only(load_all(tmp_path)[0]), "user") == ["first", "second"]


def test_a_summary_naming_the_other_files_leaf_does_not_make_it_a_copy(tmp_path):
    """Found by review: "holds the other's last line" was a search for its uuid anywhere,
    and a summary line naming it as its leaf (often written into another file) passed for
    the line itself; with each file naming the other's, the shared start was in no note."""
    folder = projects(tmp_path)
    origin = ClaudeSession(SID)
    origin.user("add a cache")
    origin.assistant("Added an LRU cache.")
    fork = origin.continued(RESUMED, "2026-11-21T10:00:00Z")
    fork.user("in the fork")
    fork.assistant("forked reply")
    origin.user("back in the origin", seconds=5 * 86400)
    origin.assistant("origin reply")
    origin.lines.insert(0, json.dumps({"type": "summary", "summary": "F", "leafUuid": fork.last}))
    fork.lines.insert(0, json.dumps({"type": "summary", "summary": "O", "leafUuid": origin.last}))
    origin.write(folder / f"{SID}.jsonl")
    fork.write(folder / f"{RESUMED}.jsonl")
    by_id = {s.session_id: s for s in load_all(tmp_path)[0]}
    assert texts(by_id[SID], "user") == ["add a cache", "back in the origin"]
    assert texts(by_id[RESUMED], "user") == ["add a cache", "in the fork"]


def test_a_call_the_person_rejected_or_that_was_stopped_did_not_run(tmp_path):
    """Claude Code returns a call that did not run as an error whose text says so: "The
    user doesn't want to proceed with this tool use…" (rejected at the permission prompt,
    what the person said to do instead may follow) and "The user doesn't want to take this
    action right now…" (stopped before it ran: beside a rejected call, or interrupted). It
    was shown as a failed call and counted in ``errors``, and a rejected Write's path was
    in ``files``. Other errors stay errors."""
    rejected = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. "
        "if it was a file edit, the new_string was NOT written to the file). To tell you how "
        "to proceed, the user said:\nput it in docs/ instead"
    )
    stopped = (
        "The user doesn't want to take this action right now. STOP what you are doing and "
        "wait for the user to tell you how to proceed."
    )
    s = ClaudeSession(SID, "/w/proj")
    s.user("Write the notes and run the tests")
    s.assistant(
        [
            tool_use("Write", {"file_path": "/w/proj/NOTES.md", "content": "# Notes"}, "t1"),
            tool_use("Bash", {"command": "pytest -q"}, "t2"),
            tool_use(
                "Edit", {"file_path": "/w/proj/a.py", "old_string": "a", "new_string": "b"}, "t3"
            ),  # fmt: skip
        ]
    )
    s.tool_result("t1", rejected, is_error=True)
    s.tool_result("t2", stopped, is_error=True)
    s.tool_result("t3", "<tool_use_error>String to replace not found</tool_use_error>",
                  is_error=True)  # fmt: skip
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    session = only(load_all(tmp_path)[0])
    results = [p for m in session.messages for p in m.parts if p.kind == "tool_result"]
    assert [(r.call_id, r.is_error, r.not_run) for r in results] == [
        ("t1", False, "rejected"),
        ("t2", False, "cancelled"),
        ("t3", True, None),
    ]
    assert results[0].output == rejected  # what the person said is kept
    text = the_exported_note(tmp_path, "claude-code")
    assert "> [!note]- `Write` — `/w/proj/NOTES.md` (rejected by the user)\n" in text
    assert "> [!note]- `Bash` — `pytest -q` (cancelled)\n" in text
    assert "> put it in docs/ instead\n" in text
    assert [line for line in text.splitlines() if "[!failure]" in line] == [
        "> [!failure]- `Edit` — `/w/proj/a.py` (error)"
    ]
    assert "\nerrors: 1\n" in text  # the Edit only
    assert "\nfiles:" not in text  # nothing was written
