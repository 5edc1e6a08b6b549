"""Loading Claude Code sessions takes shortcuts for speed (issue 17): a uuid kept as itself
rather than as a digest, Python's hash for a line's replay signature and SHA-256 for its
content, a line's time parsed once, ``str.isspace`` instead of stripping a copy, fast paths
for the usual types. Each must give exactly what the plain formula it replaces gives: these
tests run the same input both ways (the plain formulas are written out below) and compare.
The last test checks that a session is loaded with the cycle collector paused."""

from __future__ import annotations

import contextlib
import enum
import gc
import hashlib
import sys
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import orjson
from claude_builder import ClaudeSession
from conftest import load_sessions
from corpus_home import build_corpus_home
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exporter.adapters import _jsonl, claude_content, claude_subagents, claude_transcript
from exporter.adapters.base import project_name
from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.adapters.claude_lines import replay_keys, uuid_key
from exporter.adapters.claude_subagents import TaskIndex, known_uuid, sidechain_roots
from exporter.adapters.claude_transcript import TranscriptBuilder


# The plain formulas, as loading computed them before the shortcuts.
def plain_digest(value: Any) -> bytes | None:
    if value is None:
        return None
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        data = repr(value).encode("utf-8", "replace")
    return hashlib.blake2b(data, digest_size=16).digest()


def plain_replay_keys(parent: Any, timestamp: Any, kind: str, message: Any) -> tuple:
    said = message.get("content") if isinstance(message, dict) else message
    content = None if message is None else plain_digest([kind, said])
    return plain_digest((repr(parent), repr(timestamp), kind)), content


def plain_parse_timestamp(value: object) -> datetime | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        if value <= 0 or value != value:  # a placeholder (or NaN): no time
            return None
        try:
            when = datetime.fromtimestamp(value / 1000 if value > 1e11 else value, UTC)
        except (OverflowError, OSError, ValueError):
            return None
        return None if when > datetime.now(UTC) + timedelta(days=1) else when
    if not isinstance(value, str) or not value[:4].isdigit():
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    try:
        when = (dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt).astimezone(UTC)
    except OverflowError:
        return None
    return None if when > datetime.now(UTC) + timedelta(days=1) else when


def plain_token_count(value: Any) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53
    return value if ok else 0


@contextlib.contextmanager
def plain_formulas():
    """Loading with every shortcut replaced by its plain formula."""
    module = claude_transcript
    with contextlib.ExitStack() as stack:
        for name, plain in {
            "uuid_key": plain_digest,
            "replay_keys": plain_replay_keys,
            "parse_timestamp": plain_parse_timestamp,
            "token_count": plain_token_count,
            "tool_output_only": lambda parts: (
                all(p.kind in ("tool_result", "attachment") for p in parts)
                and any(p.kind == "tool_result" for p in parts)
            ),
        }.items():
            stack.enter_context(mock.patch.object(module, name, plain))
        has_text = lambda text: bool(text.strip())  # noqa: E731
        stack.enter_context(mock.patch.object(claude_content, "_has_text", has_text))
        stack.enter_context(
            mock.patch.object(
                TranscriptBuilder,
                "_time",
                lambda self, value: plain_parse_timestamp(value) or self._unread(value),
            )
        )
        yield


# Values chosen to collide: few uuids (some past the length kept as is), few times (equal
# strings that are distinct objects too), messages equal with their keys in another order.
LONG = "u" * 64
UUIDS = ["a1", "a2", "a3", LONG, LONG + "x", LONG + "y", "", "7:a1user"]
TIMES = ["2026-01-02T03:04:05Z", "2026-01-02T03:04:05.250+02:00", "2026-01-02T03:04:05",
         "2026-01-02T03:04:05.123456Z", "2026-13-02T03:04:05Z", "yesterday", "",
         "2026-01-02T03:04:05Zuser:"]  # fmt: skip
USAGE = {"input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": True}
MESSAGES = [
    None,
    {"role": "user", "content": "Why does it fail?"},
    {"content": "Why does it fail?", "role": "user"},
    {"content": [{"type": "tool_result", "tool_use_id": "c1", "content": "out"}]},
    {"content": [{"type": "text", "text": " \n\u2003"}, {"type": "text", "text": "\u00a0hi "}]},
    {"id": "m1", "model": "claude-x", "content": [{"type": "thinking", "thinking": "hm "}],
     "usage": USAGE},
    {"id": "m1", "model": "claude-x", "content": [{"type": "text", "text": "done\n"}],
     "usage": dict(USAGE, output_tokens=2**60)},
    {"id": "m2", "model": "<synthetic>", "content": "placeholder"},
    {"model": ["damaged"], "content": [{"type": "tool_use", "id": "c1", "name": "Task",
     "input": {"description": "look", "prompt": "p"}}], "usage": {"input_tokens": 2**70}},
]  # fmt: skip


