"""Antigravity CLI adapter: transcript steps into prompts, replies, tool calls and their
outputs, compaction, injected steps dropped, the workspace from the cache, bad input."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC
from pathlib import Path

from conftest import load_sessions, normalize, note_files, texts
from fuzz_lines import MARKER, damaged, lines, markers_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exporter.adapters._jsonl import UNFINISHED_LAST_LINE
from exporter.adapters.antigravity import AntigravityAdapter
from exporter.export import ExportOptions, run_export

CID = "5b6c7d8e-1f2a-4b3c-9d4e-5f6a7b8c9d0e"
ROOT = Path(".gemini") / "antigravity-cli"


def step(index: int, kind: str, source: str = "MODEL", **fields) -> dict:
    return {
        "step_index": index,
        "source": source,
        "type": kind,
        "status": "DONE",
        "created_at": f"2026-07-01T10:00:{index:02d}Z",
        **fields,
    }


def transcript(home: Path, steps: list, conversation: str = CID, tail: str = "") -> Path:
    path = home / ROOT / "brain" / conversation / ".system_generated" / "logs" / "transcript.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in steps) + tail, encoding="utf-8"
    )
    return path


def session_steps() -> list:
    return [
        step(
            0,
            "USER_INPUT",
            "USER_EXPLICIT",
            content="<USER_REQUEST>\nList the files in the repo — ünï\n</USER_REQUEST>\n"
            "<USER_SETTINGS_CHANGE>\nThe user changed setting `Model Selection` from "
            "None to Gemini 3.5 Flash (Medium).\n</USER_SETTINGS_CHANGE>",
        ),
        step(1, "CONVERSATION_HISTORY", "SYSTEM"),
        step(
            2,
            "PLANNER_RESPONSE",
            thinking="Listing first.",
            tool_calls=[
                {
                    "name": "list_dir",
                    "args": {"DirectoryPath": '"/tmp/repo"', "toolSummary": '"Listing"'},
                },
                {"name": "view_file", "args": {"AbsolutePath": '"/tmp/repo/a.txt"'}},
            ],
        ),
        step(3, "LIST_DIRECTORY", content="a.txt\nb.txt\n"),
        step(4, "VIEW_FILE", content="1: hello\n", truncated_fields=["content"]),
        step(5, "RUN_COMMAND", content="Output:\nok\n", status="ERROR"),
        step(6, "SYSTEM_MESSAGE", "SYSTEM", content="<SYSTEM_MESSAGE>secret</SYSTEM_MESSAGE>"),
        step(7, "CHECKPOINT", "SYSTEM", content="Summary: files were listed."),
        step(8, "PLANNER_RESPONSE", content="The repo holds a.txt and b.txt."),
    ]


def parts(session, kind):
    return [p for m in session.messages for p in m.parts if p.kind == kind]


def test_steps_become_a_conversation(tmp_path):
    transcript(tmp_path, session_steps())
    (session,), problems = load_sessions(AntigravityAdapter(), tmp_path)
    assert problems == []
    assert texts(session, "user") == ["List the files in the repo — ünï"]
    assert texts(session, "assistant") == ["The repo holds a.txt and b.txt."]
    assert [p.text for p in parts(session, "thinking")] == ["Listing first."]
    assert session.models == ("Gemini 3.5 Flash (Medium)",)
    assert parts(session, "notice")[0].text.startswith("The user changed setting")
    calls = parts(session, "tool_call")
    assert [(c.name, c.input, c.description) for c in calls] == [
        ("list_dir", {"DirectoryPath": "/tmp/repo"}, "Listing"),
        ("view_file", {"AbsolutePath": "/tmp/repo/a.txt"}, None),
        ("run_command", None, None),  # an output no call announced
    ]
    results = {r.call_id: r for r in parts(session, "tool_result")}
    assert results[calls[0].call_id].output == "a.txt\nb.txt\n"
    assert results[calls[1].call_id].output == "1: hello\n[cut short in Antigravity's log]"
    assert results[calls[2].call_id].is_error
    assert [p.text for p in parts(session, "summary")] == ["Summary: files were listed."]
    assert "secret" not in " ".join(texts(session) + [r.output for r in results.values()])
    assert session.started_at.isoformat() == "2026-07-01T10:00:00+00:00"
    assert session.ended_at.isoformat() == "2026-07-01T10:00:08+00:00"


def test_workspace_from_the_cache_names_the_project(tmp_path):
    transcript(tmp_path, session_steps())
    transcript(tmp_path, session_steps(), conversation="win-1")
    cache = tmp_path / ROOT / "cache" / "last_conversations.json"
    cache.parent.mkdir(parents=True)
    cache.write_text(
        json.dumps({"/home/dev/work/api": CID, "file:///c%3A/Users/dev/win-app": {"id": "win-1"}})
    )
    sessions, _ = load_sessions(AntigravityAdapter(), tmp_path)
    by_id = {s.session_id: s for s in sessions}
    assert (by_id[CID].cwd, by_id[CID].project) == ("/home/dev/work/api", "api")
    assert (by_id["win-1"].cwd, by_id["win-1"].project) == ("c:/Users/dev/win-app", "win-app")


def test_an_older_conversation_keeps_its_workspace_when_the_cache_names_a_newer_one(tmp_path):
    """The cache names only each workspace's latest conversation: when a second one starts
    there, the first lost its folder and project (its note rewritten without them)."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    first = transcript(home, session_steps())
    cache = home / ROOT / "cache" / "last_conversations.json"
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps({"/home/dev/work/api": CID}))
    options = ExportOptions(vault=vault, home=home, sources=["antigravity"], timezone=UTC)
    run_export(options)
    (note,) = note_files(vault)
    before = (vault / note).read_text()
    assert "cwd: /home/dev/work/api" in before
    transcript(home, session_steps(), conversation="second-1")
    cache.write_text(json.dumps({"/home/dev/work/api": "second-1"}))
    report = run_export(options)
    assert (report.total("created"), report.total("updated"), report.total("skipped")) == (1, 0, 1)
    assert (vault / note).read_text() == before
    first.write_text(
        first.read_text() + json.dumps(step(20, "PLANNER_RESPONSE", content="More.")) + "\n"
    )
    run_export(options)
    after = (vault / note).read_text()
    assert "More." in after and "cwd: /home/dev/work/api" in after and "project: api" in after


