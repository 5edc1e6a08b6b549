"""The Codex adapter: every generation and every FORMATS.md §2 rule, on invented rollouts."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import zstandard
from claude_builder import tiny_png
from codex_builder import CodexRollout, bare_lines, ts_document, write_generation
from conftest import load_sessions, note_files
from markdown_it import MarkdownIt

from exporter.adapters import SourceContext
from exporter.adapters._jsonl import UNFINISHED_LAST_LINE
from exporter.adapters.codex import CodexAdapter
from exporter.adapters.codex_items import image_generation
from exporter.export import ExportOptions, run_export
from exporter.model import Usage
from exporter.turns import clean_parts

TID = "019a0000-1111-7222-8333-444455556666"


def load_all(home: Path, real_home: bool = False, env: dict | None = None):
    return load_sessions(CodexAdapter(), home, env, real_home)


def parts(session, kind=None, role=None):
    return [
        p
        for m in session.messages
        if role in (None, m.role)
        for p in m.parts
        if kind in (None, p.kind)
    ]


def texts(session, role=None):
    return [p.text for p in parts(session, "text", role)]


def conversation(thread: str = TID, **kw) -> CodexRollout:
    r = CodexRollout(thread, **kw)
    r.developer("<permissions instructions>sandboxed</permissions instructions>")
    r.context()
    r.user("Add a health endpoint")
    r.reasoning("**Planning the endpoint**")
    r.shell(["bash", "-lc", "rg -n 'def app' src"], "src/app.py:3:def app():", exit_code=0)
    r.patch("*** Begin Patch\n*** Update File: src/app.py\n+@get('/health')\n*** End Patch")
    r.assistant('Added `GET /health` returning `{"ok": true}`.')
    r.tokens(1000, 400, 120)
    r.tokens(2500, 900, 300)
    return r


def export(home: Path, vault: Path):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC))


def test_discovery_finds_every_place_and_generation(tmp_path):
    codex = tmp_path / ".codex"
    conversation("019a0000-0000-7000-8000-000000000001").write(codex)
    conversation("019a0000-0000-7000-8000-000000000002").write(codex, "archived_sessions")
    flat = conversation("019a0000-0000-7000-8000-000000000003")
    (codex / "sessions").mkdir(parents=True, exist_ok=True)
    (codex / "sessions" / flat.filename()).write_text(flat.text())
    both = conversation("019a0000-0000-7000-8000-000000000004")
    plain = both.write(codex)
    plain.with_name(plain.name + ".zst").write_bytes(zstandard.ZstdCompressor().compress(b"stale"))
    only_zst = conversation("019a0000-0000-7000-8000-000000000005")
    z = only_zst.write(codex)
    z.with_name(z.name + ".zst").write_bytes(zstandard.ZstdCompressor().compress(z.read_bytes()))
    z.unlink()
    ts = conversation("0a0b0c0d-0000-4000-8000-000000000006")
    (
        codex / "sessions" / "rollout-2025-04-20-0a0b0c0d-0000-4000-8000-000000000006.json"
    ).write_text(ts_document(ts))
    refs = list(CodexAdapter().discover(SourceContext(tmp_path, {}, False)))
    found = sorted((r.session_id[-2:], "".join(r.main.path.suffixes[-2:])) for r in refs)
    assert found == [("01", ".jsonl"), ("02", ".jsonl"), ("03", ".jsonl"), ("04", ".jsonl"),
                     ("05", ".jsonl.zst"), ("06", ".json")]  # fmt: skip
    sessions, problems = load_all(tmp_path)
    assert problems == [] and len(sessions) == 6
    prompts = [
        [
            p.text
            for m in s.messages
            for p in clean_parts(m, "codex")
            if p.kind == "text" and m.role == "user"
        ]
        for s in sessions
    ]
    assert prompts == [["Add a health endpoint"]] * 6


def test_codex_home_variable_on_the_real_home(tmp_path):
    conversation().write(tmp_path / "elsewhere")
    assert (
        len(load_all(tmp_path / "home", True, {"CODEX_HOME": str(tmp_path / "elsewhere")})[0]) == 1
    )
    assert load_all(tmp_path / "home", False, {"CODEX_HOME": str(tmp_path / "elsewhere")})[0] == []


@pytest.mark.parametrize("generation", ["envelope", "bare", "document", "zst"])
def test_every_generation_gives_the_same_conversation(tmp_path, generation):
    r = conversation()
    write_generation(r, tmp_path / ".codex" / "sessions" / "2026" / "03" / "10", generation)
    (session,) = load_all(tmp_path)[0]
    assert session.session_id == TID
    # As the note builder sees it: injected context (only in the model's copy) cleaned away.
    shape = [(m.role, [p.kind for p in clean_parts(m, "codex")]) for m in session.messages]
    assert [x for x in shape if x[1]] == [
        ("user", ["text"]),
        ("assistant", ["thinking"]),
        ("assistant", ["tool_call"]),
        ("tool", ["tool_result"]),
        ("assistant", ["tool_call"]),
        ("tool", ["tool_result"]),
        ("assistant", ["text"]),
    ]
    prompts = [
        p.text
        for m in session.messages
        for p in clean_parts(m, "codex")
        if m.role == "user" and p.kind == "text"
    ]
    assert prompts == ["Add a health endpoint"]


def test_prompt_from_the_ui_stream_reply_and_reasoning_once(tmp_path):
    r = CodexRollout(TID)
    r.context()
    r.user("Explain the failing test")
    r.reasoning("Reading the test first")
    r.assistant("The fixture is stale.", event_first=True)
    r.assistant("Done.")
    r.assistant("Done.", events=False)  # said twice by the model: kept twice
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    assert texts(session, "user") == ["Explain the failing test"]
    assert texts(session, "assistant") == ["The fixture is stale.", "Done.", "Done."]
    thinking = parts(session, "thinking")
    assert [t.text for t in thinking] == ["Reading the test first"]
    assert "SECRET" not in json.dumps([t.text for t in thinking])


@pytest.mark.parametrize("early", [False, True], ids=["rollout", "early-rust"])
def test_an_item_of_a_type_not_read_is_reported_with_its_first_line(tmp_path, early):
    # A newer Codex's items went without a word, in both shapes; an undo checkpoint or
    # encrypted compaction state holds nothing to say.
    r = CodexRollout(TID)
    r.user("find a tool")
    r.item({"type": "future_item", "call_id": "c1", "arguments": {"query": "x"}})
    r.item({"type": "future_item", "call_id": "c2", "arguments": {"query": "y"}})
    r.item({"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}})
    r.assistant("Found it.")
    path = r.write(tmp_path / ".codex")
    if early:
        path.write_text(bare_lines(r), encoding="utf-8")
    loaded = CodexAdapter().load(
        next(iter(CodexAdapter().discover(SourceContext(tmp_path, {}, False))))
    )
    said = [(p.line, p.message) for p in loaded.problems]
    first = next(
        n for n, line in enumerate(path.read_text().splitlines(), 1) if "future_item" in line
    )
    assert said == [(first, "unknown item type 'future_item' (2 lines, the first here) skipped")]


def test_tool_searches_and_generated_images_are_read(tmp_path):
    """Newer Codex items (FORMATS.md 2.5), rendered generically: a tool search is a tool
    call with what it found, a generated image the call with its prompt and the image."""
    png = tiny_png()
    r = CodexRollout(TID)
    r.user("draw a cat")
    r.item({"type": "tool_search_call", "call_id": "ts", "arguments": '{"query": "images"}'})
    r.item({"type": "tool_search_output", "call_id": "ts", "tools": [
        {"type": "function_group", "name": "media", "tools": [{"name": "draw"}, {"name": "crop"}]},
        {"type": "function", "name": "upload"}]})  # fmt: skip
    r.item({"type": "image_generation_call", "id": "ig", "status": "completed",
            "revised_prompt": "a cat", "result": base64.b64encode(png).decode()})  # fmt: skip
    r.item({"type": "image_generation_call", "id": "ig2", "result": "[trimmed]"})
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    calls = parts(session, "tool_call")
    assert [(c.name, c.input, c.call_id) for c in calls] == [
        ("tool_search", {"query": "images"}, "ts"),
        ("image_generation", {"prompt": "a cat"}, "ig"),
        ("image_generation", {}, "ig2"),
    ]
    found, drawn = parts(session, "tool_result")
    assert (found.output, found.call_id) == ("media: draw, crop\nupload", "ts")
    assert (drawn.output, drawn.call_id) == ("", "ig")  # (the image is its output)
    (image,) = parts(session, "attachment")
    assert (image.media_type, image.data) == ("image/png", png)


def test_a_message_between_agents_is_a_notification_naming_both(tmp_path):
    """A multi-agent thread's ``agent_message`` items (FORMATS.md 2.5) were reported and
    dropped: what one agent told another is part of what happened."""
    r = CodexRollout(TID)
    r.user("split the work")
    r.item({"type": "agent_message", "id": "m1", "author": "/root/worker", "recipient": "/root",
            "content": [{"type": "input_text", "text": "Tests pass; 3 files changed."},
                        {"type": "encrypted_content", "encrypted_content": "gAAA"}]})  # fmt: skip
    r.item({"type": "agent_message", "id": "m2", "content": [{"type": "input_text", "text": "go"}]})
    r.item({"type": "agent_message", "id": "m3", "author": "/root", "content": []})
    r.assistant("Merged.")
    r.write(tmp_path / ".codex")
    ref = next(iter(CodexAdapter().discover(SourceContext(tmp_path, {}, False))))
    loaded = CodexAdapter().load(ref)
    assert loaded.problems == []
    notices = [(m.role, p.notice, p.text) for m in loaded.sessions[0].messages
               for p in m.parts if p.kind == "notice"]  # fmt: skip
    assert notices == [
        (
            "system",
            "notification",
            "Message from /root/worker to /root:\n\nTests pass; 3 files changed.",
        ),
        ("system", "notification", "Message:\n\ngo"),
    ]
    assert texts(loaded.sessions[0], "assistant") == ["Merged."]


@pytest.mark.parametrize(
    ("data", "kind"),
    [(b"RIFF\0\0\0\0WEBPVP8 ", "image/webp"), (b"RIFF\0\0\0\0WAVEfmt ", None),
     (b"\xff\xd8\xff\xe0", "image/jpeg"), (b"GIF89a", "image/gif"), (b"not an image", None)],
)  # fmt: skip
def test_a_generated_image_is_kept_only_when_its_bytes_are_an_image(data, kind):
    parts = image_generation(
        {"type": "image_generation_call", "result": base64.b64encode(data).decode()}
    )
    assert [p.media_type for p in parts if p.kind == "attachment"] == ([kind] if kind else [])


def test_tool_calls_paired_and_shell_output_unwrapped(tmp_path):
    r = CodexRollout(TID)
    r.user("run things")
    r.shell(["bash", "-lc", "pytest -q"], "1 failed", exit_code=1)
    r.shell(["git", "status", "--short"], "M a.py", wrapped=False)
    r.local_shell(["ls", "-la"], "total 0")
    r.web_search("python 3.13 release date")
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    calls = parts(session, "tool_call")
    results = {p.call_id: p for p in parts(session, "tool_result")}
    assert [c.name for c in calls] == ["shell", "shell", "shell", "web_search"]
    assert (
        calls[0].input["command"] == "pytest -q"
        and calls[1].input["command"] == "git status --short"
    )
    assert calls[2].input == {"command": "ls -la", "workdir": "/home/dev/work/api"}
    assert calls[3].input == {"query": "python 3.13 release date"}
    first = results[calls[0].call_id]
    assert (first.output, first.exit_code, first.duration, first.is_error) == (
        "1 failed",
        1,
        0.4,
        True,
    )
    assert (
        results[calls[1].call_id].output == "M a.py"
        and results[calls[2].call_id].output == "total 0"
    )


PATCH_IN_ARGV = (
    "*** Begin Patch\n*** Update File: app.py\n@@\n"
    "-print(s['error'])\n+print(f\"errors={s['error']}\")\n*** End Patch\n"
)


def test_a_patch_given_to_shell_as_argv_is_shown_as_the_patch_itself(tmp_path):
    """Older Codex ran ``shell {"command": ["apply_patch", patch]}``; joined as a shell
    command, the patch took quotes around it and ``'"'"'`` for each quote inside it
    (``s['error']`` became ``s['"'"'error'"'"']``). It is Codex's apply_patch, shown as the
    freeform call is: the patch byte for byte, its file among the note's files."""
    r = CodexRollout(TID)
    r.user("fix the summary")
    argv = {"command": ["apply_patch", PATCH_IN_ARGV]}
    r.item({"type": "function_call", "name": "shell", "arguments": json.dumps(argv), "call_id": "c1"})  # fmt: skip
    r.item({"type": "function_call_output", "call_id": "c1", "output": "Done!"})
    with_workdir = {"command": ["apply_patch", PATCH_IN_ARGV], "workdir": "/srv"}
    r.item({"type": "function_call", "name": "shell", "arguments": json.dumps(with_workdir), "call_id": "c2"})  # fmt: skip
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    first, second = parts(session, "tool_call")
    assert (first.name, first.input, first.call_id) == ("apply_patch", PATCH_IN_ARGV, "c1")
    assert second.name == "shell" and second.input["workdir"] == "/srv"  # nothing dropped
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path, sources=["codex"]))
    (note,) = note_files(vault).values()
    tokens = MarkdownIt("commonmark").parse(note.decode())
    assert [t.content for t in tokens if t.type == "fence" and t.info == "diff"] == [PATCH_IN_ARGV]
    assert "files:\n- app.py\n" in note.decode()


