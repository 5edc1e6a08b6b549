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
from exporter.redact import redact_report, redactor

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
    assert problem.message == f"unknown record type {quoted} (1 lines, the first here) skipped"
    assert TOKEN[:6] not in problem.message
