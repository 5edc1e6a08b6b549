"""Cursor generation 4: Agent transcripts under ~/.cursor, built here by cursor_agent_builder."""

from __future__ import annotations

import builtins
import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import load_sessions, note_files, texts
from cursor_agent_builder import (
    AgentChat,
    meta_json,
    slug,
    store_db,
    summaries_db,
    thinking,
    tool,
)
from test_cursor_adapter import CURSOR, global_composer
from vscode_builder import make_db

from exporter.adapters._jsonl import UNFINISHED_LAST_LINE
from exporter.adapters.cursor import CursorAdapter
from exporter.adapters.cursor.wrappers import parse_cursor_time
from exporter.export import ExportOptions, run_export

CHAT = "3f2a9c1e-7b4d-4e8f-9a6b-0c1d2e3f4a5b"
CHILD = "a1b2c3d4-0000-4111-8222-933344445555"
OTHER_CHILD = "b2c3d4e5-0000-4111-8222-933344445555"
T0 = datetime(2026, 4, 28, 7, 15, tzinfo=UTC)


def load(home):
    return load_sessions(CursorAdapter(), home)


def export(home, vault, **kw):
    return run_export(ExportOptions(vault=vault, home=home, sources=["cursor"], timezone=UTC, **kw))


def conversation(session):
    """The messages but the notice said once before them (what the transcript keeps not)."""
    return [m for m in session.messages if m.role != "system"]


def shape(session):
    return [(m.role, [p.kind for p in m.parts]) for m in conversation(session)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tuesday, Apr 28, 2026, 10:15 AM (UTC+3)", "2026-04-28T07:15:00+00:00"),
        ("Tuesday, Jul 21, 2026, 1:11 PM (UTC+3)", "2026-07-21T10:11:00+00:00"),
        ("Monday, September 7, 2026, 12:05 AM (UTC-5:30)", "2026-09-07T05:35:00+00:00"),
        ("Friday, Jan 2, 2026, 12:30 PM (UTC)", "2026-01-02T12:30:00+00:00"),
        ("2026-04-28T10:15:00Z", "2026-04-28T10:15:00+00:00"),
    ],
)
def test_timestamp_tags_are_read_with_their_offset(text, expected):
    assert parse_cursor_time(text).isoformat() == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "yesterday",
        "Smarch 3, 2026, 1:00 PM (UTC)",
        "Monday, Jan 1, 1, 12:05 AM (UTC+3)",  # no UTC time: it raised OverflowError
        "Friday, Dec 31, 9999, 11:59 PM (UTC-5)",
    ],
)
def test_unreadable_timestamp_tags_give_no_time(text):
    assert parse_cursor_time(text) is None


def test_a_transcript_becomes_prompts_replies_tool_calls_and_times(tmp_path):
    chat = AgentChat(tmp_path, "/home/dev/work/api", CHAT)
    chat.user("run the tests", T0, 3, info=True, attached="src/app.py")
    chat.reply("Running them.", tool("Shell", command="pytest -q", description="Run tests"))
    chat.reply("[REDACTED]")  # a thinking-only step: nothing kept
    chat.results("3 passed")
    chat.reply(thinking("[REDACTED]"), "All 3 tests pass.\n\n[REDACTED]")
    chat.turn_ended()
    chat.user("and the linter?", datetime(2026, 4, 28, 7, 20, tzinfo=UTC), 3)
    chat.reply(tool("Shell", command="ruff check .", description="Lint"))  # no result kept
    chat.write()
    (session,), problems = load(tmp_path)
    assert problems == []
    assert session.session_id == CHAT and session.source == "cursor"
    assert texts(session, "user") == ["run the tests", "and the linter?"]
    assert texts(session, "assistant") == ["Running them.", "All 3 tests pass."]
    assert shape(session) == [
        ("user", ["text", "attachment"]), ("assistant", ["text", "tool_call"]),
        ("tool", ["tool_result"]), ("assistant", ["text"]), ("user", ["text"]),
        ("assistant", ["tool_call"]),
    ]  # fmt: skip
    said = conversation(session)
    assert session.messages[0].parts[0].text == (  # (said once, before the conversation)
        "Cursor keeps no thinking: its redaction mark stands in its place 3 times."
    )
    assert said[0].parts[1].name == "src/app.py"
    first_call = said[1].parts[1]
    result = said[2].parts[0]
    assert (first_call.name, first_call.input["command"], first_call.description) == (
        "Shell",
        "pytest -q",
        "Run tests",
    )
    assert result.call_id == first_call.call_id and result.output == "3 passed"
    assert said[0].timestamp == T0  # 10:15 at UTC+3
    assert (session.started_at, session.ended_at) == (T0, datetime(2026, 4, 28, 7, 20, tzinfo=UTC))
    assert session.models == () and session.usage.input_tokens == 0