def test_a_tool_in_a_namespace_is_named_with_it(tmp_path):
    """Newer Codex gives an MCP server's tool its namespace apart (``"name": "js",
    "namespace": "mcp__node_repl__"``): the call and ``tools`` said ``js`` alone."""
    r = CodexRollout(TID)
    r.user("open the page")
    call = {"type": "function_call", "name": "js", "namespace": "mcp__node_repl__",
            "arguments": json.dumps({"code": "await page.goto(url)"}), "call_id": "c1"}  # fmt: skip
    r.item(call)
    r.item({"type": "function_call_output", "call_id": "c1", "output": "ok"})
    r.item({**call, "name": "automation_update", "namespace": "codex_app", "call_id": "c2"})
    r.item({**call, "name": "mcp__node_repl__js", "call_id": "c3"})  # named in full already
    r.item({**call, "name": "codex_app_status", "namespace": "codex_app", "call_id": "c4"})
    shell = json.dumps({"command": ["bash", "-lc", "ls"]})  # a shell tool stays the shell
    r.item({**call, "name": "shell", "namespace": "functions", "arguments": shell, "call_id": "c5"})
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    calls = parts(session, "tool_call")
    assert [c.name for c in calls] == [
        "mcp__node_repl__js", "codex_app.automation_update", "mcp__node_repl__js",
        "codex_app.codex_app_status", "shell",
    ]  # fmt: skip
    assert calls[-1].input == {"command": "ls"}


