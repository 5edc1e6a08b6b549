"""Bytes that are not UTF-8 in a JSON source (a flipped bit, a multi-byte character cut in
two) are read all the same, each as U+FFFD, and said: before, they were read in silence,
and a damaged key name lost its value with no word (found by the mutation runs of the
Copilot, Cline and Gemini readers). In a document a reader reads whole: in
test_fuzz_damaged_records, beside a raw control character."""

from __future__ import annotations

from pathlib import Path

from claude_builder import ClaudeSession
from test_fuzz_wrong_types import exported

from exporter.adapters import _jsonl
from exporter.adapters._jsonl import NOT_UTF8, RAW_CONTROL, iter_jsonl
from exporter.errors import Problem


def read(path: Path) -> tuple[list[tuple[int, object]], list[Problem]]:
    problems: list[Problem] = []
    return list(iter_jsonl(path, problems, "test")), problems


def test_a_line_with_bytes_that_are_not_utf8_is_read_and_said(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"n":1}\n{"n":2,"s":"caf\xe9"}\n{"n":3,"s":"caf\xc3\xa9"}\n')
    objects, problems = read(path)
    assert objects == [(1, {"n": 1}), (2, {"n": 2, "s": "caf\ufffd"}), (3, {"n": 3, "s": "café"})]
    assert [(p.line, p.message, p.severity, p.left_out) for p in problems] == [
        (2, NOT_UTF8, "warning", False)
    ]


def test_a_last_line_with_such_bytes_and_a_nul_says_both(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"n":1}\n{"n":2,"s":"\xff\x00"}')  # no newline: the last line
    objects, problems = read(path)
    assert [n for n, _ in objects] == [1, 2]
    assert [(p.line, p.message) for p in problems] == [(2, RAW_CONTROL), (2, NOT_UTF8)]


def test_text_orjson_refuses_for_other_reasons_earns_no_such_warning(tmp_path):
    """A lone surrogate written escaped, a number past 64 bits: valid UTF-8, read as before."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"s":"\\ud800"}\n{"n":123456789012345678901234567890}\n')
    objects, problems = read(path)
    assert len(objects) == 2 and problems == []
    assert _jsonl.json_document(b'{"n":123456789012345678901234567890}')[1] is None


def test_a_document_says_each_kind_of_damage_once():
    assert _jsonl.json_document(b'{"s":"\xff"}') == ({"s": "\ufffd"}, NOT_UTF8)
    doc, said = _jsonl.json_document(b'{"s":"\xff\x01"}')
    assert doc == {"s": "\ufffd\x01"} and said == f"{RAW_CONTROL}; {NOT_UTF8}"


def test_a_claude_code_line_with_such_bytes_is_kept_and_said(tmp_path):
    s = ClaudeSession("11111111-2222-4333-8444-5555555555c1", "/home/dev/work/app")
    s.user("mk1 first question")
    s.assistant("mk2 the answer")
    path = tmp_path / "home/.claude/projects/-home-dev-work-app" / f"{s.session_id}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(s.text().encode().replace(b"mk2 the", b"mk2 \xe9the"))
    text, problems = exported(tmp_path / "home", tmp_path / "v", "claude-code")
    assert "mk1 first question" in text and "mk2 \ufffdthe answer" in text
    assert problems == [f"{path}:2: {NOT_UTF8}"]


def test_a_compressed_rollout_that_is_a_folder_names_its_path_once(tmp_path):
    """The error quoted the exception, whose text repeats the path the problem names."""
    path = tmp_path / "rollout-x.jsonl.zst"
    path.mkdir()
    objects, problems = read(path)
    assert objects == []
    (problem,) = problems
    assert problem.message == ("could not be read (a folder, not a file); nothing of it was read")
    assert str(path) not in problem.message


def test_such_lines_are_said_once_per_file_and_counted(tmp_path):
    """A file written in another encoding is one cause: one warning at its first line, not
    one per line (review6 L2; a raw control character likewise)."""
    path = tmp_path / "s.jsonl"
    lines = [b'{"n":1}', b'{"s":"caf\xe9"}', b'{"s":"\x01"}', b'{"n":4}', b'{"s":"th\xe9"}']
    path.write_bytes(b"\n".join([*lines, b'{"s":"\xe9t\xe9"}', b'{"s":"\x02"}']) + b"\n")
    objects, problems = read(path)
    assert [n for n, _ in objects] == [1, 2, 3, 4, 5, 6, 7]
    assert [(p.line, p.message, p.left_out) for p in problems] == [
        (2, f"{NOT_UTF8} (3 lines, the first here)", False),
        (3, f"{RAW_CONTROL} (2 lines, the first here)", False),
    ]
