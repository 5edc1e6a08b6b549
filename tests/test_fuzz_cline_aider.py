"""Damaged Cline-family and Aider files (found by a seeded mutation run over synthetic homes:
tests/cline_builder.py, tests/aider_builder.py). Whatever is damaged costs only itself and
is said, with the file and the message it is in; the rest is exported whole, and no note
holds a Python repr, a control character or frontmatter that does not parse."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import cline_builder as cb
import pytest
from aider_builder import AiderLog
from conftest import load_sessions, texts
from fuzz_lines import MARKER
from fuzz_oracle import checked_export

from exporter.adapters._jsonl import NOT_UTF8
from exporter.adapters.cline import ClineAdapter

TASK = "1762500000000"
A_FOLDER = "could not be read (a folder, not a file)"


def export(home: Path, vault: Path, source: str) -> tuple[str, list[str]]:
    """Every note's text, checked (``fuzz_oracle``), and the problems as printed."""
    return checked_export(home, vault, source)


def markers(text: str) -> set[str]:
    return set(MARKER.findall(text))


def ui_task(home: Path, ui: Any, **files: Any) -> Path:
    """A Cline task of these UI entries; returns its folder."""
    return cb.task(cb.storage(home, cb.CLINE), TASK, ui=ui, **files)


def sdk_home(home: Path, messages: list[Any], rows: list[dict[str, Any]] | None = None) -> Path:
    """A Cline 4 SDK session ``s1`` of these messages and a plain one ``s2``; the data folder."""
    data = home / ".cline" / "data"
    cb.sdk_session(data, "s1", messages)
    cb.sdk_session(data, "s2", [cb.message("user", "mk80x q", n=1),
                                cb.message("assistant", "mk81x a", n=2)])  # fmt: skip
    if rows is not None:
        cb.sessions_db(data, rows)
    return data


def sdk_messages() -> list[dict[str, Any]]:
    return [
        cb.message("user", "mk1x prompt", n=0),
        cb.message("assistant", cb.text("mk2x reply"), cb.tool_use("c1", "read", {"p": 1}), n=1),
        cb.message("user", cb.tool_result("c1", "mk3x result"), n=2),
        cb.message("assistant", "mk4x final", n=3),
    ]


# -- the model's messages (SDK sessions and api_conversation_history.json) ----------------


@pytest.mark.parametrize(
    ("role", "shown"),
    [(7, "a number"), (None, "missing"), ("system", '"system"'), ({}, "an object")],
)
def test_a_message_of_no_known_role_is_said(tmp_path, role, shown):
    """A message whose role was damaged (or missing) was dropped in silence: its reply or
    prompt was simply not in the note."""
    messages = sdk_messages()
    if role is None:
        del messages[3]["role"]
    else:
        messages[3]["role"] = role
    data = sdk_home(tmp_path / "home", messages)
    text, problems = export(tmp_path / "home", tmp_path / "v", "cline")
    assert markers(text) == {"mk1x", "mk2x", "mk3x", "mk80x", "mk81x"}
    path = data / "sessions" / "s1" / "s1.messages.json"
    assert problems == [f"{path}: message 4: its role is {shown}, not user or assistant: left out"]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (7, "its content is a number, not text or a list of blocks: left out"),
        (None, "its content is missing, not text or a list of blocks: left out"),
        ({"text": "x"}, "its content is an object, not text or a list of blocks: left out"),
        (["mk9x", cb.text("mk4x kept")], "content block 1 is text, not an object: left out"),
        ([None, cb.text("mk4x kept")], "content block 1 is null, not an object: left out"),
    ],
)
def test_a_content_of_the_wrong_type_is_said(tmp_path, content, said):
    """A message's content that was not text or a list of blocks, or a block that was not
    an object, was left out in silence."""
    messages = sdk_messages()
    messages[3]["content"] = content
    data = sdk_home(tmp_path / "home", messages)
    text, problems = export(tmp_path / "home", tmp_path / "v", "cline")
    assert {"mk1x", "mk2x", "mk3x", "mk80x", "mk81x"} <= markers(text)
    assert ("mk4x" in text) == isinstance(content, list)
    path = data / "sessions" / "s1" / "s1.messages.json"
    assert problems == [f"{path}: message 4: {said}"]


