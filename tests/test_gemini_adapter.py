"""Gemini CLI adapter: chats in both shapes, thoughts, tools, tokens, projects, subagents,
saved chats, the prompt log, and bad or half-written input (synthetic homes only)."""

from __future__ import annotations

import base64
import builtins
import json
import os
import tempfile
from datetime import UTC
from pathlib import Path

from conftest import load_sessions, normalize, note_files, texts
from fuzz_lines import MARKER, damaged, lines, markers_of
from gemini_builder import (
    GeminiChat,
    project_folder,
    project_hash,
    setup_turns,
    tool_call,
    write_checkpoint,
    write_prompt_log,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from exporter.adapters import SourceContext
from exporter.adapters import gemini as gemini_adapter
from exporter.adapters._jsonl import UNFINISHED_LAST_LINE
from exporter.adapters.gemini import GeminiAdapter
from exporter.adapters.gemini.chat import build_messages
from exporter.adapters.gemini.chatfiles import read_chat
from exporter.export import ExportOptions, run_export

SID = "3f2a9c1e-5b7d-4e2f-8a1c-0d9e8f7a6b5c"
ROOT = "/home/dev/work/api"


def load_all(home: Path, env: dict | None = None, real_home: bool = False):
    return load_sessions(GeminiAdapter(), home, env, real_home)


def export(home: Path, vault: Path):
    return run_export(ExportOptions(vault=vault, home=home, sources=["gemini"], timezone=UTC))


def conversation(session_id: str = SID, root: str = ROOT) -> GeminiChat:
    chat = GeminiChat(session_id, root)
    chat.user("Add a /health endpoint to `server.py`")
    chat.gemini(
        "I'll read the server first.",
        thoughts=[{"subject": "Planning", "description": "Read before editing."}],
        calls=[
            tool_call(
                "read_file-1",
                "read_file",
                {"file_path": f"{root}/server.py"},
                "app = Flask(__name__)\n",
            )
        ],
    )
    chat.gemini("Done: `GET /health` returns 200.")
    return chat


def parts(session, kind):
    return [p for m in session.messages for p in m.parts if p.kind == kind]


def test_discovery_is_stat_only_and_groups_a_sessions_files(tmp_path, monkeypatch):
    folder = project_folder(tmp_path, ROOT, "api")
    chat = conversation()
    chat.write_json(folder / "chats")
    chat.write_jsonl(folder / "chats")  # the file a legacy session was migrated to
    GeminiChat("agent-77", kind="subagent").write_jsonl(folder / "chats" / SID, "agent-77.jsonl")
    write_checkpoint(folder, "before refactor", [{"role": "user", "parts": [{"text": "x"}]}])
    write_prompt_log(folder, [(SID, "2026-05-01T10:00:01Z", "Add a /health endpoint")])

    def no_open(*args, **kwargs):
        raise AssertionError("discovery must not open files")

    monkeypatch.setattr(builtins, "open", no_open)
    refs = list(GeminiAdapter().discover(SourceContext(tmp_path, {}, False)))
    monkeypatch.undo()
    assert [r.fact("kind") for r in refs] == ["chat", "checkpoint", "logs"]
    chat_ref = refs[0]
    assert chat_ref.main.path.suffix == ".jsonl"
    assert [f.path.name for f in chat_ref.related] == [chat.file_name(".json"), "agent-77.jsonl"]
    assert refs[1].session_id == "api/checkpoint/before refactor"


def test_gemini_cli_home_is_read_only_on_the_real_home(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    conversation().write_jsonl(project_folder(elsewhere, ROOT, "api") / "chats")
    env = {"GEMINI_CLI_HOME": str(elsewhere)}
    assert [s.session_id for s in load_all(tmp_path / "h", env, real_home=True)[0]] == [SID]
    assert load_all(tmp_path / "h", env, real_home=False)[0] == []


def test_a_conversation_with_thoughts_tools_tokens_and_model(tmp_path):
    conversation().write_jsonl(project_folder(tmp_path, ROOT, "api") / "chats")
    (session,), problems = load_all(tmp_path)
    assert problems == []
    assert texts(session, "user") == ["Add a /health endpoint to `server.py`"]
    assert texts(session, "assistant") == [
        "I'll read the server first.",
        "Done: `GET /health` returns 200.",
    ]
    assert [t.text for t in parts(session, "thinking")] == ["Planning\n\nRead before editing."]
    (call,), (result,) = parts(session, "tool_call"), parts(session, "tool_result")
    assert (call.name, call.input, call.call_id) == (
        "read_file",
        {"file_path": f"{ROOT}/server.py"},
        "read_file-1",
    )
    assert (result.call_id, result.output, result.is_error) == (
        "read_file-1",
        "app = Flask(__name__)\n",
        False,
    )
    # input counts what was not cached; thoughts are billed as output
    assert (session.usage.input_tokens, session.usage.output_tokens) == (1200, 120)
    assert session.usage.cache_read_tokens == 800
    assert session.models == ("gemini-2.5-pro",)
    assert (session.cwd, session.project) == (ROOT, "api")
    assert session.started_at.isoformat() == "2026-05-01T10:00:00+00:00"
    assert session.ended_at >= session.messages[-1].timestamp


def test_legacy_document_and_its_migrated_jsonl_count_once(tmp_path):
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    chat = conversation()
    chat.write_json(chats)
    chat.gemini("A reply written after the resume.")
    chat.write_jsonl(chats)
    (session,), _ = load_all(tmp_path)
    assert texts(session, "assistant").count("I'll read the server first.") == 1
    assert texts(session, "assistant")[-1] == "A reply written after the resume."


def test_jsonl_upserts_set_and_rewind(tmp_path):
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    chat = conversation()
    first_reply = dict(chat.messages[1])
    later = dict(first_reply, content="I'll read the server first (with its result).")
    chat.user("A prompt that was rewound")
    rewound = chat.gemini("An answer that was rewound")
    chat.write_jsonl(
        chats,
        extra_lines=[
            later,
            {"$set": {"summary": "Health endpoint"}},
            {"$rewindTo": chat.messages[3]["id"]},
            {
                "id": "after",
                "type": "user",
                "content": "After the rewind",
                "timestamp": "2026-05-01T11:00:00Z",
            },
        ],
    )
    (session,), _ = load_all(tmp_path)
    assert session.title == "Health endpoint"
    # What the person went back on stays in its place (Gemini drops it; the note keeps it,
    # as every other source's note does), then the marker, then what came after
    assert texts(session, "user") == [
        "Add a /health endpoint to `server.py`", "A prompt that was rewound", "After the rewind"
    ]  # fmt: skip
    assert texts(session, "assistant")[0] == "I'll read the server first (with its result)."
    assert rewound["content"] in texts(session)
    # the upserted reply keeps its place, before the second reply
    assert [m.source_id for m in session.messages][:2] == [
        chat.messages[0]["id"],
        first_reply["id"],
    ]


def test_a_rewind_leaves_a_marker_where_the_conversation_went_on(tmp_path):
    """``$rewindTo`` goes back to before a message (Gemini drops it and what follows); the
    note keeps those messages where they were, as a Claude Code, Codex or Copilot CLI note
    keeps what the person went back on, and a notice before the prompt typed after it says
    the person went back. A rewind to an id no longer there goes back to the start
    (FORMATS.md §6.1): the prompt written after it is marked too, and a message coming
    again with an id left behind is a new one."""
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    chat = conversation()
    chat.user("A prompt that was rewound")
    chat.gemini("An answer that was rewound")
    after = {"id": "after", "type": "user", "content": "Try it another way",
             "timestamp": "2026-05-01T11:00:00Z"}  # fmt: skip
    reply = {"id": "reply", "type": "gemini", "content": "Another way.",
             "timestamp": "2026-05-01T11:00:05Z"}  # fmt: skip
    files = chat.write_jsonl(chats, extra_lines=[
        {"$rewindTo": chat.messages[-2]["id"]}, after, reply, {"$rewindTo": "not-there"}, after,
    ])  # fmt: skip
    (session,), _ = load_all(tmp_path)
    said = [
        "notice"
        if m.parts[0].kind == "notice"
        else f"{m.role}: {next(p.text for p in m.parts if p.kind == 'text')}"
        for m in session.messages
        if any(p.kind in ("notice", "text") for p in m.parts)
    ]
    assert said == [
        "user: Add a /health endpoint to `server.py`", "assistant: I'll read the server first.",
        "assistant: Done: `GET /health` returns 200.", "user: A prompt that was rewound",
        "assistant: An answer that was rewound", "notice", "user: Try it another way",
        "assistant: Another way.", "notice", "user: Try it another way",
    ]  # fmt: skip
    assert {p.notice for m in session.messages for p in m.parts if p.kind == "notice"} == {
        "rewound"
    }
    # a long session is read again from its lines (StreamedRecords): the same messages
    streamed = read_chat([files], [], index=True)
    again = build_messages(streamed, files, []).messages
    assert [[p.kind for p in m.parts] for m in again] == [
        [p.kind for p in m.parts] for m in session.messages
    ]


def test_notices_errors_and_failed_tools(tmp_path):
    chat = GeminiChat(SID)
    chat.user([{"text": "Run the tests"}])
    chat.gemini(
        "",
        calls=[
            tool_call(
                "sh-1", "run_shell_command", {"command": "pytest"}, error="Tool execution denied"
            )
        ],
    )
    chat.notice("info", "Switched to fallback model")
    chat.notice("error", "[API Error: quota exceeded]")
    chat.notice("warning", "Model fell back to flash")
    chat.write_jsonl(project_folder(tmp_path, ROOT, "api") / "chats")
    (session,), _ = load_all(tmp_path)
    (result,) = parts(session, "tool_result")
    assert result.is_error and result.output == "Tool execution denied"
    notices = [(p.notice, p.text, p.app) for p in parts(session, "notice")]
    assert notices == [
        ("notification", "Switched to fallback model", False),
        ("error", "[API Error: quota exceeded]", True),  # (a UI notice: not only the API's)
        ("warning", "Model fell back to flash", False),
    ]


def test_a_cancelled_call_is_shown_as_cancelled_not_as_a_failure(tmp_path):
    """A call of status ``cancelled`` did not run, or not to its end: with no result, or
    with the text the CLI returned to the model in place of one. It was a failed call,
    "(error)", counted in ``errors``, and a cancelled write put its path into ``files``."""
    chat = GeminiChat(SID, ROOT)
    chat.user("Wait a bit, then write the notes")
    declined = tool_call(
        "w-1", "write_file", {"file_path": f"{ROOT}/NOTES.md", "content": "# Notes"},
        error="[Operation Cancelled] Reason: User did not allow tool call",
    )  # fmt: skip
    declined["status"] = "cancelled"
    chat.gemini(
        "",
        calls=[
            tool_call("sh-1", "run_shell_command", {"command": "sleep 100"}, status="cancelled"),
            declined,
        ],
    )
    chat.write_jsonl(project_folder(tmp_path, ROOT, "api") / "chats")
    (session,), _ = load_all(tmp_path)
    got = [(p.call_id, p.output, p.is_error, p.not_run) for p in parts(session, "tool_result")]
    assert got == [
        ("sh-1", "", False, "cancelled"),
        ("w-1", "[Operation Cancelled] Reason: User did not allow tool call", False, "cancelled"),
    ]
    export(tmp_path, tmp_path / "vault")
    (note,) = note_files(tmp_path / "vault").values()
    text = note.decode()
    assert "> [!note]- `run_shell_command` — `sleep 100` (cancelled)\n" in text
    assert "> [!note]- `write_file` — `/home/dev/work/api/NOTES.md` (cancelled)\n" in text
    assert "[!failure]" not in text and "(error)" not in text
    assert "\nerrors: 0\n" in text and "\nfiles:" not in text


def test_referenced_file_contents_are_not_the_prompt_and_images_are_kept(tmp_path):
    chat = GeminiChat(SID)
    typed = "Explain @notes.md — ünïcödé and 日本語"
    chat.user(
        [
            {"text": typed},
            {
                "text": "\n--- Content from referenced files ---\nContent from @notes.md:\nsecret plan\n"
                "--- End of content ---"
            },
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
        ]
    )
    chat.gemini("It is a plan.")
    chat.write_jsonl(project_folder(tmp_path, ROOT, "api") / "chats")
    (session,), _ = load_all(tmp_path)
    assert texts(session, "user") == [typed]
    # the file as the CLI read it is the prompt's attachment, named by its path (as a Cline
    # prompt's attached file): the note showed neither it nor that it was sent
    attached, image = parts(session, "attachment")
    assert (attached.media_type, attached.name, attached.data) == (
        "text/plain", "notes.md", b"secret plan"
    )  # fmt: skip
    assert (image.media_type, image.data) == ("image/png", b"\x89PNG\r\n\x1a\n")


def test_display_content_is_what_the_person_typed(tmp_path):
    chat = GeminiChat(SID)
    chat.user("expanded for the model", displayContent="/review src/")
    chat.gemini("Reviewing.")
    # displayContent is a PartListUnion, as content is: a Part list too
    chat.user([{"text": "Review every file for:\n- naming"}],
              displayContent=[{"text": "/check naming"}])  # fmt: skip
    chat.gemini("Checking.")
    chat.write_jsonl(project_folder(tmp_path, ROOT, "api") / "chats")
    (session,), _ = load_all(tmp_path)
    assert texts(session, "user") == ["/review src/", "/check naming"]


def test_project_from_marker_registry_or_hash(tmp_path):
    win_root = "C:\\Users\\dev\\work\\win-app"
    conversation("aaaaaaaa-0000-4000-8000-000000000001").write_jsonl(
        project_folder(tmp_path, "/home/dev/work/marked", "marked", registry=False, marker=True)
        / "chats"
    )
    # an old folder named by the hash: the root is found among tool-call paths
    hashed = tmp_path / ".gemini" / "tmp" / project_hash(win_root) / "chats"
    chat = GeminiChat("bbbbbbbb-0000-4000-8000-000000000002", win_root)
    chat.user("Fix the build")
    chat.gemini(
        "",
        calls=[
            tool_call(
                "r-1", "read_file", {"file_path": win_root + "\\src\\main.rs"}, "fn main() {}"
            )
        ],
    )
    chat.write_jsonl(hashed)
    # a slug with no registry entry, no marker and no path to hash: the slug is the project
    orphan = GeminiChat("cccccccc-0000-4000-8000-000000000003", "/nowhere")
    orphan.user("Hello")
    orphan.gemini("Hi")
    orphan.write_jsonl(project_folder(tmp_path, "/nowhere", "orphan-2", registry=False) / "chats")
    by_id = {s.session_id[:8]: s for s in load_all(tmp_path)[0]}
    assert (by_id["aaaaaaaa"].cwd, by_id["aaaaaaaa"].project) == ("/home/dev/work/marked", "marked")
    assert (by_id["bbbbbbbb"].cwd, by_id["bbbbbbbb"].project) == (win_root, "win-app")
    assert (by_id["cccccccc"].cwd, by_id["cccccccc"].project) == (None, "orphan-2")


def test_a_hashed_folder_is_named_by_the_sessions_directories(tmp_path):
    root = "/home/dev/work/ünï-app"
    chat = GeminiChat(SID, root)
    chat.user("Hello")
    chat.gemini("Hi")
    path = chat.write_jsonl(tmp_path / ".gemini" / "tmp" / project_hash(root) / "chats")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0]) | {"directories": ["/elsewhere", root]}
    path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    (session,), _ = load_all(tmp_path)
    assert (session.cwd, session.project) == (root, "ünï-app")


