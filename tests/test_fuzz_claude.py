"""Damaged Claude Code transcripts (found by a seeded mutation run over a synthetic home: a
session with thinking, tool calls and results, a Task and its subagent file, a queued
prompt, a compaction, and a second session). Whatever is damaged costs only itself and is
said, with the file and line; the rest of the session is exported, and no note holds a
Python repr, a control character or frontmatter that does not parse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_builder import ClaudeSession, cowork_task, tool_use
from fuzz_lines import MARKER
from fuzz_oracle import checked_export

SID = "11111111-2222-4333-8444-555555555555"
OTHER = "22222222-2222-4333-8444-555555555555"


def records() -> list[dict[str, Any]]:
    """A session with a marker in each text: line 1 a prompt, 2 thinking, 3 a Bash call,
    4 its result, 5 a Task call, 6 its result, 7 the answer, 8 a queued prompt, 9 the next
    prompt, 10 its answer."""
    s = ClaudeSession(SID, "/home/dev/work/app")
    s.user("mk1x first question")
    s.assistant([{"type": "thinking", "thinking": "mk2x thought", "signature": "s"}])
    s.assistant([tool_use("Bash", {"command": "echo mk3x", "description": "mk4x"}, "call-1")])
    s.tool_result("call-1", [{"type": "text", "text": "mk5x output"}])
    task = {"prompt": "mk11x sub prompt", "description": "mk12x", "subagent_type": "general"}
    s.assistant([tool_use("Task", task, "call-2")])
    s.tool_result("call-2", "mk13x agent done", rich={"agentId": "a1b2c3d4"})
    s.assistant("mk6x answer")
    s.raw({"type": "attachment", "uuid": "att-1", "parentUuid": s.last, "timestamp": s.tick(),
           "sessionId": SID, "attachment": {"type": "queued_command",
                                            "prompt": [{"type": "text", "text": "mk9x steering"}]}})  # fmt: skip
    s.user("mk7x second question")
    s.assistant("mk8x second answer")
    return [json.loads(line) for line in s.lines]


def claude_home(home: Path, recs: list[dict[str, Any]]) -> Path:
    """The session (its lines ``recs``), its subagent's file, and another session;
    returns the session's file."""
    folder = home / ".claude" / "projects" / "-home-dev-work-app"
    agent = ClaudeSession(SID, "/home/dev/work/app", sidechain=True, agent_id="a1b2c3d4")
    agent.user("mk11x sub prompt", parent=None)
    agent.assistant("mk16x sub answer")
    agent.write(folder / SID / "subagents" / "agent-a1b2c3d4.jsonl")
    other = ClaudeSession(OTHER, "/home/dev/work/app")
    other.user("mk20x other question")
    other.assistant("mk21x other answer")
    other.write(folder / f"{OTHER}.jsonl")
    path = folder / f"{SID}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return path


def block(recs: list[dict[str, Any]], line: int) -> dict[str, Any]:
    return recs[line - 1]["message"]["content"][0]


ALL = {f"mk{i}x" for i in (1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 20, 21)}


def export(tmp_path: Path, recs: list[dict[str, Any]]) -> tuple[Path, set[str], list[str]]:
    path = claude_home(tmp_path / "home", recs)
    text, problems = checked_export(tmp_path / "home", tmp_path / "v", "claude-code", failed=0)
    return path, set(MARKER.findall(text)), problems


def test_the_intact_home_is_exported_whole_and_silent(tmp_path):
    _path, found, problems = export(tmp_path, records())
    assert found == ALL
    assert problems == []


# -- found by the mutation run, each failing before ---------------------------------------


def test_a_tool_output_item_whose_text_is_not_text_costs_only_itself(tmp_path):
    """An item of a tool result whose text was an object raised (in the search for a
    subagent's id: "sequence item 0: expected str instance, dict found"): the whole session
    was lost, said only as "could not be read"."""
    recs = records()
    block(recs, 4)["content"][0]["text"] = {"a": 1}
    path, found, problems = export(tmp_path, recs)
    assert found == ALL - {"mk5x"}
    assert problems == [f"{path}:4: a tool result's item's text is an object, not text: left out"]


