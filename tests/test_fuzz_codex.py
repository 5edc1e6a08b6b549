"""Damaged Codex CLI rollouts and session index (found by a seeded mutation run over a
synthetic Codex home: every field the reader looks at, one damage at a time). Whatever is
damaged costs only itself and is said, with the file and the line it is on; the other
records and sessions are exported whole, and no note holds a Python repr, a control
character or frontmatter that does not parse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from codex_builder import CodexRollout, ts_document
from fuzz_lines import MARKER
from fuzz_oracle import checked_export

ONE = "0199aaaa-0000-7000-8000-00000000000a"
TWO = "0199bbbb-0000-7000-8000-00000000000b"


def rollout() -> CodexRollout:
    """A plain conversation: prompt mk1x, reply mk2x (7 lines: an added one is line 8)."""
    r = CodexRollout(ONE)
    r.turn()
    return r.user("mk1x first prompt").assistant("mk2x first answer")


def write(home: Path, damaged: CodexRollout, *extra: dict[str, Any]) -> Path:
    """``damaged`` with ``extra`` lines after its conversation, and an untouched session
    (mk90x, mk91x) beside it. Returns the damaged rollout's path."""
    codex = home / ".codex"
    for line in extra:
        damaged.lines.append(line)
    other = CodexRollout(TWO, start="2026-03-11T08:00:00Z")
    other.turn()
    other.user("mk90x other prompt").assistant("mk91x other answer").write(codex)
    return damaged.write(codex)


def line(kind: str, payload: Any) -> dict[str, Any]:
    return {"timestamp": "2026-03-10T08:05:00.000Z", "type": kind, "payload": payload}


def export(home: Path, vault: Path, failed: int = 0) -> tuple[str, list[str]]:
    """Every Codex note's text, checked (``fuzz_oracle``), and the problems as printed;
    ``failed`` sessions at most."""
    return checked_export(home, vault, "codex", failed)


def markers(text: str) -> set[str]:
    return set(MARKER.findall(text))


# -- found by the mutation run, each failing before ---------------------------------------


@pytest.mark.parametrize(
    ("record", "why"),
    [
        ({"timestamp": "2026-03-10T08:05:00Z", "type": None, "payload": {"type": "x"}},
         "its record type is null, not text"),
        ({"timestamp": "2026-03-10T08:05:00Z", "payload": {"type": "agent_message"}},
         "its record type is null, not text"),
        (line("event_msg", "mk3x a payload that is text"), "its payload is text, not an object"),
        ({"a": 1}, "no record type"),
        ({"type": 7}, "its type is a number, not text"),
    ],
    ids=["type null", "type missing", "payload text", "no type at all", "bare type a number"],
)  # fmt: skip
def test_a_record_of_no_known_shape_is_said(tmp_path, record, why):
    """A record whose type was not text (or missing), or whose payload was not an object,
    was dropped without a word (its payload, read as empty, could cost a session_meta its
    identity quietly)."""
    path = write(tmp_path / "home", rollout(), record)
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk90x", "mk91x"} <= markers(text)
    assert problems == [f"{path}:8: unexpected shape ({why}), line skipped"]


def test_a_session_meta_whose_type_is_damaged_is_said(tmp_path):
    r = rollout()
    r.lines[0]["type"] = {"a": 1}
    path = write(tmp_path / "home", r)
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk90x", "mk91x"} <= markers(text)
    assert problems == [
        f"{path}:1: unexpected shape (its record type is an object, not text), line skipped"
    ]


@pytest.mark.parametrize("etype", [None, [], 12])
def test_an_event_whose_type_is_not_text_is_said(tmp_path, etype):
    """An event_msg whose type was not text was dropped silently (an error, an undo, a
    reply: gone without a word)."""
    path = write(tmp_path / "home", rollout(), line("event_msg", {"type": etype, "message": "m"}))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    kind = {type(None): "null", list: "a list", int: "a number"}[type(etype)]
    assert {"mk1x", "mk2x", "mk90x", "mk91x"} <= markers(text)
    assert problems == [
        f"{path}:8: unexpected shape (its event type is {kind}, not text), line skipped"
    ]