def test_bad_lines_unknown_step_types_and_a_step_being_written(tmp_path):
    steps = session_steps() + [step(9, "BROWSER_NAVIGATE", content="opened https://example.com")]
    path = transcript(tmp_path, steps, tail='{"step_index": 10, "type": "PLAN')
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(1, "{broken\n")
    lines.insert(2, "[]\n")
    path.write_text("".join(lines))
    (session,), problems = load_sessions(AntigravityAdapter(), tmp_path)
    assert [(p.line, p.message[:14]) for p in problems] == [
        (2, "not valid JSON"),
        (3, "not a step (no"),
        (len(lines), UNFINISHED_LAST_LINE[:14]),  # the step being written: left for now
    ]
    assert all(p.left_out for p in problems)  # each line is named in the note as not read
    assert parts(session, "tool_call")[-1].name == "browser_navigate"


def test_export_and_unchanged_rerun(tmp_path, monkeypatch):
    transcript(tmp_path, session_steps())
    vault = tmp_path / "vault"
    options = ExportOptions(vault=vault, home=tmp_path, sources=["antigravity"], timezone=UTC)
    assert run_export(options).total("created") == 1
    body = normalize("\n".join(b.decode() for b in note_files(vault).values()))
    assert "List the files in the repo — ünï" in body and "The repo holds a.txt and b.txt." in body
    loads = []
    real = AntigravityAdapter.load
    monkeypatch.setattr(
        AntigravityAdapter, "load", lambda self, ref: loads.append(ref) or real(self, ref)
    )
    assert run_export(options).total("skipped") == 1 and loads == []


def rendered(home: Path) -> str:
    from exporter.notes import NoteSettings, build_note

    out = []
    for session in load_sessions(AntigravityAdapter(), home)[0]:
        note = build_note(session, "n.md", NoteSettings(), lambda key: None)
        out.append(note.body + json.dumps(note.frontmatter, default=str))
    return "\n".join(out)


