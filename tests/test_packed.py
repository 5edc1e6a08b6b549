"""A streamed Claude Code session or Codex rollout read once (``exporter/packed.py``): the
worker that reads it first cuts it into parts as it reads and packs them; the main process
never reads its messages. The notes, redaction counts and report are those of two readings (one process),
and whatever the packer cannot hold or use goes back to two readings."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import note_files
from corpus_home import build_codex_home, build_corpus_home
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_streamed_sessions import (
    GITHUB,
    SID,
    TID,
    codex_home,
    long_session,
    old_layout_sessions,
    rollout,
)
from test_sync import write_sessions

from exporter import packed, readahead, workers
from exporter.adapters import claude_code, claude_load, codex
from exporter.export import ExportOptions, run_export
from exporter.model import (
    Message,
    MessageStream,
    Session,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    linked_message,
)
from exporter.redact import redactor
from exporter.split import iter_parts

PARENT = "5a5a5a5a-0000-4000-8000-0000000000f1"
LONG_ROLLOUT = "019a0000-5a5a-7000-8000-000000000005"


def streamed_family(folder: Path) -> None:
    """A long session whose Task calls ran two subagents (one named by its result, one by its
    sidecar), with a secret in its title, its branch and a tool's output."""
    s = ClaudeSession(PARENT, "/home/dev/work/family", start="2026-06-01T10:00:00Z")
    s.meta("custom-title", customTitle=f"Family with {GITHUB}")
    for i in range(12):
        s.user(f"step {i} " + "lorem ipsum " * 150)
        call = f"toolu_{i}"
        s.assistant([tool_use("Task", {"description": f"Step {i}", "prompt": f"Do {i}."}, call)])
        rich = {"status": "completed", "agentId": "a1"} if i == 3 else None
        s.tool_result(call, f"did {i} with {GITHUB} " + "x" * 2000, rich=rich)
        s.assistant(f"answer {i} " + "dolor sit " * 200)
    s.write(folder / f"{PARENT}.jsonl")
    for agent, call in (("a1", None), ("a2", "toolu_7")):
        child = ClaudeSession(PARENT, sidechain=True, agent_id=agent)
        child.user("Do it.", parent=None)
        child.assistant(f"Done by {agent}.")
        agents = folder / PARENT / "subagents"
        child.write(agents / f"agent-{agent}.jsonl")
        if call:
            (agents / f"agent-{agent}.meta.json").write_text(f'{{"toolUseId": "{call}"}}')


_READ_AGAIN: list[str] = []  # (module level: a stream read by it is sent between processes)
_read_messages, _stream_messages = claude_load.read_messages, codex._stream_messages


def _recording_read(path, *args):
    _READ_AGAIN.append(Path(path).stem)
    return _read_messages(path, *args)


def _recording_stream(path, *args):
    _READ_AGAIN.append(Path(path).stem)
    return _stream_messages(path, *args)


@pytest.fixture
def seen(monkeypatch) -> dict[str, list[str]]:
    """In the main process: the sessions that came packed, and the files whose messages were
    read (a second reading)."""
    _READ_AGAIN.clear()
    got: dict[str, list[str]] = {"packed": [], "read again": _READ_AGAIN}
    take = readahead.ReadAhead.take

    def recording_take(self, unit, wanted=True):
        read = take(self, unit, wanted)
        if read is not None:
            got["packed"].extend(r.session.session_id for r in read.sessions if r.packed)
        return read

    monkeypatch.setattr(readahead.ReadAhead, "take", recording_take)
    monkeypatch.setattr(claude_load, "read_messages", _recording_read)
    monkeypatch.setattr(codex, "_stream_messages", _recording_stream)
    return got


def export_both(home: Path, tmp_path: Path, seen: dict[str, list[str]], monkeypatch):
    """The home exported every Claude Code file and Codex rollout streamed, in one process
    (read again for their messages) and with two workers (read ahead, packed where it can
    be): the same vault and report."""
    monkeypatch.setattr(claude_code, "STREAM_FROM", 0)
    monkeypatch.setattr(codex, "STREAM_FROM", 0)
    monkeypatch.setattr(workers, "PARALLEL_FROM", 4)
    runs = []
    for jobs in (1, 2):
        seen["packed"].clear()
        seen["read again"].clear()
        vault = tmp_path / f"jobs{jobs}"
        options = ExportOptions(
            vault=vault, home=home, timezone=UTC, workers=jobs, note_max_bytes=30_000
        )
        runs.append((run_export(options), note_files(vault, index=True)))
    (one, one_notes), (two, two_notes) = runs
    assert two_notes == one_notes
    assert two.as_dict() == one.as_dict() and two.redactions == one.redactions
    return one_notes, one


