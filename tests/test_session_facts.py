"""Facts a source records of a whole session that the note showed nothing of (task props):
Codex's client, a Cline task the person starred, an OpenCode session's share link and its
archiving, a Cursor transcript whose time is its file's, Copilot CLI's premium requests.
Each is a property (one name for every source), read by templates as ``properties``, and
some a word in the header; none is written for a session without the fact."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC
from pathlib import Path

import cline_builder as cb
import pytest
import yaml
from codex_builder import CodexRollout
from conftest import load_sessions, the_exported_note
from copilot_cli_builder import CopilotCliSession
from cursor_agent_builder import AgentChat
from hypothesis import given, settings
from hypothesis import strategies as st
from message_builder import msg, session
from opencode_builder import OpenCodeStore, text
from test_opencode_adapter import DATA

from exporter.adapters.cline import ClineAdapter
from exporter.adapters.codex import CodexAdapter
from exporter.adapters.copilot_cli import CopilotCliAdapter
from exporter.adapters.opencode import OpenCodeAdapter
from exporter.model import TextPart
from exporter.notes import NoteSettings, build_note
from exporter.render import REFERENCE_ENV, fresh_templates
from exporter.sessionfacts import FACT_KEYS, session_facts

TID = "0199a0c1-7e57-7a11-b0b0-5e55101d0000"
SHARE = "https://opncd.ai/s/" + "Xy12abCD"


def frontmatter(note: str) -> dict:
    return yaml.safe_load(note.split("---\n", 2)[1])


def info_line(note: str) -> str:
    return next(line for line in note.splitlines() if line.startswith("> [!info]"))


def test_codex_names_the_client_the_session_ran_in(tmp_path):
    """``session_meta.originator`` was read (``extra["client"]``) and shown nowhere."""
    r = CodexRollout(TID, meta_fields={"originator": "Codex Desktop"})
    r.user("rename the module").assistant("Renamed.")
    r.write(tmp_path / ".codex")
    note = the_exported_note(tmp_path, "codex")
    assert frontmatter(note)["client"] == "Codex Desktop"
    assert info_line(note).startswith("> [!info] Codex (Codex Desktop) · ")


def test_a_failed_codex_undo_is_codex_notice_not_a_decision(tmp_path):
    """An undo that failed changed nothing: it is not said as the person's undoing."""
    r = CodexRollout(TID)
    r.user("rename the module").assistant("Renamed.")
    r.event({"type": "undo_completed", "success": False, "message": "No snapshot."})
    r.write(tmp_path / ".codex")
    (session_read,), _ = load_sessions(CodexAdapter(), tmp_path)
    notice = session_read.messages[-1].parts[0]
    assert (notice.notice, notice.text) == ("notification", "Undo failed: No snapshot.")


@pytest.mark.parametrize("starred", [True, False, "yes"])
def test_a_starred_cline_task_is_starred_and_no_other_is(tmp_path, starred):
    """``HistoryItem.isFavorited``: ``starred: true`` to filter by, only when it is true."""
    root = cb.storage(tmp_path, cb.CLINE)
    cb.task(root, "1762500000000", ui=[cb.say(0, "task", "Add a flag"), cb.say(1, "text", "Done.")])
    cb.history(root, [cb.history_item("1762500000000", "Add a flag", isFavorited=starred)])
    (task,), problems = load_sessions(ClineAdapter(), tmp_path)
    assert problems == []
    note = the_exported_note(tmp_path, "cline")
    if starred is True:
        assert task.extra == {"starred": True} and frontmatter(note)["starred"] is True
    else:
        assert "starred" not in task.extra and "starred" not in frontmatter(note)


