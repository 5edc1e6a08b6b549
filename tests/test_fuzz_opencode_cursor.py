"""Damaged OpenCode/Kilo stores (database and legacy JSON tree) and Cursor chats (the
state.vscdb composers and the Agent transcripts), found by a seeded mutation run over
synthetic homes. Whatever is damaged costs only itself and is said, with the file and the
session, message or line it is in; the rest is exported whole, and no note holds a Python
repr, a control character or frontmatter that does not parse."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import load_sessions, texts
from cursor_agent_builder import AgentChat, tool
from fuzz_oracle import checked_export
from opencode_builder import OpenCodeStore, text
from opencode_builder import tool as oc_tool
from vscode_builder import make_db, workspace

from exporter.adapters.cursor import CursorAdapter
from exporter.adapters.cursor.composer import load_part
from exporter.adapters.opencode import OpenCodeAdapter

MARKER = re.compile(r"mk\d+x")
DATA = Path(".local") / "share" / "opencode"
USER = Path(".config") / "Cursor" / "User"
CID = "c0c0c0c0-1111-4222-8333-444444444444"


def export(home: Path, vault: Path, source: str) -> tuple[str, list[str]]:
    """Every note's text, checked (``fuzz_oracle``), and the problems as printed."""
    return checked_export(home, vault, source)


def messages(problems: list[Any]) -> list[str]:
    return [p.message for p in problems]


# -- OpenCode and Kilo ----------------------------------------------------------------------


def opencode_store() -> tuple[OpenCodeStore, Any]:
    """A session with a shell call (its output ``mk3x``) and a plain one."""
    store = OpenCodeStore()
    rich = store.session("mk0x title", "/home/me/shop", ident="ses_rich")
    store.user(rich, text("mk1x prompt"))
    store.assistant(rich, oc_tool("bash", {"command": "mk2x ls"}, "mk3x output"), text("mk4x done"))
    plain = store.session("mk20x plain", "/home/me/other", ident="ses_plain")
    store.user(plain, text("mk21x question"))
    store.assistant(plain, text("mk22x answer"))
    return store, rich


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ("message", "the sessions' messages cannot be read"),
        ("part", "the messages' parts (their text, tools, files) cannot be read"),
    ],
)
def test_a_database_without_its_message_or_part_table_says_so(tmp_path, table, said):
    """Every session came out empty (no note at all), and nothing was said."""
    store, _ = opencode_store()
    db = store.write_db(tmp_path / "home" / DATA / "opencode.db")
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(f"DROP TABLE {table}")
        conn.commit()
    _, problems = export(tmp_path / "home", tmp_path / "v", "opencode")
    assert problems == [f"{db}: no {table} table: {said}"]


@pytest.mark.parametrize(
    ("status", "said"),
    [
        ("x\x01y", 'has a status not known here ("x\\x01y")'),  # (printed escaped)
        (["completed"], "has a status not known here (a list)"),
        (None, "has no status"),
    ],
)
def test_a_tool_call_of_a_damaged_status_keeps_its_result_and_says_so(tmp_path, status, said):
    """Its output (or error) was dropped in silence: only the call was shown."""
    store, rich = opencode_store()
    state = rich.messages[1].parts[0][1]["state"]
    if status is None:
        del state["status"]
    else:
        state["status"] = status
    db = store.write_db(tmp_path / "home" / DATA / "opencode.db")
    note, problems = export(tmp_path / "home", tmp_path / "v", "opencode")
    assert {"mk2x", "mk3x", "mk4x", "mk21x", "mk22x"} <= set(MARKER.findall(note))
    where = f"session ses_rich, message {rich.messages[1].id}"
    assert problems == [f"{db}: {where}: a tool call {said}: what it holds is shown as its result"]


def test_a_tool_call_of_no_status_holding_only_an_error_is_a_failed_result():
    from exporter.adapters._times import Times
    from exporter.adapters.opencode.toolcall import tool_parts

    part = oc_tool("bash", {"command": "ls"}, status="error", error="mk9x boom")
    del part["state"]["status"]
    odd = Times()
    call, result = tool_parts(part, odd, "here")
    assert (result.output, result.is_error) == ("mk9x boom", True)
    assert len(odd.odd) == 1