def test_a_streamed_session_is_read_once_and_makes_the_notes_of_two_readings(
    tmp_path, seen, monkeypatch
):
    home = tmp_path / "home"
    big = long_session()
    big.user(f"deploy with {GITHUB} please")
    big.assistant("done")
    big.write(home / ".claude" / "projects" / "-big" / f"{SID}.jsonl")
    streamed_family(home / ".claude" / "projects" / "-family")
    old_layout_sessions(home / ".claude" / "projects" / "-old")
    write_sessions(home, 12, turns=2)
    notes, report = export_both(home, tmp_path, seen, monkeypatch)
    # Read once: both long sessions came packed, and their files were read by workers only.
    assert sorted(seen["packed"]) == sorted([SID, PARENT])
    assert SID not in seen["read again"] and PARENT not in seen["read again"]
    # The others went back to two readings: one note each (planned whole), or the oldest
    # layout (its sidechain lines make the adapter read the file again anyway).
    assert "5a5a5a5a-0000-4000-8000-0000000000a1" in seen["read again"]
    assert sum("(part " in name for name in notes) >= 8
    parent_notes = [body for name, body in notes.items() if "Family with" in name]
    assert len(parent_notes) >= 3 and all(GITHUB.encode() not in b for b in parent_notes)
    assert b"agent-a2" in b"".join(parent_notes)  # the sidecar's link, known only at the end
    assert sum(report.redactions.values()) >= 14


def test_a_streamed_rollout_is_read_once_too(tmp_path, seen, monkeypatch):
    """Codex: the reading for the totals keeps the messages, so the last is not needed."""
    home = codex_home(tmp_path / "home")  # a fork, a damaged line, a compressed rollout
    long = rollout(LONG_ROLLOUT, turns=30)
    long.user(f"deploy with {GITHUB} please")
    long.assistant("done")
    long.write(home / ".codex")
    write_sessions(home, 12, turns=2)
    notes, report = export_both(home, tmp_path, seen, monkeypatch)
    assert sorted(seen["packed"]) == sorted([TID, LONG_ROLLOUT])  # the rest: one note each
    assert not any(LONG_ROLLOUT in name for name in seen["read again"])
    assert any(name.endswith("f0f0") for name in seen["read again"])  # the fork, one note
    # TID's fork is written after it: its note is made once more, naming the fork (its
    # unit exported again at the end of the run, read there, not ahead); never before.
    again = seen["read again"]
    fork_read = next(i for i, name in enumerate(again) if name.endswith("f0f0"))
    assert all(i > fork_read for i, name in enumerate(again) if TID in name)
    assert sum("(part " in name for name in notes) >= 6
    assert report.redactions and not any(GITHUB.encode() in b for b in notes.values())


def test_corpus_sessions_read_once_make_the_notes_of_two_readings(
    corpus, tmp_path, seen, monkeypatch
):
    home = tmp_path / "home"
    build_corpus_home(corpus, home)
    build_codex_home(corpus, home)
    notes, _ = export_both(home, tmp_path, seen, monkeypatch)
    print(f"{len(seen['packed'])} corpus sessions packed, {len(notes)} notes")
    assert len(seen["packed"]) >= 5 and len(notes) > 20


def test_parts_too_large_to_hold_are_read_again_by_the_main_process(tmp_path, seen, monkeypatch):
    home = tmp_path / "home"
    long_session().write(home / ".claude" / "projects" / "-big" / f"{SID}.jsonl")
    write_sessions(home, 12, turns=2)
    monkeypatch.setattr(packed, "PACKED_MAX", 5_000)  # about half its parts
    notes, _ = export_both(home, tmp_path, seen, monkeypatch)
    assert seen["packed"] == [] and SID in seen["read again"]
    assert sum("(part " in name for name in notes) >= 4


# -- the parts alone: packed as read, or cut from a stream read again ------------------------

_WORDS = st.sampled_from(["alpha", "beta_gamma", "x" * 40, "line\nbreak", GITHUB, "* item"])
_CALL_IDS = st.sampled_from(["c1", "c2", "c3", "c4", None])


