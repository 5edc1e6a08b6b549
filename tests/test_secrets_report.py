"""What the report says about a source never holds a secret: a path, or a value it quotes
(cut short, a token would be printed in part, and redaction could not see it).

The tokens are generated at test time from random characters; none is real.
"""

from __future__ import annotations

from claude_builder import ClaudeSession
from test_claude_adapter import SID, load_all, projects
from test_redact import SAMPLES, Gen

from exporter.errors import clipped
from exporter.outcome import ExportReport
from exporter.redact import redactor
from exporter.redact_outputs import redact_report

TOKEN = SAMPLES["github-pat"](Gen(31))[1]


def test_the_path_of_an_empty_source_file_is_redacted():
    report = ExportReport(empty_units=[("claude-code", f"/h/.claude/projects/-w-{TOKEN}/a.jsonl")])
    redact_report(report, redactor())
    assert TOKEN not in repr(report.empty_units) + repr(report.as_dict())
    assert report.empty_units == [
        ("claude-code", "/h/.claude/projects/-w-[REDACTED:github-pat]/a.jsonl")
    ]


def test_a_long_value_is_cut_after_a_separator_never_inside_a_word():
    assert clipped("brand-new-type") == "brand-new-type"
    assert clipped(f"kind {TOKEN} " + "x" * 80, 30) == "kind …"
    for cut in range(5, len(TOKEN) + 10):
        shown = clipped(f"a: {TOKEN}", cut)
        assert "ghp_" not in shown or TOKEN in shown


def test_an_unknown_record_type_is_never_quoted_with_part_of_a_token(tmp_path):
    s = ClaudeSession(SID)
    s.user("hi")
    s.meta("x" * 50 + " " + TOKEN)  # the 80 characters kept would end inside the token
    s.assistant("hello")
    s.write(projects(tmp_path) / f"{SID}.jsonl")
    _, problems = load_all(tmp_path)
    (problem,) = problems
    quoted = f"'{'x' * 50} …'"
    assert problem.message == f"unknown record type {quoted} skipped"
    assert TOKEN[:6] not in problem.message


def test_a_codex_item_type_or_a_failed_line_is_never_quoted_with_part_of_a_token(tmp_path):
    from codex_builder import CodexRollout
    from test_codex_adapter import TID
    from test_codex_adapter import load_all as load_codex

    r = CodexRollout(TID)
    r.user("hi")
    r.item({"type": "x" * 60 + " " + TOKEN})  # 80 characters would end inside the token
    r.write(tmp_path / ".codex")
    _, problems = load_codex(tmp_path)
    assert [p.message for p in problems] == [f"unknown item type '{'x' * 60} …' skipped"]


def test_a_render_failure_quoting_a_long_value_never_holds_part_of_a_token():
    from pathlib import Path

    from exporter.model import Session
    from exporter.workers import RenderJob, failed

    session = Session("claude-code", SID, (), Path("/h/a.jsonl"))
    problem = failed(RenderJob("u", session, "a.md", {}), "KeyError: " + "k" * 280 + " " + TOKEN)
    assert "ghp_" not in problem.message and problem.message.endswith("…")