@pytest.mark.parametrize(
    ("role", "why"), [("", "unknown role ''"), ("tool", "unknown role 'tool'"),
                      ([1], "its role is a list, not text"), (None, "its role is null, not text")],
)  # fmt: skip
def test_a_message_of_an_unknown_role_is_said(tmp_path, role, why):
    """A message whose role was none of user, assistant, developer, system was dropped
    silently, its text with it."""
    item = {"type": "message", "role": role, "content": [{"type": "output_text", "text": "mk3x"}]}
    path = write(tmp_path / "home", rollout(), line("response_item", item))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk90x", "mk91x"} <= markers(text)
    assert problems == [f"{path}:8: unexpected shape ({why}), line skipped"]


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (12345, "its content is a number, not a list: left out"),
        ([True, {"type": "output_text", "text": "mk4x kept"}],
         "its content's item 1 is true, not an object: left out"),
        ([{"type": {"a": 1}, "text": "mk5x"}, {"type": "output_text", "text": "mk4x kept"}],
         "its content's item 1 has a type that is an object: left out"),
        ([{"type": "output_text", "text": ["mk5x"]}, {"type": "output_text", "text": "mk4x kept"}],
         "its content's item 1 (output_text) has a text that is a list, not text: left out"),
    ],
    ids=["content a number", "item not an object", "item type an object", "text a list"],
)  # fmt: skip
def test_message_content_that_cannot_be_read_is_said(tmp_path, content, why):
    """Content that was not a list, or items of it that were not text items, were passed
    over without a word: a reply could vanish, or lose part of itself, silently."""
    item = {"type": "message", "role": "assistant", "content": content}
    path = write(tmp_path / "home", rollout(), line("response_item", item))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    expected = {"mk1x", "mk2x", "mk90x", "mk91x"} | (
        {"mk4x"} if isinstance(content, list) else set()
    )
    assert expected <= markers(text)
    assert problems == [f"{path}:8: {why}"]


def test_a_tool_output_whose_items_cannot_be_read_is_said(tmp_path):
    output = [{"type": "input_text", "text": "mk4x kept"}, {"type": True, "text": "mk5x"}]
    item = {"type": "function_call_output", "call_id": "c1", "output": output}
    path = write(tmp_path / "home", rollout(), line("response_item", item))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk4x", "mk90x", "mk91x"} <= markers(text)
    assert problems == [f"{path}:8: its output's item 2 has a type that is true: left out"]


def test_a_compaction_summary_that_is_not_text_is_no_repr(tmp_path):
    """A compacted record whose summary was an object put its Python repr ({'a': 1}) in the
    note, and said nothing."""
    path = write(tmp_path / "home", rollout(), line("compacted", {"message": {"a": 1}}))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk90x", "mk91x"} <= markers(text)
    assert problems == [f"{path}:8: its summary is an object, not text: left out"]


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        ({"type": "error", "message": True},
         "unexpected shape (the error's message is true, not text), line skipped"),
        ({"type": "undo_completed", "message": ["mk3x"]},
         "the undo's message is a list, not text: left out"),
    ],
)  # fmt: skip
def test_an_error_or_undo_whose_message_is_not_text_is_said(tmp_path, payload, why):
    """An error event whose message was not text was dropped silently; an undo's, shown
    without its message, silently."""
    path = write(tmp_path / "home", rollout(), line("event_msg", payload))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk90x", "mk91x"} <= markers(text)
    assert problems == [f"{path}:8: {why}"]


