"""The Dataview variant of the index notes counts and lists what the plain lists do: a
subagent's note and a long session's later parts are reached from the session's note, not
counted as sessions of their own. The queries are read out of the notes and evaluated over
the vault's notes by a small evaluator of the Dataview expressions they use (negation,
AND, OR, =, parentheses, fields, numbers and strings), so a query that changes is checked
as it reads, not as a test expects its text."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import Any

from conftest import EXAMPLES_HOME

from exporter.export import ExportOptions, run_export
from exporter.notefile import read_frontmatter

_TOKEN = re.compile(r'\s*(!|\(|\)|=|"(?:[^"\\]|\\.)*"|\d+|[A-Za-z_][\w.]*)')


def _tokens(text: str) -> list[str]:
    out, at = [], 0
    while at < len(text.rstrip()):
        m = _TOKEN.match(text, at)
        assert m, f"not an expression this test reads: {text[at:]!r}"
        out.append(m.group(1))
        at = m.end()
    return out


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "", [])


def evaluate(expression: str, page: dict[str, Any], prefix: str = "") -> Any:
    """``expression`` (a WHERE clause, or a lambda's body whose argument is ``prefix``)
    for one note's frontmatter."""
    tokens, at = _tokens(expression), 0

    def peek() -> str | None:
        return tokens[at] if at < len(tokens) else None

    def take() -> str:
        nonlocal at
        at += 1
        return tokens[at - 1]

    def joined(word: str, operand: Callable[[], Any]) -> Any:
        """``operand (word operand)*``: OR over ANDs over comparisons."""
        value = operand()
        while peek() in (word, word.lower()):
            take()
            right = operand()
            value = (_truthy(value) or _truthy(right)) if word == "OR" else (
                _truthy(value) and _truthy(right))  # fmt: skip
        return value

    def either() -> Any:
        return joined("OR", lambda: joined("AND", equal))

    def equal() -> Any:
        value = unary()
        if peek() == "=":
            take()
            value = value == unary()
        return value

    def unary() -> Any:
        if peek() == "!":
            take()
            return not _truthy(unary())
        token = take()
        if token == "(":
            value = either()
            assert take() == ")"
            return value
        if token.isdigit():
            return int(token)
        if token.startswith('"'):
            return token[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        return page.get(token.removeprefix(prefix))

    value = either()
    assert at == len(tokens), f"left unread: {tokens[at:]}"
    return value


def test_the_evaluator_reads_dataview_precedence():
    page = {"parent": "[[p]]", "part": 2, "project": 'a"b'}
    assert evaluate("!parent AND (!part OR part = 1)", page) is False
    assert evaluate("!parent AND (!part OR part = 1)", {"part": 1}) is True
    assert evaluate("!parent AND (!part OR part = 1)", {}) is True
    assert evaluate('project = "a\\"b" AND !missing', page) is True
    assert evaluate("!r.parent OR r.part = 2", page, "r.") is True


def _notes(folder: Path) -> list[dict[str, Any]]:
    return [read_frontmatter(p.read_text(encoding="utf-8")) for p in folder.rglob("*.md")]


def _dataview(text: str) -> str:
    return text.split("```dataview\n", 1)[1].split("```", 1)[0]


def test_the_dataview_tables_count_and_list_what_the_plain_lists_do(tmp_path):
    vault = tmp_path / "v"
    options = ExportOptions(
        vault=vault, home=EXAMPLES_HOME, timezone=UTC, index_dataview=True, note_max_bytes=2000
    )
    report = run_export(options)
    assert not report.failed
    folder = vault / "AI Sessions"
    notes = _notes(folder)
    assert any(n.get("parent") for n in notes), "the demo home has subagents"
    assert any(n.get("part", 1) != 1 for n in notes), "some demo session is split"

    # The index of projects: its count per project, against the list's.
    projects = (folder / "Projects.md").read_text(encoding="utf-8")
    listed = {
        m.group(1): int(m.group(2))
        for m in re.finditer(r"^- \[\[[^|\]]*\|([^\]]+)\]\] · (\d+) sessions?", projects, re.M)
    }
    query = _dataview(projects)
    where = re.search(r"^WHERE (.*)$", query, re.M).group(1)
    count = re.search(r"^TABLE length\((.*?)\) AS sessions,", query, re.M).group(1)
    body = re.fullmatch(r"filter\(rows, \(r\) => (.*)\)", count)
    rows = [n for n in notes if _truthy(evaluate(where, n))]
    counted = Counter(
        str(n["project"]) for n in rows if body is None or _truthy(evaluate(body[1], n, "r."))
    )
    assert {p: c for p, c in counted.items() if c} == listed

    # Each project's index note: the notes its table lists, against the list's lines.
    for index in (folder / "Projects").glob("*.md"):
        text = index.read_text(encoding="utf-8")
        body = text.split("%% ccexport:begin", 1)[1]
        lines = [line for line in body.split("\n") if line.startswith("- ")]
        where = re.search(r"^WHERE (.*)$", _dataview(text), re.M).group(1)
        assert len([n for n in notes if _truthy(evaluate(where, n))]) == len(lines), index.name