def test_compaction_interruption_and_user_shell_command(tmp_path):
    r = CodexRollout(TID)
    r.user("first")
    r.aborted()
    r.compacted("We agreed to add a /health endpoint.")
    r.shell_command_by_user("make test", "ok")
    r.user("second")
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    summaries = parts(session, "summary")
    assert [s.text for s in summaries] == ["We agreed to add a /health endpoint."]
    assert [p.notice for p in parts(session, "notice")] == ["interrupted"]
    assert any("<user_shell_command>" in t for t in texts(session, "user"))  # cleaned by notes


@pytest.mark.parametrize("reference", ["", "1"], ids=["fast", "template"])
def test_a_compaction_without_its_summary_says_so(tmp_path, monkeypatch, reference):
    """Codex records the compaction (context_compacted) but not the summary: the fold says
    there is none instead of opening on nothing (fast body and shipped template alike)."""
    monkeypatch.setenv("CCEXPORT_REFERENCE_RENDER", reference)
    r = CodexRollout(TID)
    r.user("first")
    r.assistant("done")
    r.event({"type": "context_compacted"})
    r.user("second")
    r.write(tmp_path / ".codex")
    export(tmp_path, tmp_path / "vault")
    (text,) = [t.decode() for t in note_files(tmp_path / "vault").values() if b"first" in t]
    fold = "> [!summary]- Conversation compacted\n>\n> *The session holds no summary of it.*\n"
    assert fold in text


