"""A Cline 4 messages file (``<id>.messages.json``: one JSON object, its ``messages`` a list)
cut short, by a crash while Cline wrote it or a sync tool that copied half, is read as far
as it is whole: every message complete before the cut is in the note, the warning and the
note say where the file was cut, and the whole file, once there, gives the whole note.

Synthetic sessions only (tests/cline_builder.py)."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC
from pathlib import Path

import cline_builder as cb
from conftest import note_files
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.adapters.cline import document
from exporter.adapters.cline.document import read_document
from exporter.export import ExportOptions, run_export

SID = "1762500000000_abcde"


def doc(turns: int, prompt: str | None = "You are Cline.") -> dict:
    messages = []
    for n in range(turns):
        messages.append(cb.message("user", cb.text(f"Prompt number {n}"), n=2 * n))
        messages.append(cb.message("assistant", cb.text(f"Answer number {n}"), n=2 * n + 1))
    out = {"version": 1, "updated_at": "2025-11-07T08:00:00.000Z", "agent": "lead",
           "sessionId": SID, "messages": messages}  # fmt: skip
    if prompt is not None:
        out["system_prompt"] = prompt
    return out


def text_of(d: dict) -> str:
    return json.dumps(d, indent="\t")  # as Cline writes it


def cut_inside_message(d: dict, keep: int) -> str:
    """The file with ``keep`` whole messages, then 30 characters of the next one."""
    text = text_of(d)
    at = text.index(f'"Prompt number {keep // 2}"' if keep % 2 == 0 else
                    f'"Answer number {keep // 2}"')  # fmt: skip
    return text[:at]


def messages_file(home: Path) -> Path:
    return home / ".cline" / "data" / "sessions" / SID / f"{SID}.messages.json"


def write(home: Path, text: str) -> None:
    path = messages_file(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def export(home: Path, vault: Path):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, sources=["cline"]))


def the_note(vault: Path) -> str:
    (note,) = note_files(vault).values()
    return note.decode()


def test_a_cut_messages_file_gives_its_whole_messages_and_says_where_it_was_cut(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    text = cut_inside_message(doc(3), keep=3)
    write(home, text)
    report = export(home, vault)
    assert not report.failed
    (warning,) = report.problems
    cut_line = text.count("\n", 0, text.rindex('"role"'))  # the cut message's "{" line
    assert (warning.severity, warning.path, warning.line) == (
        "warning", str(messages_file(home)), cut_line)  # fmt: skip
    assert "its 3 complete messages are read" in warning.message
    assert f"(message 4, from line {cut_line})" in warning.message
    note = the_note(vault)
    assert "Answer number 0" in note and "Prompt number 1" in note
    assert "Answer number 1" not in note
    assert f"Line {cut_line} of this session's file could not be read" in note
    # Not changed since: not read again, as a JSONL file's unfinished last line...
    unchanged = export(home, vault)
    assert unchanged.problems == [] and unchanged.per_source["cline"].skipped == 1
    write(home, text_of(doc(3)))  # ... until Cline wrote it whole
    whole = export(home, vault)
    assert whole.problems == [] and whole.per_source["cline"].updated == 1
    note = the_note(vault)
    assert "Answer number 2" in note and "could not be read" not in note


def test_a_whole_note_is_kept_through_a_cut_copy_and_the_whole_file_writes_it_again(tmp_path):
    """A sync tool copies half of a file already exported whole: the note keeps every
    message (a source that shrank); the file whole again, the note is whole, with no word
    of the cut left in it."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    write(home, text_of(doc(3)))
    export(home, vault)
    before = note_files(vault)
    write(home, cut_inside_message(doc(3), keep=2))
    cut = export(home, vault)
    assert not cut.failed and note_files(vault) == before
    assert any("ends in the middle of a JSON value" in p.message for p in cut.problems)
    write(home, text_of(doc(4)))
    grown = export(home, vault)
    assert grown.problems == [] and grown.per_source["cline"].updated == 1
    note = the_note(vault)
    assert "Answer number 3" in note and "could not be read" not in note


