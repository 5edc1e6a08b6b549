"""Damaged Trae databases (found by a seeded mutation run over synthetic workspaces: the
corpus holds no Trae data). Whatever is damaged costs only itself and is said, with the
database and the session and message it is in; the other sessions are exported whole, and
no note holds a Python repr, a control character or frontmatter that does not parse."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import load_sessions, texts
from fuzz_lines import MARKER, places, put
from fuzz_oracle import checked_export
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from vscode_builder import workspace

from exporter.adapters.trae import TraeAdapter

KEY = "memento/icube-ai-agent-storage"


def rich_session() -> dict[str, Any]:
    """A session with every field the reader looks at, each text with its marker."""
    plan = [
        {"thought": "mk4x I will write it", "toolName": "write_to_file", "reasoningContent": "mk5x why",
         "params": {"file_path": "/p/login.tsx", "content": "mk6x code"}, "result": "mk7x written"},
        {"toolName": "finish", "thought": "mk8x done", "params": {"summary": "s"}},
    ]  # fmt: skip
    agent = {"proposal": "mk2x proposal", "proposalReasoningContent": "mk3x reasoning",
             "guideline": {"planItems": plan}}  # fmt: skip
    return {"sessionId": "s-rich", "title": "mk0x title", "createdAt": 1730000000000,
            "updatedAt": 1730000500000, "messages": [
        {"role": "user", "content": "mk1x first prompt", "turnId": "t1", "turnIndex": 0,
         "timestamp": 1730000000100, "parsedQuery": ["mk1x first prompt"]},
        {"role": "assistant", "content": "", "turnId": "t1", "turnIndex": 0, "agentMessageId": "m1",
         "status": "success", "modelInfo": {"display_model_name": "Model-A"}, "agentTaskContent": agent},
        {"role": "user", "content": "mk9x second prompt", "turnIndex": 1, "timestamp": 1730000300000},
        {"role": "assistant", "content": "mk10x second answer", "turnIndex": 1, "agentMessageId": "m2"},
    ]}  # fmt: skip


def plain_session(sid: str, marker: int) -> dict[str, Any]:
    return {"sessionId": sid, "createdAt": 1731000000000, "messages": [
        {"role": "user", "content": f"mk{marker}x question", "turnIndex": 0},
        {"role": "assistant", "content": f"mk{marker + 1}x answer", "turnIndex": 0}]}  # fmt: skip


def trae_home(home: Path, damaged: dict[str, Any] | None = None, raw: Any = None) -> Path:
    """Workspace ``ws-a`` holds the rich session (``damaged`` in its place when given) and a
    plain one; ``ws-b`` another plain one. ``raw`` replaces the whole stored value of
    ``ws-a``'s agent store (bytes stored as TEXT, or any SQL value). Returns ws-a's db."""
    user = home / ".config" / "Trae" / "User"
    store = {"list": [damaged or rich_session(), plain_session("s-two", 20)]}
    db = workspace(user, "ws-a", "file:///home/dev/a", {KEY: json.dumps(store)})
    workspace(user, "ws-b", "file:///home/dev/b", {KEY: {"list": [plain_session("s-four", 40)]}})
    if raw is not None:
        with closing(sqlite3.connect(db)) as conn:
            value = ("CAST(? AS TEXT)", raw) if isinstance(raw, bytes) else ("?", raw)
            conn.execute(f"UPDATE ItemTable SET value = {value[0]} WHERE key = ?", (value[1], KEY))
            conn.commit()
    return db


def with_message(index: int, **changes: Any) -> dict[str, Any]:
    session = rich_session()
    message = session["messages"][index]
    for key, value in changes.items():
        if value is _DROP:
            message.pop(key, None)
        else:
            message[key] = value
    return session


_DROP = object()


def loaded(home: Path) -> tuple[dict[str, Any], list[str]]:
    sessions, problems = load_sessions(TraeAdapter(), home)
    return {s.session_id: s for s in sessions}, [p.message for p in problems]


def export(home: Path, vault: Path) -> tuple[str, list[str]]:
    """Every Trae note's text, checked (``fuzz_oracle``), and the problems as printed."""
    return checked_export(home, vault, "trae")