@pytest.mark.parametrize("key", ["description", "subagent_type"])
@pytest.mark.parametrize("value", [{"a": 1}, True, ["x"]], ids=["object", "bool", "list"])
def test_a_task_call_whose_description_is_not_text_costs_nothing(tmp_path, key, value):
    """A Task call's description or agent type that was not text raised when its subagent
    was named: the whole session (and its subagent) was lost. Now the subagent's note has
    the name it has without one, and the call its input as written."""
    recs = records()
    block(recs, 5)["input"][key] = value
    _path, found, problems = export(tmp_path, recs)
    assert found == ALL - ({"mk12x"} if key == "description" else set())
    assert problems == []


@pytest.mark.parametrize(
    ("line", "change", "why"),
    [
        (2, {"type": 0}, "a content block has a type that is a number: left out"),
        (2, {"type": {}}, "a content block has a type that is an object: left out"),
        (2, {"type": None}, "a content block has no type: left out"),
        (2, {"thinking": -1}, "a content block's thinking is a number, not text: left out"),
        (2, {"thinking": None}, "a content block's thinking is null, not text: left out"),
        (7, {"text": {"a": 1}}, "a content block's text is an object, not text: left out"),
        (4, {"content": 1e30}, "a tool result's output is a number, not text or a list: left out"),
        (4, {"content": [None]}, "a tool result's item is null, not an object: left out"),
        (4, {"content": [{"type": "", "text": "mk5x"}]}, "a tool result's item has no type: left out"),
    ],
    ids=["type number", "type object", "no type", "thinking number", "thinking null",
         "text object", "output number", "output item null", "output item untyped"],
)  # fmt: skip
def test_a_damaged_block_is_said(tmp_path, line, change, why):
    """A block whose type was absent or not text, whose words were not text, or a tool
    output (or its item) of the wrong type, was left out without a word."""
    recs = records()
    target = block(recs, line)
    for key, value in change.items():
        if value is None and key == "type":
            target.pop(key)
        else:
            target[key] = value
    path, found, problems = export(tmp_path, recs)
    lost = {2: {"mk2x"}, 4: {"mk5x"}, 7: {"mk6x"}}[line]
    assert found == ALL - lost
    assert problems == [f"{path}:{line}: {why}"]


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ({"type": 0, "text": "mk9x steering"}, " has a type that is a number: left out"),
        ({"text": "mk9x steering"}, " has no type: left out"),
        ({"type": "text", "text": ["mk9x"]}, "'s text is a list, not text: left out"),
    ],
    ids=["type number", "no type", "text list"],
)
def test_a_damaged_queued_prompt_block_is_said(tmp_path, item, why):
    """A queued prompt's block of the wrong type (a ``queued_command`` attachment) was left
    out without a word."""
    recs = records()
    recs[7]["attachment"]["prompt"] = [item]
    path, found, problems = export(tmp_path, recs)
    assert found == ALL - {"mk9x"}
    assert problems == [f"{path}:8: a queued prompt's block{why}"]


# -- what Claude Code really writes is not damage -----------------------------------------


def test_valid_blocks_of_every_kind_raise_no_warning(tmp_path):
    """Empty text, redacted thinking, a tool result without content or with an image and a
    tool reference, a newer block kind without text: no warning (a false alarm is worse
    than silence)."""
    recs = records()
    recs[1]["message"]["content"].append({"type": "thinking", "thinking": ""})
    recs[2]["message"]["content"].append({"type": "redacted_thinking", "data": "xyz"})
    recs[6]["message"]["content"].append({"type": "text", "text": ""})
    recs[6]["message"]["content"].append({"type": "container_upload", "file_id": "f1"})
    block(recs, 4)["content"].append({"type": "tool_reference", "tool_name": "Grep"})
    recs[5]["message"]["content"].append({"type": "tool_result", "tool_use_id": "call-9"})
    recs[7]["attachment"]["prompt"].append({"type": "image", "source": {"type": "base64",
                                            "media_type": "image/png", "data": ""}})  # fmt: skip
    _path, found, problems = export(tmp_path, recs)
    assert found == ALL
    assert problems == []


# -- Claude Desktop's Cowork sidecar ---------------------------------------------------------