def marked_steps() -> list:
    return [
        step(0, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nAsk mk1x\n</USER_REQUEST>"),
        step(
            1,
            "PLANNER_RESPONSE",
            thinking="Think mk2x",
            content="Say mk3x",
            tool_calls=[{"name": "run_command", "args": {"CommandLine": '"echo mk4x"'}}],
        ),
        step(2, "RUN_COMMAND", content="Output mk5x", truncated_fields=["content"]),
        step(3, "CHECKPOINT", "SYSTEM", content="Summary mk6x"),
        step(
            4, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nAgain mk7x\n</USER_REQUEST>"
        ),
        step(5, "PLANNER_RESPONSE", content="Answer mk8x"),
    ]


def test_every_marker_of_the_undamaged_transcript_reaches_a_note(tmp_path):
    records = marked_steps()
    path = transcript(tmp_path, [])
    path.write_bytes(lines(records))
    assert set(MARKER.findall(rendered(tmp_path))) == markers_of(records)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_one_damaged_step_costs_at_most_itself(data):
    records = marked_steps()
    index, bad = data.draw(damaged(records))
    with tempfile.TemporaryDirectory() as tmp:
        transcript(Path(tmp), []).write_bytes(lines([*records[:index], bad, *records[index + 1 :]]))
        text = rendered(Path(tmp))  # never raises
    others = markers_of(records[:index] + records[index + 1 :]) - markers_of([records[index]])
    assert not others - set(MARKER.findall(text)), index


def test_an_empty_output_still_answers_its_call(tmp_path):
    """A tool step with no content (an empty folder) was skipped, so the next step's output
    was paired with the call it answered: the file's contents showed under ``list_dir``."""
    transcript(tmp_path, [
        step(0, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nLook\n</USER_REQUEST>"),
        step(1, "PLANNER_RESPONSE", tool_calls=[
            {"name": "list_dir", "args": {"DirectoryPath": '"/tmp/empty"'}},
            {"name": "view_file", "args": {"AbsolutePath": '"/tmp/a.txt"'}},
        ]),
        step(2, "LIST_DIRECTORY", content=""),
        step(3, "VIEW_FILE", content="1: hello\n"),
    ])  # fmt: skip
    (session,), problems = load_sessions(AntigravityAdapter(), tmp_path)
    assert problems == []
    listing, view = parts(session, "tool_call")
    results = {r.call_id: r.output for r in parts(session, "tool_result")}
    assert results == {listing.call_id: "", view.call_id: "1: hello\n"}


def test_a_system_step_of_an_unknown_type_answers_no_call(tmp_path):
    """Any step but the known ones answered the oldest waiting call, whatever its source:
    an empty or a new kind of SYSTEM step took the answer of the model's call, and every
    later output moved to the wrong call."""
    transcript(tmp_path, [
        step(0, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nLook\n</USER_REQUEST>"),
        step(1, "PLANNER_RESPONSE", tool_calls=[
            {"name": "list_dir", "args": {"DirectoryPath": '"/tmp/w"'}},
            {"name": "view_file", "args": {"AbsolutePath": '"/tmp/w/a.txt"'}},
        ]),
        step(2, "EPHEMERAL_MESSAGE", "SYSTEM"),
        step(3, "USER_MEMORY", "SYSTEM", content="Remember: tabs, not spaces."),
        step(4, "LIST_DIRECTORY", content="a.txt\n"),
        step(5, "VIEW_FILE", content="1: hello\n"),
    ])  # fmt: skip
    (session,), problems = load_sessions(AntigravityAdapter(), tmp_path)
    listing, view = parts(session, "tool_call")
    results = {r.call_id: r.output for r in parts(session, "tool_result")}
    assert results == {listing.call_id: "a.txt\n", view.call_id: "1: hello\n"}
    assert [(n.notice, n.text) for n in parts(session, "notice")] == [
        ("notification", "Remember: tabs, not spaces.")
    ]


def _switch(old: str, new: str) -> str:
    return (
        "<USER_SETTINGS_CHANGE>\nThe user changed setting `Model Selection` from "
        f"{old} to {new}.\n</USER_SETTINGS_CHANGE>"
    )


def test_each_reply_is_the_model_s_selected_when_it_was_written(tmp_path):
    """A switch names the model that writes the replies after it (and the one before it):
    each reply carried no model, so the note's ``model`` was the first one the session
    named, whichever wrote most of it."""
    from exporter.stats import main_model

    transcript(
        tmp_path,
        [
            step(0, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nHi\n</USER_REQUEST>"),
            step(1, "PLANNER_RESPONSE", content="Hello."),
            step(2, "USER_INPUT", "USER_EXPLICIT",
                 content="<USER_REQUEST>\nPlan it\n</USER_REQUEST>\n" + _switch("Flash", "Pro")),
            step(3, "PLANNER_RESPONSE", content="Step one."),
            step(4, "PLANNER_RESPONSE", content="Step two."),
            step(5, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nGo\n</USER_REQUEST>"),
            step(6, "PLANNER_RESPONSE", content="Done."),
        ],
    )  # fmt: skip
    (session,), _ = load_sessions(AntigravityAdapter(), tmp_path)
    replies = [(m.model, m.parts[0].text) for m in session.messages if m.role == "assistant"]
    assert replies == [
        ("Flash", "Hello."), ("Pro", "Step one."), ("Pro", "Step two."), ("Pro", "Done.")
    ]  # fmt: skip
    assert session.models == ("Flash", "Pro")
    assert main_model(session) == "Pro"


def test_a_reply_cut_short_in_the_log_is_said_apart_from_the_model_s_words(tmp_path):
    """ccexport's remark is no sentence of the model's reply (review33 5)."""
    steps = session_steps()
    steps[-1] = step(8, "PLANNER_RESPONSE", content="The repo holds", truncated_fields=["content"])
    transcript(tmp_path, steps)
    (session,), _ = load_sessions(AntigravityAdapter(), tmp_path)
    assert texts(session, "assistant") == ["The repo holds"]
    last = session.messages[-1]
    assert [(p.kind, getattr(p, "notice", None)) for p in last.parts] == [
        ("text", None),
        ("notice", "remark"),
    ]
    assert last.parts[1].text.startswith("Antigravity's log cut this reply short")


def test_every_text_the_log_cut_short_is_said_so(tmp_path):
    """A prompt, thinking, a compaction summary and a harness notice listed in
    ``truncated_fields`` are marked as a reply is, apart from their words; a prompt cut
    before ``</USER_REQUEST>`` keeps what of it is there; an output cut to nothing is marked
    (review49 M1: corpus stage0-antigravity-cli_small line 18 read as a whole prompt)."""
    cut = ["content"]
    transcript(
        tmp_path,
        [
            step(0, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nList th",
                 truncated_fields=cut),
            step(1, "PLANNER_RESPONSE", thinking="Listing fi", truncated_fields=["thinking"],
                 content="Listing.", tool_calls=[{"name": "list_dir", "args": {}}]),
            step(2, "LIST_DIRECTORY", content="", truncated_fields=cut),
            step(3, "CHECKPOINT", "SYSTEM", content="Summary: fil", truncated_fields=cut),
            step(4, "EPHEMERAL_MESSAGE", "SYSTEM", content="Be bri", truncated_fields=cut),
            step(5, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nWhole\n</USER_REQUEST>",
                 truncated_fields=["thinking"]),
        ],
    )  # fmt: skip
    (session,), problems = load_sessions(AntigravityAdapter(), tmp_path)
    assert problems == []

    def said(part):
        if part.kind == "notice" and part.notice == "remark":
            return ("cut", part.text.removeprefix("Antigravity's log cut this ").split()[0])
        return (part.kind, getattr(part, "text", getattr(part, "output", None)))

    assert [[said(p) for p in m.parts] for m in session.messages] == [
        [("text", "List th"), ("cut", "prompt")],
        [("thinking", "Listing fi"), ("cut", "thinking"), ("text", "Listing."),
         ("tool_call", None)],
        [("tool_result", "[cut short in Antigravity's log]")],
        [("summary", "Summary: fil"), ("cut", "summary")],
        [("notice", "Be bri"), ("cut", "notice")],
        [("text", "Whole")],  # (its thinking, which it has not, is not its prompt)
    ]  # fmt: skip
    assert session.messages[0].parts[1].text == (
        "Antigravity's log cut this prompt short: the rest is not in it."
    )
    body = rendered(tmp_path)
    for what in ("prompt", "thinking", "summary", "notice"):
        assert f"Antigravity's log cut this {what} short: the rest is not in it." in body


def test_a_call_without_a_summary_is_titled_by_its_command_or_path(tmp_path):
    """``CommandLine``, ``AbsolutePath`` and ``DirectoryPath`` title a call that has no
    ``toolSummary``, as other sources' command and path arguments do, and the command is a
    shell block, not YAML (review49 L3)."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    transcript(home, [
        step(0, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nLook\n</USER_REQUEST>"),
        step(1, "PLANNER_RESPONSE", tool_calls=[
            {"name": "run_command", "args": {"CommandLine": '"echo two"', "Cwd": '"/tmp/r"'}},
            {"name": "view_file", "args": {"AbsolutePath": '"/tmp/r/a.txt"'}},
            {"name": "list_dir", "args": {"DirectoryPath": '"/tmp/r"'}},
        ]),
        step(2, "RUN_COMMAND", content="two\n"),
        step(3, "VIEW_FILE", content="1: hello\n"),
        step(4, "LIST_DIRECTORY", content="a.txt\n"),
    ])  # fmt: skip
    run_export(ExportOptions(vault=vault, home=home, sources=["antigravity"], timezone=UTC))
    (note,) = note_files(vault).values()
    body = note.decode()
    assert "> [!example]- `run_command` — `echo two`\n> ```sh\n> echo two\n> ```" in body
    assert "CommandLine:" not in body and "Cwd: /tmp/r" in body
    assert "> [!example]- `view_file` — `/tmp/r/a.txt`\n" in body
    assert "> [!example]- `list_dir` — `/tmp/r`\n" in body
