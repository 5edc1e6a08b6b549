"""A Claude Code session file or Codex rollout of ``STREAM_FROM`` bytes or more is streamed:
the first reading keeps only what describes the whole session, and its messages are read
again, message by message, when its notes are rendered part by part. Streaming must change nothing a person
can see: the same messages, the same totals, the same notes byte for byte, the same
redaction counts; and it must read only as far as the first reading went."""

from __future__ import annotations

import base64
import random
import string
from dataclasses import replace
from datetime import UTC
from pathlib import Path

import pytest
import zstandard
from claude_builder import (
    RESUMED_AGAIN,
    ClaudeSession,
    resumed_sessions,
    tiny_png,
    tool_use,
    with_inline_warmup,
)
from codex_builder import CodexRollout
from conftest import EXAMPLES_HOME, load_sessions, note_files
from copilot_cli_builder import CopilotCliSession, request
from corpus_home import (
    build_codex_home,
    build_copilot_cli_home,
    build_corpus_home,
    build_gemini_home,
)
from gemini_builder import GeminiChat, project_folder, tool_call
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exporter import readvalues
from exporter.adapters import claude_code, claude_load, codex, copilot_cli, gemini
from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.adapters.claude_transcript import TranscriptBuilder, build_transcript
from exporter.adapters.codex import CodexAdapter
from exporter.adapters.copilot_cli import CopilotCliAdapter
from exporter.adapters.gemini import GeminiAdapter
from exporter.errors import SourceChanged
from exporter.export import ExportOptions, run_export
from exporter.model import MessageStream

SID = "5a5a5a5a-0000-4000-8000-000000000001"
_rng = random.Random(11302026)
# Generated at test time from random characters: no real key.
GITHUB = "gh" + "p_" + "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(36))


ADAPTERS = {"claude-code": (claude_code, ClaudeCodeAdapter), "codex": (codex, CodexAdapter),
            "copilot-cli": (copilot_cli, CopilotCliAdapter),
            "gemini": (gemini, GeminiAdapter)}  # fmt: skip


def load(source: str, home: Path, stream: bool, monkeypatch: pytest.MonkeyPatch):
    """Every session of ``source`` under ``home``: all streamed, or all held."""
    module, adapter = ADAPTERS[source]
    monkeypatch.setattr(module, "STREAM_FROM", 0 if stream else 1 << 62)
    return load_sessions(adapter(), home)


def assert_same(source: str, home: Path, monkeypatch: pytest.MonkeyPatch) -> list:
    """Streamed and held, the same sessions (messages, every other field) and problems; the
    streamed sessions are returned."""
    held, held_problems = load(source, home, False, monkeypatch)
    streamed, streamed_problems = load(source, home, True, monkeypatch)
    assert streamed_problems == held_problems
    assert [s.key for s in streamed] == [s.key for s in held]
    for s, h in zip(streamed, held, strict=True):
        assert isinstance(s.messages, MessageStream) == s.is_streamed
        assert tuple(s.messages) == tuple(h.messages), s.key
        assert tuple(s.messages) == tuple(s.messages)  # read again, read alike
        assert replace(s, messages=()) == replace(h, messages=()), s.key
    return streamed