def test_a_file_cut_after_its_messages_gives_them_all(tmp_path):
    """Cut in the system prompt, which follows the messages: every message is read, and the
    note lacks nothing of the conversation (it does not say a line is missing)."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    text = text_of(doc(2, prompt="You are Cline. " * 20))
    write(home, text[: text.index("You are Cline.") + 40])
    report = export(home, vault)
    (warning,) = report.problems
    assert "after its messages: all 4 of them are read" in warning.message
    note = the_note(vault)
    assert "Answer number 1" in note and "could not be read" not in note


def test_a_cut_right_after_a_whole_message_says_no_message_was_cut(tmp_path):
    """Cut after a message's closing brace, before a comma or the list's end: every message
    the file shows is read, and no line is said to be missing from the note; cut after the
    comma, the next message was begun, and is said cut off."""
    text = text_of(doc(2))
    end = text.rindex("]")  # (the messages' list closes last)
    after_brace = text.rindex("}", 0, end) + 1
    for cut, left_out in (
        (after_brace, False),
        (text.index(",", text.index("Answer number 0")) + 1, True),
    ):
        path = tmp_path / f"{SID}.messages.json"
        path.write_text(text[:cut], encoding="utf-8")
        problems: list = []
        got = read_document(path, problems, "cline", in_part="messages")
        (problem,) = problems
        assert problem.left_out is left_out, problem.message
        if not left_out:
            assert len(got["messages"]) == 4
            assert "after message 4, before its list of messages is closed" in problem.message


def test_a_file_cut_before_its_first_message_is_whole_is_left_for_now(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    text = text_of(doc(2))
    write(home, text[: text.index("Prompt number 0")])
    report = export(home, vault)
    assert not report.failed and note_files(vault) == {}
    (warning,) = report.problems
    assert "no message of it is complete yet" in warning.message
    write(home, text)
    assert export(home, vault).per_source["cline"].created == 1


_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
_message = st.builds(
    lambda role, words, n: cb.message(role, cb.text(words), n=n),
    st.sampled_from(["user", "assistant"]),
    _text,
    st.integers(0, 10**6),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_message, min_size=1, max_size=4), _text, st.data(), st.booleans())
def test_every_cut_of_a_messages_file_keeps_whole_messages_from_its_start(
    messages, prompt, data, indent
):
    """Wherever the file is cut (a key, a string, an escape, a number, between messages),
    what is read is the file's first messages, each whole, with a warning."""
    full = {"version": 1, "updated_at": "2025-11-07T08:00:00.000Z", "sessionId": SID,
            "messages": messages, "system_prompt": prompt}  # fmt: skip
    raw = json.dumps(full, indent="\t" if indent else None).encode()
    cut = data.draw(st.integers(0, len(raw) - 1), label="cut")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{SID}.messages.json"
        path.write_bytes(raw[:cut])
        problems: list = []
        got = read_document(path, problems, "cline", in_part="messages")
    (problem,) = problems
    assert problem.severity == "warning"
    if got is not None:
        assert 0 < len(got["messages"]) and got["messages"] == messages[: len(got["messages"])]
        assert all(got[k] == full[k] for k in got if k != "messages")
        # (a cut right after a whole message, before a comma or "]", cannot say more were
        # coming: not said to be left out)
        if problem.left_out:
            assert len(got["messages"]) < len(messages)
        assert problem.left_out or "all " in problem.message


def test_a_large_cut_file_is_read_in_one_pass(tmp_path, monkeypatch):
    """Every message parsed once, not the whole rest of the file again for each (counted,
    not timed): a 100 MB session cut short costs a pass, not a pass per message."""
    text = text_of(doc(5000))
    path = tmp_path / f"{SID}.messages.json"
    path.write_text(cut_inside_message(doc(5000), keep=9999), encoding="utf-8")
    parsed: list[int] = []
    decode = document._DECODER.raw_decode

    def counted(s: str, idx: int = 0):
        try:
            value, end = decode(s, idx)
        except json.JSONDecodeError as exc:
            parsed.append(exc.pos - idx)
            raise
        parsed.append(end - idx)
        return value, end

    monkeypatch.setattr(document._DECODER, "raw_decode", counted)
    problems: list = []
    got = read_document(path, problems, "cline", in_part="messages")
    assert len(got["messages"]) == 9999
    assert sum(parsed) < len(text) and len(parsed) < 10_100