def test_subagent_is_its_own_note_linked_both_ways(tmp_path):
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    chat = GeminiChat(SID)
    chat.user("Investigate the auth module")
    chat.gemini(
        "",
        calls=[
            tool_call(
                "inv-1",
                "codebase_investigator",
                {"objective": "auth"},
                "Subagent finished: tokens are not rotated.",
                agent_id="agent-7f3",
            )
        ],
    )
    chat.gemini("Tokens are not rotated.")
    chat.write_jsonl(chats)
    child = GeminiChat("agent-7f3", kind="subagent")
    child.user("Investigate auth")
    child.gemini("Looking at `auth.py`.")
    child.write_jsonl(chats / SID, "agent-7f3.jsonl")
    sessions, _ = load_all(tmp_path)
    parent, kid = sessions
    assert kid.session_id == f"{SID}/agent-agent-7f3"
    assert (kid.parent_id, kid.agent_label, kid.project) == (SID, "Codebase_Investigator", "api")
    assert parent.subagent_ids == (kid.session_id,)
    assert parts(parent, "tool_call")[0].subagent_id == kid.session_id
    vault = tmp_path / "vault"
    export(tmp_path, vault)
    notes = {Path(rel).stem: b.decode() for rel, b in note_files(vault).items()}
    kid_stem = next(s for s, t in notes.items() if "parent:" in t)
    parent_stem = next(s for s in notes if s != kid_stem)
    assert f"[[{kid_stem}" in notes[parent_stem] and f"[[{parent_stem}]]" in notes[kid_stem]