def assert_same_sessions(home: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    streamed = assert_same("claude-code", home, monkeypatch)
    # The main session of a file is streamed; subagents are not.
    assert all(s.is_streamed for s in streamed if s.parent_id is None)
    return sum(s.is_streamed for s in streamed)


def same_notes(source: str, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The notes of ``source`` exported held and streamed, into two vaults (parts of
    30 kB), with their reports."""
    out = []
    # A streamed session's note cannot name the lines its reading skipped (its header is
    # written before they are read; README): compared without that sentence on both sides.
    monkeypatch.setattr(readvalues, "with_unread_lines", lambda sessions, problems: sessions)
    for stream in (False, True):
        module, _ = ADAPTERS[source]
        monkeypatch.setattr(module, "STREAM_FROM", 0 if stream else 1 << 62)
        vault = tmp_path / f"{source}-{'streamed' if stream else 'held'}"
        options = ExportOptions(
            vault=vault, home=home, sources=[source], timezone=UTC, note_max_bytes=30_000
        )
        report = run_export(options)
        out.append((note_files(vault, index=True), report))
    (held, held_report), (streamed, streamed_report) = out
    assert streamed == held
    assert streamed_report.redactions == held_report.redactions
    return held, held_report


def long_session(turns: int = 40) -> ClaudeSession:
    """A session with what the builder's streaming must keep whole: API responses split
    over lines, tool results between them, a compaction, a rewind, queued prompts."""
    s = ClaudeSession(SID, "/home/dev/work/big")
    s.meta("custom-title", customTitle="Streaming check")
    for i in range(turns):
        s.user(f"question {i} " + "lorem ipsum " * 200)
        msg = f"msg_{i:04d}"
        s.assistant([{"type": "thinking", "thinking": f"think {i}"}], msg_id=msg)
        s.assistant([tool_use("Read", {"file_path": f"/src/f{i}.py"}, f"c{i}")], msg_id=msg)
        s.tool_result(f"c{i}", f"contents {i} " + "x" * 3000)
        s.assistant(f"answer {i} " + "dolor sit " * 300, msg_id=msg)
        if i == 10:
            s.system("compact_boundary", compactMetadata={"trigger": "auto"})
            s.user("Summary of the earlier turns.", isCompactSummary=True)
        if i == 20:
            s.meta("queue-operation", operation="enqueue", content="also check the docs")
            s.meta("queue-operation", operation="remove", content="also check the docs")
    return s


def old_layout_sessions(folder: Path) -> None:
    """Claude Code < 2.0.28: a session with a Warmup agent inline (its lines are in no
    conversation), and a file of sidechain lines alone (read whole)."""
    s = with_inline_warmup("5a5a5a5a-0000-4000-8000-0000000000a1")
    s.write(folder / f"{s.session_id}.jsonl")
    side = ClaudeSession("5a5a5a5a-0000-4000-8000-0000000000a2", sidechain=True)
    side.user("Check the cache", parent=None)
    side.assistant("Ready.")
    side.write(folder / f"{side.session_id}.jsonl")


def test_a_streamed_session_has_the_same_messages_and_totals(tmp_path, monkeypatch):
    home = tmp_path / "home"
    long_session().write(home / ".claude" / "projects" / "-big" / f"{SID}.jsonl")
    old_layout_sessions(home / ".claude" / "projects" / "-old")
    assert assert_same_sessions(home, monkeypatch) == 3
    assert assert_same_sessions(EXAMPLES_HOME, monkeypatch) >= 1


def test_corpus_sessions_streamed_match_held(corpus, tmp_path, monkeypatch):
    home = tmp_path / "home"
    build_corpus_home(corpus, home)
    count = assert_same_sessions(home, monkeypatch)
    print(f"{count} corpus sessions streamed")
    assert count > 10


# Records a TranscriptBuilder may meet, in any order: streaming must emit exactly the
# messages building the whole transcript does.
_KINDS = ("prompt", "reply", "reply_same", "tool", "boundary", "summary", "rewind", "queue",
          "dup", "error", "local", "compact", "stdout")  # fmt: skip


def _records(ops: list[tuple[str, int]]) -> list[dict]:
    s = ClaudeSession(SID)
    uuids: list[str] = []
    for kind, n in ops:
        if kind == "prompt":
            uuids.append(s.user(f"prompt {n}"))
        elif kind == "reply":
            s.assistant(f"reply {n}", msg_id=f"m{n}")
        elif kind == "reply_same":
            s.assistant([tool_use("Bash", {"command": f"ls {n}"}, f"c{n}")], msg_id="m0")
        elif kind == "tool":
            s.tool_result(f"c{n}", f"out {n}")
        elif kind == "boundary":
            s.system("compact_boundary", compactMetadata={"trigger": "manual"})
        elif kind == "summary":
            s.user(f"summary {n}", isCompactSummary=True)
        elif kind == "rewind" and uuids:
            uuids.append(s.user(f"again {n}", parent=uuids[n % len(uuids)]))
        elif kind == "queue":
            s.meta("queue-operation", operation="enqueue", content=f"steer {n}")
            s.meta("queue-operation", operation=("remove", "dequeue")[n % 2])
        elif kind == "dup" and s.lines:
            s.raw(s.lines[n % len(s.lines)])
        elif kind == "error":
            s.assistant(f"API Error {n}", isApiErrorMessage=True)
        elif kind == "local":
            s.system("local_command", content=f"<local-command-stdout>{n}</local-command-stdout>")
        elif kind == "compact":  # (after its manual summary, as Claude Code writes it)
            s.user(f"<command-name>/compact</command-name>\n<command-args>{n}</command-args>")
        elif kind == "stdout":
            s.user(f"<local-command-stdout>Compacted {n}</local-command-stdout>")
    import json

    return [json.loads(line) for line in s.lines]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(_KINDS), st.integers(0, 5)), max_size=40))
def test_streaming_a_transcript_emits_exactly_what_building_it_whole_does(ops):
    records = _records(ops)
    links = {"c1": "child-1"}
    whole = build_transcript(records, links)
    builder, streamed = TranscriptBuilder(), []
    for rec in records:
        builder.add(rec)
        streamed += builder.closed(links)
    rest = builder.finish(links)
    assert streamed + rest.messages == whole.messages
    assert (rest.started, rest.ended, rest.models, rest.usage, rest.uuids) == (
        whole.started, whole.ended, whole.models, whole.usage, whole.uuids,
    )  # fmt: skip


def test_a_streamed_session_makes_the_same_notes_and_counts_its_secrets_once(tmp_path, monkeypatch):
    home = tmp_path / "home"
    s = long_session()
    s.user(f"deploy with {GITHUB} please")
    s.assistant("done")
    s.write(home / ".claude" / "projects" / "-big" / f"{SID}.jsonl")
    notes, report = same_notes("claude-code", home, tmp_path, monkeypatch)
    assert len([p for p in notes if "(part " in p]) > 3  # cut into part notes
    assert sum(report.redactions.values()) == 1
    assert not any(GITHUB.encode() in body for body in notes.values())


def test_corpus_notes_streamed_match_held(corpus, tmp_path, monkeypatch):
    home = tmp_path / "home"
    build_corpus_home(corpus, home)
    notes, _ = same_notes("claude-code", home, tmp_path, monkeypatch)
    assert len(notes) > 20


def test_lines_written_after_the_first_reading_wait_for_the_next_run(tmp_path, monkeypatch):
    """Claude Code appends while ccexport reads: the second reading stops where the first
    did, so the messages agree with the totals read the first time."""
    home = tmp_path / "home"
    s = long_session(3)
    path = s.write(home / ".claude" / "projects" / "-big" / f"{SID}.jsonl")
    (session,), _ = load("claude-code", home, True, monkeypatch)
    before = tuple(session.messages)
    s.user("a later question")
    s.assistant("a later answer")
    s.write(path)
    assert tuple(session.messages) == before
    assert "a later question" not in repr(before)


def test_a_file_gone_before_its_second_reading_fails_that_session_alone(tmp_path, monkeypatch):
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "-big"
    long_session(3).write(folder / f"{SID}.jsonl")
    other = ClaudeSession("5a5a5a5a-0000-4000-8000-000000000002")
    other.user("a small one")
    other.assistant("fine")
    other.write(folder / f"{other.session_id}.jsonl")
    monkeypatch.setattr(claude_code, "STREAM_FROM", 0)
    original = ClaudeCodeAdapter.load

    def load_then_lose(self, ref):
        result = original(self, ref)
        if ref.main.path.stem == SID:
            ref.main.path.unlink()  # as if deleted between the two readings
        return result

    monkeypatch.setattr(ClaudeCodeAdapter, "load", load_then_lose)
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home, timezone=UTC))
    (error,) = [p for p in report.problems if p.severity == "error"]
    assert error.path.endswith(f"{SID}.jsonl") and "No such file" in error.message
    notes = note_files(tmp_path / "v")
    assert len(notes) == 1 and b"a small one" in next(iter(notes.values()))


def test_a_streamed_resumed_session_leaves_out_its_copy_too(tmp_path, monkeypatch):
    """A resumed session's copy of the conversation it continues is left out when its
    messages are read again (streamed) as when they are held."""
    home = tmp_path / "home"
    resumed_sessions(home / ".claude" / "projects" / "-w-proj")
    streamed = assert_same("claude-code", home, monkeypatch)
    kept = {s.session_id: [p.text for m in s.messages for p in m.parts if p.kind == "text"]
            for s in streamed}  # fmt: skip
    assert kept[RESUMED_AGAIN] == ["and add metrics", "Counted hits and misses."]


# -- Codex -------------------------------------------------------------------------------

TID = "019a0000-5a5a-7000-8000-000000000001"


def rollout(thread: str = TID, turns: int = 30, **kw) -> CodexRollout:
    r = CodexRollout(thread, **kw)
    r.turn().context()
    for i in range(turns):
        r.user(f"question {i} " + "lorem ipsum " * 100)
        r.reasoning(f"**Planning step {i}**")
        r.shell(["cat", f"f{i}.py"], f"contents {i} " + "x" * 2000)
        r.assistant(f"answer {i} " + "dolor sit " * 200)
        r.tokens(1000 * (i + 1), 400 * i, 120 * (i + 1))
        if i == 12:
            r.compacted("We agreed on the plan so far.")
    return r


def codex_home(home: Path) -> Path:
    """Rollouts with what a streamed reading must get right: a fork whose origin is on
    disk (its replay dropped), a damaged line, an unknown kind, a compressed rollout."""
    origin = rollout()
    origin.write(home / ".codex")
    fork = CodexRollout("019a0000-5a5a-7000-8000-00000000f0f0", forked_from=TID)
    fork.lines += [x for x in origin.lines if x["type"] != "session_meta"][:-9]
    fork.user("Instead, add metrics")
    fork.assistant("Added /metrics.")
    fork.write(home / ".codex")
    odd = rollout("019a0000-5a5a-7000-8000-000000000003", turns=3)
    odd.envelope("brand_new_kind", {})
    path = odd.write(home / ".codex")
    path.write_text(path.read_text().replace("\n", "\n{not json\n", 3))
    packed = rollout("019a0000-5a5a-7000-8000-000000000004", turns=5)
    plain = packed.write(home / ".codex")
    plain.with_name(plain.name + ".zst").write_bytes(
        zstandard.ZstdCompressor().compress(plain.read_bytes())
    )
    plain.unlink()
    return home


def assert_same_rollouts(home: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    streamed = assert_same("codex", home, monkeypatch)
    # A JSON document is one line: never streamed.
    assert all(s.is_streamed or s.source_path.suffix == ".json" for s in streamed)
    return sum(s.is_streamed for s in streamed)


def test_a_streamed_rollout_has_the_same_messages_totals_and_problems(tmp_path, monkeypatch):
    home = codex_home(tmp_path / "home")
    assert assert_same_rollouts(home, monkeypatch) == 4
    problems = load("codex", home, True, monkeypatch)[1]
    assert [p.line for p in problems if "not valid JSON" in p.message] == [2, 4, 6]
    assert any("brand_new_kind" in p.message for p in problems)
    (fork,) = [s for s in load("codex", home, True, monkeypatch)[0] if s.forked_from]
    assert [m.parts[0].text for m in fork.messages if m.role == "user"] == [
        "Instead, add metrics"
    ]  # the replay of its origin is dropped
    assert_same_rollouts(EXAMPLES_HOME, monkeypatch)


def test_a_prompt_waiting_for_its_images_is_streamed_too(tmp_path, monkeypatch):
    """A prompt whose images may follow in the model's copy waits for it: a streamed
    reading makes it as a held one does, also when it is the rollout's last line."""
    home = tmp_path / "home"
    url = "data:image/png;base64," + base64.b64encode(tiny_png()).decode()
    r = rollout(turns=2)
    r.user_with_local_images("see this", [url], event_first=True)
    r.assistant("I see a red square.")
    r.event({"type": "user_message", "message": "last words", "local_images": ["/tmp/a.png"]})
    r.write(home / ".codex")
    (session,) = assert_same("codex", home, monkeypatch)
    users = [m.parts for m in session.messages if m.role == "user"]
    assert [p.kind for p in users[-2]] == ["text", "attachment"]
    words, image = users[-1]  # its image is named, not held (no model copy follows)
    assert words.text == "last words"
    assert (image.kind, image.name, image.data) == ("attachment", "/tmp/a.png", None)


def test_corpus_rollouts_streamed_match_held(corpus, tmp_path, monkeypatch):
    home = tmp_path / "home"
    build_codex_home(corpus, home)
    assert assert_same_rollouts(home, monkeypatch) > 3


def test_a_streamed_rollout_makes_the_same_notes(tmp_path, monkeypatch):
    notes, _ = same_notes("codex", codex_home(tmp_path / "home"), tmp_path, monkeypatch)
    assert len([p for p in notes if "(part " in p]) > 2


def test_lines_written_after_the_scan_of_a_rollout_wait_for_the_next_run(tmp_path, monkeypatch):
    r = rollout(turns=3)
    path = r.write(tmp_path / "home" / ".codex")
    (session,), _ = load("codex", tmp_path / "home", True, monkeypatch)
    before = tuple(session.messages)
    r.user("a later question")
    path.write_text(r.text())
    assert tuple(session.messages) == before and "a later question" not in repr(before)


def test_a_failure_while_a_streamed_session_is_read_fails_the_part_it_was_reading(
    tmp_path, monkeypatch
):
    """The parts already handed over are written; the part being read fails and is counted
    failed (before: the failure was not counted, as the session's first part was created);
    the unit is read again next run, which completes the notes."""
    home, vault = tmp_path / "home", tmp_path / "v"
    long_session().write(home / ".claude" / "projects" / "-big" / f"{SID}.jsonl")
    monkeypatch.setattr(claude_code, "STREAM_FROM", 0)
    real = claude_load.read_messages
    broken = {"on": True}

    def failing_midway(*args):
        for i, message in enumerate(real(*args)):
            if broken["on"] and i == 60:
                raise OSError("the disk went away")
            yield message

    monkeypatch.setattr(claude_load, "read_messages", failing_midway)
    options = ExportOptions(
        vault=vault, home=home, sources=["claude-code"], timezone=UTC, note_max_bytes=40_000
    )
    first = run_export(options)
    (error,) = [p for p in first.problems if p.severity == "error"]
    assert "the disk went away" in error.message and f"{SID}#part" in error.message
    counts = first.per_source["claude-code"]
    # (the session counted once, as "found" counts it: failed; its parts handed over written)
    assert counts.failed == 1 and counts.created == 0 and len(note_files(vault)) >= 2
    assert first.failed
    broken["on"] = False
    second = run_export(options)
    assert not second.failed and second.per_source["claude-code"].updated == 1  # (its new parts)
    monkeypatch.setattr(claude_code, "STREAM_FROM", 1 << 62)
    run_export(replace(options, vault=tmp_path / "held"))
    assert note_files(vault, index=True).keys() == note_files(tmp_path / "held", index=True).keys()


def test_a_boundary_without_its_summary_does_not_hold_the_rest_of_the_session():
    """A compaction's summary is the line after its boundary, or there is none (a corpus
    file has a boundary without one): the next message ends the wait, so streaming goes on
    letting messages go; a summary that comes later stands on its own."""
    s = ClaudeSession(SID)
    s.user("first")
    s.assistant("one")
    s.system("compact_boundary", compactMetadata={"trigger": "auto"})
    for i in range(200):
        s.user(f"question {i}")
        s.assistant(f"answer {i}")
    s.user("Late summary.", isCompactSummary=True)
    import json

    builder, messages, most = TranscriptBuilder(), [], 0
    for line in s.lines:
        builder.add(json.loads(line))
        messages += builder.closed({})
        most = max(most, len(builder.drafts))
    messages += builder.finish({}).messages
    assert most <= 3 and len(messages) == 404
    summaries = [m.parts[0].text for m in messages if m.role == "system"]
    assert summaries == ["", "Late summary."]  # the boundary, then the summary in its place


def test_a_damaged_uuid_costs_nothing_where_lines_are_left_out_by_uuid(tmp_path, monkeypatch):
    """Old-layout files are read again without a Warmup agent's lines, picked by uuid: a
    line whose uuid is not a string is read like any other (before: TypeError, and the
    whole file failed, held or streamed)."""
    folder = tmp_path / "home" / ".claude" / "projects" / "-old"
    old_layout_sessions(folder)
    for path in folder.glob("*.jsonl"):
        with open(path, "a") as f:
            f.write('{"type":"progress","uuid":{"a":1}}\n{"type":"progress","uuid":["x"]}\n')
    for stream in (False, True):
        sessions, problems = load("claude-code", tmp_path / "home", stream, monkeypatch)
        assert len(sessions) == 2 and not [p for p in problems if p.severity == "error"]
        assert all(tuple(s.messages) for s in sessions)


@pytest.mark.parametrize("source", ["claude-code", "codex", "copilot-cli", "gemini"])
def test_a_file_cut_short_between_its_readings_is_an_error_not_a_shorter_note(
    tmp_path, monkeypatch, source
):
    """A streamed file is read again for its messages: one that now ends earlier than at
    its first reading (truncated, or replaced by an older copy) would give notes with
    fewer turns than the totals say; the part being read fails instead, named."""
    home = tmp_path / "home"
    if source == "codex":
        monkeypatch.setattr(codex, "STREAM_FROM", 0)
        path = rollout(turns=5).write(home / ".codex")
        adapter = CodexAdapter()
    elif source == "copilot-cli":
        monkeypatch.setattr(copilot_cli, "STREAM_FROM", 0)
        path = copilot_log(turns=5).write(home / ".copilot")
        adapter = CopilotCliAdapter()
    elif source == "gemini":
        monkeypatch.setattr(gemini, "STREAM_FROM", 0)
        path = gemini_chat(turns=5).write_jsonl(project_folder(home, "/w/api", "api") / "chats")
        adapter = GeminiAdapter()
    else:
        monkeypatch.setattr(claude_code, "STREAM_FROM", 0)
        path = long_session(5).write(home / ".claude" / "projects" / "-big" / f"{SID}.jsonl")
        adapter = ClaudeCodeAdapter()
    session, *_ = load_sessions(adapter, home)[0]
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[: len(lines) // 2]))
    with pytest.raises(SourceChanged, match=r"changed while it was read \((it now ends|message)"):
        tuple(session.messages)


# -- Copilot CLI -------------------------------------------------------------------------

CID = "5c5c5c5c-0000-4000-8000-000000000001"


def copilot_log(turns: int = 30, session_id: str = CID) -> CopilotCliSession:
    """A log with what a streamed reading must get right: a model change, reasoning, tool
    calls announced by requests and by execution starts, and a sub-agent (its calls linked
    in the main session, its own messages a session of their own)."""
    s = CopilotCliSession(session_id)
    for i in range(turns):
        s.user(f"question {i} " + "lorem ipsum " * 100)
        s.event("assistant.reasoning", {"content": f"thinking {i}"})
        s.assistant("", [request(f"c{i}", "view", {"path": f"f{i}.py"})])
        s.tool(f"c{i}", "view", {"path": f"f{i}.py"}, f"contents {i} " + "x" * 2000)
        s.assistant(f"answer {i} " + "dolor sit " * 200)
        if i == 4:
            s.event("session.model_change", {"newModel": "gpt-5"})
        if i == 7:
            s.assistant("Delegating.", [request("task-1", "task", {"prompt": "Find tests"})])
            s.event("subagent.started", {"toolCallId": "task-1", "agentName": "explore"},
                    agentId="agent-1")  # fmt: skip
            s.event("assistant.message", {"content": "Found one."}, agentId="agent-1")
            s.event("subagent.completed", {"toolCallId": "task-1", "model": "claude-haiku"})
            s.tool("task-1", "task", {"prompt": "Find tests"}, "One test.")
    return s


def assert_same_logs(home: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    return sum(s.is_streamed for s in assert_same("copilot-cli", home, monkeypatch))


def test_a_streamed_copilot_log_has_the_same_sessions(tmp_path, monkeypatch):
    home = tmp_path / "home"
    copilot_log().write(home / ".copilot")
    assert assert_same_logs(home, monkeypatch) == 1
    main, child = load("copilot-cli", home, True, monkeypatch)[0]
    (delegation,) = [p for m in main.messages for p in m.parts if p.kind == "tool_call"
                     and p.call_id == "task-1"]  # fmt: skip
    assert delegation.subagent_id == child.session_id and not child.is_streamed
    assert assert_same_logs(EXAMPLES_HOME, monkeypatch) >= 1


def test_corpus_copilot_logs_streamed_match_held(corpus, tmp_path, monkeypatch):
    home = tmp_path / "home"
    build_copilot_cli_home(corpus, home)
    assert assert_same_logs(home, monkeypatch) >= 3


def test_a_streamed_copilot_log_makes_the_same_notes(tmp_path, monkeypatch):
    home = tmp_path / "home"
    copilot_log().write(home / ".copilot")
    notes, _ = same_notes("copilot-cli", home, tmp_path, monkeypatch)
    assert len([p for p in notes if "(part " in p]) > 2


# -- Gemini CLI (JSONL chats) ------------------------------------------------------------

GID = "5e5e5e5e-0000-4000-8000-000000000001"


def gemini_chat(turns: int = 30, session_id: str = GID) -> GeminiChat:
    chat = GeminiChat(session_id, "/w/api")
    for i in range(turns):
        chat.user(f"question {i} " + "lorem ipsum " * 100)
        calls = [tool_call(f"read-{i}", "read_file", {"file_path": f"/w/api/f{i}.py"}, "x" * 2000)]
        chat.gemini(f"answer {i} " + "dolor sit " * 200, calls=calls)
    return chat


def gemini_home(home: Path) -> Path:
    """JSONL chats with what a streamed reading must get right: values updated by a later
    line of the same id (one far later, one in a second file of the session: read after
    those that follow them), ``$set``, a rewind, and a subagent."""
    chats = project_folder(home, "/w/api", "api") / "chats"
    chat = gemini_chat()
    first = dict(chat.messages[1], content="answer 0, with its result")
    near = dict(chat.messages[9], content="answer 4, updated")
    chat.write_jsonl(chats, extra_lines=[
        near,
        {"$set": {"summary": "Streaming check"}},
        {"$rewindTo": chat.messages[50]["id"]},
        {"id": "after", "type": "user", "content": "After the rewind",
         "timestamp": "2026-05-01T12:00:00Z"},
        first,
    ])  # fmt: skip
    resumed = GeminiChat(GID, "/w/api", start="2026-05-02T10:00:00Z")
    resumed.user("Resumed question")
    resumed.gemini("Resumed answer", calls=[dict(tool_call("task-1", "agent", {}, "done"),
                                                 agentId="agent-77")])  # fmt: skip
    resumed.write_jsonl(chats)
    agent = GeminiChat("agent-77", kind="subagent")
    agent.user("Look around")
    agent.gemini("Found it.")
    agent.write_jsonl(chats / GID, "agent-77.jsonl")
    return home


def test_a_streamed_gemini_chat_has_the_same_sessions(tmp_path, monkeypatch):
    home = gemini_home(tmp_path / "home")
    streamed = assert_same("gemini", home, monkeypatch)
    (main,) = [s for s in streamed if s.is_streamed]
    said = [m.parts[0].text for m in main.messages if m.role == "user"]
    # The resumed file's first ids are the first file's: their new values take those places.
    assert said[0] == "Resumed question" and said[-1] == "After the rewind"
    assert len(said) == 31  # what a rewind went back on is kept in its place
    replies = [m.parts[0].text for m in main.messages if m.role == "assistant"]
    assert replies[0] == "Resumed answer" and replies[4] == "answer 4, updated"
    assert main.title == "Streaming check" and len(streamed) == 2
    assert_same("gemini", EXAMPLES_HOME, monkeypatch)


def test_corpus_gemini_chats_streamed_match_held(corpus, tmp_path, monkeypatch):
    home = tmp_path / "home"
    build_gemini_home(corpus, home)
    streamed = assert_same("gemini", home, monkeypatch)
    assert sum(s.is_streamed for s in streamed) >= 2


def test_a_streamed_gemini_chat_makes_the_same_notes(tmp_path, monkeypatch):
    notes, _ = same_notes("gemini", gemini_home(tmp_path / "home"), tmp_path, monkeypatch)
    assert len([p for p in notes if "(part " in p]) > 2


def test_a_gemini_chat_rewritten_between_its_readings_names_the_message_it_lost(
    tmp_path, monkeypatch
):
    home = tmp_path / "home"
    chats = project_folder(home, "/w/api", "api") / "chats"
    path = gemini_chat(turns=5).write_jsonl(chats)
    session, *_ = load("gemini", home, True, monkeypatch)[0]
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([lines[0], lines[2], lines[1], *lines[3:]]))  # two swapped
    with pytest.raises(SourceChanged, match=r'line 2 no longer holds message "5e5e5e5e-m1"'):
        tuple(session.messages)