# -- found by the mutation run, each failing before ---------------------------------------


def test_a_plan_that_is_not_a_list_costs_only_its_message(tmp_path):
    """planItems as a number raised ('float' object is not iterable): every session of the
    workspace was lost, reported only as "could not be read"."""
    session = rich_session()
    session["messages"][1]["agentTaskContent"]["guideline"]["planItems"] = 1e30
    db = trae_home(tmp_path / "home", session)
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {f"mk{i}x" for i in (0, 1, 2, 3, 9, 10, 20, 21, 40, 41)} <= set(MARKER.findall(text))
    assert problems == [
        f"{db}: session s-rich, message 2: its plan (planItems) is a number, not a list: left out"
    ]


@pytest.mark.parametrize(
    "raw",
    [b'{"list": [{"sessionId": "s-rich", "mess', b'{"list": [\xff\xfe{', 12345, None],
    ids=["cut short", "garbled bytes", "a number", "NULL"],
)
def test_an_agent_store_that_is_not_json_is_said(tmp_path, raw):
    """The older chat stores said so; the agent store, where most chats are, went silent:
    its workspace looked empty."""
    db = trae_home(tmp_path / "home", raw=raw if raw is not None else "")
    if raw is None:
        with closing(sqlite3.connect(db)) as conn:
            conn.execute("UPDATE ItemTable SET value = NULL WHERE key = ?", (KEY,))
            conn.commit()
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert set(MARKER.findall(text)) == {"mk40x", "mk41x"}
    assert problems == [
        f"{db}: {KEY}: a chat store that is not JSON (damaged or cut short); not exported"
    ]


def test_an_agent_store_holding_json_null_or_nothing_is_no_damage(tmp_path):
    home = tmp_path / "home"
    db = trae_home(home, raw="null")
    sessions, problems = loaded(home)
    assert (sorted(sessions), problems) == (["s-four"], [])
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("DELETE FROM ItemTable WHERE key = ?", (KEY,))
        conn.commit()
    sessions, problems = loaded(home)
    assert (sorted(sessions), problems) == (["s-four"], [])


def test_a_store_with_a_control_character_left_raw_is_read_and_said(tmp_path):
    store = json.dumps({"list": [plain_session("s-two", 20)]}).replace("question", "que\x01stion")
    home = tmp_path / "home"
    trae_home(home, raw=store.encode())
    sessions, problems = loaded(home)
    assert texts(sessions["s-two"], "user") == ["mk20x que\x01stion"]
    assert problems == [
        f"{KEY}: holds a control character (such as NUL) that JSON allows only escaped: "
        "damaged, read all the same"
    ]


@pytest.mark.parametrize(
    ("role", "shown"),
    [(7, "a number"), (None, "no role"), ("tool", '"tool"'), ("?", '"?"'), (["user"], "a list")],
)
def test_a_message_of_no_known_role_is_said(tmp_path, role, shown):
    """It was dropped in silence (a lone surrogate in "assistant" read as "?" lost a whole
    reply). Counted per database like an unknown status; a system message stays noise."""
    session = with_message(3, role=_DROP if role is None else role)
    session["messages"].append({"role": "system", "content": "system prompt", "turnIndex": 2})
    trae_home(tmp_path / "home", session)
    sessions, problems = loaded(tmp_path / "home")
    assert "mk10x second answer" not in texts(sessions["s-rich"])
    assert problems == [
        f"messages of a role not known here, left out: {shown} ×1 (session s-rich, message 4)"
    ]


def test_a_message_that_is_not_an_object_is_said(tmp_path):
    session = rich_session()
    session["messages"][2] = ["mk9x second prompt"]
    trae_home(tmp_path / "home", session)
    sessions, problems = loaded(tmp_path / "home")
    assert texts(sessions["s-rich"], "assistant")[-1] == "mk10x second answer"
    assert problems == ["session s-rich, message 3: the message is a list, not an object: left out"]


