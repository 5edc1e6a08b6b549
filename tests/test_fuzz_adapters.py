"""One bad line or value costs at most itself, in every adapter.

Each source is built from records (a JSON line, a database value, one message of a stored
list), every record with its own marker word. Hypothesis then damages one record: a value
of the wrong type, a missing field, a huge value, the whole record replaced, or (for line
files) the raw line garbled or cut. Loading and rendering must not raise, and every marker
of the other records must still reach a note.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from claude_builder import ClaudeSession, tool_use
from codex_builder import CodexRollout
from conftest import EXAMPLES_HOME
from copilot_builder import markdown, request
from copilot_builder import session as copilot_session
from cursor_agent_builder import AgentChat
from cursor_agent_builder import slug as agent_slug
from cursor_agent_builder import tool as agent_tool
from fuzz_lines import MARKER, scalars
from fuzz_lines import places as paths_in
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opencode_builder import OpenCodeStore
from opencode_builder import patch as oc_patch
from opencode_builder import reasoning as oc_reasoning
from opencode_builder import text as oc_text
from vscode_builder import make_db, workspace

from exporter.adapters import SourceContext
from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.adapters.codex import CodexAdapter
from exporter.adapters.copilot import CopilotAdapter
from exporter.adapters.cursor import CursorAdapter
from exporter.adapters.opencode import OpenCodeAdapter
from exporter.adapters.trae import TraeAdapter
from exporter.export import ExportOptions, run_export
from exporter.notes import NoteSettings, build_note
from exporter.split import part_sessions

# -- what a damaged value can be (the shared pieces live in fuzz_lines) -------------------

huge = st.sampled_from(["x" * 2_000_000, "\n" * 200_000, 10**400, 1e308, -1, "\ud800", ""])
values = st.one_of(
    scalars,
    huge,
    st.lists(scalars, max_size=3),
    st.dictionaries(st.text(max_size=6), scalars, max_size=3),
)


def damaged(record: Any, path: tuple, action: str, new: Any) -> Any:
    """``record`` with the value at ``path`` replaced or removed (the record itself if the
    path is empty)."""
    if not path:
        return new
    copy = json.loads(json.dumps(record))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    if action == "drop" and isinstance(parent, dict):
        del parent[path[-1]]
    elif action == "drop" and isinstance(parent, list):
        parent.pop(path[-1])
    else:
        parent[path[-1]] = new
    return copy


@st.composite
def damage(draw: Any, records: list[Any], targets: list[int]) -> tuple[int, Any]:
    """(index of the record damaged, the damaged record or raw bytes for a line)."""
    index = draw(st.sampled_from(targets))
    how = draw(st.sampled_from(["value", "value", "value", "drop", "record", "bytes", "cut"]))
    record = records[index]
    if how == "bytes":
        return index, draw(st.binary(max_size=40))
    if how == "cut":
        text = json.dumps(record).encode()
        return index, text[: draw(st.integers(min_value=0, max_value=len(text) - 1))]
    if how == "record":
        return index, draw(values)
    path = draw(st.sampled_from(paths_in(record)[1:] or [()]))
    return index, damaged(record, path, how, draw(values))


# -- the sources -------------------------------------------------------------------------


@dataclass
class Source:
    name: str
    adapter: Callable[[], Any]
    records: Callable[[], list[Any]]
    write: Callable[[Path, list[Any]], None]  # a record may be raw bytes for a line file
    targets: Callable[[list[Any]], list[int]]  # the records a damage may hit
    lines: bool  # records are lines of a file (raw bytes are a possible damage)


def line_bytes(record: Any) -> bytes:
    if isinstance(record, bytes):
        return record.replace(b"\n", b" ")
    return json.dumps(record, ensure_ascii=True).encode()


def write_lines(path: Path, records: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line_bytes(r) + b"\n" for r in records))


def claude_records() -> list[Any]:
    s = ClaudeSession("11111111-2222-4333-8444-555555555555", "/home/dev/work/app")
    s.user("mk1x first question")
    s.assistant([{"type": "thinking", "thinking": "mk2x thought", "signature": "s"}])
    s.assistant([tool_use("Bash", {"command": "echo mk3x", "description": "mk4x"}, "call-1")])
    s.tool_result("call-1", "mk5x output")
    s.assistant("mk6x answer")
    s.raw({"type": "attachment", "uuid": "att-1", "parentUuid": s.last, "timestamp": s.tick(),
           "attachment": {"type": "queued_command",
                          "prompt": [{"type": "text", "text": "mk9x steering"}]}})  # fmt: skip
    s.user("mk7x second question")
    s.assistant("mk8x second answer")
    return [json.loads(line) for line in s.lines]


def codex_records() -> list[Any]:
    r = CodexRollout("019a0000-0000-7000-8000-0000000000f1").turn()
    r.user("mk1x first question").reasoning("mk2x thought")
    r.shell(["bash", "-lc", "echo mk3x"], "mk4x output")
    r.assistant("mk5x answer").user("mk6x second question").assistant("mk7x second answer")
    return list(r.lines)


def codex_write(home: Path, records: list[Any]) -> None:
    folder = home / ".codex" / "sessions" / "2026" / "03" / "10"
    write_lines(
        folder / "rollout-2026-03-10T08-00-01-019a0000-0000-7000-8000-0000000000f1.jsonl", records
    )


def copilot_records() -> list[Any]:
    first = {"kind": 0, "v": copilot_session("5e55104d-0000-4000-8000-0000000000f1", [])}
    first["v"]["pendingRequests"], first["v"]["inputState"] = [], {}
    pushes = [
        {"kind": 2, "k": ["requests"], "v": [request(i, f"mk{2 * i}x ask", [markdown(f"mk{2 * i + 1}x reply")])]}
        for i in range(1, 5)
    ]  # fmt: skip
    # Today's shapes, so that a damage can land in them: what was attached, the assistant's
    # questions and the answers, an edit, and the model's own calls.
    uri = {"$mid": 1, "fsPath": "/w/a.py", "path": "/w/a.py", "scheme": "file"}
    asked = pushes[1]["v"][0]
    asked["variableData"] = {"variables": [
        {"kind": "file", "id": "f", "name": "a.py", "value": {"uri": uri, "range": {
            "startLineNumber": 1, "endLineNumber": 2}}},
        {"kind": "paste", "code": "pasted", "copiedFrom": {"uri": uri}},
    ]}  # fmt: skip
    asked["response"] += [
        {"kind": "questionCarousel", "resolveId": "q", "questions": [
            {"id": "fw", "title": "Which?", "options": [{"label": "Vue", "value": "vue"}]}],
         "data": {"fw": {"selectedValues": ["vue"], "freeformValue": "and more"}}},
        {"kind": "textEditGroup", "uri": uri, "edits": [[{"text": "x = 1", "range": {
            "startLineNumber": 1, "startColumn": 1, "endLineNumber": 1, "endColumn": 1}}]]},
    ]  # fmt: skip
    asked["result"] = {"metadata": {"toolCallRounds": [{"toolCalls": [
        {"id": "c1", "name": "read", "arguments": '{"path": "/w/a.py"}'}]}],
        "toolCallResults": {"c1": {"content": [{"value": "text"}]}}}}  # fmt: skip
    return [first, *pushes]


def copilot_write(home: Path, records: list[Any]) -> None:
    folder = home / ".config" / "Code" / "User" / "workspaceStorage" / "ws" / "chatSessions"
    write_lines(folder / "5e55104d-0000-4000-8000-0000000000f1.jsonl", records)


CURSOR_ID = "c0c0c0c0-1111-4222-8333-4444444444f1"


def cursor_records() -> list[Any]:
    bubbles = [
        {"_v": 3, "type": 1 if i % 2 == 0 else 2, "bubbleId": f"b{i}", "text": f"mk{i}x words",
         "createdAt": f"2025-10-07T18:{10 + i}:00.000Z"}
        for i in range(1, 7)
    ]  # fmt: skip
    bubbles[1]["context"] = {  # what the person attached: today's shape, to be damaged too
        "selections": [{"uri": {"fsPath": "/w/a.rs"}, "rawText": "let a = 1;",
                        "range": {"selectionStartLineNumber": 3, "positionLineNumber": 4}}],
        "fileSelections": [{"uri": {"fsPath": "/w/b.rs"}}],
        "selectedImages": [{"path": "/w/shot.png"}],
    }  # fmt: skip
    header = {
        "_v": 10, "composerId": CURSOR_ID, "name": "Fuzzed", "createdAt": 1759861723898,
        "lastUpdatedAt": 1759863763312,
        "fullConversationHeadersOnly": [{"bubbleId": b["bubbleId"], "type": b["type"]} for b in bubbles],
    }  # fmt: skip
    return [header, *bubbles]


def cursor_write(home: Path, records: list[Any]) -> None:
    user = home / ".config" / "Cursor" / "User"
    header, *bubbles = records
    disk = {f"composerData:{CURSOR_ID}": _value(header)}
    for i, record in enumerate(bubbles, start=1):
        disk[f"bubbleId:{CURSOR_ID}:b{i}"] = _value(record)
    make_db(user / "globalStorage" / "state.vscdb", {}, disk)
    workspace(user, "ws1", "file:///home/dev/work/app",
              {"composer.composerData": {"allComposers": [{"composerId": CURSOR_ID}]}})  # fmt: skip


def _value(record: Any) -> str:
    """A database value: JSON text, or the damaged bytes as they are."""
    return record.decode("utf-8", "replace") if isinstance(record, bytes) else json.dumps(record)


def trae_records() -> list[Any]:
    return [
        {"role": "user" if i % 2 else "assistant", "content": f"mk{i}x words", "turnIndex": i // 2,
         "timestamp": 1730000000000 + i * 1000}
        for i in range(1, 7)
    ]  # fmt: skip


def trae_write(home: Path, records: list[Any]) -> None:
    messages = [r.decode("utf-8", "replace") if isinstance(r, bytes) else r for r in records]
    store = {"list": [{"sessionId": "s-1", "createdAt": 1730000000000, "messages": messages}],
             "currentSessionId": "s-1"}  # fmt: skip
    user = home / ".config" / "Trae" / "User"
    value = json.dumps(store)  # escaped: a lone surrogate cannot be stored as text
    workspace(user, "ws", "file:///home/dev/work/shop", {"memento/icube-ai-agent-storage": value})


AGENT_ID = "a9e9a9e9-1111-4222-8333-4444444444f1"


def cursor_agent_records() -> list[Any]:
    chat = AgentChat(Path("/unused"), "/home/dev/work/app", AGENT_ID)
    attached = '<file_contents path="a.py" lines="1-2">\nimport os\n</file_contents>'
    chat.user("mk1x first question", attached=attached)
    chat.reply("mk2x answer", agent_tool("Shell", command="mk3x"))
    chat.results("mk4x output").turn_ended()
    chat.user("mk5x second question").reply("mk6x second answer")
    return [json.loads(line) for line in chat.lines]


def cursor_agent_write(home: Path, records: list[Any]) -> None:
    folder = home / ".cursor" / "projects" / agent_slug("/home/dev/work/app") / "agent-transcripts"
    write_lines(folder / AGENT_ID / f"{AGENT_ID}.jsonl", records)


def opencode_records() -> list[Any]:
    """One record per message: its data and its one part, as two rows of the database."""
    store = OpenCodeStore()
    session = store.session("Fuzzed", "/home/dev/work/app", ident="ses_fuzzed")
    store.user(session, oc_text("mk1x first question"))
    store.assistant(session, oc_text("mk2x answer"))
    store.assistant(session, oc_patch("mk3x.py"))
    store.user(session, oc_text("mk4x second question"))
    store.assistant(session, oc_reasoning("mk5x thought"))
    store.assistant(session, oc_text("mk6x second answer"))
    return [{"data": m.data, "part": m.parts[0][1]} for m in session.messages]


def opencode_write(home: Path, records: list[Any]) -> None:
    store = OpenCodeStore()
    session = store.session("Fuzzed", "/home/dev/work/app", ident="ses_fuzzed")
    path = store.write_db(home / ".local" / "share" / "opencode" / "opencode.db")
    with closing(sqlite3.connect(path)) as conn:
        for i, record in enumerate(records):
            whole = record if isinstance(record, dict) else {}
            data, part = whole.get("data", record), whole.get("part", record)
            conn.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                (f"msg_{i:04}", session.id, i, i, _value(data)),
            )
            conn.execute(
                "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                (f"prt_{i:04}", f"msg_{i:04}", session.id, i, i, _value(part)),
            )
        conn.commit()


SOURCES = [
    Source("claude-code", ClaudeCodeAdapter, claude_records,
           lambda h, r: write_lines(h / ".claude" / "projects" / "-w-app" / "s.jsonl", r),
           lambda rs: list(range(len(rs))), lines=True),
    Source("codex", CodexAdapter, codex_records, codex_write,
           lambda rs: list(range(1, len(rs))), lines=True),  # line 1 names the session
    Source("copilot", CopilotAdapter, copilot_records, copilot_write,
           lambda rs: list(range(1, len(rs))), lines=True),  # line 1 is the session itself
    Source("cursor", CursorAdapter, cursor_records, cursor_write,
           lambda rs: list(range(1, len(rs))), lines=False),  # the header holds the session
    Source("trae", TraeAdapter, trae_records, trae_write,
           lambda rs: list(range(len(rs))), lines=False),
    Source("cursor-agent", CursorAdapter, cursor_agent_records, cursor_agent_write,
           lambda rs: list(range(len(rs))), lines=True),
    Source("opencode", OpenCodeAdapter, opencode_records, opencode_write,
           lambda rs: list(range(len(rs))), lines=False),
]  # fmt: skip


def exported_text(source: Source, home: Path) -> str:
    """Every note's body and frontmatter, rendered as the pipeline would."""
    adapter = source.adapter()
    out = []
    for ref in adapter.discover(SourceContext(home, {}, False)):
        load_families = getattr(adapter, "load_families", None)
        for loaded in load_families(ref) if load_families else [adapter.load(ref)]:
            for session in loaded.sessions:
                for part in part_sessions(session):
                    note = build_note(part, "n.md", NoteSettings(), lambda key: None)
                    out.append(note.body + json.dumps(note.frontmatter, default=str))
    return "\n".join(out)


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.name)
def test_the_undamaged_source_shows_every_marker(source):
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        records = source.records()
        source.write(home, records)
        found = set(MARKER.findall(exported_text(source, home)))
        assert found == set(MARKER.findall(json.dumps(records)))


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.name)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_one_damaged_record_costs_at_most_itself(source, data):
    records = source.records()
    index, bad = data.draw(damage(records, source.targets(records)))
    if isinstance(bad, bytes) and not source.lines:
        bad = bad.decode("utf-8", "replace")
    damaged_records = [*records[:index], bad, *records[index + 1 :]]
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        source.write(home, damaged_records)
        text = exported_text(source, home)  # never raises
    # A marker may be in two records (Codex keeps two streams and shows one): what the
    # damaged record held may go, whatever else held it too.
    others = set(MARKER.findall(json.dumps(records[:index] + records[index + 1 :])))
    others -= set(MARKER.findall(json.dumps(records[index])))
    missing = others - set(MARKER.findall(text))
    assert not missing, (index, bad if not isinstance(bad, str) or len(bad) < 200 else "huge")