def test_metadata(tmp_path):
    r = conversation(
        git={"branch": "feat/health", "commit_hash": "abc123", "repository_url": "git@x:y.git"}
    )
    r.turn(model="gpt-5.1-codex-max")
    r.assistant("on the bigger model now")
    r.write(tmp_path / ".codex")
    index = tmp_path / ".codex" / "session_index.jsonl"
    index.write_text(
        json.dumps({"id": TID, "thread_name": "Old name", "updated_at": "2026-03-10T08:00:00Z"}) + "\n"
        + json.dumps({"id": TID, "thread_name": "Health endpoint", "updated_at": "2026-03-10T09:00:00Z"}) + "\n"
    )  # fmt: skip
    (session,) = load_all(tmp_path)[0]
    assert session.title == "Health endpoint"
    # The newest name wins by its time, not by its line, however the id is written.
    index.write_text(
        json.dumps({"id": TID.upper(), "thread_name": "Health endpoint", "updated_at": "2026-03-10T09:00:00Z"}) + "\n"
        + json.dumps({"id": TID.upper(), "thread_name": "Old name", "updated_at": "2026-03-10T08:00:00Z"}) + "\n"
    )  # fmt: skip
    assert load_all(tmp_path)[0][0].title == "Health endpoint"
    assert (session.cwd, session.project) == ("/home/dev/work/api", "api")
    assert (session.git_branch, session.git_commit, session.git_remote) == (
        "feat/health",
        "abc123",
        "git@x:y.git",
    )
    assert session.models == ("gpt-5-codex", "gpt-5.1-codex-max")
    # token_count totals are cumulative: the last one, never the sum
    assert (
        session.usage.input_tokens,
        session.usage.cache_read_tokens,
        session.usage.output_tokens,
    ) == (1600, 900, 300)
    assert (
        session.started_at.isoformat() == "2026-03-10T08:00:01+00:00"
        and session.ended_at > session.started_at
    )


def test_a_rename_re_exports_only_that_session(tmp_path):
    home, vault = tmp_path, tmp_path / "v"
    conversation().write(home / ".codex")
    conversation("019a0000-0000-7000-8000-00000000aaaa").write(home / ".codex")
    export(home, vault)
    (home / ".codex" / "session_index.jsonl").write_text(
        json.dumps({"id": TID, "thread_name": "Renamed"}) + "\n"
    )
    report = export(home, vault)
    assert (report.total("updated"), report.total("skipped")) == (1, 1)
    assert any("title: Renamed" in b.decode() for b in note_files(vault).values())


def test_subagent_rollout_links_to_its_parent_both_ways(tmp_path):
    home, vault = tmp_path, tmp_path / "v"
    conversation().write(home / ".codex")
    child = CodexRollout(
        "019a0000-0000-7000-8000-00000000c41d",
        source={"subagent": {"thread_spawn": {"parent_thread_id": TID, "depth": 1}}},
        start="2026-03-10T08:00:30Z",
    )
    child.user("Check the tests for /health", events=False)
    child.assistant("Two tests cover it.")
    child.write(home / ".codex")
    export(home, vault)
    notes = {rel: b.decode() for rel, b in note_files(vault).items()}
    parent = next(t for t in notes.values() if f"session_id: {TID}" in t)
    kid = next(t for t in notes.values() if "00000000c41d" in t.split("---")[1])
    kid_stem = next(Path(rel).stem for rel, t in notes.items() if t is kid)
    parent_stem = next(Path(rel).stem for rel, t in notes.items() if t is parent)
    assert f"subagents:\n- '[[{kid_stem}]]'" in parent
    assert f"parent: '[[{parent_stem}]]'" in kid


@pytest.mark.parametrize(
    ("subagent", "label"),
    [
        ({"thread_spawn": {"parent_thread_id": TID, "depth": 1}}, None),  # how, not who
        ({"thread_spawn": {"parent_thread_id": TID, "agent_nickname": "Ada"}}, "Ada"),
        ("review", "review"),
        ({"other": "triage"}, "triage"),
    ],
)
def test_a_subagent_is_labelled_by_its_kind_never_by_how_it_was_started(tmp_path, subagent, label):
    """The demo's subagent note read "Subagent (thread_spawn) of …": the key of the
    spawn, not a name or a role."""
    conversation().write(tmp_path / ".codex")
    child = CodexRollout(
        "019a0000-0000-7000-8000-00000000c41d",
        source={"subagent": subagent},
        start="2026-03-10T08:00:30Z",
    )
    child.user("Check the tests for /health", events=False)
    child.assistant("Two tests cover it.")
    child.write(tmp_path / ".codex")
    sessions, _ = load_all(tmp_path)
    kid = next(s for s in sessions if s.session_id.endswith("c41d"))
    assert kid.agent_label == label


def test_fork_drops_the_copied_history_when_the_origin_is_on_disk(tmp_path):
    origin = conversation()
    origin.user("And a readiness probe?")
    origin.assistant("Added /ready too.")
    origin.write(tmp_path / ".codex")
    fork = CodexRollout(
        "019a0000-0000-7000-8000-00000000f0f0", forked_from=TID, start="2026-03-10T09:00:00Z"
    )
    fork.lines += [x for x in origin.lines if x["type"] != "session_meta"][
        :-6
    ]  # history up to a point
    fork.user("Instead, add metrics")
    fork.assistant("Added /metrics.")
    fork.write(tmp_path / ".codex")
    sessions, _ = load_all(tmp_path)
    forked = next(s for s in sessions if s.session_id.endswith("f0f0"))
    assert forked.forked_from == TID
    assert texts(forked, "user") == ["Instead, add metrics"]
    assert texts(forked, "assistant") == ["Added /metrics."]