def test_an_empty_subagent_file_is_not_linked(tmp_path):
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    chat = GeminiChat(SID)
    chat.user("Investigate")
    chat.gemini("", calls=[tool_call("inv-1", "investigator", {}, "nothing", agent_id="agent-0")])
    chat.write_jsonl(chats)
    GeminiChat("agent-0", kind="subagent").write_jsonl(chats / SID, "agent-0.jsonl")
    (parent,), _ = load_all(tmp_path)
    assert parent.subagent_ids == () and parts(parent, "tool_call")[0].subagent_id is None


def test_saved_chat_is_a_note_titled_by_its_tag_linked_to_its_session(tmp_path):
    folder = project_folder(tmp_path, ROOT, "api")
    conversation().write_jsonl(folder / "chats")
    history = setup_turns(ROOT) + [
        {"role": "user", "parts": [{"text": "Add a /health endpoint to `server.py`"}]},
        {
            "role": "model",
            "parts": [
                {"text": "Weighing options", "thought": True},
                {"text": "I'll read the server first."},
                {"functionCall": {"name": "read_file", "args": {"file_path": "server.py"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "read_file", "response": {"output": "app = Flask()"}}}
            ],
        },
    ]
    write_checkpoint(folder, "health v1/ü", history)
    sessions, problems = load_all(tmp_path)
    assert problems == []
    saved = next(s for s in sessions if "/checkpoint/" in s.session_id)
    assert (saved.title, saved.forked_from, saved.project) == ("health v1/ü", SID, "api")
    assert texts(saved, "user") == ["Add a /health endpoint to `server.py`"]  # no setup turn
    # no times of its own: its prompt's time in the session, to the end of that turn
    assert saved.started_at.isoformat() == "2026-05-01T10:00:01+00:00"
    assert saved.messages[0].timestamp == saved.started_at
    assert saved.ended_at.isoformat() == "2026-05-01T10:00:03+00:00"
    assert [p.text for p in parts(saved, "thinking")] == ["Weighing options"]
    (call,), (result,) = parts(saved, "tool_call"), parts(saved, "tool_result")
    assert call.call_id == result.call_id and result.output == "app = Flask()"
    vault = tmp_path / "vault"
    export(tmp_path, vault)
    note = next(t.decode() for r, t in note_files(vault).items() if "health v1" in r)
    assert "forked_from:" in note
    # a copy of the session's start, not a fork that leaves that start to the session's note
    assert saved.saved_copy and "\n> Saved from [[" in note and "Forked from" not in note


def test_a_saved_chat_ends_where_its_own_last_prompts_turn_ended(tmp_path):
    """Saved after the first prompt, in a session that went on: the saved chat ends with
    that prompt's turn, not with the session's last (the demo's checkpoint read 14:05 →
    14:09, the end of a turn it does not hold)."""
    folder = project_folder(tmp_path, ROOT, "api")
    chat = conversation()
    chat.user("Now add a test for it")
    chat.gemini("Added `test_health`.")
    chat.write_jsonl(folder / "chats")
    history = setup_turns(ROOT) + [
        {"role": "user", "parts": [{"text": "Add a /health endpoint to `server.py`"}]},
        {"role": "model", "parts": [{"text": "Done: `GET /health` returns 200."}]},
    ]
    write_checkpoint(folder, "first", history)
    sessions, _ = load_all(tmp_path)
    whole = next(s for s in sessions if "/checkpoint/" not in s.session_id)
    saved = next(s for s in sessions if "/checkpoint/" in s.session_id)
    assert saved.started_at.isoformat() == "2026-05-01T10:00:01+00:00"
    assert saved.ended_at.isoformat() == "2026-05-01T10:00:03+00:00"
    assert whole.ended_at > saved.ended_at


def test_a_saved_chat_matching_no_session_stands_alone(tmp_path):
    folder = project_folder(tmp_path, ROOT, "api")
    history = [
        {"role": "user", "parts": [{"text": "Something never logged"}]},
        {"role": "model", "parts": [{"text": "Sure."}]},
    ]
    path = write_checkpoint(folder, "alone", history, bare=True)
    os.utime(path, (1780000000, 1780000000))
    (saved,), _ = load_all(tmp_path)
    assert saved.forked_from is None and texts(saved) == ["Something never logged", "Sure."]
    assert saved.started_at.timestamp() == saved.ended_at.timestamp() == 1780000000


def test_prompt_log_gives_notes_only_for_sessions_without_a_chat_file(tmp_path):
    folder = project_folder(tmp_path, ROOT, "api")
    conversation().write_jsonl(folder / "chats")
    gone = "dddddddd-0000-4000-8000-000000000004"
    write_prompt_log(
        folder,
        [
            (SID, "2026-05-01T10:00:01Z", "Add a /health endpoint to `server.py`"),
            (gone, "2026-04-01T09:00:00Z", "Why does the build fail on Windows?"),
            (gone, "2026-04-01T09:05:00Z", "/chat save build"),
            (gone, "2026-04-01T09:06:00Z", "!git status"),
        ],
    )
    sessions, _ = load_all(tmp_path)
    assert sorted(s.session_id for s in sessions) == sorted([SID, gone])
    pruned = next(s for s in sessions if s.session_id == gone)
    assert texts(pruned, "user") == ["Why does the build fail on Windows?"]
    commands = [(p.command, p.shell) for p in parts(pruned, "command")]
    assert commands == [("/chat save build", False), ("git status", True)]
    assert parts(pruned, "notice")[0].text.startswith("Only the prompts remain")
    adapter = GeminiAdapter()
    counts = {
        r.fact("kind"): adapter.count_sessions(r)
        for r in adapter.discover(SourceContext(tmp_path, {}, False))
    }
    assert counts == {"chat": 1, "logs": 1}  # the session with a chat file is counted once
    assert (pruned.started_at.isoformat(), pruned.project) == ("2026-04-01T09:00:00+00:00", "api")


def test_half_written_prompt_log_and_checkpoint_are_retried(tmp_path):
    folder = project_folder(tmp_path, ROOT, "api")
    write_prompt_log(folder, [("s-1", "2026-04-01T09:00:00Z", "A prompt")])
    log = folder / "logs.json"
    log.write_text(log.read_text()[:20])
    saved = write_checkpoint(folder, "tag", [{"role": "user", "parts": [{"text": "Saved"}]}])
    saved.write_text(saved.read_text()[:15])
    sessions, problems = load_all(tmp_path)
    assert sessions == []
    assert sorted((Path(p.path).name, p.severity) for p in problems) == [
        ("checkpoint-tag.json", "error"),
        ("logs.json", "error"),
    ]
    assert all("read again next run" in p.message for p in problems)


def test_half_written_document_is_retried_and_bad_lines_are_reported(tmp_path):
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    legacy = conversation("eeeeeeee-0000-4000-8000-000000000005").write_json(chats)
    legacy.write_text(legacy.read_text()[:200], encoding="utf-8")
    live = conversation().write_jsonl(chats)
    with open(live, "a", encoding="utf-8") as f:
        f.write('{"id": "x", "type": "user", "content": "half')
    lines = live.read_text().split("\n")
    lines.insert(2, "{not json")
    lines.insert(3, "[1, 2]")
    lines.insert(4, json.dumps({"id": "z", "type": "brand_new", "content": "?"}))
    live.write_text("\n".join(lines))
    sessions, problems = load_all(tmp_path)
    assert [s.session_id for s in sessions] == [SID]
    assert texts(sessions[0], "user") == ["Add a /health endpoint to `server.py`"]
    found = [(Path(p.path).name, p.line, p.severity, p.message) for p in problems]
    expected = [
        (legacy.name, None, "error", "not complete JSON, perhaps being saved right now"),
        (live.name, 3, "warning", "not valid JSON"),
        (live.name, 4, "warning", "not a JSON object, line skipped"),
        (live.name, 5, "warning", 'unknown message type "brand_new" skipped'),
        (live.name, len(lines), "warning", UNFINISHED_LAST_LINE),
    ]
    assert len(found) == len(expected)
    for (name, line, severity, message), want in zip(
        sorted(found, key=str), sorted(expected, key=str), strict=True
    ):
        assert (name, line, severity) == want[:3] and message.startswith(want[3]), message


def test_a_half_written_file_is_exported_on_the_next_run(tmp_path):
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    path = conversation().write_json(chats)
    whole = path.read_text()
    path.write_text(whole[:150])
    vault = tmp_path / "vault"
    first = export(tmp_path, vault)
    assert first.failed and note_files(vault) == {}
    path.write_text(whole)
    second = export(tmp_path, vault)
    assert not second.failed and second.total("created") == 1


def test_a_non_chat_document_is_skipped_with_a_reason(tmp_path):
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    (chats / "session-2026-05-01T10-00-ffffffff.json").write_text('{"history": []}')
    sessions, problems = load_all(tmp_path)
    assert sessions == []
    assert [p.message for p in problems] == ["not a Gemini CLI chat (no messages list); skipped"]


def test_export_then_unchanged_rerun_reads_nothing(tmp_path, monkeypatch):
    folder = project_folder(tmp_path, ROOT, "api")
    conversation().write_jsonl(folder / "chats")
    write_checkpoint(folder, "tag", [{"role": "user", "parts": [{"text": "Saved prompt"}]}])
    write_prompt_log(folder, [("gone-session", "2026-04-01T09:00:00Z", "Lost prompt")])
    vault = tmp_path / "vault"
    report = export(tmp_path, vault)
    assert report.total("created") == 3
    body = normalize("\n".join(b.decode() for b in note_files(vault).values()))
    for text in (
        "Add a /health endpoint to `server.py`",
        "Done: `GET /health` returns 200.",
        "Saved prompt",
        "Lost prompt",
    ):
        assert normalize(text, escaped=False) in body
    loads = []
    real_load = GeminiAdapter.load
    monkeypatch.setattr(
        GeminiAdapter, "load", lambda self, ref: loads.append(ref) or real_load(self, ref)
    )
    again = export(tmp_path, vault)
    assert loads == [] and again.total("skipped") == 3 and again.total("written") == 0


def test_retention_is_not_ours_to_apply(tmp_path):
    """Old files are exported whatever their age: pruning is the CLI's business."""
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    path = GeminiChat(SID, start="2024-01-01T00:00:00Z")
    path.user("An old question")
    path.gemini("An old answer")
    written = path.write_jsonl(chats)
    os.utime(written, (0, 0))
    (session,), _ = load_all(tmp_path)
    assert session.started_at.year == 2024


def marked_chat() -> list[dict]:
    """A JSONL chat whose every line with text carries its own marker word."""
    chat = GeminiChat(SID)
    chat.user("Prompt mk1x")
    chat.gemini(
        "Reply mk2x",
        thoughts=[{"subject": "Thought mk3x", "description": "Why mk4x"}],
        calls=[
            tool_call("c1", "run_shell_command", {"command": "echo mk5x"}, "Out mk6x"),
            tool_call("c2", "read_file", {"file_path": "/a/mk7x.txt"}, "Text mk8x"),
        ],
    )
    chat.notice("error", "Error mk9x")
    chat.user([{"text": "Second prompt mk10x"}])
    chat.gemini("Second reply mk11x")
    return [chat.meta(), *chat.messages, {"$set": {"summary": "Title mk12x"}}]


def rendered(home: Path) -> str:
    from exporter.notes import NoteSettings, build_note

    out = []
    for session in load_all(home)[0]:
        note = build_note(session, "n.md", NoteSettings(), lambda key: None)
        out.append(note.body + json.dumps(note.frontmatter, default=str))
    return "\n".join(out)


def write_marked(home: Path, records: list) -> None:
    chats = project_folder(home, ROOT, "api") / "chats"
    (chats / "session-2026-05-01T10-00-3f2a9c1e.jsonl").write_bytes(lines(records))


def test_every_marker_of_the_undamaged_chat_reaches_a_note(tmp_path):
    records = marked_chat()
    write_marked(tmp_path, records)
    assert set(MARKER.findall(rendered(tmp_path))) == markers_of(records)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_one_damaged_line_costs_at_most_itself(data):
    records = marked_chat()
    index, bad = data.draw(damaged(records))
    with tempfile.TemporaryDirectory() as tmp:
        write_marked(Path(tmp), [*records[:index], bad, *records[index + 1 :]])
        text = rendered(Path(tmp))  # never raises
    if index == 0:
        # The header names the session: without it the session waits, said, rather than
        # take a second identity (a note kept after the repair).
        assume(False)
    others = markers_of(records[:index] + records[index + 1 :]) - markers_of([records[index]])
    assert not others - set(MARKER.findall(text)), index


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_one_damaged_value_in_a_legacy_document_costs_at_most_its_message(data):
    meta, *messages, _ = marked_chat()
    records = [meta, *messages]
    index, bad = data.draw(damaged(records))
    assume(not isinstance(bad, bytes))  # a garbled document is retried whole (tested above)
    with tempfile.TemporaryDirectory() as tmp:
        chats = project_folder(Path(tmp), ROOT, "api") / "chats"
        doc = bad if index == 0 else meta
        if isinstance(doc, dict):
            doc = {
                **doc,
                "messages": [bad if i == index else m for i, m in enumerate(records) if i],
            }
        text = json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")
        (chats / "session-2026-05-01T10-00-3f2a9c1e.json").write_bytes(text)
        shown = rendered(Path(tmp))  # never raises
    if index == 0 and not isinstance(bad, dict):
        return  # no document left: reported as not a chat
    others = markers_of(records[:index] + records[index + 1 :]) - markers_of([records[index]])
    assert not others - set(MARKER.findall(shown)), index


def test_a_number_past_64_bits_in_a_tool_result_is_shown_not_fatal(tmp_path):
    """A legacy document is read by the lenient parser, which keeps such a number: the
    result is written back as JSON by the json module where orjson cannot."""
    meta, *messages, _ = marked_chat()
    big = 10**400  # past a float too: orjson cannot read it, the lenient parser keeps it
    call = messages[1]["toolCalls"][1]
    call["result"][0]["functionResponse"]["response"] = {"output": big}
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    doc = {**meta, "messages": messages}
    (chats / "session-2026-05-01T10-00-3f2a9c1e.json").write_text(json.dumps(doc))
    shown = rendered(tmp_path)
    assert f'{{"output":{big}}}' in shown
    assert {"mk1x", "mk2x", "mk6x", "mk11x"} <= set(MARKER.findall(shown))


def test_an_image_a_tool_returned_is_an_attachment(tmp_path):
    """A tool's ``result`` Part list can hold ``inlineData`` next to its
    ``functionResponse`` (``read_file`` of an image): it was dropped."""
    png = b"\x89PNG\r\n\x1a\n" + b"\2" * 8
    call = tool_call("rf-1", "read_file", {"absolute_path": "/w/logo.png"}, "Read image file")
    call["result"].append({"inlineData": {"mimeType": "image/png",
                                          "data": base64.b64encode(png).decode()}})  # fmt: skip
    chat = GeminiChat(SID)
    chat.user("What is in logo.png?")
    chat.gemini("", calls=[call])
    chat.gemini("A blue square.")
    chat.write_jsonl(project_folder(tmp_path, ROOT, "api") / "chats")
    (session,), _ = load_all(tmp_path)
    (result,) = parts(session, "tool_result")
    (image,) = parts(session, "attachment")
    assert (result.output, image.media_type, image.data) == ("Read image file", "image/png", png)


def test_an_image_a_tool_returned_in_a_saved_chat_is_not_a_prompt(tmp_path):
    """In a ``/chat save`` checkpoint a tool's response is a ``user`` Content; an image next
    to it (``read_file`` of a PNG) made that Content read as the person's prompt."""
    folder = project_folder(tmp_path, ROOT, "api")
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
    write_checkpoint(folder, "logo", [
        {"role": "user", "parts": [{"text": "What is in logo.png?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "read_file",
                                                      "args": {"file_path": "logo.png"}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "read_file", "response": {"output": "Read image"}}},
            {"inlineData": {"mimeType": "image/png", "data": png}}]},
        {"role": "model", "parts": [{"text": "A blue square."}]},
    ])  # fmt: skip
    (saved,), _ = load_all(tmp_path)
    assert [m.role for m in saved.messages] == ["user", "assistant", "tool", "assistant"]
    assert [p.kind for p in saved.messages[2].parts] == ["tool_result", "attachment"]