def test_a_content_of_the_wrong_type_is_said_and_the_message_read_from_the_rest(tmp_path):
    """A user's content as a list was shown as JSON (its parsedQuery unread); an assistant's
    as a number was shown as "-1" in place of the reply its agentTaskContent holds."""
    session = rich_session()
    session["messages"][0]["content"] = [{"text": "x"}]
    session["messages"][1]["content"] = -1
    trae_home(tmp_path / "home", session)
    sessions, problems = loaded(tmp_path / "home")
    rich = sessions["s-rich"]
    assert texts(rich, "user")[0] == "mk1x first prompt"
    assert texts(rich, "assistant")[:3] == ["mk2x proposal", "mk4x I will write it", "mk8x done"]
    assert problems == [
        "session s-rich, message 1: its content is a list, not text: left out",
        "session s-rich, message 2: its content is a number, not text: left out",
    ]


@pytest.mark.parametrize(
    ("tool", "said"),
    [
        (7, "a tool call's name is a number, not text: shown as 'tool'"),
        (_DROP, "has a call but no tool name: shown as 'tool'"),
    ],
    ids=["a number", "missing"],
)
def test_a_plan_step_whose_tool_name_is_damaged_keeps_its_call(tmp_path, tool, said):
    """Its parameters and result were dropped in silence."""
    session = rich_session()
    step = session["messages"][1]["agentTaskContent"]["guideline"]["planItems"][0]
    if tool is _DROP:
        del step["toolName"]
    else:
        step["toolName"] = tool
    trae_home(tmp_path / "home", session)
    sessions, problems = loaded(tmp_path / "home")
    calls = [p for m in sessions["s-rich"].messages for p in m.parts if p.kind == "tool_call"]
    results = [p for m in sessions["s-rich"].messages for p in m.parts if p.kind == "tool_result"]
    assert [(c.name, c.input["content"]) for c in calls] == [("tool", "mk6x code")]
    assert [r.output for r in results] == ["mk7x written"]
    assert problems == [
        f"session s-rich, message 2: plan step 1{':' if tool is not _DROP else ''} {said}"
    ]


def test_text_of_the_wrong_type_is_left_out_and_said(tmp_path):
    """A proposal, a thought, a reasoning that is not text was shown as JSON in the reply
    (``[{"a": 1}]``), unsaid; now left out and said, as the other sources do."""
    session = rich_session()
    task = session["messages"][1]["agentTaskContent"]
    task["proposal"] = [{"a": 1}]
    task["proposalReasoningContent"] = 0
    task["guideline"]["planItems"][0]["thought"] = {"text": "x"}
    task["guideline"]["planItems"][0]["reasoningContent"] = ["y"]
    task["guideline"]["planItems"][1]["thought"] = False
    trae_home(tmp_path / "home", session)
    sessions, problems = loaded(tmp_path / "home")
    said = [p.text for m in sessions["s-rich"].messages for p in m.parts if hasattr(p, "text")]
    assert not [t for t in said if "{" in t or "[" in t or t in ("0", "false")]
    assert texts(sessions["s-rich"], "assistant")[:1] == ["s"]  # the finish step's summary
    where = "session s-rich, message 2"
    assert problems == [
        f"{where}: its proposal's reasoning is a number, not text: left out",
        f"{where}: its proposal is a list, not text: left out",
        f"{where}: plan step 1's thought is an object, not text: left out",
        f"{where}: plan step 1's reasoning is a list, not text: left out",
        f"{where}: plan step 2's thought is false, not text: left out",
    ]


def test_a_plan_step_or_guideline_that_is_no_object_is_said(tmp_path):
    session = rich_session()
    plan = session["messages"][1]["agentTaskContent"]["guideline"]["planItems"]
    plan.insert(0, "mk99x step")
    trae_home(tmp_path / "home", session)
    sessions, problems = loaded(tmp_path / "home")
    assert "mk4x I will write it" in texts(sessions["s-rich"])
    assert problems == ["session s-rich, message 2: plan step 1 is text, not an object: left out"]