def _tree(tmp_path: Path) -> tuple[Path, OpenCodeStore, Any]:
    store, rich = opencode_store()
    storage = store.write_tree(tmp_path / "home" / DATA / "storage")
    return storage, store, rich


@pytest.mark.parametrize("value", ["", "x\x01y", 0, {}, ["msg_x"]])
def test_a_legacy_part_whose_message_id_is_damaged_is_read_with_its_folders_message(
    tmp_path, value
):
    """A part file whose messageID named no message (damaged) was dropped in silence,
    although the folder it is in names its message."""
    storage, _, rich = _tree(tmp_path)
    message = rich.messages[1]
    part_file = storage / "part" / message.id / f"{message.parts[0][0]}.json"
    part = json.loads(part_file.read_text())
    part["messageID"] = value
    part_file.write_text(json.dumps(part))
    note, problems = export(tmp_path / "home", tmp_path / "v", "opencode")
    assert {"mk2x", "mk3x", "mk4x", "mk21x", "mk22x"} <= set(MARKER.findall(note))
    text = value.replace("\x01", "\\x01") if isinstance(value, str) else None  # (escaped)
    shown = f'"{text}"' if text is not None else "a number" if value == 0 else None
    shown = shown or ("an object" if isinstance(value, dict) else "a list")
    assert problems == [
        f"{part_file}: its messageID is {shown}, not its folder's: "
        "read with the message its folder names"
    ]


NOT_REGULAR = "could not be read (a folder, not a file); skipped"


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (Path.mkdir, NOT_REGULAR),
        (lambda path: path.symlink_to(path.with_name("gone.json")), "could not be read (No such file or directory); skipped"),
    ],
    ids=["a folder", "a link to nothing"],
)  # fmt: skip
def test_a_folder_where_a_legacy_message_file_belongs_is_said(tmp_path, make, said):
    """It was passed over in silence: the message and its parts were lost unsaid. Said as
    every adapter says a file that cannot be read (``base.cannot_read``), not in words of
    its own ('not a file (a folder, or a link to nothing)')."""
    storage, _, rich = _tree(tmp_path)
    message_file = storage / "message" / "ses_rich" / f"{rich.messages[1].id}.json"
    message_file.unlink()
    make(message_file)
    sessions, problems = load_sessions(OpenCodeAdapter(), tmp_path / "home")
    by_id = {s.session_id: s for s in sessions}
    assert texts(by_id["ses_rich"]) == ["mk1x prompt"]
    assert texts(by_id["ses_plain"]) == ["mk21x question", "mk22x answer"]
    assert [(p.path, p.message, p.severity) for p in problems] == [
        (str(message_file), said, "warning")
    ]


def test_a_folder_where_a_legacy_part_file_belongs_is_said(tmp_path):
    storage, _, rich = _tree(tmp_path)
    message = rich.messages[1]
    part_file = storage / "part" / message.id / f"{message.parts[0][0]}.json"
    part_file.unlink()
    part_file.mkdir()
    note, problems = export(tmp_path / "home", tmp_path / "v", "opencode")
    assert {"mk1x", "mk4x", "mk21x", "mk22x"} <= set(MARKER.findall(note))
    assert "mk2x" not in note
    assert problems == [f"{part_file}: {NOT_REGULAR}"]


# -- Cursor Agent transcripts ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (
            {"role": "assistant", "message": {"content": ["mk9x loose", {"type": "text", "text": "mk8x kept"}]}},
            "a content block is text, not an object: left out",
        ),
        ({"role": "assistant", "message": "mk9x answer"}, "its message is text, not an object: left out"),
        ({"role": "user", "message": {"content": 7}}, "its content is a number, not text or a list: left out"),
    ],
    ids=["a block as text", "a message as text", "content as a number"],
)  # fmt: skip
def test_a_transcript_block_or_message_that_is_not_an_object_is_said(tmp_path, line, said):
    """Each was dropped in silence (a reply's line holding its text as a bare string lost it)."""
    home = tmp_path / "home"
    chat = AgentChat(home, "/home/me/shop", "3f2a9c1e-7b4d-4e8f-9a6b-0c1d2e3f4a5b")
    chat.user("mk1x prompt").line(line).reply("mk2x answer", tool("Shell", command="mk3x ls"))
    path = chat.write()
    note, problems = export(home, tmp_path / "v", "cursor")
    assert {"mk1x", "mk2x", "mk3x"} <= set(MARKER.findall(note))
    assert problems == [f"{path}:2: {said}"]


