"""Times a source does not hold stay unknown, and an MCP tool's output reads as its text.

Found by the corpus audit (dec4f, F3/F7/F8): early Codex rollouts (a time in their header
alone) ended when they began, "11:51 → 11:51", and so did a legacy Cursor chat tab (its
last prompt's time alone) and a workspace composer of one exchange (its creation time
alone); a Codex MCP tool's output showed as the JSON of its content items, on one line
with escapes.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from codex_builder import CodexRollout, write_generation
from conftest import load_sessions, the_exported_note
from hypothesis import given
from hypothesis import strategies as st
from vscode_builder import lexical, workspace

from exporter.adapters.codex import CodexAdapter
from exporter.adapters.codex_items import tool_result
from exporter.adapters.cursor import CursorAdapter

TID = "019a0000-1111-7222-8333-444455556666"
CURSOR = Path(".config") / "Cursor" / "User"
LAST_SEND = 1731818231743  # 2024-11-17T04:37:11.743Z


def _frontmatter(note: str) -> list[str]:
    return note.split("\n---\n", 1)[0].splitlines()


def _header(note: str) -> str:
    return next(line for line in note.splitlines() if line.startswith("> [!info]"))


# -- Codex: the end of an early rollout ---------------------------------------------------


def _rollout() -> CodexRollout:
    r = CodexRollout(TID)  # header 08:00:01, its lines a second apart from 08:00:02
    r.context()
    r.user("what is the date today?")
    r.shell(["bash", "-lc", "date"], "Tue Mar 10 08:00:05 UTC 2026", exit_code=0)
    r.assistant("It is 2026-03-10.")
    return r


def _write(home: Path, generation: str) -> None:
    r = _rollout()
    write_generation(r, home / ".codex" / "sessions" / "2026" / "03" / "10", generation)


@pytest.mark.parametrize("generation", ["bare", "document"])
def test_an_early_codex_rollout_has_no_end(tmp_path, generation):
    """Early Rust JSONL and the TypeScript CLI's document hold one time, their header's:
    the start. The end is not known; it was given the start ("updated" = "created")."""
    _write(tmp_path, generation)
    (session,), _ = load_sessions(CodexAdapter(), tmp_path)
    assert session.started_at == datetime(2026, 3, 10, 8, 0, 1, tzinfo=UTC)
    assert session.ended_at is None
    note = the_exported_note(tmp_path, "codex")
    assert "created: 2026-03-10T08:00:01" in _frontmatter(note)
    assert not any(line.startswith("updated:") for line in _frontmatter(note))
    assert "08:00 → 08:00" not in _header(note) and "2026-03-10 08:00" in _header(note)


def test_a_current_codex_rollout_ends_at_its_last_line(tmp_path):
    _write(tmp_path, "envelope")
    (session,), _ = load_sessions(CodexAdapter(), tmp_path)
    last = _rollout().lines[-1]["timestamp"]
    assert session.started_at == datetime(2026, 3, 10, 8, 0, 1, tzinfo=UTC)
    assert session.ended_at == datetime.fromisoformat(last) > session.started_at


# -- Cursor: a legacy chat tab's one time, a composer's creation alone --------------------


def _tab_home(home: Path) -> None:
    tabs = {"tabs": [{"tabId": "tab-1", "chatTitle": "Centering", "lastSendTime": LAST_SEND, "bubbles": [
        {"type": "user", "id": "u1", "text": "", "initText": lexical("How do I center a <div>?")},
        {"type": "ai", "id": "a1", "text": "Use `display: flex`.", "modelType": "gpt-4"},
        {"type": "user", "id": "u2", "text": "and vertically?"},
        {"type": "ai", "id": "a2", "text": "Add `align-items: center`.", "modelType": "gpt-4"}]}]}  # fmt: skip
    workspace(home / CURSOR, "ws", "file:///home/dev/web",
              {"workbench.panel.aichat.view.aichat.chatdata": tabs})  # fmt: skip


def test_a_legacy_cursor_tab_is_known_by_its_last_prompt_alone(tmp_path):
    """A tab of the AI-chat panel records ``lastSendTime`` and no other time: when its last
    prompt was sent. It was the start and the end ("04:37 → 04:37", a chat of no length);
    it stays the start (the note's date needs one; docs/sources/cursor.md says what it is)
    and the end is not known."""
    _tab_home(tmp_path)
    (session,), _ = load_sessions(CursorAdapter(), tmp_path)
    assert session.started_at == datetime(2024, 11, 17, 4, 37, 11, 743000, tzinfo=UTC)
    assert session.ended_at is None
    note = the_exported_note(tmp_path, "cursor")
    assert "created: 2024-11-17T04:37:11" in _frontmatter(note)
    assert not any(line.startswith("updated:") for line in _frontmatter(note))
    assert "04:37 → 04:37" not in _header(note) and "2024-11-17 04:37" in _header(note)


@pytest.mark.parametrize(("updated", "ended"), [
    (None, None),  # its creation alone: when the reply came is not known
    (1731785000000, datetime(2024, 11, 16, 19, 23, 20, tzinfo=UTC)),
])  # fmt: skip
def test_a_workspace_composer_ends_when_its_source_says(tmp_path, updated, ended):
    composer = {"composerId": "inline-1", "name": "Rename", "createdAt": 1731784818255,
                "conversation": [{"type": 1, "bubbleId": "x1", "text": "rename the module"},
                                 {"type": 2, "bubbleId": "x2", "text": "Renamed it."}]}  # fmt: skip
    if updated:
        composer["lastUpdatedAt"] = updated
    workspace(tmp_path / CURSOR, "ws", "file:///home/dev/web",
              {"composer.composerData": {"allComposers": [composer]}})  # fmt: skip
    (session,), _ = load_sessions(CursorAdapter(), tmp_path)
    assert session.started_at == datetime(2024, 11, 16, 19, 20, 18, 255000, tzinfo=UTC)
    assert session.ended_at == ended
    if ended is None:
        note = the_exported_note(tmp_path, "cursor")
        assert not any(line.startswith("updated:") for line in _frontmatter(note))
        assert "19:20 → 19:20" not in _header(note)


# -- Codex: an MCP tool's output --------------------------------------------------------------


def _items(*items: dict) -> str:
    return json.dumps(list(items), separators=(",", ":"), ensure_ascii=False)


def _output(output: str):
    return tool_result({"type": "function_call_output", "call_id": "c1", "output": output})


TABS = '{\n  "tabs": [\n    {\n      "id": "1",\n      "url": "about:blank"\n    }\n  ]\n}'


def test_an_mcp_tools_text_is_shown_not_its_json():
    """Found in the corpus (codemie-code, line 44): ``Wall time`` above the JSON of the
    result's content items. The wall time stays the call's duration, as before."""
    result = _output(
        "Wall time: 1.8333 seconds\nOutput:\n" + _items({"type": "text", "text": TABS})
    )
    assert (result.output, result.duration, result.is_error) == (TABS, 1.8333, False)
    # Several items: a blank line between two, as a list output's are joined
    two = _items({"type": "text", "text": "first\nlines"}, {"type": "text", "text": "second"})
    assert _output("Wall time: 0.1 seconds\nOutput:\n" + two).output == "first\nlines\n\nsecond"
    # No header (and keys in another order, a null annotation: nothing lost)
    one = _items({"text": "done", "type": "text", "annotations": None})
    assert _output(one).output == "done"


@pytest.mark.parametrize("body", [
    _items({"type": "text", "text": "a"}, {"type": "image", "data": "iVBORw0K", "mimeType": "image/png"}),
    _items({"type": "resource", "resource": {"uri": "file:///a", "text": "a"}}),
    _items({"type": "text", "text": "a", "annotations": {"audience": ["user"]}}),
    _items({"type": "text", "text": 3}),
    _items({"text": "no type"}),
    '[{"type":"text","text":"cut short',  # not JSON
    "[]",
    '[{"type":"text","text":"a"}] and more',
])  # fmt: skip
def test_an_output_that_is_not_text_items_alone_stays_as_written(body):
    assert _output("Wall time: 0.1 seconds\nOutput:\n" + body).output == body
    assert _output(body).output == body


def test_a_shell_commands_output_is_what_it_printed():
    """A command that printed such JSON (``cat``): under its exit code, its own output."""
    body = _items({"type": "text", "text": "a"})
    result = _output("Exit code: 0\nWall time: 0.1 seconds\nOutput:\n" + body)
    assert (result.output, result.exit_code) == (body, 0)


@given(st.lists(st.text(), min_size=1, max_size=4), st.booleans())
def test_text_items_read_as_their_texts_joined(texts, header):
    body = _items(*({"type": "text", "text": t} for t in texts))
    output = ("Wall time: 2.0 seconds\nOutput:\n" + body) if header else body
    assert _output(output).output == "\n\n".join(texts)


def test_the_note_shows_the_mcp_tools_text(tmp_path):
    r = CodexRollout(TID)
    r.user("list the browser tabs")
    args = json.dumps({"code": "nodeRepl.write(JSON.stringify({tabs}, null, 2))"})
    r.item({"type": "function_call", "name": "js", "namespace": "mcp__node_repl__",
            "arguments": args, "call_id": "c1"})  # fmt: skip
    out = "Wall time: 1.8333 seconds\nOutput:\n" + _items({"type": "text", "text": TABS})
    r.item({"type": "function_call_output", "call_id": "c1", "output": out})
    r.write(tmp_path / ".codex")
    note = the_exported_note(tmp_path, "codex")
    assert '"tabs": [' in note and '[{"type":"text"' not in note and '\\"tabs\\"' not in note