def test_the_cli_s_own_please_continue_is_not_the_person_s_prompt(tmp_path, monkeypatch):
    """When its next-speaker check finds the model should go on, Gemini CLI sends "Please
    continue." itself, recorded as a user message: it was the person's prompt. The prompt
    log (logs.json) holds what the person typed; a "Please continue." it does not hold (at
    that time) is the CLI's. Without a log nothing is taken for the CLI's."""
    folder = project_folder(tmp_path, ROOT, "api")
    chat = GeminiChat(SID)
    first = chat.user("Summarise the API")
    chat.gemini("It has three endpoints, and")
    chat.user("Please continue.")  # the CLI's, two seconds later
    chat.gemini("one of them is /health.")
    typed = chat.user("Please continue.", timestamp=chat.stamp(30))  # the person's
    chat.gemini("That is all.")
    chat.write_jsonl(folder / "chats")
    (session,), _ = load_all(tmp_path)
    assert texts(session, "user") == ["Summarise the API", "Please continue.", "Please continue."]
    write_prompt_log(folder, [(SID, first["timestamp"], "Summarise the API"),
                              (SID, typed["timestamp"], "Please continue.")])  # fmt: skip
    (session,), _ = load_all(tmp_path)
    assert texts(session, "user") == ["Summarise the API", "Please continue."]
    (said,) = [m for m in session.messages if texts_of(m) == ["Please continue."]]
    assert said.source_id == typed["id"]
    monkeypatch.setattr(gemini_adapter, "STREAM_FROM", 0)  # read again when iterated
    (session,), _ = load_all(tmp_path)
    assert session.is_streamed
    assert texts(session, "user") == ["Summarise the API", "Please continue."]