def test_a_json_array_naming_summary_does_not_fail_the_projects_untitled_sessions(tmp_path):
    """Before: ``.get`` on a list raised, and every session of the folder failed to load."""
    folder = tmp_path / ".claude" / "projects" / "-w-app"
    s = ClaudeSession("11111111-2222-4333-8444-555555555555", "/home/dev/work/app")
    s.user("mk1x untitled")
    s.assistant("mk2x reply")
    s.write(folder / f"{s.session_id}.jsonl")
    (folder / "odd.jsonl").write_text('["summary", {"type": "summary"}]\n')
    adapter = ClaudeCodeAdapter()
    loaded = [adapter.load(ref) for ref in adapter.discover(SourceContext(tmp_path, {}, False))]
    sessions = [s for result in loaded for s in result.sessions]
    assert [s.session_id for s in sessions] == ["11111111-2222-4333-8444-555555555555"]


@pytest.mark.parametrize(
    ("relpath", "damage"),
    [
        (".gemini/tmp/win-app/chats/session-2026-11-22T07-45-2d4e6f80.json",
         lambda doc: doc["messages"].__setitem__(1, 42)),
        (".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1764059100000/ui_messages.json",
         lambda doc: doc.__setitem__(3, None)),
        (".cline/data/sessions/1764145500000_demo1/1764145500000_demo1.messages.json",
         lambda doc: doc["messages"].__setitem__(1, "x")),
        (".config/Code/User/globalStorage/emptyWindowChatSessions/c0b1107a-5e55-4a0d-9c1e-000000000002.json",
         lambda doc: doc["requests"].__setitem__(0, False)),
    ],
)  # fmt: skip
def test_a_message_of_a_json_document_that_is_not_an_object_is_reported(tmp_path, relpath, damage):
    """In a JSON lines file such a line is reported; in a whole document it went unsaid."""
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    path = home / relpath
    doc = json.loads(path.read_text())
    damage(doc)
    path.write_text(json.dumps(doc))
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home))
    said = [p.message for p in report.problems if p.path == str(path)]
    assert any("not a JSON object" in m for m in said), said


@pytest.mark.parametrize("damage", [None, 7], ids=["null", "number id"])
def test_a_trae_session_stored_without_an_id_or_as_no_object_is_reported(tmp_path, damage):
    home = tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home, symlinks=True)
    db = home / ".config/Trae/User/workspaceStorage/ws-shop/state.vscdb"
    with closing(sqlite3.connect(db)) as conn:
        key = "memento/icube-ai-agent-storage"  # Trae's chat store
        (value,) = conn.execute("SELECT value FROM ItemTable WHERE key = ?", (key,)).fetchone()
        store = json.loads(value)
        if damage is None:
            store["list"][0] = None
        else:
            store["list"][0]["sessionId"] = damage
        conn.execute("UPDATE ItemTable SET value = ? WHERE key = ?", (json.dumps(store), key))
        conn.commit()
    report = run_export(ExportOptions(vault=tmp_path / "v", home=home))
    said = [p.message for p in report.problems if p.path == str(db)]
    assert said == [
        "stored session 1 is "
        + ("not a JSON object" if damage is None else "without a sessionId")
        + "; skipped"
    ]