def test_wrappers_are_dropped_and_other_tags_kept(tmp_path):
    chat = AgentChat(tmp_path, "/w/site", CHAT)
    wrapped = "<user_info>\nOS: linux\n</user_info>\n<manually_attached_skills>x</manually_attached_skills>"
    chat.user(wrapped + "\nWhy does <div> not center? a < b", query=False)
    chat.user(
        "<timestamp>Tuesday, Apr 28, 2026, 10:15 AM (UTC+3)</timestamp>\n<user_info>x</user_info>",
        query=False,
    )
    chat.user("first part", T0)
    chat.reply("Use flexbox.")
    chat.write()
    (session,), _ = load(tmp_path)
    # no <user_query>: the known wrappers go, the person's own tags stay; a wrappers-only
    # line is no prompt, but its time counts
    assert texts(session, "user") == ["Why does <div> not center? a < b", "first part"]
    assert session.started_at == T0


def test_the_code_a_person_attached_is_kept_with_their_prompt(tmp_path):
    """<attached_files> is what the person attached (code selections, files): each
    <file_contents>/<code_selection> child is a text attachment named by its path and lines
    (from its attributes or its code fence's path=…, lines=… header); a bare list names
    files; the text of the prompt is only the <user_query>."""
    chat = AgentChat(tmp_path, "/w/api", CHAT)
    attached = (
        "<file_contents>\n```path=api.py, lines=1-2\nimport vllm\nmodel = vllm.LLM()\n```\n"
        '</file_contents>\n<code_selection path="/w/api/db.py" lines="7-7">\nconn.close()\n'
        "</code_selection>"
    )
    chat.user("build an api for this", attached=attached).reply("Sure.")
    chat.user("and these", attached="- uploads/schema.png\nREADME.md").reply("Looking.")
    chat.write()
    (session,), problems = load(tmp_path)
    assert problems == []
    assert texts(session, "user") == ["build an api for this", "and these"]
    got = [(p.name, p.data) for m in session.messages for p in m.parts if p.kind == "attachment"]
    assert got == [
        ("api.py:1-2", b"import vllm\nmodel = vllm.LLM()"),
        ("/w/api/db.py:7-7", b"conn.close()"),
        ("uploads/schema.png", None),
        ("README.md", None),
    ]


def test_every_user_query_of_a_line_is_kept(tmp_path):
    chat = AgentChat(tmp_path, "/w/site", CHAT)
    text = "<user_query>one</user_query>\n<attached_files>f</attached_files>\n<user_query>two</user_query>"
    chat.user(text, query=False).reply("ok").write()
    (session,), _ = load(tmp_path)
    assert texts(session, "user") == ["one\n\ntwo"]


def test_flat_and_text_layouts_and_the_jsonl_wins(tmp_path):
    AgentChat(tmp_path, "/w/a", "flat-1", layout="flat").user("flat prompt").reply(
        "flat reply"
    ).write()
    both = AgentChat(tmp_path, "/w/a", "both-1", layout="flat").user("from jsonl").reply("j")
    both.write()
    both.path.with_suffix(".txt").write_text("user:\n<user_query>from txt</user_query>\n", "utf-8")
    txt = AgentChat(tmp_path, "/w/a", "text-1", layout="txt")
    txt.path.parent.mkdir(parents=True, exist_ok=True)
    txt.path.write_text(
        "user:\n<user_query>\nlist the files\n</user_query>\n\nassistant:\n"
        "[Thinking] Look first.\n  Then answer.\nI will look.\n[Tool call] Shell\n"
        "  command=ls -la\n  description=List files\n[Tool result]\n  a.txt\n    b.txt\n"
        "Two files.\nassistant:\nhalf a line being writ",
        encoding="utf-8",
    )
    sessions, problems = load(tmp_path)
    by_id = {s.session_id: s for s in sessions}
    assert sorted(by_id) == ["both-1", "flat-1", "text-1"] and problems == []
    assert texts(by_id["both-1"], "user") == ["from jsonl"]
    text = by_id["text-1"]
    assert texts(text, "user") == ["list the files"]
    assert shape(text) == [
        ("user", ["text"]),
        ("assistant", ["thinking", "text", "tool_call", "tool_result", "text"]),
    ]
    parts = conversation(text)[1].parts
    assert parts[0].text == "Look first.\nThen answer."
    assert parts[2].input == {"command": "ls -la", "description": "List files"}
    assert (parts[3].output, parts[3].call_id) == ("a.txt\n  b.txt", parts[2].call_id)
    assert "half a line" not in str(text.messages)