def texts_of(message) -> list[str]:
    return [p.text for p in message.parts if p.kind == "text"]


def test_an_image_sent_alone_as_one_part_is_the_prompt(tmp_path):
    """``content`` may be one Part, not a list (FORMATS.md §6.1): an image sent alone was
    lost with the whole prompt, and the note opened on the reply."""
    png = b"\x89PNG\r\n\x1a\n" + b"\3" * 8
    chat = GeminiChat(SID)
    chat.user({"inlineData": {"mimeType": "image/png", "data": base64.b64encode(png).decode()}})
    chat.gemini("A red square.")
    chat.write_jsonl(project_folder(tmp_path, ROOT, "api") / "chats")
    (session,), _ = load_all(tmp_path)
    assert [m.role for m in session.messages] == ["user", "assistant"]
    (image,) = parts(session, "attachment")
    assert (image.media_type, image.data) == ("image/png", png)


def test_the_tool_use_prompts_tokens_are_counted_as_input(tmp_path):
    """``tokens.tool`` (the tool-use prompt) is part of ``total`` and not of ``input``: the
    note's totals fell short of the file's own by it."""
    chat = GeminiChat(SID)
    chat.user("list the files")
    tokens = {"input": 100, "output": 10, "cached": 20, "thoughts": 5, "tool": 50, "total": 165}
    chat.gemini("Three files.", tokens=tokens)
    chat.write_jsonl(project_folder(tmp_path, ROOT, "api") / "chats")
    (session,), _ = load_all(tmp_path)
    usage = session.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (130, 20, 15)
    assert usage.input_tokens + usage.cache_read_tokens + usage.output_tokens == tokens["total"]