@st.composite
def _messages(draw) -> list[Message]:
    start = datetime(2026, 6, 1, tzinfo=UTC)
    out = []
    for i in range(draw(st.integers(1, 40))):
        role = draw(st.sampled_from(["user", "assistant"]))
        parts: list = [TextPart(" ".join(draw(st.lists(_WORDS, min_size=1, max_size=30))))]
        if role == "assistant" and draw(st.booleans()):
            call = draw(_CALL_IDS)
            agent = draw(st.sampled_from([None, "known-before"]))
            parts.append(ToolCallPart("Task", {"prompt": draw(_WORDS)}, call, None, agent))
        elif role == "user" and draw(st.booleans()):
            parts = [ToolResultPart(draw(_WORDS) * draw(st.integers(1, 20)), draw(_CALL_IDS))]
        when = start + timedelta(minutes=i) if draw(st.booleans()) else None
        model = draw(st.sampled_from([None, "opus", "sonnet"])) if role == "assistant" else None
        out.append(Message(role, tuple(parts), f"m{i}", when, model))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=_messages(),
    links=st.dictionaries(st.sampled_from(["c1", "c2", "c3"]), st.sampled_from(["s1", "s2"])),
    given_at_end=st.integers(0, 5),
    max_bytes=st.integers(300, 3000),
    title=st.sampled_from([None, "A title", f"key {GITHUB}"]),
    redact=st.booleans(),
)
def test_packed_parts_are_the_parts_of_the_stream_read_again(
    messages, links, given_at_end, max_bytes, title, redact
):
    """Fed the messages as the adapter closes them (unlinked, the last few linked) and the
    links at the end, the packer's parts are those ``iter_parts`` cuts from the session read
    again (linked, redacted on the way): the same properties, messages and redaction counts;
    or it lets go, and only when it must (one part)."""
    rules = redactor() if redact else None
    linked = [m if i < given_at_end else linked_message(m, links) for i, m in enumerate(messages)]
    children = ("s1", "s9")  # s9: a subagent no call names, listed on the last part
    session = Session(
        "claude-code", "sid", MessageStream(lambda: iter([linked_message(m, links) for m in linked])),
        Path("/src/sid.jsonl"), title=title, cwd="/home/dev", subagent_ids=children,
        started_at=messages[0].timestamp, models=("opus",),
    )  # fmt: skip
    packer = packed.PartPacker(max_bytes, rules, "claude-code")
    cut = len(messages) - given_at_end
    packer.add(linked[:cut])
    packer.add(linked[cut:])
    packer.end(links)
    found = packer.packed(session)

    counts: Counter[str] = Counter()
    again = rules.session(session, counts) if rules else session
    expected = list(iter_parts(again, max_bytes, counts))
    if found is None:
        assert len(expected) == 1  # a single note: planned as a whole session
        return
    stub, parts = found
    got = list(parts.cut(stub))
    assert [(n, last) for n, _p, last in got] == [(n, last) for n, _p, last in expected]
    for (number, part, _last), (_n, want, _l) in zip(got, expected, strict=True):
        assert part.messages == ()
        opened = parts.messages(number).messages()
        assert replace(part, messages=opened) == replace(want, messages=tuple(want.messages))
    assert packer.counts == counts


def test_a_reading_the_adapter_does_not_end_is_never_used():
    """An adapter that must read a session's file again for its messages (Claude Code's
    oldest layout) does not call ``end``: what the packer holds is let go."""
    packer = packed.PartPacker(200, None, "claude-code")
    packer.add([Message("user", (TextPart("word " * 100),))] * 5)
    session = Session("claude-code", "sid", MessageStream(lambda: iter(())), Path("/s.jsonl"))
    assert packer.packed(session) is None
    packer.end({})
    assert packer.packed(session) is not None


def test_a_packed_part_holds_its_compressed_bytes_not_what_they_came_from():
    """python-zstandard's ``compress`` gives bytes that keep an allocation the size of the
    input: 20 parts of 4 MB packed to a few kB each held 80 MB (traced), about what they
    were before packing, while ``PACKED_MAX`` counted the few kB."""
    import tracemalloc

    text = "the same line of a long tool output, again and again\n" * 80_000  # ~4 MB
    packer = packed.PartPacker(1 << 20, None, "claude-code")
    tracemalloc.start()
    try:
        for n in range(20):
            packer._pack((Message("tool", (ToolResultPart(f"{n} {text}", f"c{n}"),)),))
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert packer._parts is not None and len(packer._parts) == 20
    assert held < 8 << 20, f"{held >> 20} MB held for 20 packed parts"