def _fresh(value: Any) -> Any:
    """An equal string that is another object (the time parsed last is kept by identity)."""
    return "".join(list(value)) if isinstance(value, str) and value else value


damaged = st.one_of(st.none(), st.integers(-5, 2 * 10**12), st.just(["a1"]), st.just(1.5))
records = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["user", "assistant", "system", "progress", "queue-operation"]),
        "uuid": st.sampled_from(UUIDS) | damaged,
        "parentUuid": st.sampled_from(UUIDS) | damaged,
        "timestamp": st.sampled_from(TIMES).map(_fresh) | st.sampled_from(TIMES) | damaged,
        "message": st.sampled_from(MESSAGES),
    },
    optional={
        "isMeta": st.booleans(),
        "cwd": st.sampled_from(["/w/app", ""]),
        "subtype": st.just("compact_boundary"),
        "isCompactSummary": st.booleans(),
        "operation": st.sampled_from(["enqueue", "remove"]),
        "content": st.just("steer"),
    },
)


@settings(max_examples=400, deadline=None)
@given(st.lists(records, max_size=30))
def test_a_transcript_is_the_one_the_plain_formulas_build(recs):
    # The same record objects both ways: a record is not changed by reading it.
    with plain_formulas():
        plain = claude_transcript.build_transcript(recs, {"c1": "child"})
    assert claude_transcript.build_transcript(recs, {"c1": "child"}) == plain


def test_every_corpus_session_loads_as_with_the_plain_formulas(corpus, tmp_path):
    build_corpus_home(corpus, tmp_path / "home")
    with plain_formulas():
        plain = load_sessions(ClaudeCodeAdapter(), tmp_path / "home")
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path / "home")
    assert (sessions, problems) == plain
    assert len(sessions) > 10


def test_a_compaction_replay_is_dropped_and_a_changed_message_kept():
    """The replay check at work: the same parent, time and content under a new uuid is a
    replay; the same with another message, or at another time, is not."""
    original = {"type": "user", "uuid": "b1", "parentUuid": "a0",
                "timestamp": "2026-01-02T03:04:05.000Z",
                "message": {"role": "user", "content": "Fix the build"}}  # fmt: skip
    replay = dict(original, uuid="b2", message={"content": "Fix the build", "role": "user"})
    changed = dict(original, uuid="b3", message={"role": "user", "content": "Fix it all"})
    later = dict(original, uuid="b4", timestamp="2026-01-02T03:04:06.000Z")
    # What it says is its message's content: a key beside it does not make it another line.
    beside = dict(original, uuid="b5", message={"role": "user", "content": "Fix the build",
                                                 "id": "m5"})  # fmt: skip
    out = claude_transcript.build_transcript([original, replay, changed, later, beside], {})
    assert [m.source_id for m in out.messages] == ["b1", "b3", "b4"]


@settings(max_examples=500, deadline=None)
@given(
    st.tuples(st.sampled_from(UUIDS) | damaged | st.text(max_size=6), st.sampled_from(TIMES)
              | damaged | st.text(max_size=6), st.sampled_from(["user", "assistant"])),
    st.tuples(st.sampled_from(UUIDS) | damaged | st.text(max_size=6), st.sampled_from(TIMES)
              | damaged | st.text(max_size=6), st.sampled_from(["user", "assistant"])),
    st.sampled_from(MESSAGES),
    st.sampled_from(MESSAGES),
)  # fmt: skip
def test_replay_keys_match_exactly_when_the_plain_digests_do(a, b, message_a, message_b):
    sig_a, content_a = replay_keys(*a, message_a)
    sig_b, content_b = replay_keys(*b, message_b)
    plain_a, plain_b = plain_replay_keys(*a, message_a), plain_replay_keys(*b, message_b)
    assert (sig_a == sig_b) == (plain_a[0] == plain_b[0])
    if sig_a == sig_b:  # the content digests are compared only under one signature
        assert (content_a == content_b) == (plain_a[1] == plain_b[1])
    assert (content_a is None) == (message_a is None)


# Pieces that join alike in many ways: a signature must tell every triple apart anyway.
PIECES = ["", "a", "1", "1:", ":a", "a:", "7:a1", "user", "user:", "auser:x", "xuser:y", "y",
          "1:auser", "assistant:", "\0", "None", None, ["a"], "['a']", 1, "1"]  # fmt: skip