def test_a_fork_drops_the_newer_items_its_origin_replays_too(tmp_path):
    """Tool searches, generated images, web searches and messages between agents had no
    signature: replayed at the end of a fork's copy, they showed again in the fork's note."""
    origin = conversation()
    origin.item({"type": "tool_search_call", "call_id": "ts", "arguments": {"query": "x"}})
    origin.item({"type": "tool_search_output", "call_id": "ts", "tools": [{"name": "draw"}]})
    origin.item({"type": "image_generation_call", "id": "ig", "revised_prompt": "a cat"})
    origin.item({"type": "web_search_call", "action": {"type": "search", "query": "probes"}})
    origin.item({"type": "agent_message", "author": "/root/w", "recipient": "/root",
                 "content": [{"type": "input_text", "text": "done"}]})  # fmt: skip
    origin.write(tmp_path / ".codex")
    fork = CodexRollout("019a0000-0000-7000-8000-00000000f0f0", forked_from=TID)
    fork.lines += [x for x in origin.lines if x["type"] != "session_meta"]
    fork.user("Instead, add metrics")
    fork.write(tmp_path / ".codex")
    sessions, _ = load_all(tmp_path)
    forked = next(s for s in sessions if s.session_id.endswith("f0f0"))
    assert [p.kind for m in forked.messages for p in m.parts] == ["text"]
    assert texts(forked, "user") == ["Instead, add metrics"]


def test_a_fork_keeps_the_replay_of_an_origin_since_leaves_out(tmp_path):
    """With --since, an origin that ended before it gets no note, yet its fork left out the
    replay of it: the start of the conversation was in no note. Now the fork keeps it."""
    origin = conversation()
    origin.write(tmp_path / ".codex")
    fork = CodexRollout(
        "019a0000-0000-7000-8000-00000000f0f0", forked_from=TID, start="2026-03-10T09:00:00Z"
    )
    fork.lines += [x for x in origin.lines if x["type"] != "session_meta"]
    fork.user("Instead, add metrics")
    fork.assistant("Added /metrics.")
    fork.write(tmp_path / ".codex")
    vault = tmp_path / "v"
    since = datetime(2026, 3, 10, 8, 30, tzinfo=UTC)  # the origin ended at about 08:00
    run_export(ExportOptions(vault=vault, home=tmp_path, timezone=UTC, since=since))
    (note,) = [t.decode() for t in note_files(vault).values()]
    assert "f0f0" in note and "\nAdd a health endpoint\n" in note
    assert "\nInstead, add metrics\n" in note
    run_export(ExportOptions(vault=tmp_path / "all", home=tmp_path, timezone=UTC))
    fork_note = next(  # (its origin's note names it too, in its forks)
        t.decode()
        for t in note_files(tmp_path / "all").values()
        if b"session_id: 019a0000-0000-7000-8000-00000000f0f0" in t
    )
    assert "\nAdd a health endpoint\n" not in fork_note  # its origin's note holds it


def test_fork_keeps_everything_when_the_origin_is_gone(tmp_path):
    origin = conversation()
    fork = CodexRollout("019a0000-0000-7000-8000-00000000f0f0", forked_from=TID)
    fork.lines += [x for x in origin.lines if x["type"] != "session_meta"]
    fork.user("Instead, add metrics")
    fork.write(tmp_path / ".codex")
    (forked,) = load_all(tmp_path)[0]
    assert texts(forked, "user") == ["Add a health endpoint", "Instead, add metrics"]


def test_images_are_decoded_from_data_urls(tmp_path):
    png = tiny_png()
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    r = CodexRollout(TID)
    r.user("what is in this screenshot?", images=[url])
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    (image,) = parts(session, "attachment")
    assert image.data == png and image.media_type == "image/png"


@pytest.mark.parametrize("event_first", [False, True])
def test_an_image_pasted_from_a_file_is_kept(tmp_path, event_first):
    """Newer Codex names a pasted screenshot in the UI copy of a prompt only by its path
    (``local_images``); its bytes are in the model's copy, which the UI copy replaces. The
    screenshot was missing from the note."""
    png, other = tiny_png(), tiny_png((10, 200, 10))
    urls = ["data:image/png;base64," + base64.b64encode(b).decode() for b in (png, other)]
    r = CodexRollout(TID)
    r.context()
    r.user_with_local_images("why is this button grey?", urls, event_first=event_first)
    r.assistant("It is disabled until the form is valid.")
    r.user("thanks")
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    (first, second) = [m for m in session.messages if m.role == "user"]
    assert [p.kind for p in first.parts] == ["text", "attachment", "attachment"]
    assert first.parts[0].text == "why is this button grey?"
    assert [p.data for p in first.parts[1:]] == [png, other]
    assert [p.kind for p in second.parts] == ["text"]
    assert [m.role for m in session.messages] == ["user", "assistant", "user"]


def test_exit_codes_in_text_headers_and_calls_the_person_rejected(tmp_path):
    """Newer shell tools put ``Exit code: 1`` (or, for unified exec, ``Process exited with
    code 1``) and the wall time in a text header above the output: a failed command showed
    as a success, its header as output, and the note counted no errors. A call the person
    rejected returns a plain text: it did not run (``not_run``), and is no error."""
    r = CodexRollout(TID)
    r.user("run the tests")
    outputs = {
        "c1": "Exit code: 1\nWall time: 0.4 seconds\nOutput:\n1 failed, 3 passed\n",
        "c2": "Chunk ID: 5e1f\nWall time: 2.5000 seconds\nProcess exited with code 0\n"
              "Original token count: 4\nOutput:\nall green\n",
        "c3": "exec command rejected by user",
        "c4": "Chunk ID: 77aa\nWall time: 1.0 seconds\nProcess running with session ID 4\n"
              "Original token count: 0\nOutput:\n",
    }  # fmt: skip
    for cid, out in outputs.items():
        args = json.dumps({"cmd": "pytest -q"})
        r.item({"type": "function_call", "name": "exec_command", "arguments": args, "call_id": cid})
        r.item({"type": "function_call_output", "call_id": cid, "output": out})
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    got = [(p.output, p.is_error, p.exit_code, p.duration, p.not_run)
           for p in parts(session, "tool_result")]  # fmt: skip
    assert got == [
        ("1 failed, 3 passed\n", True, 1, 0.4, None),
        ("all green\n", False, 0, 2.5, None),
        # The person rejected it: it did not run, and did not fail
        ("exec command rejected by user", False, None, None, "rejected"),
        (outputs["c4"], False, None, 1.0, None),  # still running: its header says so, and stays
    ]