# -- Cursor state.vscdb composers -----------------------------------------------------------


def bubble(kind: Any, bid: str, **fields: Any) -> dict[str, Any]:
    return {"_v": 3, "type": kind, "bubbleId": bid, **fields}


def composer(**fields: Any) -> dict[str, Any]:
    headers = [{"bubbleId": f"b{i}", "type": 1 if i == 1 else 2} for i in (1, 2, 3)]
    return {"_v": 10, "composerId": CID, "name": "mk0x name", "createdAt": 1759861723898,
            "fullConversationHeadersOnly": headers, "modelConfig": {"modelName": "gpt-5"},
            **fields}  # fmt: skip


def bubbles(**changed: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = {
        "b1": bubble(1, "b1", text="mk1x prompt"),
        "b2": bubble(2, "b2", toolFormerData={"toolCallId": "c1", "name": "run", "status": "completed",
                     "rawArgs": '{"command": "mk2x"}', "result": '{"output": "mk3x out"}'}),
        "b3": bubble(2, "b3", text="mk4x answer"),
    }  # fmt: skip
    for bid, fields in changed.items():
        found[bid] = {**found[bid], **fields}
    return found


def cursor_home(home: Path, data: Any, held: dict[str, Any] | None = None) -> Path:
    """A global database holding the composer ``data`` (its bubbles ``held``) and a plain
    composer ``plain`` (``mk20x``, ``mk21x``). Returns the database."""
    disk = {f"composerData:{CID}": data}
    disk |= {f"bubbleId:{CID}:{k}": v for k, v in (held or bubbles()).items()}
    disk["composerData:plain"] = {"_v": 10, "composerId": "plain", "createdAt": 1759861723898,
        "conversation": [bubble(1, "p1", text="mk20x q"), bubble(2, "p2", text="mk21x a")]}  # fmt: skip
    return make_db(home / USER / "globalStorage" / "state.vscdb", {}, disk)


def test_a_model_name_that_is_not_text_costs_only_itself(tmp_path):
    """modelConfig.modelName as a number raised ('float' object has no attribute 'encode'):
    every chat of the global database was lost, reported only as "could not be read"."""
    cursor_home(tmp_path / "home", composer(modelConfig={"modelName": 1e300}))
    note, problems = export(tmp_path / "home", tmp_path / "v", "cursor")
    assert {"mk1x", "mk2x", "mk3x", "mk4x", "mk20x", "mk21x"} <= set(MARKER.findall(note))
    assert problems == []


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda h: h.__setitem__(1, 0), "conversation header 2: it is a number, not an object"),
        (lambda h: h[1].__setitem__("bubbleId", ["b2"]), "conversation header 2: its bubbleId is a list, not text"),
        (lambda h: h[1].__setitem__("bubbleId", "b9"), "conversation header 2: its bubble b9 is not stored"),
        (lambda h: h[1].pop("bubbleId"), "conversation header 2: its bubbleId is null, not text"),
    ],
    ids=["a number", "an id as a list", "an id of no bubble", "no id"],
)  # fmt: skip
def test_a_composer_header_that_cannot_be_read_is_said(tmp_path, damage, said):
    """The bubble it stood for was dropped in silence."""
    data = composer()
    damage(data["fullConversationHeadersOnly"])
    db = cursor_home(tmp_path / "home", data)
    note, problems = export(tmp_path / "home", tmp_path / "v", "cursor")
    assert {"mk1x", "mk4x", "mk20x", "mk21x"} <= set(MARKER.findall(note))
    assert problems == [f"{db}: composer {CID}, {said}: left out"]


def test_headers_that_name_no_stored_bubble_are_said_once_per_composer(tmp_path):
    """Each was a warning of its own: a composer whose bubbles are gone (Cursor prunes them)
    said so once per turn, every run. Now counted, naming the first."""
    headers = [{"bubbleId": f"b{i}", "type": 1 if i == 1 else 2} for i in range(1, 8)]
    db = cursor_home(tmp_path / "home", composer(fullConversationHeadersOnly=headers))
    note, problems = export(tmp_path / "home", tmp_path / "v", "cursor")
    assert {"mk1x", "mk4x", "mk20x", "mk21x"} <= set(MARKER.findall(note))
    assert problems == [
        f"{db}: composer {CID}: 4 of 7 conversation headers name no stored bubble: left out"
        " (the first: header 4, bubble b4)"
    ]


