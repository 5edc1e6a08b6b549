"""A secret a rule found in one session of a family (a parent, its subagents and theirs) is
looked for in the others too: the parent writes its subagent's task, and what a subagent
found comes back to it. Sessions of no shared family stay apart.

Every secret is generated at test time; none is real.
"""

from __future__ import annotations

import random
import string
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from claude_builder import ClaudeSession, tool_use
from conftest import note_files
from copilot_cli_builder import CopilotCliSession
from hypothesis import given
from hypothesis import strategies as st
from message_builder import msg, session
from opencode_builder import OpenCodeStore, text, tool

from exporter.export import ExportOptions, run_export
from exporter.model import TextPart
from exporter.redact import redactor
from exporter.redact_spread import families

TOKEN = "".join(random.Random(17).choices(string.ascii_letters + string.digits, k=32))
NAMED = TextPart(f'client = Api(api_token="{TOKEN}")')  # found by its name
PLAIN = TextPart(f"Call the API with {TOKEN} and report.")  # nothing around it to go by


def test_a_parents_secret_is_redacted_in_its_subagents_and_theirs():
    parent = session(msg("assistant", NAMED), session_id="p")
    child = session(msg("user", PLAIN), session_id="c", parent_id="p")
    grandchild = session(msg("user", PLAIN), session_id="g", parent_id="c")
    counts: Counter[str] = Counter()
    out = redactor().sessions([parent, child, grandchild], counts)
    assert TOKEN not in repr(out)
    assert counts == {"generic-secret": 3}


def test_a_subagents_secret_is_redacted_in_its_parent():
    parent = session(msg("user", PLAIN), session_id="p")
    child = session(msg("assistant", NAMED), session_id="c", parent_id="p")
    assert TOKEN not in repr(redactor().sessions([parent, child], Counter()))


def test_another_family_in_the_same_unit_keeps_the_value():
    """A database holds many conversations: one's secret redacts no other's text."""
    named = session(msg("assistant", NAMED), session_id="a")
    other = session(msg("user", PLAIN), session_id="b")
    others_child = session(msg("user", PLAIN), session_id="b1", parent_id="b")
    out = redactor().sessions([named, other, others_child], Counter())
    assert TOKEN not in repr(out[0])
    assert out[1:] == [other, others_child]


@given(st.lists(st.integers(0, 9) | st.none(), min_size=1, max_size=10))
def test_families_are_the_sessions_linked_by_their_parents(parents):
    """Two sessions share a family exactly when a chain of parent links among the sessions
    given joins them (a parent not among them, or a loop of parents, breaks nothing)."""
    sessions = [
        session(session_id=str(i), parent_id=None if p is None else str(p))
        for i, p in enumerate(parents)
    ]
    ids = [s.session_id for s in sessions]
    linked = {(a, a) for a in ids} | {
        pair for s in sessions if s.parent_id in ids for pair in
        ((s.session_id, s.parent_id), (s.parent_id, s.session_id))
    }  # fmt: skip
    while True:  # (the closure of the links, by hand)
        more = {(a, d) for a, b in linked for c, d in linked if b == c} - linked
        if not more:
            break
        linked |= more
    family = families(sessions)
    assert {(a, b) for a in ids for b in ids if family[a] == family[b]} == linked


def _home(home: Path) -> None:
    """A Claude Code session whose code names the token, and the subagent it sent with the
    token in its task (in ``<session>/subagents/``: one unit with its session)."""
    sid, agent = "0bb0b0b0-1111-4222-8333-444444444444", "abc123"
    folder = home / ".claude" / "projects" / "-w-proj"
    s = ClaudeSession(sid, "/w/proj", version="2.0.10")
    s.user("wire up the client")
    s.assistant(NAMED.text)
    task = {"description": "Try the API", "prompt": PLAIN.text, "subagent_type": "tester"}
    s.assistant([tool_use("Task", task, "toolu_1")])
    s.tool_result("toolu_1", "200 OK", rich={"status": "completed", "agentId": agent})
    s.write(folder / f"{sid}.jsonl")
    a = ClaudeSession(sid, "/w/proj", sidechain=True, agent_id=agent, version="2.0.10")
    a.user(PLAIN.text, parent=None)
    a.assistant(f"Called it with {TOKEN}: 200 OK")
    a.write(folder / sid / "subagents" / f"agent-{agent}.jsonl")
    for i in range(30):  # enough units that a worker reads the family ahead, with two jobs
        other = ClaudeSession(f"0ee0e0e0-1111-4222-8333-{i:012d}", "/w/proj", version="2.0.10")
        other.user(f"question {i}")
        other.assistant(f"answer {i}")
        other.write(folder / f"{other.session_id}.jsonl")