def test_a_command_the_person_stopped_is_cancelled_not_a_success(tmp_path):
    """Found in the corpus (Shannon, lines 1183-1187): a command the person stopped while it
    ran returns "Wall time: 406.9 seconds" over "aborted by user". It showed as a call that
    ran and succeeded, its header as its output. It did not run to its end: cancelled, its
    wall time read as its duration, no error; a plain "aborted by user" too."""
    r = CodexRollout(TID)
    r.user("run the whole suite")
    outputs = {"a1": "Wall time: 406.9 seconds\naborted by user", "a2": "aborted by user"}
    for cid, out in outputs.items():
        args = json.dumps({"command": "cargo test"})
        r.item(
            {"type": "function_call", "name": "shell_command", "arguments": args, "call_id": cid}
        )
        r.item({"type": "function_call_output", "call_id": cid, "output": out})
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    got = [(p.output, p.is_error, p.duration, p.not_run) for p in parts(session, "tool_result")]
    assert got == [
        ("aborted by user", False, 406.9, "cancelled"),
        ("aborted by user", False, None, "cancelled"),
    ]


def test_a_patch_older_codex_could_not_apply_is_a_failure(tmp_path):
    """Found in the corpus (OpenPrintKit, 11 calls): Codex 0.3x's apply_patch, run through
    its shell tool, answered a patch it could not apply with a bare text, no exit code; the
    note showed the edit as done and ``errors`` left it out. "Success" stays a success."""
    r = CodexRollout(TID)
    r.user("fix the schema")
    outputs = {
        "p1": 'error: Failed to find expected lines in /w/app/schema.json:\n  "type": 1',
        "p2": "error: invalid hunk at line 2, Update file hunk for path 'app/ui.py' is empty",
        "p3": "Success. Updated the following files:\nM app/ui.py\n",
    }
    for cid, out in outputs.items():
        args = json.dumps({"command": ["bash", "-lc", "apply_patch << 'PATCH'\n...\nPATCH"]})
        r.item({"type": "function_call", "name": "shell", "arguments": args, "call_id": cid})
        r.item({"type": "function_call_output", "call_id": cid, "output": out})
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    assert [p.is_error for p in parts(session, "tool_result")] == [True, True, False]


def test_the_length_of_a_shortened_output_stays_above_it(tmp_path):
    """Found in the corpus (Shannon, lines 192-193): when Codex shortens a shell command's
    output for the model, its header says how long the real output was (``Total output
    lines: 40657``), the one statement of it; the header went, that line with it. It stays
    above the output, as unified exec writes it (in its output, then a blank line); the
    exit code and the wall time still go to the call's title."""
    r = CodexRollout(TID)
    r.user("list the files")
    outputs = {
        "s1": "Exit code: 0\nWall time: 1.6 seconds\nTotal output lines: 40657\nOutput:\n"
              "a.txt\n…705009 tokens truncated…z.txt\n",
        "s2": "Exit code: 0\nWall time: 0.2 seconds\nOutput:\na.txt\n",
        "u1": "Chunk ID: e213c4\nWall time: 0.1799 seconds\nProcess exited with code 0\n"
              "Original token count: 10768\nOutput:\nTotal output lines: 460\n\n"
              "a.txt\n…768 tokens truncated…z.txt\n",
    }  # fmt: skip
    for cid, out in outputs.items():
        name, args = ("exec_command", {"cmd": "rg --files"}) if cid == "u1" else (
            "shell_command", {"command": "rg --files"})  # fmt: skip
        r.item({"type": "function_call", "name": name, "arguments": json.dumps(args),
                "call_id": cid})  # fmt: skip
        r.item({"type": "function_call_output", "call_id": cid, "output": out})
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    got = [(p.output, p.exit_code, p.duration) for p in parts(session, "tool_result")]
    assert got == [
        ("Total output lines: 40657\n\na.txt\n…705009 tokens truncated…z.txt\n", 0, 1.6),
        ("a.txt\n", 0, 0.2),
        ("Total output lines: 460\n\na.txt\n…768 tokens truncated…z.txt\n", 0, 0.1799),
    ]


def test_a_rollback_marks_the_next_prompt_and_an_undo_is_a_notification(tmp_path):
    """``thread_rolled_back`` (the person went back over their last turns and asked
    again) and ``undo_completed`` (the person undid the last turn's file changes) left no
    trace: the note read as if the dropped turns still stood and nothing was undone."""
    r = CodexRollout(TID)
    r.user("rename the module to core")
    r.assistant("Renamed.")
    r.event({"type": "undo_completed", "success": True, "message": "Restored 3 files."})
    r.event({"type": "thread_rolled_back", "num_turns": 1})
    r.aborted()
    r.user("rename the module to engine instead")
    r.assistant("Renamed to engine.")
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    got = [(m.role, [(p.kind, getattr(p, "notice", None)) for p in m.parts])
           for m in session.messages]  # fmt: skip
    assert got == [
        ("user", [("text", None)]),
        ("assistant", [("text", None)]),
        ("system", [("notice", "decision")]),
        ("user", [("notice", "interrupted")]),
        ("user", [("notice", "rewound"), ("text", None)]),
        ("assistant", [("text", None)]),
    ]
    # The person's decision, not Codex's notice, saying what Codex said it undid
    assert (
        session.messages[2].parts[0].text == "The user undid the turn's changes: Restored 3 files."
    )