def test_signatures_differ_exactly_when_the_plain_ones_do():
    """Every pair of (parent, time, kind) triples from pieces that read alike when joined
    (``"a" + "user:" + "xuser:y"`` is ``"auser:x" + "user:" + "y"``)."""
    triples = [(p, t, k) for p in PIECES for t in PIECES for k in ("user", "assistant")]
    ours = [replay_keys(*triple, None)[0] for triple in triples]
    plain = [plain_replay_keys(*triple, None)[0] for triple in triples]
    distinct = {(repr(p), repr(t), k) for p, t, k in triples}
    assert len(set(ours)) == len(set(plain)) == len(distinct)
    assert replay_keys("a", "xuser:y", "user", None) != replay_keys("auser:x", "y", "user", None)


def test_a_uuid_key_equals_another_only_for_the_same_uuid():
    """Around the length kept as is, and past it (where a digest stands for the uuid)."""
    near = [LONG[:63], LONG, LONG + "x", LONG + "y", LONG[:63] + "x", LONG + "xx",
            LONG + "x\ud800", LONG + "x\ud801", "a1", "", LONG[:62] + "é", "x" + LONG]  # fmt: skip
    for a in near:
        for b in near:
            assert (uuid_key(a) == uuid_key(b)) == (a == b), (a, b)
        assert uuid_key(a) == uuid_key(_fresh(a))


class Stamp(str):
    """A str subclass: parse_timestamp's fast path is for str itself."""


iso_like = st.datetimes(timezones=st.none() | st.timezones()).map(lambda d: d.isoformat())
stamps = st.one_of(
    iso_like,
    iso_like.map(lambda s: s.replace("+00:00", "Z")),
    st.text(max_size=30),
    st.sampled_from(TIMES),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.sampled_from(TIMES + [""]).map(Stamp),
    st.sampled_from(TIMES).map(lambda s: s + "0" * 120),  # too long to be kept
)


@settings(max_examples=1000)
@given(stamps)
def test_parse_timestamp_is_the_plain_parse(value):
    assert _jsonl.parse_timestamp(value) == plain_parse_timestamp(value)


@settings(max_examples=300, deadline=None)
@given(st.lists(stamps.filter(lambda v: not isinstance(v, list)), min_size=1, max_size=8))
@example(values=["0001-01-01T00:00:00+02:34:48"])  # found: no UTC time (OverflowError)
def test_a_message_time_is_its_line_time_whatever_came_before(values):
    """The time parsed last is kept with its string: a later line with another string (even
    one equal to it, or the same object after others) gets its own time."""
    recs = [
        {"type": "user", "uuid": f"u{i}", "parentUuid": None, "timestamp": value,
         "message": {"content": f"prompt {i}"}}
        for i, value in enumerate(values + values[::-1])
    ]  # fmt: skip
    out = claude_transcript.build_transcript(recs, {})
    assert len(out.messages) == len(recs)
    for message, rec in zip(out.messages, recs, strict=True):
        assert message.timestamp == plain_parse_timestamp(rec["timestamp"])


class Level(enum.IntEnum):
    HIGH = 7


@given(
    st.one_of(
        st.integers(-(2**60), 2**60),
        st.sampled_from([2**53 - 1, 2**53, -1, 0, True, False, Level.HIGH, 1.0, "5", None]),
    )
)
def test_token_count_is_the_plain_count(value):
    assert _jsonl.token_count(value) == plain_token_count(value)


def test_no_character_is_stripped_that_isspace_does_not_call_space():
    """``_has_text`` relies on str.strip and str.isspace agreeing on every character."""
    differ = [c for c in range(sys.maxunicode + 1) if (chr(c).strip() == "") != chr(c).isspace()]
    assert differ == []


def test_usage_counts_the_last_line_of_each_response_once():
    recs = []
    for n, (response, tokens) in enumerate(
        [("m1", 10), ("m1", 30), ("m2", 5), ("m3", 2**53), ("m2", 7), ("m1", 40)]
    ):
        usage = {"input_tokens": tokens, "output_tokens": 1, "cache_read_input_tokens": n,
                 "cache_creation_input_tokens": "2"}  # fmt: skip
        recs.append({"type": "assistant", "uuid": f"u{n}", "timestamp": f"2026-01-01T00:0{n}Z",
                     "message": {"id": response, "content": "x", "usage": usage}})  # fmt: skip
    usage = claude_transcript.build_transcript(recs, {}).usage
    # m1's last line (40, n=5), m2's (7, n=4), m3's (a count past 2**53 counts 0, n=3)
    assert (usage.input_tokens, usage.output_tokens) == (40 + 7 + 0, 3)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (5 + 4 + 3, 0)
    assert claude_transcript.build_transcript([], {}).usage == claude_transcript.Usage()