COWORK = "33333333-2222-4333-8444-555555555555"
TASK = {"sessionId": "local_t1", "title": "mk41x photo task", "userSelectedFolders": ["/home/dev/photos"],
        "createdAt": 1763629267000, "lastActivityAt": 1763629367000}  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"", "is empty"),
        (json.dumps(TASK).encode()[:40], "is not valid JSON (damaged or cut short)"),
        (b"\xff\xfe{", "is not valid JSON (damaged or cut short)"),
        (b"[1, 2]", "is a list, not a JSON object"),
        (json.dumps({"cliSessionId": COWORK, **TASK, "title": 5}).encode(),
         "its title is a number, not text"),
        (json.dumps({**TASK, "cliSessionId": {"id": COWORK}}).encode(),
         "its cliSessionId is an object, not text"),
        (json.dumps({"cliSessionId": COWORK, **TASK, "userSelectedFolders": "/home/dev/photos"})
         .encode(), "its userSelectedFolders is text, not a list"),
        (json.dumps({"cliSessionId": COWORK, **TASK, "userSelectedFolders": [["/home/dev"]]})
         .encode(), "its first userSelectedFolders item is a list, not text"),
    ],
    ids=["empty", "cut short", "not UTF-8", "a list", "title number", "session id object",
         "folders text", "folder list"],
)  # fmt: skip
def test_a_damaged_cowork_sidecar_is_said_and_its_title_kept(tmp_path, raw, why):
    """A Cowork task's sidecar that was not JSON was read as absent without a word: the
    task's note lost its title and project (renamed "tidy the photo folder", moved to the
    cowork folder) on the run after the damage. Now the sidecar is named, and the title
    and project of the last run are kept."""
    home, vault = tmp_path / "home", tmp_path / "v"
    claude_home(home, records())
    task = cowork_task(home / ".config" / "Claude", COWORK, TASK)
    sidecar = task.parent / "local_t1.json"
    text, problems = checked_export(home, vault, "claude-code", failed=0)
    assert "mk41x" in text and problems == []
    sidecar.write_bytes(raw)
    text, problems = checked_export(home, vault, "claude-code", failed=0)
    then = "until it can be read, the title and project it gives are kept from the last run"
    assert problems == [f"{sidecar}: {why}; {then}"]
    assert ALL | {"mk41x"} <= set(MARKER.findall(text))
    notes = [p for p in vault.rglob("*.md") if COWORK[:8] in p.name]
    assert [(p.parent.name, p.name[11:16]) for p in notes] == [("photos", "mk41x")]
    # its project too, not only its place (it read "cowork", and made a project page of it)
    assert "\nproject: photos\n" in notes[0].read_text()
    assert not (vault / "AI Sessions" / "Projects" / "cowork.md").exists()


def test_a_task_first_seen_with_a_damaged_sidecar_takes_the_fallback_project(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    claude_home(home, records())
    task = cowork_task(home / ".config" / "Claude", COWORK, TASK)
    (task.parent / "local_t1.json").write_bytes(b"{cut")
    checked_export(home, vault, "claude-code", failed=0)
    (note,) = [p for p in vault.rglob("*.md") if COWORK[:8] in p.name]
    assert note.parent.name == "cowork" and "\nproject: cowork\n" in note.read_text()


def test_a_cowork_sidecar_of_valid_shapes_is_silent(tmp_path):
    """No title yet (none or null), no folder chosen (none, null or an empty list)."""
    home = tmp_path / "home"
    claude_home(home, records())
    task = {"sessionId": "local_t1", "title": None, "userSelectedFolders": []}
    cowork_task(home / ".config" / "Claude", COWORK, task)
    text, problems = checked_export(home, tmp_path / "v", "claude-code", failed=0)
    assert problems == [] and ALL <= set(MARKER.findall(text))
    for task in ({"userSelectedFolders": None}, {"sessionId": "local_t1"}):
        cowork_task(home / ".config" / "Claude", COWORK, task)
        assert checked_export(home, tmp_path / "v", "claude-code", failed=0)[1] == []


def test_a_cowork_task_without_a_sidecar_is_silent(tmp_path):
    """No sidecar at all (a task the app has not described yet) is no damage."""
    home = tmp_path / "home"
    claude_home(home, records())
    (cowork_task(home / ".config" / "Claude", COWORK, TASK).parent / "local_t1.json").unlink()
    text, problems = checked_export(home, tmp_path / "v", "claude-code", failed=0)
    assert problems == [] and ALL <= set(MARKER.findall(text))