def test_a_long_bubble_id_is_named_short(tmp_path):
    """A 3,000-character id a header names was printed whole in its warning."""
    data = composer()
    data["fullConversationHeadersOnly"][1]["bubbleId"] = "b9 " * 1000
    db = cursor_home(tmp_path / "home", data)
    _note, problems = export(tmp_path / "home", tmp_path / "v", "cursor")
    assert problems == [
        f"{db}: composer {CID}, conversation header 2: its bubble {'b9 ' * 13}… is not stored:"
        " left out"
    ]


def test_a_stored_bubble_that_is_not_an_object_and_headers_not_a_list_are_said(tmp_path):
    """The bubble, or the whole composer, was dropped in silence."""
    home = tmp_path / "home"
    db = cursor_home(home, composer(), bubbles() | {"b2": [1]})
    sessions, problems = load_sessions(CursorAdapter(), home)
    assert messages(problems) == [
        f"composer {CID}, conversation header 2: its bubble b2 is not a JSON object: left out"
    ]
    db.unlink()
    cursor_home(home, composer(fullConversationHeadersOnly=1e300))
    sessions, problems = load_sessions(CursorAdapter(), home)
    assert [s.session_id for s in sessions] == ["plain"]
    assert messages(problems) == [
        f"composer {CID}: its conversation headers are a number, not a list: left out"
    ]


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ('{"_v": 10, "composerId": "c0c0', "not JSON (damaged or cut short)"),
        (b'{"_v": \xff\xfe', "not JSON (damaged or cut short)"),
        (42, "a number, not JSON"),
    ],
    ids=["cut short", "garbled bytes", "a number"],
)
def test_a_composer_that_is_not_json_is_said(tmp_path, raw, said):
    """It was dropped without a word (only JSON that is not an object was said)."""
    db = cursor_home(tmp_path / "home", composer())
    with closing(sqlite3.connect(db)) as conn:
        value = "CAST(? AS TEXT)" if isinstance(raw, bytes) else "?"
        conn.execute(
            f"UPDATE cursorDiskKV SET value = {value} WHERE key = ?", (raw, f"composerData:{CID}")
        )
        conn.commit()
    note, problems = export(tmp_path / "home", tmp_path / "v", "cursor")
    assert {"mk20x", "mk21x"} <= set(MARKER.findall(note))
    assert problems == [f"{db}: composer {CID}: {said}; skipped"]


@pytest.mark.parametrize("raw", ["", "null", None], ids=["empty", "JSON null", "SQL NULL"])
def test_a_composer_stored_empty_or_null_is_no_damage(tmp_path, raw):
    """A composer Cursor emptied: nothing to say. (SQL NULL was said as damage, one warning
    per such composer every night; readers of Cursor's database skip NULL composers.)"""
    db = cursor_home(tmp_path / "home", composer())
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(
            "UPDATE cursorDiskKV SET value = ? WHERE key = ?", (raw, f"composerData:{CID}")
        )
        conn.commit()
    sessions, problems = load_sessions(CursorAdapter(), tmp_path / "home")
    assert ([s.session_id for s in sessions], problems) == (["plain"], [])
    part = load_part(db.parents[1], CID, {})  # as a large folder is read, in parts
    assert (part.sessions, part.problems) == ([], [])


