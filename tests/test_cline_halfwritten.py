"""A Cline-family task file caught while the editor rewrites it (FORMATS.md §0.2) is no
damage: a warning, what is complete of it exported, and the whole file read again once it
changes. A file that goes wrong before its end is damaged: an error naming where.

Synthetic task folders only (tests/cline_builder.py)."""

from __future__ import annotations

import json
import re
import tempfile
from datetime import UTC
from pathlib import Path

import cline_builder as cb
import pytest
from conftest import note_files
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from exporter.adapters.cline.document import read_document
from exporter.cli import app
from exporter.export import ExportOptions, run_export

UI = "ui_messages.json"


def conversation(turns: int) -> list[dict]:
    """A task of ``turns`` prompts, each answered; its UI entries in order."""
    entries = [cb.say(0, "task", "Prompt number 0")]
    for n in range(turns):
        if n:
            entries.append(cb.say(3 * n, "user_feedback", f"Prompt number {n}"))
        entries.append(cb.api_request(3 * n + 1, 100, 10, 0.001))
        entries.append(cb.say(3 * n + 2, "text", f"Answer number {n}"))
    return entries


def cut_inside_entry(entries: list[dict], keep: int) -> str:
    """The file as the editor leaves it mid-write: ``keep`` whole entries, then half of the
    next (its text cut in the middle of a string)."""
    whole = json.dumps(entries)
    head = json.dumps(entries[:keep])[:-1]  # without its closing bracket
    return whole[: len(head) + 30]


def export(home: Path, vault: Path):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, sources=["cline"]))


def cli_export(home: Path, vault: Path):
    return CliRunner().invoke(
        app, ["--vault", str(vault), "--home", str(home), "--source", "cline", "--json"]
    )


def ui_file(home: Path, task: str) -> Path:
    return cb.storage(home, cb.CLINE) / "tasks" / task / UI


# --- telling a file cut short from a damaged one ----------------------------------------

_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
# (no infinity: json.dumps writes it as Infinity, which is not JSON, and VS Code's
# JSON.stringify never writes it)
_value = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
) | _text
_entry = st.builds(
    lambda n, kind, text, extra: {**cb.say(n, kind, text), **extra},
    st.integers(0, 10**6),
    st.sampled_from(["text", "task", "reasoning", "api_req_started"]),
    _text,
    st.dictionaries(st.sampled_from(["partial", "images", "seq"]), _value),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_entry, max_size=4), st.data(), st.booleans(), st.booleans())
def test_every_cut_of_a_ui_file_is_half_written_and_keeps_its_whole_entries(
    entries, data, indent, ascii_only
):
    """Whatever the file holds and wherever the write was caught (in a string, an escape,
    a number, between entries), the file is half-written, not damaged: a warning, and the
    entries read are the file's first ones, each whole."""
    text = json.dumps(entries, indent=2 if indent else None, ensure_ascii=ascii_only)
    raw = text.encode()
    cut = data.draw(st.integers(0, len(raw) - 1), label="cut")  # also inside a UTF-8 char
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / UI
        path.write_bytes(raw[:cut])
        problems: list = []
        got = read_document(path, problems, "cline")
    (problem,) = problems
    assert problem.severity == "warning" and problem.path == str(path)
    said = "is empty" if not raw[:cut].strip() else "ends in the middle of a JSON value"
    assert said in problem.message
    assert "read again when it changes" in problem.message
    assert got is None or (0 < len(got) and got == entries[: len(got)])


@pytest.mark.parametrize("text", ["", "  \n"])
def test_an_emptied_file_is_said_to_be_empty_not_cut(tmp_path, text):
    """The editor empties a task file before writing it again: the likeliest catch."""
    path = tmp_path / UI
    path.write_text(text)
    problems: list = []
    assert read_document(path, problems, "cline") is None
    (problem,) = problems
    assert problem.severity == "warning" and problem.message.startswith("is empty")


def test_a_cut_file_says_on_which_line_its_unfinished_value_starts(tmp_path):
    path = tmp_path / UI
    path.write_text('[\n  {"ts": 1, "type": "say"},\n  {"ts": 2, "text": "half')
    problems: list = []
    assert read_document(path, problems, "cline") == [{"ts": 1, "type": "say"}]
    (problem,) = problems
    assert problem.line == 3 and "line 3" in problem.message


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_entry, min_size=2, max_size=4),
    st.data(),
    st.sampled_from(["#", "]", "}", "x", ",", "tru,", "1 2", "\\x"]),
)
def test_text_gone_wrong_before_the_end_is_damage_naming_where(entries, data, junk):
    """Junk between two entries of a file that is otherwise whole: an error naming the file
    and the line and column where the JSON goes wrong."""
    k = data.draw(st.integers(1, len(entries) - 1), label="where")
    head = "[" + ",".join(json.dumps(e) for e in entries[:k]) + ","
    text = head + junk + ",".join(json.dumps(e) for e in entries[k:]) + "]"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / UI
        path.write_text(text, encoding="utf-8")
        problems: list = []
        assert read_document(path, problems, "cline") is None
    (problem,) = problems
    assert (problem.severity, problem.path, problem.line) == ("error", str(path), 1)
    assert "not valid JSON at line 1, column" in problem.message
    assert "before the end of the file" in problem.message


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('[{"ts": 1}]]', "line 1, column 12"),  # a second closing bracket
        # a comma before the end: Python 3.13 names the comma, earlier ones what follows it
        ('[{"ts": 1},]', "line 1, column 1[12] "),
        # (a control character left raw in a string is read: test_fuzz_wrong_types)
        ('[{"ts": 1, "text": "\\q"}, {"ts": 2}]', "line 1, column 21"),  # no such escape
        ('[{"ts": 1} {"ts": 2}]', "line 1, column 12"),  # a comma missing
    ],
)
def test_damaged_files_are_errors_at_their_place(tmp_path, text, where):
    path = tmp_path / UI
    path.write_text(text, encoding="utf-8")
    problems: list = []
    assert read_document(path, problems, "cline") is None
    (problem,) = problems
    assert problem.severity == "error"
    assert re.search(f"not valid JSON at {where}", problem.message), problem.message