def _both_ways(tmp_path: Path, notes: int) -> dict[str, str]:
    """The notes of the home in tmp_path, exported in one process and with two workers
    (which read the family ahead): the same bytes, and no token in either."""
    vaults = []
    for jobs in (1, 2):
        vault = tmp_path / f"vault{jobs}"
        report = run_export(
            ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC, workers=jobs)
        )
        assert not report.problems
        vaults.append(note_files(vault))
    assert vaults[0] == vaults[1]
    texts = {path: data.decode() for path, data in vaults[0].items()}
    assert len(texts) == notes
    assert not [path for path, text in texts.items() if TOKEN in text or TOKEN in path]
    return texts


def test_a_subagents_note_never_shows_its_parents_secret(tmp_path):
    _home(tmp_path / "home")
    texts = _both_ways(tmp_path, 32)
    assert sum(text.count("[REDACTED:generic-secret]") for text in texts.values()) >= 4


def test_an_opencode_trees_family_is_read_together_beside_a_database(tmp_path):
    """A legacy tree beside a database (a migration's leftovers) was read a session at a
    time in one process and whole by a worker: the subagent kept the token in one process
    only, and its parent's task call linked it only with workers."""
    data = tmp_path / "home" / ".local" / "share" / "opencode"
    store = OpenCodeStore()
    other = store.session("In the db", "/w/a")
    store.user(other, text("db question"))
    store.assistant(other, text("db answer"))
    parent = store.session("Plan", "/w/app")
    child = store.session("Explore (@explore subagent)", "/w/app", parent=parent)
    store.user(parent, text("Refactor the app"))
    task = {"description": "Explore", "prompt": PLAIN.text, "subagent_type": "explore"}
    store.assistant(
        parent, text(NAMED.text), tool("task", task, "ok", metadata={"sessionId": child.id})
    )
    store.user(child, text(PLAIN.text), agent="explore")
    store.assistant(child, text("done"))
    store.write_tree(data / "storage", [child, parent])  # (the subagent's file first)
    store.write_db(data / "opencode.db", [other])
    for n in range(30):  # enough units that a worker reads the tree ahead, with two jobs
        s = CopilotCliSession(f"{n:08x}-0c11-4000-8000-000000000000", "/home/dev/work/p")
        s.user(f"q {n}")
        s.assistant(f"a {n}")
        s.write(tmp_path / "home" / ".copilot")
    texts = _both_ways(tmp_path, 33)
    (plan,) = [t for p, t in texts.items() if p.endswith("Plan ynthetic.md")]
    (agent,) = [t for p, t in texts.items() if "· agent" in p and "/opencode/" in p]
    assert "[REDACTED:generic-secret]" in agent
    assert "Subagent" in plan  # its task call is the subagent's, linked


def test_a_subagent_left_out_by_since_still_redacts_its_parent(tmp_path):
    """``--since`` leaves out a subagent that ended before it; the secret it named must not
    come back into its parent's note, rewritten after the session was resumed."""
    sid, agent = "0bb0b0b0-1111-4222-8333-444444444444", "abc123"
    folder = tmp_path / "home" / ".claude" / "projects" / "-w-proj"
    s = ClaudeSession(sid, "/w/proj", version="2.0.10", start="2026-11-20T09:00:00Z")
    s.user("find the API token in the config and try it")
    task = {"description": "Try the API", "prompt": "call the API", "subagent_type": "tester"}
    s.assistant([tool_use("Task", task, "toolu_1")])
    s.tool_result(
        "toolu_1", f"Called it with {TOKEN}", rich={"status": "completed", "agentId": agent}
    )
    s.tick(4 * 86400)  # resumed four days later
    s.user("now use it in the client")
    s.assistant("done")
    s.write(folder / f"{sid}.jsonl")
    a = ClaudeSession(
        sid,
        "/w/proj",
        sidechain=True,
        agent_id=agent,
        version="2.0.10",
        start="2026-11-20T09:00:10Z",
    )
    a.user("call the API", parent=None)
    a.assistant(NAMED.text)
    a.write(folder / sid / "subagents" / f"agent-{agent}.jsonl")
    vault = tmp_path / "vault"
    since = datetime(2026, 11, 23, tzinfo=UTC)
    report = run_export(
        ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC, since=since)
    )
    (note,) = note_files(vault).values()  # the parent's alone
    assert TOKEN.encode() not in note and b"[REDACTED:generic-secret]" in note
    assert report.redactions == {"generic-secret": 1}  # (the subagent's own is not counted)