@pytest.mark.parametrize("event_first", [False, True])
def test_a_prompt_typed_while_a_turn_ran_is_kept_though_it_has_no_ui_copy(tmp_path, event_first):
    """Older Codex (2025) wrote a prompt typed while a turn was running (pending input) as
    the model's copy alone, with no event_msg/user_message: in a rollout that has UI copies
    of its other prompts, it was dropped with the injected context. A model copy with no
    UI copy next to it is now the prompt; injected context still never is."""
    r = CodexRollout(TID)
    r.context()
    text = "Add a health endpoint"
    ui = {"type": "user_message", "message": text, "kind": "plain", "images": []}
    model = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    if event_first:
        r.event(ui).event({"type": "task_started"}).item(model)
    else:
        r.item(model).event(ui)
    r.turn()
    r.shell(["ls"], "app.py")
    r.item({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "also add a test for it"}]})  # fmt: skip
    r.item({"type": "message", "role": "user", "content": [{"type": "input_text",
            "text": "<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"}]})  # fmt: skip
    r.assistant("Added the endpoint and its test.")
    r.user("thanks")
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    assert texts(session, "user") == [text, "also add a test for it", "thanks"]
    assert [m.role for m in session.messages] == [
        "user", "assistant", "tool", "user", "assistant", "user"
    ]  # fmt: skip


def test_an_image_a_tool_returned_is_kept(tmp_path):
    """A tool's output may be a list of text and images (view_image, a screenshot tool): the
    images were dropped."""
    png = tiny_png()
    r = CodexRollout(TID)
    r.user("look at the chart")
    r.view_image("chart.png", png)
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    (tool,) = [m for m in session.messages if m.role == "tool"]
    assert [p.kind for p in tool.parts] == ["tool_result", "attachment"]
    assert tool.parts[0].output == "chart.png" and tool.parts[1].data == png


def test_bad_lines_unknown_kinds_and_a_live_session(tmp_path):
    r = conversation()
    path = r.write(tmp_path / ".codex")
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(3, "{not json\n")
    lines.insert(
        5,
        json.dumps({"timestamp": "2026-03-10T08:00:09Z", "type": "brand_new_kind", "payload": {}})
        + "\n",
    )
    path.write_text(
        "".join(lines)
        + '{"timestamp":"2026-03-10T08:10:00Z","type":"event_msg","payload":{"type":"user_mes'
    )
    (session,), problems = load_all(tmp_path)
    assert texts(session, "user") == ["Add a health endpoint"]
    assert [(p.line, p.message) for p in problems] == [
        (4, problems[0].message),
        (len(lines) + 1, UNFINISHED_LAST_LINE),  # the live session's line being written
        (6, "unknown record type 'brand_new_kind' skipped (the first here)"),
    ]
    assert problems[0].message.startswith("not valid JSON")


def test_injected_context_never_reaches_a_note(tmp_path):
    r = CodexRollout(TID)
    r.developer("<permissions instructions>sandbox: workspace-write</permissions instructions>")
    r.item(
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>\nbe terse\n</INSTRUCTIONS>",
                }
            ],
        }
    )
    r.context()
    r.user("Fix the flaky test", events=False)
    r.shell_command_by_user("pytest -x", "1 passed")
    r.assistant("Fixed.", events=False)
    folder = tmp_path / ".codex" / "sessions" / "2026" / "03" / "10"
    folder.mkdir(parents=True)
    (folder / r.filename()).write_text(bare_lines(r))
    export(tmp_path, tmp_path / "v")
    (note,) = note_files(tmp_path / "v").values()
    text = note.decode()
    for injected in (
        "environment_context",
        "approval_policy",
        "AGENTS.md",
        "be terse",
        "sandbox: workspace-write",
    ):
        assert injected not in text
    assert "Fix the flaky test" in text and "```sh\npytest -x\n```" in text and "> 1 passed" in text


def test_a_rollout_is_loaded_with_the_cycle_collector_paused(tmp_path, monkeypatch):
    """Many new containers and no cycle: the collector waits until the rollout is built,
    and is left as the caller had it."""
    import gc

    from exporter.adapters import codex_rollout

    conversation().write(tmp_path / ".codex")
    seen: list[bool] = []
    real = codex_rollout.build_rollout
    monkeypatch.setattr(
        codex_rollout, "build_rollout", lambda *a: seen.append(gc.isenabled()) or real(*a)
    )
    assert gc.isenabled()
    sessions, _ = load_all(tmp_path)
    assert len(sessions) == 1 and seen == [False] and gc.isenabled()
    gc.disable()
    try:
        load_all(tmp_path)
        assert not gc.isenabled()  # a caller that paused it keeps it paused
    finally:
        gc.enable()


def test_an_event_whose_type_is_not_a_string_costs_nothing_else(tmp_path):
    """A damaged event (its payload's type a list) must not stop the rollout: the check
    for a prompt waiting for its other copy read its type before the line's own guard."""
    r = CodexRollout(TID)
    r.user("first question")
    r.event({"type": [], "message": "damaged"})
    r.assistant("first answer")
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    assert texts(session) == ["first question", "first answer"]


