"""A time that is there but cannot be read (not ISO 8601, a number past any date, a word,
an object) is reported: one warning per file, naming it (and the line, where there is
one), saying how many and quoting the first. The message keeps everything else and has
no time, as before; no time at all (absent, empty, the 0 a JavaScript tool writes for "no
date") is no problem. One synthetic session per source, each with one unreadable time."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path

import cline_builder as cb
import opencode_builder as oc
import pytest
from claude_builder import ClaudeSession
from codex_builder import CodexRollout
from conftest import load_sessions, texts
from copilot_builder import log_lines, markdown, write
from copilot_builder import request as copilot_request
from copilot_builder import session as copilot_session
from copilot_cli_builder import CopilotCliSession
from cursor_agent_builder import AgentChat, store_db
from gemini_builder import GeminiChat, project_folder, write_prompt_log
from hypothesis import example, given
from hypothesis import strategies as st
from opencode_builder import OcSession, OpenCodeStore
from vscode_builder import make_db, workspace

from exporter.adapters._jsonl import parse_timestamp
from exporter.adapters._times import Times, no_time, shown
from exporter.adapters.antigravity import AntigravityAdapter
from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.adapters.cline import ClineAdapter
from exporter.adapters.codex import CodexAdapter
from exporter.adapters.copilot import CopilotAdapter
from exporter.adapters.copilot_cli import CopilotCliAdapter
from exporter.adapters.cursor import CursorAdapter
from exporter.adapters.gemini import GeminiAdapter
from exporter.adapters.opencode import OpenCodeAdapter
from exporter.adapters.trae import TraeAdapter
from exporter.errors import Problem

SID = "11111111-2222-4333-8444-555555555555"


def time_warnings(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if "could not be read and w" in p.message]


def one_warning(problems: list[Problem], path: Path, line: int | None, quoted: str) -> Problem:
    """The one time warning of ``problems``: for ``path`` (at ``line``), quoting ``quoted``."""
    found = time_warnings(problems)
    assert len(found) == 1, problems
    warning = found[0]
    assert (Path(warning.path), warning.line, warning.severity) == (path, line, "warning")
    assert quoted in warning.message, warning.message
    return warning


# -- the collector ---------------------------------------------------------------------------


def test_one_warning_per_file_counts_them_and_quotes_the_first():
    times, problems = Times(), []
    for line, value in enumerate(["yesterday", None, "", "  ", 0, -1, 0.0, 10**30, {"t": 1}], 1):
        assert (parse_timestamp(value) or times.unread(value, line)) is None
    times.report(problems, "s.jsonl", "codex")
    times.report(problems, "s.jsonl", "codex")  # counted once: nothing more to say
    assert [str(p) for p in problems] == [
        "s.jsonl:1: 3 timestamps could not be read and were left out (the first here: 'yesterday')"
    ]


def test_a_value_without_a_line_is_found_by_words_or_not_at_all():
    problems: list[Problem] = []
    times = Times()
    times.unread("soon", "message 'm1'")
    times.report(problems, "chat.json", "gemini")
    times.unread(["2026"])
    times.report(problems, "chat.json", "gemini")
    assert [(p.line, p.message) for p in problems] == [
        (None, "a timestamp could not be read and was left out (message 'm1': 'soon')"),
        (None, "a timestamp could not be read and was left out (['2026'])"),
    ]


def test_the_same_value_of_a_line_asked_about_twice_is_counted_once():
    times, value, problems = Times(lambda: 7), 10**30, []
    times.unread(value)
    times.unread(value)
    times.report(problems, "s.jsonl", "claude-code")
    assert [(p.line, p.message) for p in problems] == [
        (7, "a timestamp could not be read and was left out (1000000000000000000000000000000)")
    ]


def test_a_long_value_is_quoted_short_and_never_in_part():
    times, problems = Times(), []
    times.unread("sk-" + "a" * 5000, 3)
    times.report(problems, "s.jsonl", "codex")
    assert problems[0].message == (
        "a timestamp could not be read and was left out (a text of 5,003 characters)"
    )


numbers = st.one_of(st.integers(), st.floats(), st.integers(-(2**80), 2**80))
values = st.one_of(st.none(), st.text(), st.booleans(), numbers, st.lists(st.integers()))


@given(values)
@example("2026-01-02T03:04:05Z")
@example("  ")
@example(float("nan"))
@example(-(10**30))
@example(1e400)
def test_a_value_is_a_time_or_reported_once_or_no_time(value):
    times, problems = Times(), []
    when = parse_timestamp(value) or times.unread(value, 1)
    times.report(problems, "s.jsonl", "codex")
    if isinstance(when, datetime):
        assert not problems and not no_time(value)
    elif no_time(value):
        assert when is None and not problems
    else:
        assert when is None and len(problems) == 1
        assert problems[0].line == 1 and len(problems[0].message) < 120
    if isinstance(value, float) and math.isnan(value):
        assert problems  # a number that is no number: reported, not taken for "no date"


# -- Claude Code -----------------------------------------------------------------------------


def claude_projects(home: Path) -> Path:
    return home / ".claude" / "projects" / "-w-proj"


def test_claude_code_reports_an_unreadable_time_with_its_line(tmp_path):
    s = ClaudeSession(SID)
    s.user("first question")
    s.assistant("first answer")
    s.user("second question", timestamp="yesterday")
    s.assistant("second answer")
    path = s.write(claude_projects(tmp_path) / f"{SID}.jsonl")
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    one_warning(problems, path, 3, "'yesterday'")
    (session,) = sessions
    assert texts(session) == ["first question", "first answer", "second question", "second answer"]
    assert [m.timestamp is None for m in session.messages] == [False, False, True, False]


def test_claude_code_reports_a_subagent_file_on_its_own(tmp_path):
    s = ClaudeSession(SID)
    s.user("question")
    s.assistant("answer")
    s.write(claude_projects(tmp_path) / f"{SID}.jsonl")
    agent = ClaudeSession(SID, sidechain=True, agent_id="abc")
    agent.user("look into it")
    agent.assistant("looked", timestamp=1e300)
    agent_path = agent.write(claude_projects(tmp_path) / SID / "subagents" / "agent-abc.jsonl")
    sessions, problems = load_sessions(ClaudeCodeAdapter(), tmp_path)
    one_warning(problems, agent_path, 2, "1e+300")
    child = next(s for s in sessions if s.parent_id)
    assert texts(child) == ["look into it", "looked"]


# -- Codex -----------------------------------------------------------------------------------

THREAD = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"


def test_codex_reports_an_unreadable_time_with_its_line(tmp_path):
    r = CodexRollout(THREAD)
    r.user("first question").assistant("first answer")
    r.user("second question").assistant("second answer", events=False)
    r.lines[-1]["timestamp"] = "10/03/2026 08:00"  # the reply's line
    path = r.write(tmp_path / ".codex")
    sessions, problems = load_sessions(CodexAdapter(), tmp_path)
    one_warning(problems, path, len(r.lines), "'10/03/2026 08:00'")
    (session,) = sessions
    assert texts(session) == ["first question", "first answer", "second question", "second answer"]
    assert session.messages[-1].timestamp is None and session.messages[-2].timestamp


def test_codex_reports_an_unreadable_session_start(tmp_path):
    r = CodexRollout(THREAD)
    r.lines[0]["payload"]["timestamp"] = {"seconds": 1773129600}
    r.user("question").assistant("answer")
    path = r.write(tmp_path / ".codex")
    sessions, problems = load_sessions(CodexAdapter(), tmp_path)
    one_warning(problems, path, 1, "{'seconds': 1773129600}")
    (session,) = sessions
    assert texts(session) == ["question", "answer"] and session.started_at is not None


# -- Gemini CLI ------------------------------------------------------------------------------

GEMINI_SID = "3f2a9c1e-5b7d-4e2f-8a1c-0d9e8f7a6b5c"


def gemini_chat() -> GeminiChat:
    chat = GeminiChat(GEMINI_SID)
    chat.user("first question")
    chat.gemini("first answer")
    chat.user("second question", timestamp="2026-05-01 at ten")
    chat.gemini("second answer")
    return chat


def test_gemini_reports_an_unreadable_time_by_its_message(tmp_path):
    folder = project_folder(tmp_path, "/home/dev/work/api", "api")
    path = gemini_chat().write_json(folder / "chats")
    sessions, problems = load_sessions(GeminiAdapter(), tmp_path)
    warning = one_warning(problems, path, None, "'2026-05-01 at ten'")
    assert 'message "3f2a9c1e-m3"' in warning.message
    (session,) = sessions
    assert texts(session) == ["first question", "first answer", "second question", "second answer"]
    assert [m.timestamp is None for m in session.messages] == [False, False, True, False]


def test_gemini_reports_an_unreadable_session_start(tmp_path):
    folder = project_folder(tmp_path, "/home/dev/work/api", "api")
    chat = gemini_chat()
    chat.messages[2]["timestamp"] = chat.stamp()
    chat.start = "Fri May 1 10:00:00 2026"
    path = chat.write_jsonl(folder / "chats")
    sessions, problems = load_sessions(GeminiAdapter(), tmp_path)
    one_warning(problems, path, None, "(startTime: 'Fri May 1 10:00:00 2026')")
    (session,) = sessions
    assert len(texts(session)) == 4 and session.started_at == session.messages[0].timestamp


def test_gemini_prompt_log_reports_an_unreadable_time(tmp_path):
    folder = project_folder(tmp_path, "/home/dev/work/api", "api")
    gone = "dddddddd-0000-4000-8000-000000000004"
    path = write_prompt_log(
        folder,
        [(gone, "2026-04-01T09:00:00Z", "Why does the build fail?"), (gone, "later", "And now?")],
    )
    sessions, problems = load_sessions(GeminiAdapter(), tmp_path)
    warning = one_warning(problems, path, None, "'later'")
    assert f'session "{gone}", message 1' in warning.message
    (session,) = sessions
    assert texts(session, "user") == ["Why does the build fail?", "And now?"]


# -- Copilot CLI -----------------------------------------------------------------------------


def test_copilot_cli_reports_an_unreadable_time_with_its_line(tmp_path):
    s = CopilotCliSession("a1b2c3d4-0000-4000-8000-000000000001")
    s.events[0]["data"]["startTime"] = True  # (line 1)
    s.user("first question")
    s.assistant("first answer")
    s.user("second question")["timestamp"] = "noon"  # line 4
    s.assistant("second answer")
    path = s.write(tmp_path / ".copilot")
    sessions, problems = load_sessions(CopilotCliAdapter(), tmp_path)
    warning = one_warning(problems, path, 1, "(the first here: True)")
    assert warning.message.startswith("2 timestamps could not be read")
    (session,) = sessions
    assert texts(session) == ["first question", "first answer", "second question", "second answer"]
    assert [m.timestamp is None for m in session.messages] == [False, False, True, False]


# -- Antigravity -----------------------------------------------------------------------------


def test_antigravity_reports_an_unreadable_time_with_its_line(tmp_path):
    def step(index: int, kind: str, content: str, when: object) -> str:
        source = "USER_EXPLICIT" if kind == "USER_INPUT" else "MODEL"
        return json.dumps({"step_index": index, "source": source, "type": kind,
                           "status": "DONE", "created_at": when, "content": content})  # fmt: skip

    path = tmp_path / ".gemini/antigravity-cli/brain/c1/.system_generated/logs/transcript.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(
        step(0, "USER_INPUT", "<USER_REQUEST>\nfirst question\n</USER_REQUEST>", "2026-07-01T10:00:00Z")
        + "\n" + step(1, "PLANNER_RESPONSE", "first answer", "2026-07-01T10:00:01Z")
        + "\n" + step(2, "USER_INPUT", "<USER_REQUEST>\nsecond question\n</USER_REQUEST>", [2026])
        + "\n" + step(3, "PLANNER_RESPONSE", "second answer", "2026-07-01T10:00:03Z") + "\n"
    )  # fmt: skip
    sessions, problems = load_sessions(AntigravityAdapter(), tmp_path)
    one_warning(problems, path, 3, "([2026])")
    (session,) = sessions
    assert texts(session) == ["first question", "first answer", "second question", "second answer"]
    assert [m.timestamp is None for m in session.messages] == [False, False, True, False]


# -- Copilot Chat (VS Code) ------------------------------------------------------------------

VSCODE_USER = Path(".config") / "Code" / "User"


def copilot_chat(bad: bool = True, **extra) -> dict:
    requests = [
        copilot_request(0, "first question", [markdown("first answer")]),
        copilot_request(1, "second question", [markdown("second answer")]),
    ]
    if bad:
        requests[1]["timestamp"] = 8.64e15 * 1000  # past the last date Python knows
    return copilot_session("0a1b2c3d-0000-4000-8000-000000000001", requests, **extra)


def test_copilot_chat_reports_an_unreadable_time_by_its_request(tmp_path):
    chats = tmp_path / VSCODE_USER / "workspaceStorage" / "ws" / "chatSessions"
    path = write(chats / "0a1b2c3d-0000-4000-8000-000000000001.json", copilot_chat())
    sessions, problems = load_sessions(CopilotAdapter(), tmp_path)
    one_warning(problems, path, None, "(request 2: 8.64e+18)")
    (session,) = sessions
    assert texts(session) == ["first question", "first answer", "second question", "second answer"]
    assert [m.timestamp is None for m in session.messages] == [False, False, True, False]


def test_copilot_chat_log_reports_an_unreadable_creation_date(tmp_path):
    chats = tmp_path / VSCODE_USER / "workspaceStorage" / "ws" / "chatSessions"
    data = copilot_chat(False, creationDate="7 Nov 2025")
    path = write(
        chats / "0a1b2c3d-0000-4000-8000-000000000001.jsonl", log_lines([{"kind": 0, "v": data}])
    )
    sessions, problems = load_sessions(CopilotAdapter(), tmp_path)
    one_warning(problems, path, None, "(creationDate: '7 Nov 2025')")
    (session,) = sessions
    assert len(texts(session)) == 4 and session.started_at == session.messages[0].timestamp


# -- Cline family ----------------------------------------------------------------------------


def test_cline_task_reports_an_unreadable_time_by_its_message(tmp_path):
    root = cb.storage(tmp_path, cb.CLINE)
    ui = [cb.say(0, "task", "first question"), cb.say(1, "text", "first answer"),
          cb.say(2, "user_feedback", "second question"), cb.say(3, "text", "second answer")]  # fmt: skip
    ui[2]["ts"] = {"ms": 1762500002000}
    folder = cb.task(root, "1762500000000", ui=ui)
    sessions, problems = load_sessions(ClineAdapter(), tmp_path)
    one_warning(problems, folder / "ui_messages.json", None, "(message 3: {'ms': 1762500002000})")
    (session,) = sessions
    assert texts(session) == ["first question", "first answer", "second question", "second answer"]
    assert [m.timestamp is None for m in session.messages] == [False, False, True, False]


def test_cline_sdk_session_reports_an_unreadable_time(tmp_path):
    data = tmp_path / ".cline" / "data"
    messages = [cb.message("user", "first question", n=0),
                cb.message("assistant", cb.text("first answer"), n=1),
                cb.message("user", "second question", n=2),
                cb.message("assistant", cb.text("second answer"), n=3)]  # fmt: skip
    messages[3]["ts"] = -1.5  # no time: not reported
    folder = cb.sdk_session(data, "s2", messages, manifest={"started_at": "Nov 7"})
    sessions, problems = load_sessions(ClineAdapter(), tmp_path)
    one_warning(problems, folder / "s2.messages.json", None, "(started_at: 'Nov 7')")
    (session,) = sessions
    assert texts(session) == ["first question", "first answer", "second question", "second answer"]
    assert session.ended_at == session.messages[2].timestamp  # (the last is no time)


# -- Cursor ----------------------------------------------------------------------------------

CURSOR_USER = Path(".config") / "Cursor" / "User"
COMPOSER = "c0c0c0c0-1111-4222-8333-444444444444"


def test_cursor_composer_reports_an_unreadable_time_by_its_bubble(tmp_path):
    texts_ = ["first question", "first answer", "second question", "second answer"]
    headers = [{"bubbleId": f"b{n}", "type": 1 + n % 2} for n in range(4)]
    disk = {
        f"bubbleId:{COMPOSER}:b{n}": {"_v": 3, "type": 1 + n % 2, "bubbleId": f"b{n}",
                                      "text": text, "createdAt": f"2025-10-07T18:28:5{n}.000Z"}
        for n, text in enumerate(texts_)
    }  # fmt: skip
    disk[f"bubbleId:{COMPOSER}:b2"]["createdAt"] = "Tuesday"
    disk[f"composerData:{COMPOSER}"] = {"_v": 10, "composerId": COMPOSER, "name": "Retry",
                                        "createdAt": 1759861723898, "lastUpdatedAt": 1759863763312,
                                        "fullConversationHeadersOnly": headers}  # fmt: skip
    path = make_db(tmp_path / CURSOR_USER / "globalStorage" / "state.vscdb", {}, disk)
    sessions, problems = load_sessions(CursorAdapter(), tmp_path)
    one_warning(problems, path, None, f"(composer {COMPOSER}, bubble b2: 'Tuesday')")
    (session,) = sessions
    assert texts(session) == texts_
    assert [m.timestamp is None for m in session.messages] == [False, False, True, False]


def test_cursor_agent_transcript_reports_an_unreadable_timestamp_tag(tmp_path):
    chat = AgentChat(tmp_path, "/home/dev/work/api", "a0a0a0a0-1111-4222-8333-444444444444")
    chat.user("first question", datetime(2026, 4, 28, 7, 15, tzinfo=UTC)).reply("first answer")
    chat.user("second question").reply("second answer")
    chat.lines[2] = chat.lines[2].replace('"text": "', '"text": "<timestamp>someday</timestamp>\\n')
    path = chat.write()
    sessions, problems = load_sessions(CursorAdapter(), tmp_path)
    one_warning(problems, path, 3, "('someday')")
    (session,) = sessions
    assert texts(session) == ["first question", "first answer", "second question", "second answer"]


def test_cursor_agent_store_reports_an_unreadable_creation_time(tmp_path):
    chat = AgentChat(tmp_path, "/home/dev/work/api", "a0a0a0a0-1111-4222-8333-444444444444")
    chat.user("question", datetime(2026, 4, 28, 7, 15, tzinfo=UTC)).reply("answer").write()
    store = store_db(chat.chat_folder(), {"agentId": chat.id, "createdAt": "2026-13-45"})
    sessions, problems = load_sessions(CursorAdapter(), tmp_path)
    one_warning(problems, store, None, "(createdAt: '2026-13-45')")
    (session,) = sessions
    assert texts(session) == ["question", "answer"] and session.started_at is not None


# -- Trae ------------------------------------------------------------------------------------


def test_trae_reports_an_unreadable_time_by_its_session_and_message(tmp_path):
    chat = {"sessionId": "s-1", "createdAt": 1730000000000, "updatedAt": 1730000500000,
            "messages": [
                {"role": "user", "content": "first question", "turnIndex": 0, "timestamp": 1730000000100},
                {"role": "assistant", "content": "first answer", "turnIndex": 0, "timestamp": 1730000000200},
                {"role": "user", "content": "second question", "turnIndex": 1, "timestamp": "1730000000300ms"},
                {"role": "assistant", "content": "second answer", "turnIndex": 1, "timestamp": 1730000000400},
            ]}  # fmt: skip
    store = {"list": [chat], "currentSessionId": "s-1"}
    user = tmp_path / ".config" / "Trae" / "User"
    path = workspace(user, "ws", "file:///w/shop", {"memento/icube-ai-agent-storage": store})
    sessions, problems = load_sessions(TraeAdapter(), tmp_path)
    one_warning(problems, path, None, "(session s-1, message 3: '1730000000300ms')")
    (session,) = sessions
    assert texts(session) == ["first question", "first answer", "second question", "second answer"]
    assert [m.timestamp is None for m in session.messages] == [False, False, True, False]


# -- OpenCode, Kilo --------------------------------------------------------------------------

OPENCODE_DATA = Path(".local") / "share" / "opencode"


def opencode_store() -> tuple[OpenCodeStore, OcSession]:
    store = OpenCodeStore()
    s = store.session("Fix the cart", "/home/me/src/shop")
    store.user(s, oc.text("first question"))
    store.assistant(s, oc.text("first answer"))
    store.user(s, oc.text("second question"))
    store.assistant(s, oc.text("second answer")).data["time"]["created"] = "last week"
    return store, s  # (the last: a database orders messages by their time)


def test_opencode_database_reports_an_unreadable_time_once_for_the_database(tmp_path):
    store, s = opencode_store()
    other = store.session("Another", "/home/me/src/shop")
    store.user(other, oc.text("a question")).data["time"]["created"] = True
    store.assistant(other, oc.text("an answer"))
    path = store.write_db(tmp_path / OPENCODE_DATA / "opencode.db")
    sessions, problems = load_sessions(OpenCodeAdapter(), tmp_path)
    message = s.messages[3].id
    warning = one_warning(problems, path, None, f"(the first in session {s.id}, message {message}")
    assert warning.message.startswith("2 timestamps could not be read")
    session = next(x for x in sessions if x.session_id == s.id)
    assert texts(session) == ["first question", "first answer", "second question", "second answer"]
    assert [m.timestamp is None for m in session.messages] == [False, False, False, True]


def test_opencode_tree_reports_an_unreadable_time_with_its_session_file(tmp_path):
    store, s = opencode_store()
    s.updated = [1780000000000]  # type: ignore[assignment]
    store.write_tree(tmp_path / OPENCODE_DATA / "storage")
    sessions, problems = load_sessions(OpenCodeAdapter(), tmp_path)
    (warning,) = time_warnings(problems)
    assert Path(warning.path).name == f"{s.id}.json"
    assert warning.message.startswith("2 times") and "'last week'" in warning.message
    (session,) = sessions
    assert sorted(texts(session)) == sorted(
        ["first question", "first answer", "second question", "second answer"]
    )  # (the tree orders a message without a time first)
    assert session.ended_at == max(m.timestamp for m in session.messages if m.timestamp)


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("x", "'x'"),
        ("ab", "'ab'"),
        ([1], "[1]"),
        ({}, "{}"),
        (1.5, "1.5"),
        ("a" * 200, "a text of 200 characters"),
    ],
)
def test_a_short_value_is_quoted_whole_and_only_a_long_word_is_not(value, quoted):
    """A one-character time was reported as "a text of 1 characters": only a value cut
    inside its one long word is left unquoted (a token cut short could leak in part)."""
    assert shown(value) == quoted