def _opencode_home(tmp_path: Path, tree: bool) -> Path:
    """One OpenCode session, shared and archived, in the database or the legacy tree."""
    store = OpenCodeStore()
    s = store.session("Rename", "/w/r")
    store.user(s, text("Rename total to sum"))
    store.assistant(s, text("Renamed."))
    if tree:
        storage = store.write_tree(tmp_path / DATA / "storage")
        (file,) = (storage / "session").rglob("*.json")
        info = json.loads(file.read_text())
        info["share"] = {"url": SHARE}
        info["time"]["archived"] = info["time"]["updated"] + 1000
        file.write_text(json.dumps(info))
    else:
        db = store.write_db(tmp_path / DATA / "opencode.db")
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE session SET share_url = ?, time_archived = time_updated", (SHARE,))
        conn.close()
    return tmp_path


@pytest.mark.parametrize("tree", [False, True], ids=["db", "tree"])
def test_an_opencode_session_says_its_share_link_and_that_it_is_archived(tmp_path, tree):
    home = _opencode_home(tmp_path, tree)
    (read,), _ = load_sessions(OpenCodeAdapter(), home)
    assert read.extra == {"share_url": SHARE, "archived": True}
    note = the_exported_note(home, "opencode")
    fm = frontmatter(note)
    assert (fm["share_url"], fm["archived"]) == (SHARE, True)
    assert f"> Shared at {SHARE}\n" in note
    assert info_line(note).endswith(" · archived") or " · archived · " in info_line(note)


def test_an_opencode_session_neither_shared_nor_archived_has_neither(tmp_path):
    store = OpenCodeStore()
    s = store.session("Rename", "/w/r")
    store.user(s, text("Rename total to sum"))
    store.assistant(s, text("Renamed."))
    store.write_db(tmp_path / DATA / "opencode.db")
    note = the_exported_note(tmp_path, "opencode")
    assert not {"share_url", "archived"} & set(frontmatter(note))
    assert "Shared at" not in note and "archived" not in info_line(note)


def test_a_cursor_transcript_without_times_says_its_time_is_the_file_s(tmp_path):
    AgentChat(tmp_path, "/w/a", TID).user("hi").reply("hello").write()
    note = the_exported_note(tmp_path, "cursor")
    assert frontmatter(note)["time_from_file"] is True
    assert "(the file's time)" in info_line(note)


@pytest.mark.parametrize(
    ("events", "counted"),
    [
        ([("session.usage_checkpoint", 1), ("session.usage_checkpoint", 2.33)], 2.33),
        ([("session.usage_checkpoint", 1), ("session.shutdown", 2)], 2),
        ([("session.shutdown", 2), ("session.usage_checkpoint", 1)], 2),
    ],
    ids=["killed", "checkpoint-then-shutdown", "shutdown-then-checkpoint"],
)
def test_copilot_cli_without_a_shutdown_counts_its_last_checkpoint(tmp_path, events, counted):
    """A killed session writes no shutdown: its last ``session.usage_checkpoint``'s running
    total is its count, never added to a shutdown's (review33 11)."""
    s = CopilotCliSession(TID)
    s.user("Add a /health endpoint")
    s.assistant("Added.", model="claude-sonnet-4.5")
    for kind, premium in events:
        s.event(kind, {"totalPremiumRequests": premium, "totalNanoAiu": 1})
    s.write(tmp_path / ".copilot")
    (read,), _ = load_sessions(CopilotCliAdapter(), tmp_path)
    assert read.extra == {"premium_requests": counted}


def test_copilot_cli_counts_the_premium_requests_of_each_shutdown(tmp_path):
    """``session.shutdown.totalPremiumRequests`` per process: a resumed session's sum."""
    s = CopilotCliSession(TID)
    s.user("Add a /health endpoint")
    s.assistant("Added.", model="claude-sonnet-4.5")
    s.event("session.shutdown", {"shutdownType": "routine", "totalPremiumRequests": 2})
    s.user("And a /ready one")
    s.assistant("Added.", model="claude-sonnet-4.5")
    s.event("session.shutdown", {"shutdownType": "routine", "totalPremiumRequests": 1.5})
    s.write(tmp_path / ".copilot")
    (read,), _ = load_sessions(CopilotCliAdapter(), tmp_path)
    assert read.extra == {"premium_requests": 3.5}
    note = the_exported_note(tmp_path, "copilot-cli")
    assert frontmatter(note)["premium_requests"] == 3.5
    assert " · 3.5 premium requests" in info_line(note)