def test_a_session_in_several_files_starts_with_its_first(tmp_path):
    """Several files can hold one session, each with its own ``startTime``: the last file
    read gave the note its date (two days after its first prompt)."""
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    first = GeminiChat(SID, start="2026-05-01T10:00:00Z")
    first.user("day one")
    first.gemini("ok")
    first.write_jsonl(chats)
    later = GeminiChat(SID, start="2026-05-03T09:00:00Z")
    later.user("day three")
    later.gemini("ok again")
    for n, message in enumerate(later.messages):
        message["id"] = f"later-{n}"  # (the builder numbers each file's messages from 1)
    later.write_jsonl(chats)
    (session,), _ = load_all(tmp_path)
    assert texts(session, "user") == ["day one", "day three"]
    assert session.started_at.isoformat() == "2026-05-01T10:00:01+00:00"
    assert session.ended_at >= session.messages[-1].timestamp


def test_an_unknown_message_type_is_reported_where_it_first_appears(tmp_path):
    """The warning gives the line of a JSONL chat, or the message number of a document,
    where the type first appears, and how many there were."""
    chats = project_folder(tmp_path, ROOT, "api") / "chats"
    live = conversation().write_jsonl(chats)
    lines = live.read_text().splitlines()
    hologram = {"type": "hologram", "content": "?", "timestamp": "2026-05-01T10:00:09Z"}
    lines[2:2] = [json.dumps({**hologram, "id": f"h{i}"}) for i in range(3)]
    live.write_text("\n".join(lines) + "\n")
    legacy = conversation("eeeeeeee-0000-4000-8000-000000000005").write_json(chats)
    doc = json.loads(legacy.read_text())
    doc["messages"].insert(1, {**hologram, "id": "d1"})
    legacy.write_text(json.dumps(doc))
    _, problems = load_all(tmp_path)
    assert sorted((Path(p.path).name, p.line, p.message) for p in problems) == [
        (live.name, 3, 'unknown message type "hologram" (3 messages, the first here) skipped'),
        (legacy.name, None, 'unknown message type "hologram" (message 2) skipped'),
    ]