def test_subagents_are_their_own_notes_linked_to_the_call_that_started_them(tmp_path):
    chat = AgentChat(tmp_path, "/home/dev/work/api", CHAT)
    chat.user("audit the repo", T0)
    chat.reply(tool("Read", path="/home/dev/work/api/README.md"))
    chat.reply(
        "Delegating.",
        tool(
            "Task", prompt="Find TODO comments", description="Scan TODOs", subagent_type="explore"
        ),
        tool("Task", prompt="List the licenses", description="Licenses"),
    )
    chat.reply("Both done.").write()
    chat.subagent(CHILD).user("Find TODO comments", query=True).reply("3 TODOs in src/").write()
    chat.subagent(OTHER_CHILD).user("List the licenses").reply("MIT only.").write()
    empty = chat.subagent("c-empty")
    empty.turn_ended().write()
    sessions, problems = load(tmp_path)
    by_id = {s.session_id: s for s in sessions}
    assert sorted(by_id) == sorted([CHAT, CHILD, OTHER_CHILD]) and problems == []
    parent = by_id[CHAT]
    assert sorted(parent.subagent_ids) == sorted([CHILD, OTHER_CHILD])
    calls = [p for p in conversation(parent)[2].parts if p.kind == "tool_call"]
    assert [c.subagent_id for c in calls] == [CHILD, OTHER_CHILD]
    child = by_id[CHILD]
    assert (child.parent_id, child.title, child.agent_label) == (CHAT, "Scan TODOs", "explore")
    assert child.project == parent.project == "api"
    report = export(tmp_path, tmp_path / "v")
    assert not report.failed
    notes = {
        path.rsplit("/", 1)[-1]: body.decode() for path, body in note_files(tmp_path / "v").items()
    }
    (parent_note,) = [n for n in notes if "· agent" not in n]
    child_notes = [n for n in notes if "· agent" in n]
    assert len(child_notes) == 2
    for name in child_notes:
        assert f"[[{parent_note[:-3]}]]" in notes[name]
        assert f"[[{name[:-3]}]]" in notes[parent_note]


def test_a_subagent_of_a_transcript_holding_no_conversation_says_why_its_parent_has_none(
    tmp_path,
):
    """The conversation's own transcript holds no message (and no database holds it): it
    has no note, and its subagent's note says why."""
    chat = AgentChat(tmp_path, "/home/dev/work/api", CHAT)
    chat.turn_ended().write()
    chat.subagent(CHILD).user("Find TODO comments").reply("3 TODOs in src/").write()
    (child,), _problems = load(tmp_path)
    assert (child.session_id, child.parent_id) == (CHILD, CHAT)
    export(tmp_path, tmp_path / "v")
    (note,) = [body.decode() for body in note_files(tmp_path / "v").values()]
    assert f"of session `{CHAT}`, which has no note: Cursor keeps no messages of it\n" in note


def test_a_subagent_composer_links_the_transcript_of_its_empty_parent_composer(tmp_path):
    """The parent composer holds no conversation in the database, its Agent transcript
    does: that is its note, which the subagent composer's note links (read after it)."""
    bubble = {"_v": 3, "type": 2, "bubbleId": "b1", "text": "SUBAGENT-ANSWER"}
    child = {"_v": 10, "composerId": CHILD, "name": "Sub", "createdAt": 1759861723898,
             "fullConversationHeadersOnly": [{"bubbleId": "b1", "type": 2}],
             "subagentInfo": {"parentComposerId": CHAT}}  # fmt: skip
    disk = {
        f"composerData:{CHAT}": {"_v": 10, "composerId": CHAT, "fullConversationHeadersOnly": []},
        f"composerData:{CHILD}": child,
        f"bubbleId:{CHILD}:b1": bubble,
    }
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    AgentChat(tmp_path, "/w/a", CHAT).user("kept from the transcript").reply("ok").write()
    report = export(tmp_path, tmp_path / "v")
    assert not report.failed
    notes = {p.rsplit("/", 1)[-1][:-3]: b.decode() for p, b in note_files(tmp_path / "v").items()}
    (parent,) = [name for name, body in notes.items() if "SUBAGENT-ANSWER" not in body]
    (child_note,) = [body for body in notes.values() if "SUBAGENT-ANSWER" in body]
    assert f"> Subagent of [[{parent}]]" in child_note and "no note" not in child_note


def test_one_delegation_and_one_child_are_linked_even_when_the_prompts_differ(tmp_path):
    chat = AgentChat(tmp_path, "/w/a", CHAT)
    chat.user("go").reply(tool("Agent", prompt="List files please")).write()
    chat.subagent(CHILD).user("List files", query=False).reply("a b").write()
    sessions, _ = load(tmp_path)
    parent = next(s for s in sessions if s.session_id == CHAT)
    assert conversation(parent)[1].parts[0].subagent_id == CHILD


def test_subagents_of_a_removed_conversation_are_still_exported(tmp_path):
    chat = AgentChat(tmp_path, "/w/a", CHAT)
    chat.subagent(CHILD).user("orphan work").reply("done").write()
    (child,), _ = load(tmp_path)
    assert (child.session_id, child.parent_id) == (CHILD, CHAT)


