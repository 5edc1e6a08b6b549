"""A tool output too long for a note (over ``MAX_TOOL_OUTPUT`` characters) is shown cut to
its head and tail, and kept whole in a text file in the vault's attachments, which the note
names: before, its middle was nowhere in the vault (review16 F5)."""

from __future__ import annotations

import json
import re
from datetime import UTC

import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import CORPUS, load_sessions, note_files
from corpus_home import build_corpus_home
from markdown_it import MarkdownIt
from message_builder import msg, session

from exporter.adapters import ClaudeCodeAdapter
from exporter.clean import strip_control, strip_injected
from exporter.export import ExportOptions, run_export
from exporter.model import TextPart, ToolCallPart, ToolResultPart
from exporter.notes import NoteSettings, build_note
from exporter.notespec import TurnView
from exporter.redact import redactor
from exporter.turns import MAX_TOOL_OUTPUT

_MD = MarkdownIt("commonmark")
REMINDER = "\n<system-reminder>Harness text, not the tool's.</system-reminder>"


def _long_output(middle: str = "the middle line") -> str:
    head = "\n".join(f"head {i:06d}" for i in range(MAX_TOOL_OUTPUT // 10))
    tail = "\n".join(f"tail {i:06d}" for i in range(MAX_TOOL_OUTPUT // 10))
    return f"{head}\n{middle}\n{tail}"


def _note(*parts, view: TurnView | None = None, reference: bool = False, monkeypatch=None):
    if reference:
        monkeypatch.setenv("CCEXPORT_REFERENCE_RENDER", "1")
    s = session(msg("user", TextPart("Run it.")), msg("assistant", *parts, minute=1))
    return build_note(s, "n.md", NoteSettings(view=view or TurnView()), lambda key: None)


def _call(output: str, name: str = "Bash", **call) -> tuple[ToolCallPart, ToolResultPart]:
    return (
        ToolCallPart(name, {"command": "make test"}, "c1", **call),
        ToolResultPart(output, "c1"),
    )


def _fences(body: str) -> list[str]:
    return [t.content for t in _MD.parse(body) if t.type == "fence"]


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "template"])
def test_a_cut_output_is_kept_whole_in_a_file_the_note_names(reference, monkeypatch):
    output = _long_output() + REMINDER
    note = _note(*_call(output), reference=reference, monkeypatch=monkeypatch)
    (copy,) = note.attachments
    assert copy.relpath.startswith("attachments/ccexport/") and copy.relpath.endswith(".txt")
    whole = copy.data.decode()
    assert whole == _long_output()  # the whole output, cleaned as the note's is (no reminder)
    assert f"*The whole output is `{copy.relpath}`.*" in note.body
    shown = next(f for f in _fences(note.body) if "head 000000" in f)
    assert "characters omitted by ccexport" in shown and "the middle line" not in shown
    assert "the middle line" not in note.body  # only in the file


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "template"])
def test_a_result_without_its_call_and_a_subagents_result_are_kept_whole_too(
    reference, monkeypatch
):
    lone = _note(ToolResultPart(_long_output(), "nobody"), reference=reference,
                 monkeypatch=monkeypatch)  # fmt: skip
    (copy,) = lone.attachments
    assert f"*The whole output is `{copy.relpath}`.*" in lone.body
    task = ToolCallPart("Task", {"prompt": "look"}, "t1", description="Look around")
    agent = _note(task, ToolResultPart(_long_output("agent middle"), "t1"),
                  reference=reference, monkeypatch=monkeypatch)  # fmt: skip
    (copy,) = agent.attachments
    assert "agent middle" in copy.data.decode() and "agent middle" not in agent.body
    assert f"*The whole result is `{copy.relpath}`.*" in agent.body


def test_an_output_that_fits_gets_no_file():
    note = _note(*_call("x" * MAX_TOOL_OUTPUT))
    assert note.attachments == [] and "The whole output" not in note.body


@pytest.mark.parametrize(
    "view",
    [
        TurnView(tool_output="head"),
        TurnView(tool_output="none"),
        TurnView(tools="hidden"),
        TurnView(tools="summary"),
    ],  # fmt: skip
    ids=["head", "no output", "tools hidden", "tools as a list"],
)
def test_no_file_when_the_person_chose_not_to_show_outputs(view):
    note = _note(*_call(_long_output()), ToolResultPart(_long_output(), "lone"), view=view)
    assert note.attachments == [] and "The whole output" not in note.body