@pytest.mark.parametrize("blob", [False, True], ids=["text", "blob"])
def test_sources_counts_the_conversations_an_export_finds(tmp_path, blob):
    """``ccexport sources`` counted every composerData row: those stored empty, as JSON null
    or as SQL NULL too (no session, and nothing said), one opened but never used, and a
    workspace's copy of a composer the global database holds (exported once, from there) a
    second time: 9 for 3."""
    home = tmp_path / "home"
    db = cursor_home(home, composer())
    with closing(sqlite3.connect(db)) as conn:
        for n, raw in enumerate(["", "null", " null\n", None]):
            value = raw.encode() if blob and raw is not None else raw
            conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:e{n}", value))
        unused = json.dumps({"_v": 10, "composerId": "u1", "fullConversationHeadersOnly": []})
        conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", ("composerData:u1", unused))
        conn.commit()
    copy = {"composerId": "plain", "conversation": [bubble(1, "o1", text="an older copy")]}
    alone = {"composerId": "inline-1", "conversation": [bubble(1, "i1", text="mk30x q")]}
    workspace(home / USER, "ws", "file:///home/me/shop", {
        "composer.composerData": {"allComposers": [copy, alone]}})  # fmt: skip
    adapter = CursorAdapter()
    from exporter.adapters import SourceContext
    from exporter.export import ExportOptions, run_export
    from exporter.sources import list_sources

    (ref,) = adapter.discover(SourceContext(home, {}, False))
    sessions, problems = load_sessions(adapter, home)
    assert (sorted(s.session_id for s in sessions), problems) == ([CID, "inline-1", "plain"], [])
    assert adapter.count_sessions(ref) == 3
    (row,) = [r for r in list_sources(home, ["cursor"]) if r.sessions]
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home, sources=["cursor"]))
    assert row.sessions == report.per_source["cursor"].found == 3
    assert report.problems == []


def test_a_bubble_of_no_known_type_or_with_damaged_rich_text_is_said(tmp_path):
    """Both were passed over in silence: a prompt whose type was damaged read as an empty
    reply, one whose richText (where its words are) was not text as a draft never sent."""
    held = bubbles(
        b1={"type": [1]}, b2={"type": True}, b3={"type": 1, "text": "", "richText": True}
    )
    cursor_home(tmp_path / "home", composer(), held)
    sessions, problems = load_sessions(CursorAdapter(), tmp_path / "home")
    rich = next(s for s in sessions if s.session_id == CID)
    assert texts(rich, "assistant") == ["mk1x prompt"]  # (b2's call and result: kept)
    assert [p.kind for m in rich.messages for p in m.parts][1:] == ["tool_call", "tool_result"]
    where = f"composer {CID}, bubble"
    assert messages(problems) == [
        f"{where} b1: its type is a list, not one known here: read as the assistant's",
        f"{where} b2: its type is true, not one known here: read as the assistant's",
        f"{where} b3: its richText is true, not text: left out",
    ]


def test_a_tools_error_object_is_shown_as_json_and_kept_beside_a_damaged_status(tmp_path):
    """An error object was shown as a Python repr (``{'message': …}``); beside a status
    that is not "error" (damaged) it was dropped in silence."""
    tool_data = {"toolCallId": "c1", "name": "run", "rawArgs": '{"command": "ls"}'}
    held = bubbles(
        b2={"toolFormerData": {**tool_data, "status": "error", "error": {"message": "mk5x"}}},
        b3={"text": "", "toolFormerData": {**tool_data, "status": "x", "error": "mk6x"}},
    )
    cursor_home(tmp_path / "home", composer(), held)
    sessions, _ = load_sessions(CursorAdapter(), tmp_path / "home")
    rich = next(s for s in sessions if s.session_id == CID)
    results = [p for m in rich.messages for p in m.parts if p.kind == "tool_result"]
    assert [(r.output, r.is_error) for r in results] == [
        ('{"message":"mk5x"}', True),
        ("mk6x", True),
    ]


@pytest.mark.parametrize(
    ("name", "said"),
    [(None, "a tool call has no name"), (0, "a tool call's name is a number, not text")],
)
def test_a_tool_call_whose_name_is_damaged_keeps_its_arguments_and_result(tmp_path, name, said):
    """A call without a name (or a falsy one) was dropped in silence, with its result."""
    held = bubbles()
    held["b2"]["toolFormerData"]["name"] = name
    cursor_home(tmp_path / "home", composer(), held)
    sessions, problems = load_sessions(CursorAdapter(), tmp_path / "home")
    rich = next(s for s in sessions if s.session_id == CID)
    calls = [p for m in rich.messages for p in m.parts if p.kind == "tool_call"]
    results = [p for m in rich.messages for p in m.parts if p.kind == "tool_result"]
    assert [(c.name, c.input) for c in calls] == [("tool", {"command": "mk2x"})]
    assert [r.output for r in results] == ["mk3x out"]
    assert messages(problems) == [f"composer {CID}, bubble b2: {said}: shown as 'tool'"]