@pytest.mark.parametrize(
    ("content", "said"), [(1e300, "is a number"), (["mk3x text", 7], "holds a number")]
)
def test_a_tool_result_of_the_wrong_type_is_said(tmp_path, content, said):
    """A result whose content was a number (or held one) was shown empty, unsaid."""
    messages = sdk_messages()
    messages[2]["content"][0]["content"] = content
    data = sdk_home(tmp_path / "home", messages)
    text, problems = export(tmp_path / "home", tmp_path / "v", "cline")
    assert {"mk1x", "mk2x", "mk4x", "mk80x", "mk81x"} <= markers(text)
    path = data / "sessions" / "s1" / "s1.messages.json"
    assert problems == [f"{path}: message 3: a tool result's content {said}, not text: left out"]


def test_a_block_of_no_type_is_named_without_a_python_repr(tmp_path):
    """A block whose type was missing was reported as of kind "None"."""
    messages = sdk_messages()
    del messages[1]["content"][0]["type"]
    data = sdk_home(tmp_path / "home", messages)
    _, problems = export(tmp_path / "home", tmp_path / "v", "cline")
    path = data / "sessions" / "s1" / "s1.messages.json"
    assert problems == [f"{path}: skipped entries of unknown kind: (null) ×1 (message 2)"]


def test_a_message_of_no_known_role_in_the_api_history_is_said(tmp_path):
    """The same for a task read from its API history (the UI file missing)."""
    api = [cb.message("user", "mk1x prompt"), {"content": "mk2x lost"},
           cb.message("assistant", "mk3x reply")]  # fmt: skip
    folder = ui_task(tmp_path / "home", None, api=api)
    text, problems = export(tmp_path / "home", tmp_path / "v", "cline")
    assert markers(text) == {"mk1x", "mk3x"}
    assert problems == [
        f"{folder / 'api_conversation_history.json'}: message 2: its role is missing, not "
        "user or assistant: left out"
    ]


# -- ui_messages.json ---------------------------------------------------------------------


def test_a_ui_text_of_the_wrong_type_is_said(tmp_path):
    """An entry whose text was a number or a list lost its words in silence."""
    ui = [cb.say(0, "task", "mk1x prompt"), cb.say(1, "text", "mk2x reply"),
          cb.say(2, "user_feedback", ["mk3x"]), cb.say(3, "completion_result", 1e300),
          cb.say(4, "text", "mk5x end")]  # fmt: skip
    folder = ui_task(tmp_path / "home", ui)
    text, problems = export(tmp_path / "home", tmp_path / "v", "cline")
    assert markers(text) == {"mk1x", "mk2x", "mk5x"}
    path = folder / "ui_messages.json"
    assert problems == [
        f"{path}: message 3: its text is a list, not text: left out",
        f"{path}: message 4: its text is a number, not text: left out",
    ]


@pytest.mark.parametrize(
    ("condensed", "shown"),
    [(None, "null"), ({"summary": 7}, "an object whose summary is a number")],
)
def test_a_context_summary_of_the_wrong_type_is_said(tmp_path, condensed, shown):
    """A condense_context entry whose contextCondense was damaged lost its summary unsaid."""
    ui = [cb.say(0, "task", "mk1x prompt"),
          cb.say(1, "condense_context", "", contextCondense=condensed),
          cb.say(2, "text", "mk2x reply")]  # fmt: skip
    folder = ui_task(tmp_path / "home", ui)
    text, problems = export(tmp_path / "home", tmp_path / "v", "cline")
    assert markers(text) == {"mk1x", "mk2x"}
    assert problems == [
        f"{folder / 'ui_messages.json'}: message 2: its contextCondense is {shown}, not a "
        "summary: left out"
    ]


def test_an_entry_of_no_type_is_named_without_a_python_repr(tmp_path):
    """An entry whose type was garbled was reported as of kind "None"."""
    ui = [cb.say(0, "task", "mk1x prompt"), {"ts": cb.ts(1), "type": "\x01", "text": "x"}]
    folder = ui_task(tmp_path / "home", ui)
    _, problems = export(tmp_path / "home", tmp_path / "v", "cline")
    assert problems == [
        f"{folder / 'ui_messages.json'}: skipped entries of unknown kind: (null) ×1 (message 2)"
    ]


def listing_then_command(damage: str) -> list[dict[str, Any]]:
    ui = [cb.say(0, "task", "mk1x prompt"),
          cb.tool(1, "listFilesTopLevel", path="/p", content="mk2x listing"),
          cb.say(2, "command", "mk3x ls"), cb.say(3, "command_output", "mk4x output"),
          cb.ask(4, "followup", "mk5x which?"), cb.say(5, "user_feedback", "mk6x this"),
          cb.say(6, "use_mcp_server", json.dumps({"serverName": "s", "toolName": "t"})),
          cb.say(7, "mcp_server_response", "mk7x mcp out")]  # fmt: skip
    if damage == "command's type":
        ui[2]["type"] = "?"
    else:
        del ui[6]  # the MCP call
    return ui