@pytest.mark.parametrize(
    ("review", "why"),
    [
        (1e30, "the review's output is a number, not an object: left out"),
        ({"overall_explanation": "mk3x", "findings": {"a": 1}},
         "the review's findings are an object, not a list: left out"),
        ({"overall_explanation": "mk3x", "findings": ["mk9x"]},
         "review finding 1 is text, not an object: left out"),
        ({"overall_explanation": 5, "findings": [{"title": "mk3x", "body": "b"}]},
         "the review's explanation is a number, not text: left out"),
    ],
    ids=["output a number", "findings an object", "finding text", "explanation a number"],
)  # fmt: skip
def test_a_review_that_cannot_be_read_is_said(tmp_path, review, why):
    """A review's output, findings or finding of the wrong type were dropped silently."""
    payload = {"type": "exited_review_mode", "review_output": review}
    path = write(tmp_path / "home", rollout(), line("event_msg", payload))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk90x", "mk91x"} <= markers(text)
    assert "mk3x" in markers(text) or isinstance(review, float)
    assert problems == [f"{path}:8: {why}"]


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ({"type": "web_search_call", "action": "mk3x"},
         "its action is text, not an object: left out"),
        ({"type": "local_shell_call", "call_id": "c1", "action": 7},
         "its action is a number, not an object: left out"),
        ({"type": "custom_tool_call", "call_id": "c1", "name": "js", "input": True},
         "its input is true, not text: shown as it is"),
        ({"type": "image_generation_call", "id": "i1", "revised_prompt": [1]},
         "the image's prompt is a list, not text: left out"),
        ({"type": "agent_message", "author": [1], "content": [{"type": "input_text", "text": "mk4x"}]},
         "its author is a list, not text: left out"),
        ({"type": "tool_search_output", "call_id": "t", "tools": True},
         "the tools found are true, not a list: left out"),
        ({"type": "tool_search_output", "call_id": "t", "tools": [{"name": "mk4x", "tools": [[1]]}]},
         "tool 1 found holds tools whose names cannot be read: left out"),
    ],
    ids=["web action", "shell action", "custom input", "image prompt", "agent author",
         "tools found", "tool names"],
)  # fmt: skip
def test_a_tool_item_value_of_the_wrong_type_is_said(tmp_path, item, why):
    """Each of these was passed over without a word: the call or message was shown
    without it."""
    path = write(tmp_path / "home", rollout(), line("response_item", item))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk90x", "mk91x"} <= markers(text)
    assert problems == [f"{path}:8: {why}"]


@pytest.mark.parametrize(
    "item",
    [{"type": "web_search_call", "status": "completed"},
     {"type": "web_search_call", "id": "ws_1", "status": "in_progress", "action": None}],
)  # fmt: skip
def test_a_web_search_without_an_action_is_no_damage(tmp_path, item):
    """Codex writes a search's action only when it has one (``Option``, not serialised
    when none): such a line is valid and earns no warning (a false alarm, found by
    reading the change against the protocol)."""
    write(tmp_path / "home", rollout(), line("response_item", item))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk90x", "mk91x"} <= markers(text)
    assert problems == []


@pytest.mark.parametrize(
    "output",
    [{"content": "mk4x denied", "success": False},
     {"output": "mk4x listing\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}},
     "mk4x plain", [{"type": "input_text", "text": "mk4x item"}]],
    ids=["content and success", "output and metadata", "text", "items"],
)  # fmt: skip
def test_an_output_of_a_shape_codex_writes_is_no_damage(tmp_path, output):
    """Older builds' ``{content, success}`` and the shell's ``{output, metadata}`` objects
    were said to be "an object, not a list: left out" once per call (review6 H1), while
    the note showed them."""
    item = {"type": "function_call_output", "call_id": "c1", "output": output}
    write(tmp_path / "home", rollout(), line("response_item", item))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk4x", "mk90x", "mk91x"} <= markers(text)
    assert problems == []


@pytest.mark.parametrize(
    ("output", "why"),
    [(7, "its output is a number, not text: shown as JSON"),
     ({"output": ["mk4x"]}, "its output is a list, not text: shown as JSON"),
     ([{"text": "mk5x"}, {"type": "output_text", "text": "mk4x"}],
      "its output's item 1 has no type: left out")],
    ids=["a number", "wrapped list", "an item of no type"],
)  # fmt: skip
def test_an_output_of_the_wrong_type_says_what_became_of_it(tmp_path, output, why):
    """A value shown as JSON was said to be "left out" (review6 L3)."""
    item = {"type": "function_call_output", "call_id": "c1", "output": output}
    path = write(tmp_path / "home", rollout(), line("response_item", item))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk90x", "mk91x"} <= markers(text)
    assert ("mk4x" in markers(text)) == (output != 7) and "mk5x" not in markers(text)
    assert problems == [f"{path}:8: {why}"]


def test_git_facts_of_the_wrong_type_are_said(tmp_path):
    """A branch or remote that was not text was dropped from the note silently."""
    r = CodexRollout(ONE, git={"branch": 7, "commit_hash": "abc", "repository_url": ["x"]})
    r.turn()
    path = write(tmp_path / "home", r.user("mk1x prompt").assistant("mk2x answer"))
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk90x", "mk91x"} <= markers(text)
    assert problems == [
        f"{path}:1: its git branch is a number, not text: left out",
        f"{path}:1: its git repository_url is a list, not text: left out",
    ]


# -- the session index ---------------------------------------------------------------------


def index_home(home: Path, lines: list[bytes]) -> Path:
    write(home, rollout())
    index = home / ".codex" / "session_index.jsonl"
    index.write_bytes(b"".join(lines))
    return index


def entry(sid: str, name: Any, stamp: Any = "2026-03-12T00:00:00Z") -> bytes:
    return json.dumps({"id": sid, "thread_name": name, "updated_at": stamp}).encode() + b"\n"


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (b'{"id": "0199aaaa-0000-7000-8000-00000000000a", "thread_na\xff\n',
         "a line that is not JSON"),
        (b"[1]\n", "a line that is a list, not an object"),
        (entry(ONE, 12), "a line whose thread_name is a number, not text"),
        (entry(7, "mk8x"), "a line whose id is a number, not text"),
    ],
    ids=["not JSON", "a list", "name a number", "id a number"],
)  # fmt: skip
def test_a_damaged_line_of_the_session_index_is_said(tmp_path, bad, why):
    """A damaged line of session_index.jsonl was passed over without a word: the title it
    held was lost (the note fell back to its first prompt)."""
    index = index_home(tmp_path / "home", [bad, entry(TWO, "mk50x two's title")])
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert {"mk1x", "mk2x", "mk50x", "mk90x", "mk91x"} <= markers(text)
    then = "until it can be read, the titles it gives are kept from the last run"
    assert problems == [f"{index}:1: {why}; {then}"]


