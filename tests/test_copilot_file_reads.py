"""A file Copilot Chat (VS Code) read: Copilot hands the model the file in one fenced block
(```` ```rust ````); the note shows the file's lines, not that fence inside its own block."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import load_sessions
from copilot_builder import markdown, request, session, tsx_result, write
from hypothesis import given
from hypothesis import strategies as st

from exporter.adapters.copilot import CopilotAdapter
from exporter.notes import NoteSettings, build_note

USER = Path(".config") / "Code" / "User"
SID = "5e55104d-0000-4000-8000-0000000000f1"
_RUST = 'fn main() {\n    println!("hi");\n}'
_README = "# Tool\n\nRun it:\n\n```sh\ntool --debug\n```"


def _read(call_id: str, name: str):
    return {"kind": "toolInvocationSerialized", "toolId": "copilot_readFile",
            "toolCallId": call_id, "pastTenseMessage": {"value": f"Read {name}"},
            "isComplete": True}  # fmt: skip


def _chat(tmp_path, results: dict[str, dict], calls: list[tuple[str, str]]):
    response = [markdown("Reading. "), *(_read(f"u{i}", p) for i, (p, _) in enumerate(calls))]
    metadata = {
        "toolCallRounds": [{"response": "Reading. ", "toolCalls": [
            {"name": name, "arguments": f'{{"filePath": "/w/{path}"}}', "id": f"m{i}"}
            for i, (path, name) in enumerate(calls)]}],
        "toolCallResults": results,
    }  # fmt: skip
    data = session(SID, [request(0, "Read them", response, result={"metadata": metadata})])
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), problems = load_sessions(CopilotAdapter(), tmp_path)
    assert problems == []
    return s


def test_a_file_read_shows_the_files_lines_without_copilots_fence(tmp_path):
    s = _chat(
        tmp_path,
        {
            "m0": tsx_result("```rust\n", *(line + "\n" for line in _RUST.split("\n")), "\n```"),
            "m1": tsx_result("````markdown\n", _README + "\n", "\n````"),  # a longer fence: the
            # file holds a fence of its own, which stays
        },
        [("main.rs", "read_file"), ("README.md", "read_file")],
    )
    outputs = [p.output for m in s.messages if m.role == "tool" for p in m.parts]
    assert outputs == [_RUST + "\n", _README + "\n"]
    body = build_note(s, "n.md", NoteSettings(), lambda key: None).body
    assert "```rust" not in body and "````markdown" not in body
    assert '>     println!("hi");' in body and "> ```sh\n> tool --debug\n> ```" in body


def test_a_result_that_is_not_one_fenced_block_is_kept_as_it_is():
    from exporter.adapters.copilot_tools import file_text

    for result in (
        "1 match\n```python\nx\n```",  # text before the block
        "```python\nx\n```\nmore",  # text after it
        "```python\nx\n```\ny\n```",  # a fence line closes the block early: two blocks
        "```python\nnever closed",
        "````python\nx\n```",  # a shorter fence does not close it
        "```py`thon\nx\n```",  # a backtick after the fence: no fence at all
    ):
        assert file_text(result) == result


def test_only_a_call_that_reads_a_file_is_unwrapped(tmp_path):
    s = _chat(tmp_path, {"m0": tsx_result("```text\n", "out\n", "```")}, [("a.txt", "read_file")])
    assert [p.output for m in s.messages if m.role == "tool" for p in m.parts] == ["out"]
    fenced = "```text\nout\n```"
    metadata_call = '{"query": "out"}'
    response = [markdown("Searching. "), _read("u0", "x")]
    metadata = {
        "toolCallRounds": [{"response": "", "toolCalls": [
            {"name": "grep_search", "arguments": metadata_call, "id": "m0"}]}],
        "toolCallResults": {"m0": tsx_result(fenced)},
    }  # fmt: skip
    data = session(SID, [request(0, "Find it", response, result={"metadata": metadata})])
    write(tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions" / f"{SID}.json", data)
    (s,), _ = load_sessions(CopilotAdapter(), tmp_path)
    assert [p.output for m in s.messages if m.role == "tool" for p in m.parts] == [fenced]


_FILE_LINE = st.text(st.characters(blacklist_categories=["Cs", "Cc"]), max_size=20)


@given(
    lines=st.lists(st.one_of(_FILE_LINE, st.sampled_from(["```", "~~~", "```js", ""])), min_size=1),
    info=st.sampled_from(["", "rust", "markdown"]),
    char=st.sampled_from("`~"),
)
def test_any_file_in_a_fence_it_cannot_close_comes_back_whole(lines, info, char):
    from exporter.adapters.copilot_tools import file_text

    text = "\n".join(lines)
    runs = [len(r) for r in re.findall(f"{re.escape(char)}+", text)] or [0]
    fence = char * max(3, max(runs) + 1)  # as Copilot picks one the file cannot close
    assert file_text(f"{fence}{info}\n{text}\n{fence}") == text