@pytest.mark.parametrize(
    "text",
    ["", "[", '[{"ts": 1', '[{"ts": 1}, {"text": "ab\\u00', '[{"ts": 1}, {"ok": tr',
     '[{"ts": 1}, {"n": -', '[{"ts": 1}, {"n": 1.5e+', '[{"ts": 1}, {"k"'],
)  # fmt: skip
def test_files_cut_in_each_kind_of_token_are_half_written(tmp_path, text):
    path = tmp_path / UI
    path.write_text(text, encoding="utf-8")
    problems: list = []
    got = read_document(path, problems, "cline")
    assert [p.severity for p in problems] == ["warning"]
    assert got == ([{"ts": 1}] if text.startswith('[{"ts": 1}, ') else None)


# --- through a real export --------------------------------------------------------------


def test_a_half_written_ui_file_is_a_warning_and_the_next_run_reads_it_whole(tmp_path):
    """Run 1 catches the file mid-write: a warning naming it (exit 0, nothing failed), the
    note holds the entries complete so far. Once the file is written out (it changed), the
    next run updates the note with the whole conversation, and reports nothing."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    entries = conversation(3)
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000000", ui=cut_inside_entry(entries, keep=6))
    first = cli_export(home, vault)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert report["errors"] == [] and report["sources"]["cline"]["failed"] == 0
    (warning,) = report["warnings"]
    assert warning["path"] == str(ui_file(home, "1762500000000"))
    assert "ends in the middle of a JSON value" in warning["message"]
    assert "its 6 complete entries are read" in warning["message"]
    (note,) = note_files(vault).values()
    assert b"Answer number 1" in note and b"Prompt number 2" not in note
    # As with a JSONL file's unfinished last line: the file not changed since, the task
    # is not read again (nor the warning repeated)...
    unchanged = json.loads(cli_export(home, vault).stdout)
    assert unchanged["warnings"] == [] and unchanged["sources"]["cline"]["skipped"] == 1

    cb.task(root, "1762500000000", ui=entries)  # ... until the editor finished writing
    second = cli_export(home, vault)
    assert second.exit_code == 0, second.output
    report = json.loads(second.stdout)
    assert report["warnings"] == [] and report["sources"]["cline"]["updated"] == 1
    (note,) = note_files(vault).values()
    assert b"Prompt number 2" in note and b"Answer number 2" in note


def test_a_file_caught_before_its_first_entry_is_whole_gives_the_model_history(tmp_path):
    """Nothing of the UI file complete yet: the task is read from the model's history, as
    when the UI file is missing, and the UI file is read once it changes."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    root = cb.storage(home, cb.CLINE)
    entries = conversation(1)
    api = [cb.message("user", cb.text("<task>\nPrompt number 0\n</task>")),
           cb.message("assistant", cb.text("Answer from the history"))]  # fmt: skip
    cb.task(root, "t", ui=json.dumps(entries)[:25], api=api)
    report = export(home, vault)
    assert not report.failed and [p.severity for p in report.problems] == ["warning"]
    assert "no entry of it is complete yet" in report.problems[0].message
    (note,) = note_files(vault).values()
    assert b"Answer from the history" in note
    cb.task(root, "t", ui=entries)
    assert export(home, vault).per_source["cline"].updated == 1
    (note,) = note_files(vault).values()
    assert b"Answer number 0" in note


def test_a_rewrite_caught_halfway_never_takes_from_the_note(tmp_path):
    """A task already exported, caught mid-rewrite with fewer whole entries than its note
    holds: the note keeps what it had; once the file is whole again it is updated."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "t", ui=conversation(2))
    export(home, vault)
    before = note_files(vault)
    cb.task(root, "t", ui=cut_inside_entry(conversation(3), keep=3))
    caught = export(home, vault)
    assert not caught.failed and note_files(vault) == before
    cb.task(root, "t", ui=conversation(3))
    assert export(home, vault).per_source["cline"].updated == 1
    (note,) = note_files(vault).values()
    assert b"Answer number 2" in note


def test_a_damaged_ui_file_is_an_error_and_is_read_again_every_run(tmp_path):
    """Junk in the middle of a whole file: the run fails (exit 1), naming the file and the
    line; the task is exported from the model's history meanwhile, and, not being recorded
    as done, is read (and reported) again by the next run."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    root = cb.storage(home, cb.CLINE)
    entries = conversation(2)
    api = [cb.message("user", cb.text("<task>\nPrompt number 0\n</task>")),
           cb.message("assistant", cb.text("Answer from the history"))]  # fmt: skip
    text = json.dumps(entries, indent=1)
    cb.task(root, "t", ui=text.replace("},\n {", "},\n #{", 1), api=api)
    result = cli_export(home, vault)
    assert result.exit_code == 1
    (error,) = json.loads(result.stdout)["errors"]
    assert error["path"] == str(ui_file(home, "t")) and error["line"] == 8
    assert "not valid JSON at line 8, column 2" in error["message"]
    (note,) = note_files(vault).values()
    assert b"Answer from the history" in note
    again = export(home, vault)
    assert again.failed and [p.severity for p in again.problems] == ["error"]