def test_a_title_model_or_turn_index_of_the_wrong_type_is_said(tmp_path):
    """Each was left out in silence (a model's display name as a list also hid the
    config_name beside it)."""
    session = rich_session()
    session["title"] = ["mk0x title"]
    session["messages"][1]["modelInfo"] = {"display_model_name": 7, "config_name": "model-a"}
    session["messages"][3]["modelInfo"] = "Model-B"
    session["messages"][2]["turnIndex"] = "1"
    trae_home(tmp_path / "home", session)
    sessions, problems = loaded(tmp_path / "home")
    rich = sessions["s-rich"]
    assert rich.title is None and rich.models == ("model-a",)
    assert texts(rich, "user") == ["mk1x first prompt", "mk9x second prompt"]
    assert problems == [
        "session s-rich, message 3: its turnIndex is text, not a number: placed by order",
        "session s-rich, message 2: its model's display_model_name is a number, not text: left out",
        "session s-rich, message 4: its modelInfo is text, not an object: left out",
        "session s-rich: its title is a list, not text: left out",
    ]


def test_an_unknown_status_of_another_type_is_named_by_its_kind_not_a_repr(tmp_path):
    trae_home(tmp_path / "home", with_message(3, status=["done"]))
    _, problems = loaded(tmp_path / "home")
    assert problems == [
        "assistant messages with a status not known here, read as plain replies: "
        "a list ×1 (session s-rich, message 4)"
    ]


def test_messages_that_are_not_a_list_are_said(tmp_path):
    session = rich_session()
    session["messages"] = {"0": session["messages"][0]}
    trae_home(tmp_path / "home", session)
    sessions, problems = loaded(tmp_path / "home")
    assert sorted(sessions) == ["s-four", "s-two"]
    assert problems == ["session s-rich: its messages are an object, not a list: left out"]


# -- the property the mutation run checked, kept small -----------------------------------

_hostile = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.sampled_from(["", "\x00", "\ud800", "a\x01\x02\x03b", "?"]),
    st.lists(st.sampled_from([None, 1, "x", {"a": 1}]), max_size=2),
    st.dictionaries(
        st.sampled_from(["a", "text", "role"]), st.sampled_from([None, 1, "x"]), max_size=2
    ),
)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_one_damaged_value_of_a_session_costs_at_most_that_session(data):
    """Any value of the rich session replaced (or removed): the run does not fail, the
    other sessions are whole, the notes are clean, and a marker the damaged session still
    holds but its note lost is said."""
    import tempfile

    session = rich_session()
    place = data.draw(st.sampled_from(places(session)[1:]))
    new = data.draw(_hostile)
    if data.draw(st.booleans()):
        session = put(session, place, new)
    else:
        new = _DROP
        parent = session
        for key in place[:-1]:
            parent = parent[key]
        parent.pop(place[-1])
    with tempfile.TemporaryDirectory() as tmp:
        db = trae_home(Path(tmp) / "home", session)
        text, problems = export(Path(tmp) / "home", Path(tmp) / "v")
    found = set(MARKER.findall(text))
    assert {"mk20x", "mk21x", "mk40x", "mk41x"} <= found
    lost = set(MARKER.findall(json.dumps(session))) - found
    if place == ("messages",) or (
        place[0] == "messages" and place[-1] == "content" and new and isinstance(new, str)
    ):
        # No messages: an empty session. A reply's text stands for its plan (as ever), and a
        # prompt's for its parsedQuery (only a fallback), even when it is damage: a lone
        # surrogate, say (found by this property in a later run).
        return
    assert not lost or [p for p in problems if p.startswith(str(db))], (place, lost)


def test_a_long_role_is_quoted_short(tmp_path):
    """A damaged value is named in a warning by at most about 40 of its characters (a
    3,000-character value made a warning line of 3 KB; the same in OpenCode and Cursor)."""
    session = with_message(3, role="tool " + "x" * 3000)
    trae_home(tmp_path / "home", session)
    _sessions, problems = loaded(tmp_path / "home")
    (problem,) = problems
    assert len(problem) < 200
    assert problem.startswith('messages of a role not known here, left out: "tool …" ×1')