def plain_task_index(recs: list[dict[str, Any]]) -> tuple:
    """What TaskIndex gathered, written as it was before."""
    links, descriptions, inputs = {}, {}, {}
    for rec in recs:
        message = rec.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        main = rec.get("type") == "assistant" and not rec.get("isSidechain")
        for block in content:
            if not isinstance(block, dict):
                continue
            if main and block.get("name") in ("Task", "Agent"):
                if isinstance(block.get("input"), dict):
                    inputs[str(block.get("id"))] = block["input"]
            if block.get("type") == "tool_use" and block.get("name") in ("Task", "Agent"):
                data = block.get("input") if isinstance(block.get("input"), dict) else {}
                descriptions[str(block.get("id"))] = (
                    data.get("description"),
                    data.get("subagent_type"),
                )
            elif block.get("type") == "tool_result":
                rich = rec.get("toolUseResult")
                if isinstance(rich, dict) and isinstance(rich.get("agentId"), str):
                    links[str(block.get("tool_use_id"))] = rich["agentId"]
    return links, descriptions, inputs


blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["tool_use", "tool_result", "text", None])},
    optional={
        "name": st.sampled_from(["Task", "Agent", "Bash", None]),
        "id": st.sampled_from(["c1", "c2", None]),
        "tool_use_id": st.sampled_from(["c1", "c2"]),
        "input": st.sampled_from([{"description": "d", "subagent_type": "t"}, {}, "x", None]),
    },
)
task_records = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["assistant", "user"]),
        "message": st.fixed_dictionaries({"content": st.lists(blocks | st.just("x"))}),
    },
    optional={"isSidechain": st.booleans(), "toolUseResult": st.just({"agentId": "a7"})},
)


@settings(max_examples=300, deadline=None)
@given(st.lists(task_records, max_size=6))
def test_task_calls_are_gathered_as_before(recs):
    index = TaskIndex()
    for rec in recs:
        index.add(rec)
    assert (index.links, index.descriptions, index.inputs) == plain_task_index(recs)


@given(st.sampled_from(["/w/app", "C:\\Users\\me\\proj", "d:/x/y", "\\\\srv\\share\\p", "", None,
                        "/", "relative/dir", "a\\b/c"]))  # fmt: skip
def test_a_cached_project_name_is_the_computed_one(cwd):
    assert project_name(cwd) == project_name.__wrapped__(cwd)


def test_a_session_is_loaded_with_the_cycle_collector_paused(tmp_path, monkeypatch):
    """A held session is many new containers and no cycle: the collector waits until the
    session is loaded, and is left as the caller had it."""
    s = ClaudeSession("5a5a5a5a-0000-4000-8000-00000000000b", "/w/app")
    s.user("Why does it fail?")
    s.assistant("Because.")
    s.write(tmp_path / ".claude" / "projects" / "-w-app" / f"{s.session_id}.jsonl")
    seen: list[bool] = []
    real_add = TranscriptBuilder.add
    monkeypatch.setattr(
        TranscriptBuilder,
        "add",
        lambda self, rec: seen.append(gc.isenabled()) or real_add(self, rec),
    )
    assert gc.isenabled()
    sessions, _ = load_sessions(ClaudeCodeAdapter(), tmp_path)
    assert len(sessions) == 1 and seen and not any(seen) and gc.isenabled()
    gc.disable()
    try:
        load_sessions(ClaudeCodeAdapter(), tmp_path)
        assert not gc.isenabled()  # a caller that paused it keeps it paused
    finally:
        gc.enable()


def plain_roots(side: list[dict[str, Any]]) -> list[str]:
    """Each sidechain line walked up to its root, a step per ancestor (the parent a uuid
    has is its first line's: a later line reusing it does not move the chain)."""
    parent_of: dict[str, Any] = {}
    for r in side:
        parent_of.setdefault(r["uuid"], r.get("parentUuid"))
    roots = []
    for rec in side:
        root, hops = rec["uuid"], 0
        while known_uuid(parent_of.get(root), parent_of) and hops < len(side):
            root, hops = parent_of[root], hops + 1
        roots.append(root)
    return roots


side_lines = st.lists(
    st.fixed_dictionaries(
        {"uuid": st.sampled_from("abcdefgh")},
        optional={"parentUuid": st.sampled_from("abcdefghxy") | st.sampled_from([None, 5, ["a"]])},
    ),
    max_size=14,
)


@settings(max_examples=1000)
@given(side_lines)
def test_sidechain_roots_are_the_ones_walking_each_line_finds(side):
    """Chains, branches, repeated uuids, loops (a line its own parent, too), damaged parents."""
    assert sidechain_roots(side) == plain_roots(side)


def test_a_long_agent_chain_is_walked_once():
    """2,000 sidechain lines in one chain: each walked to the root, 2 million steps."""
    side = [{"uuid": f"s{i}", "parentUuid": f"s{i - 1}" if i else None} for i in range(2000)]
    calls = []
    with mock.patch.object(
        claude_subagents, "known_uuid", lambda u, k: calls.append(u) or known_uuid(u, k)
    ):
        assert sidechain_roots(side) == ["s0"] * 2000
    assert len(calls) < 3 * len(side)