def test_a_project_folder_named_chats_keeps_its_saved_chats_log_and_count(tmp_path):
    """The CLI names a project's folder by the slug of its root's name: a repository called
    "chats" gets ``tmp/chats/``, with its own ``chats/`` inside. Its saved chat and prompt log
    were taken as files of a chat folder: filed under a project "tmp", the saved chat not
    linked to its session, and the log's prompts of the session with a chat file made a
    second copy of it (which the run skipped, warning that it was already exported)."""
    root = "/home/dev/work/chats"
    folder = project_folder(tmp_path, root, "chats")
    chat = conversation(root=root)
    chat.gemini("", calls=[tool_call("inv-1", "investigator", {}, "done", agent_id="agent-7")])
    chat.write_jsonl(folder / "chats")
    child = GeminiChat("agent-7", root, kind="subagent")
    child.user("Look around")
    child.gemini("Looked.")
    child.write_jsonl(folder / "chats" / SID, "agent-7.jsonl")
    history = setup_turns(root) + [
        {"role": "user", "parts": [{"text": "Add a /health endpoint to `server.py`"}]},
        {"role": "model", "parts": [{"text": "Done: `GET /health` returns 200."}]},
    ]
    write_checkpoint(folder, "first", history)
    gone = "dddddddd-0000-4000-8000-000000000004"
    write_prompt_log(
        folder,
        [
            (SID, "2026-05-01T10:00:01Z", "Add a /health endpoint to `server.py`"),
            (gone, "2026-04-01T09:00:00Z", "Why does the build fail on Windows?"),
        ],
    )
    sessions, problems = load_all(tmp_path)
    assert problems == []
    got = sorted((s.session_id, s.project, s.cwd, s.forked_from) for s in sessions)
    assert got == [
        (SID, "chats", root, None),
        (f"{SID}/agent-agent-7", "chats", root, None),
        ("chats/checkpoint/first", "chats", root, SID),
        (gone, "chats", root, None),
    ]
    saved = next(s for s in sessions if "/checkpoint/" in s.session_id)
    assert saved.started_at.isoformat() == "2026-05-01T10:00:01+00:00"  # its session's time
    from exporter.sources import list_sources

    (row,) = list_sources(tmp_path, ["gemini"])
    report = export(tmp_path, tmp_path / "vault")
    assert row.sessions == report.per_source["gemini"].created == 4
    assert report.problems == []
    assert len(note_files(tmp_path / "vault")) == 4