def test_title_model_and_times_from_the_chat_metadata(tmp_path):
    chat = AgentChat(tmp_path, "/home/dev/work/api", CHAT)
    chat.user("hi").reply("hello").write()  # no <timestamp> tags
    created = int(datetime(2026, 3, 1, 9, 0, tzinfo=UTC).timestamp() * 1000)
    store_db(chat.chat_folder(), {"agentId": CHAT, "name": "Store title", "mode": "default",
                                  "createdAt": created, "lastUsedModel": "claude-4-sonnet"})  # fmt: skip
    (session,), problems = load(tmp_path)
    assert problems == []
    assert (session.title, session.models) == ("Store title", ("claude-4-sonnet",))
    # one time known is the start; the end is not known (no span of no length)
    assert (session.started_at, session.ended_at) == (datetime(2026, 3, 1, 9, 0, tzinfo=UTC), None)
    meta_json(
        chat.chat_folder(), name="Meta title", createdAtMs=created, updatedAtMs=created + 3_600_000
    )
    summaries_db(tmp_path, [{"conversationId": CHAT, "title": "Summary title", "model": "gpt-5"}])
    (session,), _ = load(tmp_path)
    assert session.title == "Summary title"  # the summary table comes first
    assert session.models == ("claude-4-sonnet",)
    assert session.ended_at == datetime(2026, 3, 1, 10, 0, tzinfo=UTC)


def test_auto_model_is_no_model_and_the_summary_model_stands_in(tmp_path):
    chat = AgentChat(tmp_path, "/w/a", CHAT)
    chat.user("hi").reply("hello").write()
    store_db(chat.chat_folder(), {"agentId": CHAT, "lastUsedModel": "default"}, hex_encoded=False)
    summaries_db(tmp_path, [{"conversationId": CHAT, "title": None, "model": "gpt-5"}])
    (session,), _ = load(tmp_path)
    assert session.models == ("gpt-5",) and session.title is None


def test_without_any_time_the_file_time_is_used_as_the_start_alone(tmp_path):
    path = AgentChat(tmp_path, "/w/a", CHAT).user("hi").reply("hello").write()
    if hasattr(path.stat(), "st_birthtime"):
        pytest.skip("this system keeps a creation time; the next test covers it")
    (session,), _ = load(tmp_path)
    # when it was last written is all that is known: the start for its date and place, and
    # no end (a note saying '13:33 → 13:33' would claim a session of no length)
    assert session.started_at.timestamp() == pytest.approx(path.stat().st_mtime, abs=1)
    assert session.ended_at is None


class _StatWithBirth:
    def __init__(self, real, born: float):
        self._real, self.st_birthtime = real, born

    def __getattr__(self, name):
        return getattr(self._real, name)


@pytest.mark.parametrize("hours_before", [2, -1])
def test_without_any_time_the_file_creation_time_is_the_start(tmp_path, monkeypatch, hours_before):
    """Where the system keeps a file's creation time (macOS, Windows), the transcript was
    made when the conversation began; a creation time after the last write is a copy's."""
    path = AgentChat(tmp_path, "/w/a", CHAT).user("hi").reply("hello").write()
    written = path.stat().st_mtime
    born = written - hours_before * 3600
    real_stat = Path.stat

    def stat(self, *args, **kwargs):
        result = real_stat(self, *args, **kwargs)
        return _StatWithBirth(result, born) if self == path else result

    monkeypatch.setattr(Path, "stat", stat)
    (session,), _ = load(tmp_path)
    if hours_before > 0:
        assert session.started_at.timestamp() == pytest.approx(born, abs=1)
        assert session.ended_at.timestamp() == pytest.approx(written, abs=1)
    else:
        assert session.started_at.timestamp() == pytest.approx(written, abs=1)
        assert session.ended_at is None


def test_the_project_comes_from_tool_paths_even_for_windows_folders(tmp_path):
    cwd = "C:\\Users\\Łukasz\\src\\win-app"
    chat = AgentChat(tmp_path, cwd, CHAT)
    assert chat.path.parts[-4] == "c-Users-Łukasz-src-win-app"
    chat.user("fix the build 🚀").reply(tool("Read", path=cwd + "\\src\\main.rs"), "Fixed.").write()
    (session,), _ = load(tmp_path)
    assert (session.cwd, session.project) == (cwd, "win-app")


def test_the_project_comes_from_an_existing_folder_when_tools_name_none(tmp_path):
    folder = tmp_path / "work" / "my-app.v2"
    folder.mkdir(parents=True)
    (tmp_path / "work" / "my").mkdir()  # a decoy: /…/work/my exists, but has no app.v2
    AgentChat(tmp_path, str(folder), CHAT).user("hi").reply("hello").write()
    (session,), _ = load(tmp_path)
    assert (session.cwd, session.project) == (str(folder), "my-app.v2")


def test_the_project_comes_from_the_chat_folder_hash(tmp_path):
    cwd = "/home/nobody-here/side-project"  # not on this machine
    chat = AgentChat(tmp_path, cwd, CHAT)
    chat.user("hi").reply("hello").write()
    store_db(chat.chat_folder(), {"agentId": CHAT})
    assert chat.chat_folder().parent.name == hashlib.md5(cwd.encode()).hexdigest()
    (session,), _ = load(tmp_path)
    assert (session.cwd, session.project) == (cwd, "side-project")