@pytest.mark.parametrize("damage", ["command's type", "the MCP call gone"])
def test_output_whose_call_is_damaged_does_not_replace_another_calls_result(tmp_path, damage):
    """Output after a damaged (or missing) call entry was taken for the result of the call
    before it, which had its result already: the note showed one of the two results only,
    losing the listing (or the command's output) of an undamaged entry."""
    ui_task(tmp_path / "home", listing_then_command(damage))
    text, _ = export(tmp_path / "home", tmp_path / "v", "cline")
    kept = {"mk1x", "mk2x", "mk4x", "mk5x", "mk6x", "mk7x"}
    assert kept | ({"mk3x"} if damage != "command's type" else set()) == markers(text)


# -- what is in the place of a file -------------------------------------------------------


@pytest.mark.parametrize("name", ["api_conversation_history.json", "ui_messages.json"])
def test_a_folder_in_place_of_a_task_file_is_said(tmp_path, name):
    """A task whose only transcript file was a folder was skipped at discovery, unsaid."""
    home = tmp_path / "home"
    folder = cb.task(cb.storage(home, cb.CLINE), TASK)
    (folder / name).mkdir()
    cb.task(cb.storage(home, cb.CLINE), "1762500100000", ui=[cb.say(0, "task", "mk1x q")])
    text, problems = export(home, tmp_path / "v", "cline")
    assert markers(text) == {"mk1x"}
    assert len(problems) == 1 and problems[0] == f"{folder / name}: {A_FOLDER}"


def test_a_folder_in_place_of_an_sdk_messages_file_is_said(tmp_path):
    home = tmp_path / "home"
    data = sdk_home(home, sdk_messages())
    main = data / "sessions" / "s1" / "s1.messages.json"
    main.unlink()
    main.mkdir()
    text, problems = export(home, tmp_path / "v", "cline")
    assert markers(text) == {"mk80x", "mk81x"}
    assert len(problems) == 1 and problems[0] == f"{main}: {A_FOLDER}"


def test_a_folder_in_place_of_an_aider_log_is_said(tmp_path):
    """It was passed over as if there were no log."""
    home = tmp_path / "home"
    AiderLog().run("2024-09-01 09:00:00").prompt("mk1x q").reply("mk2x a").write(home / "src" / "a")
    log = home / "src" / "b" / ".aider.chat.history.md"
    log.mkdir(parents=True)
    text, problems = export(home, tmp_path / "v", "aider")
    assert markers(text) == {"mk1x", "mk2x"}
    assert len(problems) == 1 and problems[0] == f"{log}: {A_FOLDER}"


# -- the SDK's index (sessions.db) --------------------------------------------------------


def rows() -> list[dict[str, Any]]:
    return [{"session_id": "s1", "cwd": "/home/dev/a", "metadata_json": '{"title": "mk90x t"}'},
            {"session_id": "s2", "cwd": "/home/dev/b", "metadata_json": '{"title": "mk91x t"}'}]  # fmt: skip


def test_an_index_without_its_sessions_table_is_said(tmp_path):
    """Titles, folders and parents were all lost in silence."""
    data = sdk_home(tmp_path / "home", sdk_messages(), rows())
    db = data / "db" / "sessions.db"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("DROP TABLE sessions")
        conn.commit()
    text, problems = export(tmp_path / "home", tmp_path / "v", "cline")
    assert markers(text) == {"mk1x", "mk2x", "mk3x", "mk4x", "mk80x", "mk81x"}
    assert problems == [
        f"{db}: has no sessions table (with a session_id column); until it can be read, the "
        "titles, working folders, models, times and parent sessions it gives are kept from "
        "the last run"
    ]


@pytest.mark.parametrize(
    ("value", "shown"),
    [("not json {", "not a JSON object"), (7, "not a JSON object"),
     ('{"title": 5}', "an object whose title is a number, not text")],
)  # fmt: skip
def test_a_session_metadata_that_is_not_json_is_said(tmp_path, value, shown):
    """The session's title was lost in silence."""
    given = rows()
    given[0]["metadata_json"] = value
    data = sdk_home(tmp_path / "home", sdk_messages(), given)
    sessions, problems = load_sessions(ClineAdapter(), tmp_path / "home")
    titles = {s.session_id: s.title for s in sessions}
    assert titles == {"s1": None, "s2": "mk91x t"}
    assert texts(sessions[0])[0] == "mk1x prompt"
    assert [p.message for p in problems] == [
        f"session s1: its metadata_json is {shown}; the note has no title from it"
    ]
    assert problems[0].path == str(data / "db" / "sessions.db")