def test_two_copies_of_a_prompt_pair_only_when_their_words_are_the_same():
    """Found by review: copies were paired by position. In a build writing the model's copy
    after the UI's, a prompt typed mid-turn (a model copy alone) just before another prompt
    was taken for its twin and lost, and the other shown twice; a developer message between
    a model copy and its UI copy showed the prompt twice."""
    from exporter.adapters.codex_rollout import build_rollout

    def at(n: int) -> str:
        return f"2026-01-01T00:00:{n:02d}Z"

    def model(n: int, text: str) -> tuple:
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}  # fmt: skip
        return (n, "response_item", item, at(n))

    def ui(n: int, text: str) -> tuple:
        return (n, "event_msg", {"type": "user_message", "message": text}, at(n))

    def reply(n: int, text: str) -> tuple:
        return (n, "event_msg", {"type": "agent_message", "message": text}, at(n))

    developer = {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions>x</permissions>"}]}  # fmt: skip
    meta = (1, "session_meta", {"id": TID, "cwd": "/w"}, at(0))

    def shown(records: list[tuple]) -> list[tuple[str, str]]:
        built = build_rollout([meta, *records], lambda *a: None)
        return [(m.role, m.parts[0].text) for m in built.messages if m.parts[0].kind == "text"]

    assert shown([model(2, "hello"), (3, "response_item", developer, at(3)), ui(4, "hello"),
                  reply(5, "hi")]) == [("user", "hello"), ("assistant", "hi")]  # fmt: skip
    assert shown([ui(2, "first"), model(3, "first"), reply(4, "working"), model(5, "also do X"),
                  ui(6, "second"), model(7, "second"), reply(8, "ok")]) == [  # fmt: skip
        ("user", "first"), ("assistant", "working"), ("user", "also do X"),
        ("user", "second"), ("assistant", "ok"),
    ]  # fmt: skip


def test_a_turn_the_person_did_not_stop_is_not_their_interruption(tmp_path):
    """``turn_aborted`` also ends a review thread (``review_ended``: Codex shows no
    interruption) and a turn its budget stopped (``budget_limited``): both were the
    person's interruption. A new request that replaced the turn (``replaced``) is the
    person's doing and stays one."""
    r = CodexRollout(TID)
    r.user("first")
    for reason in ("interrupted", "replaced", "review_ended", "budget_limited"):
        r.event({"type": "turn_aborted", "reason": reason})
    r.user("second")
    r.write(tmp_path / ".codex")
    (session,) = load_all(tmp_path)[0]
    notices = [(m.role, p.notice, p.text) for m in session.messages for p in m.parts
               if p.kind == "notice"]  # fmt: skip
    assert notices == [
        ("user", "interrupted", ""),
        ("user", "interrupted", "replaced"),
        ("system", "notification", "Turn ended: budget_limited"),
    ]


@pytest.mark.parametrize(("given", "shown"), [(-3, None), (True, None), (0, 0.0), (2.5, 2.5)])
def test_a_shell_duration_below_zero_or_a_flag_is_no_duration(given, shown):
    from exporter.adapters.codex_items import _unwrap_output

    wrapped = json.dumps({"output": "ok", "metadata": {"exit_code": 0, "duration_seconds": given}})
    assert _unwrap_output(wrapped)[3] == shown


def test_a_rollout_line_out_of_order_moves_neither_the_start_nor_the_end():
    """The end was the last line's time: a last line stamped before the ones above it
    (a clock set back) ended the session before it started."""
    from exporter.adapters.codex_rollout import build_rollout

    def at(n: int) -> str:
        return f"2026-01-01T00:00:{n:02d}Z"

    built = build_rollout([
        (1, "session_meta", {"id": TID, "cwd": "/w"}, at(5)),
        (2, "event_msg", {"type": "user_message", "message": "hello"}, at(6)),
        (3, "event_msg", {"type": "agent_message", "message": "hi"}, at(9)),
        (4, "event_msg", {"type": "agent_message", "message": "late"}, at(1)),
    ], lambda *a: None)  # fmt: skip
    assert built.started == datetime(2026, 1, 1, 0, 0, 1, tzinfo=UTC)
    assert built.ended == datetime(2026, 1, 1, 0, 0, 9, tzinfo=UTC)


def test_a_problem_in_a_typescript_document_is_placed_by_item_not_by_line(tmp_path):
    """The TypeScript CLI's session is one JSON document (often one line): a problem names
    the item it is in (``items[1]``), never a line number that points elsewhere."""
    r = conversation("0a0b0c0d-0000-4000-8000-000000000007")
    doc = json.loads(ts_document(r))
    doc["session"]["timestamp"] = "the day before yesterday"
    doc["items"].insert(1, {"type": "mystery_item", "text": "?"})
    folder = tmp_path / ".codex" / "sessions"
    folder.mkdir(parents=True)
    path = folder / "rollout-2025-04-20-0a0b0c0d-0000-4000-8000-000000000007.json"
    path.write_text(json.dumps(doc))
    (session,), problems = load_all(tmp_path)
    assert session.messages  # the rest of the document is read
    by_message = {p.message: p for p in problems}
    assert all(p.line is None and p.path == str(path) for p in problems), problems
    assert any("'mystery_item' skipped (at items[1])" in m for m in by_message)
    assert any("timestamp could not be read" in m and "(at the session)" in m for m in by_message)


def test_an_all_zero_token_report_does_not_undo_the_totals_before_it(tmp_path):
    """Totals are cumulative; a report of all zeros after them (seen in a trimmed corpus
    rollout, after an ``info: null`` one) counts nothing: the note lost every token count."""
    r = conversation()
    r.tokens(0, 0, 0)
    r.write(tmp_path / ".codex")
    ((session,), _) = load_all(tmp_path)
    assert (session.usage.input_tokens, session.usage.output_tokens) == (1600, 300)
    fresh = CodexRollout("0199a213-81c0-7800-8aa1-bbab2a035a54")
    fresh.user("hi").assistant("hello").tokens(0, 0, 0)
    fresh.write(tmp_path / "other" / ".codex")
    ((quiet,), _) = load_all(tmp_path / "other")
    assert quiet.usage == Usage()