def test_an_unknown_folder_is_no_cwd_and_its_slug_is_the_project(tmp_path):
    AgentChat(tmp_path, "/nowhere/at-all/x", CHAT).user("hi").reply("hello").write()
    (session,), _ = load(tmp_path)
    assert (session.cwd, session.project) == (None, "nowhere-at-all-x")


def test_a_conversation_also_in_state_vscdb_is_exported_once_from_there(tmp_path):
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, global_composer(CHAT))
    AgentChat(tmp_path, "/w/a", CHAT).user("the transcript copy").reply("less rich").write()
    AgentChat(tmp_path, "/w/a", "only-here").user("transcript only").reply("ok").write()
    sessions, problems = load(tmp_path)
    by_id = {s.session_id: s for s in sessions}
    assert sorted(by_id) == sorted([CHAT, "only-here"]) and problems == []
    assert "the transcript copy" not in texts(by_id[CHAT])
    report = export(tmp_path, tmp_path / "v")
    assert not report.failed and report.problems == []
    # the transcript is a copy, not a file "without a conversation" (review20 F2)
    assert report.empty_units == []
    assert len(note_files(tmp_path / "v")) == 2
    # ccexport sources counts it once too (it said 3)
    from exporter.sources import list_sources

    rows = list_sources(tmp_path, ["cursor"])
    assert sum(r.sessions for r in rows) == report.per_source["cursor"].found == 2


def test_the_subagents_of_a_conversation_exported_from_state_vscdb_are_still_exported(tmp_path):
    """The IDE Agent keeps the conversation in both stores: the database's note stands for
    it, and the transcript's subagents are their own notes, that note their parent; one the
    database holds as a composer of its own is exported once, from there. The transcript
    skipped is no file "without a conversation" (review20 F2)."""
    held_child = global_composer(OTHER_CHILD, name="Held apart")
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {},
            {**global_composer(CHAT), **held_child})  # fmt: skip
    chat = AgentChat(tmp_path, "/w/a", CHAT).user("the transcript copy")
    chat.reply(tool("Task", description="Explore", subagent_type="explore", prompt="List them"))
    chat.reply("less rich").write()
    chat.subagent(CHILD).user("List them", query=False).reply("SUBAGENT-ANSWER a, b").write()
    chat.subagent(OTHER_CHILD).user("held too").reply("from the transcript").write()
    sessions, problems = load(tmp_path)
    assert problems == []
    assert sorted(s.session_id for s in sessions) == sorted([CHAT, CHILD, OTHER_CHILD])
    by_id = {s.session_id: s for s in sessions}
    assert "the transcript copy" not in texts(by_id[CHAT])  # the database's
    assert "from the transcript" not in texts(by_id[OTHER_CHILD])
    child = by_id[CHILD]
    assert (child.parent_id, child.agent_label, child.title) == (CHAT, "explore", "Explore")
    assert texts(child, "assistant") == ["SUBAGENT-ANSWER a, b"]
    report = export(tmp_path, tmp_path / "v")
    assert not report.failed and report.problems == [] and report.empty_units == []
    notes = {p.rsplit("/", 1)[-1][:-3]: b.decode() for p, b in note_files(tmp_path / "v").items()}
    assert len(notes) == 3
    (child_note,) = [name for name, body in notes.items() if "SUBAGENT-ANSWER" in body]
    assert child_note.startswith("2025-10-07 Retry logic 3f2a9c1e · agent")  # beside it
    (parent_note,) = [name for name in notes if name == "2025-10-07 Retry logic 3f2a9c1e"]
    assert f"[[{parent_note}]]" in notes[child_note]
    assert f"[[{child_note}]]" in notes[parent_note]
    from exporter.sources import list_sources

    rows = list_sources(tmp_path, ["cursor"])
    assert sum(r.sessions for r in rows) == report.per_source["cursor"].found == 3


def test_an_empty_composer_does_not_hide_its_transcript(tmp_path):
    empty = {
        f"composerData:{CHAT}": {"_v": 10, "composerId": CHAT, "fullConversationHeadersOnly": []}
    }
    agent_blobs = {f"agentKv:blob:{i:064x}": "\x0a\x20\x12binary" for i in range(3)}
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, {**empty, **agent_blobs})
    AgentChat(tmp_path, "/w/a", CHAT).user("kept from the transcript").reply("ok").write()
    (session,), problems = load(tmp_path)
    assert texts(session, "user") == ["kept from the transcript"] and problems == []
    from exporter.sources import list_sources

    assert sum(r.sessions for r in list_sources(tmp_path, ["cursor"])) == 1