@pytest.mark.parametrize("value", [None, "", "null", "{}"])
def test_a_session_metadata_that_is_empty_is_no_damage(tmp_path, value):
    given = rows()
    given[0]["metadata_json"] = value
    sdk_home(tmp_path / "home", sdk_messages(), given)
    sessions, problems = load_sessions(ClineAdapter(), tmp_path / "home")
    assert ({s.session_id: s.title for s in sessions}, problems) == (
        {"s1": None, "s2": "mk91x t"},
        [],
    )


def test_a_folder_in_place_of_a_subagent_transcript_is_said(tmp_path):
    """It was passed over: the subagent's transcript was missing from the export, unsaid."""
    home = tmp_path / "home"
    data = sdk_home(home, sdk_messages())
    agent = data / "sessions" / "s1" / "agent-1.messages.json"
    agent.mkdir()
    (data / "sessions" / "s1" / "agent-2.messages.json").symlink_to(tmp_path / "nowhere")
    text, problems = export(home, tmp_path / "v", "cline")
    assert markers(text) == {"mk1x", "mk2x", "mk3x", "mk4x", "mk80x", "mk81x"}
    assert len(problems) == 1 and problems[0] == f"{agent}: {A_FOLDER}"


@pytest.mark.parametrize("damage", [b'{"messages": [', b"[1]"], ids=["cut short", "no messages"])
def test_a_session_file_that_cannot_be_read_keeps_its_subagents_notes(tmp_path, damage):
    """The subagents' transcripts, readable, were lost with their session's file."""
    home = tmp_path / "home"
    data = home / ".cline" / "data"
    agent = [cb.message("user", "mk50x task", n=0), cb.message("assistant", "mk51x done", n=1)]
    folder = cb.sdk_session(data, "s1", sdk_messages(), agents={"agent-1": agent})
    main = folder / "s1.messages.json"
    main.write_bytes(damage)
    text, problems = export(home, tmp_path / "v", "cline")
    assert markers(text) == {"mk50x", "mk51x"}
    assert len(problems) == 1 and problems[0].startswith(f"{main}:")


def test_bytes_that_are_not_utf8_in_an_aider_log_are_said(tmp_path):
    """They were read as U+FFFD without a word (a damaged prompt, or a log written in
    another encoding, looked whole)."""
    home = tmp_path / "home"
    log = AiderLog().run("2024-09-01 09:00:00").prompt("mk1x q").reply("mk2x a")
    log.run("2024-09-02 09:00:00").prompt("mk3x q").reply("mk4x caf\udce9 a")
    path = home / "src" / "a" / ".aider.chat.history.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(log.text().encode("utf-8", "surrogateescape"))
    line = log.text().split("\n").index("mk4x caf\udce9 a") + 1
    text, problems = export(home, tmp_path / "v", "aider")
    assert markers(text) == {"mk1x", "mk2x", "mk3x", "mk4x"} and "mk4x caf\ufffd a" in text
    assert problems == [f"{path}:{line}: {NOT_UTF8}"]


@pytest.mark.parametrize("option", ["--encoding cp1252", "--encoding=cp1252"])
def test_a_log_in_the_encoding_its_run_names_is_read_in_it(tmp_path, option):
    """Aider writes its log in the encoding ``--encoding`` names: such a log is no damage
    (review6 M2: it was read as U+FFFD and said once per run)."""
    home = tmp_path / "home"
    log = AiderLog().run("2024-09-01 09:00:00", command=f"/usr/bin/aider {option}")
    log.prompt("mk1x Écris une fonction café").reply("mk2x voilà")
    log.run("2024-09-02 09:00:00", command="/usr/bin/aider --encoding no-such-codec")
    log.prompt("mk3x plain").reply("mk4x ascii")
    path = home / "src" / "a" / ".aider.chat.history.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(log.text().encode("cp1252"))
    text, problems = export(home, tmp_path / "v", "aider")
    assert "mk1x Écris une fonction café" in text and "mk2x voilà" in text
    assert "mk4x ascii" in text and problems == []