def _with_facts(**facts) -> object:
    return session(msg("user", TextPart("hi")), msg("assistant", TextPart("hello"), minute=1),
                   extra=facts)  # fmt: skip


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "template"])
def test_both_render_paths_and_user_templates_see_the_facts(monkeypatch, reference):
    """The shipped template and session_body say the same; ``properties`` holds each."""
    if reference:
        monkeypatch.setenv(REFERENCE_ENV, "1")
    fresh_templates()
    facts = {"client": "Codex CLI", "share_url": SHARE, "starred": True, "archived": True,
             "time_from_file": True, "premium_requests": 1}  # fmt: skip
    note = build_note(_with_facts(**facts), "n.md", NoteSettings(), lambda key: None)
    fresh_templates()
    assert {k: note.frontmatter[k] for k in facts} == facts
    line = note.body.splitlines()[2]
    assert line.startswith("> [!info] Claude Code (Codex CLI) · ")
    assert (
        "(the file's time)" in line and " (the file's time) · 1 premium request · archived" in line
    )
    assert f"> Shared at {SHARE}\n" in note.body


_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 9), st.floats(allow_nan=True),
                    st.text(max_size=12), st.lists(st.integers(), max_size=2))  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from([*FACT_KEYS, "parent_empty", "x"]), _values))
def test_a_fact_is_a_property_only_when_the_source_has_it_and_of_one_type(extra):
    """No ``starred: false`` or empty text: a flag is ``true`` or absent, a text some
    words, a count a number of zero or more; nothing else in ``extra`` becomes one."""
    facts = session_facts(_with_facts(**extra))
    assert set(facts) <= set(FACT_KEYS) and list(facts) == [k for k in FACT_KEYS if k in facts]
    for key, value in facts.items():
        if key in ("starred", "archived", "time_from_file"):
            assert value is True and extra[key] is True
        elif key in ("client", "share_url"):
            assert isinstance(value, str) and value.strip()
        else:
            assert type(value) in (int, float) and value >= 0


@settings(max_examples=200, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "client": st.sampled_from(["Codex CLI", "a *b* [[c]]"]),
            "share_url": st.just(SHARE),
            "starred": st.just(True),
            "archived": st.just(True),
            "time_from_file": st.just(True),
            "premium_requests": st.sampled_from([0, 1, 2, 0.33]),
        },
    ),  # fmt: skip
    st.booleans(),
)
def test_session_body_writes_what_the_template_does_with_any_facts(facts, timed):
    """The shipped template through Jinja and ``session_body`` give the same bytes."""
    import os

    s = _with_facts(**facts)
    if not timed:
        from dataclasses import replace

        s = replace(s, started_at=None, ended_at=None, messages=())
    bodies = []
    for reference in ("", "1"):
        os.environ[REFERENCE_ENV] = reference
        fresh_templates()
        try:
            bodies.append(build_note(s, "n.md", NoteSettings(), lambda key: None).body)
        finally:
            os.environ.pop(REFERENCE_ENV, None)
            fresh_templates()
    assert bodies[0] == bodies[1]


def test_a_task_unstarred_loses_its_starred_property(tmp_path):
    """``starred`` is ccexport's (``OWNED_KEYS``): a task starred, exported, then unstarred
    kept ``starred: true`` as if the person had written it."""
    from conftest import note_files

    from exporter.export import ExportOptions, run_export

    root = cb.storage(tmp_path, cb.CLINE)
    cb.task(root, "1762500000000", ui=[cb.say(0, "task", "Add a flag"), cb.say(1, "text", "Done.")])
    vault = tmp_path / "vault"
    for starred in (True, False):
        cb.history(root, [cb.history_item("1762500000000", "Add a flag", isFavorited=starred)])
        run_export(ExportOptions(vault=vault, home=tmp_path, sources=["cline"], timezone=UTC))
        (note,) = note_files(vault).values()
        assert ("starred" in frontmatter(note.decode())) is starred