def test_incremental_runs_and_a_line_being_written(tmp_path):
    chat = AgentChat(tmp_path, "/w/a", CHAT)
    chat.user("first question", T0).reply("first answer")
    chat.write(unterminated='{"role":"assistant","message":{"content":[{"type":"text","text":"half')
    vault = tmp_path / "v"
    first = export(tmp_path, vault)
    assert first.total("created") == 1
    assert [(p.line, p.severity, p.message) for p in first.problems] == [
        (3, "warning", UNFINISHED_LAST_LINE)
    ]
    (body,) = note_files(vault).values()
    assert b"first answer" in body and b"half" not in body
    again = export(tmp_path, vault)
    assert again.total("skipped") == 1 and again.total("written") == 0 and again.problems == []
    chat.reply("second answer").write()
    grown = export(tmp_path, vault)
    assert grown.total("updated") == 1
    (body,) = note_files(vault).values()
    assert b"second answer" in body


def test_malformed_lines_and_files_are_reported_and_the_rest_is_kept(tmp_path):
    chat = AgentChat(tmp_path, "/w/a", CHAT)
    chat.user("good prompt").raw("{not json").raw("[1, 2]").line({"type": "mystery"})
    chat.line({"role": "assistant", "message": {"content": [{"type": "hologram", "text": "seen"}]}})
    path = chat.reply("good reply").write()
    bad_meta = chat.chat_folder() / "meta.json"
    bad_meta.parent.mkdir(parents=True)
    bad_meta.write_text("{half", encoding="utf-8")
    (chat.chat_folder() / "store.db").write_bytes(b"not a database" * 100)
    (session,), problems = load(tmp_path)
    assert texts(session) == ["good prompt", "seen", "good reply"]
    found = {(p.path, p.line, p.message.split(" (")[0]) for p in problems}
    assert any(
        p.path == str(path) and p.line == 2 and "not valid JSON" in p.message for p in problems
    )
    assert (str(path), 3, "not a JSON object, line skipped") in found
    assert (str(path), 4, "unknown record type 'mystery' skipped") in found  # its line
    assert (str(path), 5, "unknown block type 'hologram'") in found  # its line (review33 9)
    assert any(p.path == str(bad_meta) for p in problems)
    assert any(
        p.path.endswith("store.db") and "not a readable SQLite" in p.message for p in problems
    )


def test_sources_and_metadata_are_never_written(tmp_path):
    chat = AgentChat(tmp_path, "/w/a", CHAT)
    chat.user("hi").reply("hello").write()
    store_db(chat.chat_folder(), {"agentId": CHAT, "name": "t"})
    summaries_db(tmp_path, [{"conversationId": CHAT, "title": "s"}])
    files = sorted(p for p in (tmp_path / ".cursor").rglob("*") if p.is_file())
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    assert not export(tmp_path, tmp_path / "v").failed
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    assert before == after
    assert sorted(p for p in (tmp_path / ".cursor").rglob("*") if p.is_file()) == files


def test_discovery_opens_no_transcript(tmp_path, monkeypatch):
    chat = AgentChat(tmp_path, "/w/a", CHAT)
    chat.user("hi").reply("hello").write()
    chat.subagent(CHILD).user("sub").reply("done").write()
    store_db(chat.chat_folder(), {"agentId": CHAT})
    real_open = builtins.open

    def guarded(file, *args, **kwargs):
        if ".cursor" in str(file):
            raise AssertionError(f"discovery opened {file}")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded)
    from exporter.adapters import SourceContext

    adapter = CursorAdapter()
    (ref,) = adapter.discover(SourceContext(tmp_path, {}, False))
    assert ref.session_id == CHAT and adapter.count_sessions(ref) == 2
    assert {f.path.name for f in ref.related} == {f"{CHILD}.jsonl", "store.db"}