def test_the_file_is_written_redacted_and_a_rerun_leaves_it(tmp_path):
    """Through the pipeline: the file is in the vault, a secret in the omitted middle is
    redacted in it as in a note, and the next run changes nothing."""
    key = "sk-ant-api03-" + "Q" * 93 + "AA"
    s = ClaudeSession("5e0c1a77-0000-4000-8000-00000000f5f5", "/w/p", start="2026-11-20T09:00:00Z")
    s.user("Print the log.")
    s.assistant([tool_use("Bash", {"command": "cat build.log"}, "toolu_1")])
    s.tool_result("toolu_1", _long_output(f"ANTHROPIC_API_KEY={key}"))
    s.assistant("Done.")
    home, vault = tmp_path / "home", tmp_path / "v"
    s.write(home / ".claude" / "projects" / "-w-p" / f"{s.session_id}.jsonl")
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert not report.failed, report.problems
    (txt,) = (vault / "attachments" / "ccexport").glob("*.txt")
    whole = txt.read_text()
    assert "head 000000" in whole and "tail 009999" in whole
    assert "ANTHROPIC_API_KEY=[REDACTED:" in whole and key not in whole
    (body,) = note_files(vault).values()
    assert f"The whole output is `attachments/ccexport/{txt.name}`" in body.decode()
    stamp = txt.stat().st_mtime_ns
    again = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert json.loads(json.dumps(again.as_dict()))["totals"]["unchanged"] == 1
    assert txt.stat().st_mtime_ns == stamp


@pytest.mark.corpus
def test_the_corpus_cut_output_is_whole_in_its_file(tmp_path):
    """The corpus's Claude Code transcripts hold a subagent's search output of about 130,000
    characters: every line of it is in the file its note names, in order."""
    if not (CORPUS / "claude-code").is_dir():
        pytest.skip(f"the shared corpus is not beside this checkout ({CORPUS}); CI provides it")
    home, vault = tmp_path / "home", tmp_path / "v"
    build_corpus_home(CORPUS, home)
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert not report.failed, report.problems
    named = {}
    for relpath, data in note_files(vault).items():
        for path in re.findall(r"The whole (?:output|result) is `([^`]+)`", data.decode()):
            named[path] = relpath
    assert named, "the corpus holds an output over 100,000 characters"
    secrets = redactor()
    outputs = [
        strip_control(strip_injected(p.output)).strip("\n")
        for adapter_session in load_sessions(ClaudeCodeAdapter(), home)[0]
        for m in secrets.session(adapter_session).messages
        for p in m.parts
        if isinstance(p, ToolResultPart) and len(p.output) > MAX_TOOL_OUTPUT
    ]
    assert outputs
    files = {(vault / path).read_text() for path in named}
    for output in outputs:
        lines = [line for line in output.split("\n") if line.strip()]
        matching = [text for text in files if lines[0] in text and lines[-1] in text]
        assert matching, lines[0][:80]
        pos = 0
        for line in lines:
            pos = matching[0].index(line, pos) + len(line)


def test_a_template_that_never_names_the_file_gets_none_copied(tmp_path):
    """A template of the person's written before ``output_path`` (no file of theirs, nor
    ours they extend, names it): a whole output's file would be in no note (review19)."""
    old = tmp_path / "old"
    old.mkdir()
    (old / "session.md.j2").write_text(
        '{% for turn in turns %}{% for item in turn["items"] %}'
        "{% if item.get('output') %}{{ item.output | fence('text') }}{% endif %}"
        "{% endfor %}{% endfor %}"
    )
    extending = tmp_path / "extending"
    extending.mkdir()
    (extending / "session.md.j2").write_text(
        '{% extends "default/session.md.j2" %}{% block header %}# Mine\n{% endblock %}'
    )
    s = session(
        msg("user", TextPart("Run it.")), msg("assistant", *_call(_long_output()), minute=1)
    )
    none = build_note(s, "n.md", NoteSettings(templates=old), lambda key: None)
    assert none.attachments == [] and "characters omitted by ccexport" in none.body
    kept = build_note(s, "n.md", NoteSettings(templates=extending), lambda key: None)
    (copy,) = kept.attachments
    assert f"*The whole output is `{copy.relpath}`.*" in kept.body