def test_an_image_whose_base64_is_damaged_is_said_and_the_rest_kept(tmp_path):
    """An ``inlineData`` whose ``data`` is not base64 (a damaged or cut file) was left out in
    silence, in a prompt, a tool's result and a saved chat alike."""
    png = b"\x89PNG\r\n\x1a\n" + b"\4" * 8
    good = {"inlineData": {"mimeType": "image/png", "data": base64.b64encode(png).decode()}}
    bad = {"inlineData": {"mimeType": "image/jpeg", "data": "%%%not base64%%%"}}
    call = tool_call("rf-1", "read_file", {"absolute_path": "/w/a.jpg"}, "Read image file")
    call["result"].append(dict(bad))
    chat = GeminiChat(SID)
    chat.user([{"text": "What is in these?"}, bad, good])
    chat.gemini("", calls=[call])
    chat.gemini("Two pictures.")
    folder = project_folder(tmp_path, ROOT, "api")
    chat.write_jsonl(folder / "chats")
    write_checkpoint(folder, "pics", [
        {"role": "user", "parts": [{"text": "And this one?"}, bad]},
        {"role": "model", "parts": [{"text": "I cannot see it."}]},
    ])  # fmt: skip
    sessions, problems = load_all(tmp_path)
    session = next(s for s in sessions if texts(s, "user") == ["What is in these?"])
    (image,) = parts(session, "attachment")  # the valid one, the prompt's text, the result
    assert (image.media_type, image.data) == ("image/png", png)
    assert [p.output for p in parts(session, "tool_result")] == ["Read image file"]
    said = [p.message for p in problems]
    damaged = "inlineData (image/jpeg) whose data is not valid base64: left out"
    assert sum(damaged in m for m in said) == 3, said
    assert any(m.startswith("turn 1:") and damaged in m for m in said)
    assert any("tool call 1's result: part 2" in m for m in said)


def test_valid_images_say_nothing(tmp_path):
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
    chat = GeminiChat(SID)
    chat.user([{"text": "See"}, {"inlineData": {"mimeType": "image/png", "data": png}}])
    chat.gemini("A picture.")
    chat.write_jsonl(project_folder(tmp_path, ROOT, "api") / "chats")
    _sessions, problems = load_all(tmp_path)
    assert problems == []
