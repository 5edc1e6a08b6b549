"""Claude Code lines that share a uuid (claude_uuids.py): the lines kept although their uuid
was an earlier line's are reported once per file, wherever the file's lines are read."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from claude_builder import ClaudeSession, tool_use
from conftest import load_sessions, texts

from exporter.adapters.claude_code import ClaudeCodeAdapter

SID = "11111111-2222-4333-8444-555555555555"


def _folder(home: Path) -> Path:
    return home / ".claude" / "projects" / "-w-proj"


def _with_inline_agent(
    then: Callable[[ClaudeSession, str], None], reuse_in_main: bool = False
) -> tuple[ClaudeSession, list[int]]:
    """A session whose Task call is answered by sidechain lines in its own file (Claude
    Code < 2.0.28): the agent's prompt, its answer, then ``then(agent, prompt's uuid)``.
    With ``reuse_in_main``, the session's last prompt reuses its first one's uuid. Also
    the number of the agent's last line and, with ``reuse_in_main``, of the session's."""
    s = ClaudeSession(SID)
    first = s.user("survey the tests")
    task = {"description": "Survey", "prompt": "List tests.", "subagent_type": "Explore"}
    s.assistant([tool_use("Task", task, "toolu_1")])
    call = s.last
    agent = ClaudeSession(SID, sidechain=True)
    agent._n = 50
    asked = agent.user("List tests.", parent=None)
    agent.assistant("Found 3.")
    then(agent, asked)
    s.lines.extend(agent.lines)
    at = [len(s.lines)]
    s.last = call
    s.tool_result("toolu_1", "Found 3, one slow.")
    s.assistant("Done.")
    if reuse_in_main:
        s.user("and now fix it", uuid=first)
        at.append(len(s.lines))
    return s, at


def _asks_again(agent: ClaudeSession, uuid: str) -> None:
    agent.user("and the slow ones?", uuid=uuid)  # another prompt under the first's uuid


def _writes_again(agent: ClaudeSession, uuid: str) -> None:
    first = json.loads(agent.lines[0])  # the prompt written again: another parent, time
    agent.raw(dict(first, parentUuid=agent.last, timestamp=agent.tick()))


def test_an_inline_agent_line_reusing_a_uuid_is_reported(tmp_path):
    """Sidechain lines written into the session's file make an agent's note of their own;
    a line of theirs kept although its uuid was an earlier line's went unreported."""
    s, at = _with_inline_agent(_asks_again)
    path = s.write(_folder(tmp_path) / f"{SID}.jsonl")
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    (child,) = [x for x in sessions if x.parent_id == SID]  # one agent, not split in two
    assert texts(child, "user") == ["List tests.", "and the slow ones?"]
    assert texts(child, "assistant") == ["Found 3."] and child.title == "Survey"
    assert [(p.path, p.line, p.severity) for p in problems] == [(str(path), at[0], "warning")]
    assert problems[0].message.startswith("this line has the uuid of an earlier line")


def test_lines_reusing_uuids_in_a_session_and_its_inline_agent_make_one_warning(tmp_path):
    s, at = _with_inline_agent(_asks_again, reuse_in_main=True)
    path = s.write(_folder(tmp_path) / f"{SID}.jsonl")
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    main = next(x for x in sessions if x.session_id == SID)
    assert texts(main, "user") == ["survey the tests", "and now fix it"]
    assert [(p.path, p.line) for p in problems] == [(str(path), at[0])]
    assert problems[0].message.startswith("2 lines have the uuid of an earlier line")


def test_an_inline_agent_line_written_again_is_no_line_of_its_own(tmp_path):
    """The known rewrite (same uuid and text, another parent and time) stays silent."""
    s, _ = _with_inline_agent(_writes_again)
    s.write(_folder(tmp_path) / f"{SID}.jsonl")
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    (child,) = [x for x in sessions if x.parent_id == SID]  # one agent, not split in two
    assert texts(child, "user") == ["List tests."]
    assert texts(child, "assistant") == ["Found 3."] and child.title == "Survey"
    assert problems == []