def test_cursor_config_dir_is_read_on_the_real_home(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    chat = AgentChat(elsewhere, "/w/a", CHAT)
    chat.user("moved").reply("ok").write()
    moved = elsewhere / ".cursor"
    sessions, _ = load_sessions(CursorAdapter(), tmp_path, {"CURSOR_CONFIG_DIR": str(moved)}, True)
    assert [s.session_id for s in sessions] == [CHAT]
    assert load_sessions(CursorAdapter(), tmp_path, {"CURSOR_CONFIG_DIR": str(moved)})[0] == []


def test_unicode_survives_into_the_note(tmp_path):
    chat = AgentChat(tmp_path, "/home/dev/données", CHAT)
    chat.user("Привет, 世界! Ça marche? 🎉", T0).reply("Oui — ça marche 👍").write()
    report = export(tmp_path, tmp_path / "v")
    assert not report.failed
    (body,) = note_files(tmp_path / "v").values()
    text = body.decode("utf-8")
    assert "Привет, 世界! Ça marche? 🎉" in text and "Oui — ça marche 👍" in text
    assert json.loads(json.dumps(slug("/home/dev/données"))) == "home-dev-données"


def test_the_demo_history_exports_as_described(tmp_path):
    import demo_cursor_agent as demo

    demo.write(tmp_path)
    sessions, problems = load(tmp_path)
    assert problems == []
    by_id = {s.session_id: s for s in sessions}
    ide, child, cli = by_id[demo.IDE_CHAT], by_id[demo.SUBAGENT], by_id[demo.CLI_CHAT]
    assert (ide.title, ide.cwd, ide.project) == (
        "Japanische Fehlermeldungen ergänzen",
        demo.WIN_APP,
        "win-app",
    )
    assert ide.subagent_ids == (demo.SUBAGENT,) and child.parent_id == demo.IDE_CHAT
    assert (cli.title, cli.models, cli.project) == (
        "Division by zero in GET /users",
        ("gpt-5",),
        "api",
    )
    assert all(s.started_at and s.ended_at for s in (ide, cli))
    assert (child.started_at, child.ended_at) == (datetime(2026, 4, 28, 7, 16, tzinfo=UTC), None)
    # the summary's updatedAt extends the end past the last prompt
    assert (ide.ended_at - ide.started_at).total_seconds() == 600
    report = export(tmp_path, tmp_path / "v")
    assert not report.failed and report.total("created") == 3


def test_a_configured_cursor_folder_is_read_instead_of_the_usual_place(tmp_path):
    AgentChat(tmp_path, "/w/a", "usual").user("usual place").reply("ok").write()
    AgentChat(tmp_path / "backup", "/w/a", CHAT).user("configured").reply("ok").write()
    from exporter.adapters import SourceContext

    ctx = SourceContext(tmp_path, {}, False, {"cursor": (tmp_path / "backup" / ".cursor",)})
    adapter = CursorAdapter()
    assert [r.session_id for r in adapter.discover(ctx)] == [CHAT]
    assert adapter.roots(ctx)[-1] == tmp_path / "backup" / ".cursor" / "projects"


def test_a_nested_transcript_wins_over_a_flat_copy_and_flat_files_keep_their_subagents(tmp_path):
    AgentChat(tmp_path, "/w/a", CHAT).user("nested copy").reply("ok").write()
    AgentChat(tmp_path, "/w/a", CHAT, layout="flat").user("flat copy").reply("ok").write()
    flat = AgentChat(tmp_path, "/w/a", "flat-2", layout="flat")
    flat.user("flat parent").reply(tool("Task", prompt="sub work")).write()
    child = AgentChat(tmp_path, "/w/a", CHILD)
    child.path = flat.path.parent / "flat-2" / "subagents" / f"{CHILD}.jsonl"
    child.user("sub work").reply("done").write()
    sessions, problems = load(tmp_path)
    by_id = {s.session_id: s for s in sessions}
    assert sorted(by_id) == sorted([CHAT, "flat-2", CHILD]) and problems == []
    assert texts(by_id[CHAT], "user") == ["nested copy"]
    assert by_id[CHILD].parent_id == "flat-2"
    assert conversation(by_id["flat-2"])[1].parts[0].subagent_id == CHILD


def test_attached_files_are_read_in_linear_time_and_never_invented():
    """Found by review: an unclosed <file_contents> around code full of ``Vec<String>`` took
    49 s for 264 KB (a scan to the end per "<"), and with no element found every line of
    the code became a "file attached"; an <attached_files> the person typed inside their
    question was both their words and an attachment."""
    import time

    from exporter.adapters.cursor.wrappers import attached_parts

    body = "let v: Vec<String> = Vec::new();\n" * 20_000
    text = f'<user_query>look</user_query>\n<attached_files>\n<file_contents path="a.rs">\n{body}</attached_files>'  # fmt: skip
    started = time.perf_counter()
    assert attached_parts(text) == []  # an element never closed is none
    assert time.perf_counter() - started < 5  # quadratic: minutes
    typed = '<user_query>what does <attached_files><file_contents path="a.py">X</file_contents></attached_files> mean?</user_query>'  # fmt: skip
    assert attached_parts(typed) == []


def test_a_result_goes_to_a_call_of_its_own_turn_not_to_an_older_one_left_without(tmp_path):
    """Results are paired by position (FORMATS.md §3.7: most files hold none). A call
    left without one (the turn ended, the person asked again) kept waiting, and every
    later result went to it: ``git status``'s output showed under ``pytest -q``."""
    chat = AgentChat(tmp_path, "/home/dev/work/api", CHAT)
    chat.user("run the tests", T0).reply(tool("Shell", command="pytest -q")).turn_ended()
    chat.user("now show git status", T0).reply(tool("Shell", command="git status"))
    chat.results("On branch main, nothing to commit")
    chat.user("and the log", T0).reply(tool("Shell", command="git log -1"), tool("Shell", command="git log -2"))  # fmt: skip
    chat.results("commit 1", "commit 2")
    chat.reply(tool("Shell", command="make")).turn_ended()  # a turn's end, with no prompt after
    chat.reply(tool("Shell", command="make test")).results("ok")
    chat.write()
    (session,), _ = load(tmp_path)
    commands = {p.call_id: p.input["command"] for m in session.messages for p in m.parts if p.kind == "tool_call"}  # fmt: skip
    paired = [(commands[p.call_id], p.output) for m in session.messages for p in m.parts if p.kind == "tool_result"]  # fmt: skip
    assert paired == [
        ("git status", "On branch main, nothing to commit"),
        ("git log -1", "commit 1"),
        ("git log -2", "commit 2"),
        ("make test", "ok"),
    ]


def test_a_siblings_chat_folder_hash_gives_the_folder_of_all_in_its_project(tmp_path):
    """One conversation's chats/<md5> store proves the project folder of the others in the
    same projects/<slug> folder, which have none (review8 F3: one went to ``side-project``,
    its siblings to the slug ``home-nobody-here-side-project``)."""
    cwd = "/home/nobody-here/side-project"  # not on this machine
    chat = AgentChat(tmp_path, cwd, CHAT)
    chat.user("hi").reply("hello").write()
    store_db(chat.chat_folder(), {"agentId": CHAT})
    AgentChat(tmp_path, cwd, CHILD).user("and again").reply("hello again").write()
    sessions, problems = load(tmp_path)
    assert problems == []
    assert sorted((s.session_id, s.cwd, s.project) for s in sessions) == sorted(
        [(CHAT, cwd, "side-project"), (CHILD, cwd, "side-project")]
    )


def test_what_a_transcript_does_not_keep_is_said_once(tmp_path):
    """No tool result anywhere, thinking Cursor keeps not, no time of its own: said once,
    before the conversation, not under each call (review28 M1, M2). The mark is thinking's,
    not a reply's, and one at a reply's end counts too (review33 3)."""
    chat = AgentChat(tmp_path, "/w/a", CHAT)
    chat.user("read both files")
    chat.reply("[REDACTED]")
    chat.reply(tool("Read", path="/w/a/one.txt"), tool("Read", path="/w/a/two.txt"))
    chat.reply("[REDACTED]").reply("Both are empty.\n\n[REDACTED]").write()
    (session,), _ = load(tmp_path)
    told = session.messages[0]
    assert told.role == "system" and [p.kind for p in told.parts] == ["notice"]
    assert told.parts[0].text == (
        "The transcript records no times: the time shown is its file's (when it was created or "
        "last written), which a copy or a restore changes. Cursor's transcript keeps no tool "
        "output: each call is shown with its input. Cursor keeps no thinking: its redaction "
        "mark stands in its place 3 times."
    )
    export(tmp_path, tmp_path / "vault")
    (note,) = note_files(tmp_path / "vault").values()
    assert note.decode().count("keeps no tool output") == 1


def test_a_transcript_with_times_and_results_says_nothing_of_them(tmp_path):
    chat = AgentChat(tmp_path, "/w/a", CHAT)
    chat.user("read it", T0).reply(tool("Read", path="/w/a/one.txt")).results("hello").write()
    (session,), _ = load(tmp_path)
    assert [m.role for m in session.messages] == ["user", "assistant", "tool"]


@pytest.mark.parametrize("parent_empty", [False, True], ids=["parent", "no-parent-note"])
def test_a_subagent_without_times_says_its_time_is_the_file_s_as_its_parent_does(
    tmp_path, parent_empty
):
    """The child's own ``time_from_file`` is kept beside what its parent adds (review33 2)."""
    chat = AgentChat(tmp_path, "/home/dev/work/api", CHAT)
    if parent_empty:
        chat.turn_ended()
    else:
        chat.user("look around").reply(tool("Task", prompt="Find TODO comments"))
    chat.write()
    chat.subagent(CHILD).user("Find TODO comments").reply("3 TODOs in src/").write()
    sessions, _ = load(tmp_path)
    child = next(s for s in sessions if s.session_id == CHILD)
    assert child.extra.get("time_from_file") is True
    assert all(s.extra.get("time_from_file") is True for s in sessions)


def test_a_reply_whose_sentence_ends_in_the_mark_keeps_its_words(tmp_path):
    """Only the mark alone, or as the reply's last paragraph, stands for thinking: a
    sentence that ends in it is the model's, kept whole and not counted (review49 M2)."""
    chat = AgentChat(tmp_path, "/w/a", CHAT)
    chat.user("what does the log show?")
    chat.reply("The token in the log is shown as [REDACTED]")
    chat.reply(thinking("It is masked as\n[REDACTED]"), "Masked.\n\n  [REDACTED]  \n")
    chat.write()
    (session,), problems = load(tmp_path)
    assert problems == []
    assert texts(session, "assistant") == ["The token in the log is shown as [REDACTED]", "Masked."]
    assert [p.text for m in session.messages for p in m.parts if p.kind == "thinking"] == [
        "It is masked as\n[REDACTED]"
    ]
    told = session.messages[0].parts[0].text
    assert told.endswith("Cursor keeps no thinking: its redaction mark stands in its place once.")