def test_a_title_line_being_written_is_no_damage(tmp_path):
    cut = entry(TWO, "mk51x newer")[:30]  # the last line, no newline yet: being appended
    index_home(tmp_path / "home", [entry(TWO, "mk50x two's title"), cut])
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert ({"mk50x"} <= markers(text), problems) == (True, [])


def test_an_index_whose_time_is_not_text_keeps_its_title_and_says_so(tmp_path):
    index = index_home(tmp_path / "home", [entry(TWO, "mk50x two's title", 1730000000)])
    text, problems = export(tmp_path / "home", tmp_path / "v")
    assert "mk50x" in markers(text)
    assert problems == [
        f"{index}:1: a line whose updated_at is a number, not text; until it can be read, "
        "the titles it gives are kept from the last run"
    ]


# -- files ---------------------------------------------------------------------------------


def test_a_folder_with_a_rollouts_name_is_said(tmp_path):
    """A folder where a rollout file should be was passed over without a word."""
    path = write(tmp_path / "home", rollout())
    path.unlink()
    path.mkdir()
    text, problems = export(tmp_path / "home", tmp_path / "v", failed=1)
    assert {"mk90x", "mk91x"} <= markers(text)
    assert len(problems) == 1 and problems[0].startswith(str(path))
    assert "a folder, not a file" in problems[0]


def test_a_folder_with_a_typescript_documents_name_is_said_without_its_path_twice(tmp_path):
    """It was said as the exception's text, which repeats the path (in Python's quotes)."""
    home = tmp_path / "home"
    write(home, CodexRollout("0199cccc-0000-7000-8000-00000000000c"))  # (and the other)
    path = home / ".codex" / "sessions" / "rollout-2025-05-01-0199aaaa.json"
    path.mkdir()
    text, problems = export(home, tmp_path / "v")
    assert {"mk90x", "mk91x"} <= markers(text)
    assert problems == [f"{path}: could not be read (a folder, not a file)"]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda doc: doc.update(items={"a": 1}),
         "its items are an object, not a list: the session holds none"),
        (lambda doc: doc["items"].insert(1, 12),
         "unexpected shape (an item that is a number), item skipped (at items[1])"),
        (lambda doc: doc.update(session="mk7x"),
         "its session is text, not an object: its id and start left out"),
    ],
    ids=["items an object", "an item a number", "session text"],
)  # fmt: skip
def test_a_damaged_typescript_document_is_said(tmp_path, change, why):
    """The TypeScript CLI's document: items that were not a list, an item that was not an
    object, a session that was not an object were passed over without a word."""
    home = tmp_path / "home"
    write(home, CodexRollout("0199cccc-0000-7000-8000-00000000000c"))  # (and the other)
    doc = json.loads(ts_document(rollout()))
    change(doc)
    path = home / ".codex" / "sessions" / "rollout-2025-05-01-0199aaaa.json"
    path.write_text(json.dumps(doc))
    text, problems = export(home, tmp_path / "v")
    assert {"mk90x", "mk91x"} <= markers(text)
    assert problems == [f"{path}: {why}"]