def test_a_line_reusing_a_uuid_in_the_second_reading_is_reported(tmp_path):
    """A file of sidechain lines that make no agent of their own (no line outside a
    sidechain) is read a second time, every line in the conversation: a line kept there
    although its uuid was an earlier line's went unreported."""
    s = ClaudeSession(SID, sidechain=True)
    asked = s.user("List tests.", parent=None)
    s.assistant("Found 3.")
    s.user("and the slow ones?", uuid=asked)
    s.user("and the slow ones?", uuid=asked, parentUuid=None)  # written again: no line
    path = s.write(_folder(tmp_path) / f"{SID}.jsonl")
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    (session,) = sessions
    assert texts(session, "user") == ["List tests.", "and the slow ones?"]
    assert [(p.path, p.line) for p in problems] == [(str(path), 3)]


def test_a_file_read_twice_reports_its_lines_once(tmp_path):
    """A session that reuses a uuid and also holds a sidechain line that makes no agent
    (so its file is read twice): one warning, not one per reading."""
    s = ClaudeSession(SID)
    first = s.user("hello")
    s.assistant("hi")
    s.user("hello again", uuid=first)
    side = ClaudeSession(SID, sidechain=True)
    side._n = 50
    side.raw(side._envelope("attachment", None, attachment={"type": "date_change"}))
    s.lines.extend(side.lines)
    path = s.write(_folder(tmp_path) / f"{SID}.jsonl")
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    assert texts(sessions[0], "user") == ["hello", "hello again"]
    assert [(p.path, p.line) for p in problems] == [(str(path), 3)]
    assert problems[0].message.startswith("this line has the uuid")


def test_a_narrow_hash_signs_lines_by_digest_and_drops_the_same_replays(monkeypatch):
    # A 32-bit Python's hash would make two triples share a signature in some 10**5 lines:
    # there the signature is a digest, and a replay is told from a new line as before.
    from exporter.adapters import claude_lines, claude_transcript

    monkeypatch.setattr(claude_lines, "_NARROW_HASH", True)
    original = {"type": "user", "uuid": "b1", "parentUuid": "a0",
                "timestamp": "2026-01-02T03:04:05.000Z",
                "message": {"role": "user", "content": "Fix the build"}}  # fmt: skip
    replay = dict(original, uuid="b2")
    changed = dict(original, uuid="b3", message={"role": "user", "content": "Fix it all"})
    later = dict(original, uuid="b4", timestamp="2026-01-02T03:04:06.000Z")
    sig, _ = claude_lines.replay_keys("a0", original["timestamp"], "user", original["message"])
    assert isinstance(sig, bytes) and len(sig) == 16
    out = claude_transcript.build_transcript([original, replay, changed, later], {})
    assert [m.source_id for m in out.messages] == ["b1", "b3", "b4"]


def test_a_long_message_is_digested_without_a_second_copy_of_it(monkeypatch):
    # A tool's output of megabytes: joined to its type before hashing, it was held twice
    # (the review: a 50 MB result raised the peak by 98 MB instead of 49). The JSON made
    # of it must be what is hashed, not a copy. (tracemalloc cannot tell: orjson reserves
    # several times its output while it writes.)
    import hashlib

    from exporter.adapters import claude_lines

    made, hashed = [], []
    json_bytes, sha256 = claude_lines._json_bytes, hashlib.sha256

    class Hasher:
        def __init__(self, data=b""):
            hashed.append(data)
            self._real = sha256(data)

        def update(self, data):
            hashed.append(data)
            self._real.update(data)

        def digest(self):
            return self._real.digest()

    monkeypatch.setattr(
        claude_lines, "_json_bytes", lambda v: made.append(json_bytes(v)) or made[-1]
    )
    monkeypatch.setattr(claude_lines.hashlib, "sha256", Hasher)
    content = [{"type": "tool_result", "content": "x" * 1_000_000}]
    _, digest = claude_lines.replay_keys("p", "t", "user", {"content": content})
    big = [data for data in hashed if len(data) > 500_000]
    assert len(big) == 1 and big[0] is made[-1]
    monkeypatch.undo()
    assert digest == sha256(b"user\0" + json_bytes(content)).digest()[:16]  # (the same)
