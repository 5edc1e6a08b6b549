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

    _tables_agree_with_lists(folder)

    # A part a larger limit no longer needs, which the person edited, stays: not counted.
    last = max(folder.rglob("*(part *).md"), key=lambda p: int(p.stem.rsplit(" ", 1)[1][:-1]))
    last.write_text(last.read_text(encoding="utf-8") + "my words\n", encoding="utf-8")
    options = ExportOptions(
        vault=vault, home=EXAMPLES_HOME, timezone=UTC, index_dataview=True, note_max_bytes=10**6
    )
    assert not run_export(options).failed
    stem = last.stem.rsplit(" (part ", 1)[0]
    assert [p.name for p in last.parent.glob(f"{stem} (part *).md")] == [last.name]
    _tables_agree_with_lists(folder)


def _tables_agree_with_lists(folder: Path) -> None:
    """Each project's index note: the rows its table shows, against the list's lines."""
    pages = _pages(folder)
    for index in (folder / "Projects").glob("*.md"):
        text = index.read_text(encoding="utf-8")
        body = text.split("%% ccexport:begin", 1)[1]
        listed = sorted(_listed(line) for line in body.split("\n") if line.startswith("- "))
        assert table_rows(_dataview(text), pages) == listed, index.name


def _pages(folder: Path) -> list[dict[str, Any]]:
    """Every note as Dataview reads it: its properties, and ``file.link``."""
    pages = []
    for path in folder.rglob("*.md"):
        page = read_frontmatter(path.read_text(encoding="utf-8"))
        pages.append({**page, "file": {"link": path.stem}})
    return pages


def _listed(line: str) -> tuple[str, int | None]:
    """A list line's note (the link's target) and its messages."""
    target = re.search(r"\[\[([^|\]]*)", line).group(1)
    count = re.search(r" · (\d+) messages$", line)
    return target, int(count.group(1)) if count else None


def table_rows(query: str, pages: list[dict[str, Any]]) -> list[tuple[str, int | None]]:
    """A project index's table evaluated over ``pages``: each row's link and messages, as
    the list gives them (sorted). ``TABLE a, b`` lists each note, ``TABLE WITHOUT ID … AS
    session, … GROUP BY …`` each group."""
    where = re.search(r"^WHERE (.*)$", query, re.M).group(1)
    plain = re.match(r"TABLE (?!WITHOUT ID)(.*)$", query, re.M)
    if plain:  # (a note per row, its link first: the table before sessions were grouped)
        assert "messages" in plain.group(1).split(", ")
        listed = [p for p in pages if _truthy(Dataview(where).value(p))]
        return sorted((p["file"]["link"], p.get("messages") or None) for p in listed)
    head = re.match(r"TABLE WITHOUT ID (.*)$", query, re.M).group(1)
    columns = {name: expr for expr, name in re.findall(r"(.+?) AS (\w+)(?:, |$)", head)}
    key = re.search(r"^GROUP BY (.*)$", query, re.M).group(1)
    groups: dict[Any, list[dict[str, Any]]] = {}
    for page in pages:
        if _truthy(Dataview(where).value(page)):
            groups.setdefault(Dataview(key).value(page), []).append(page)
    rows = []
    for members in groups.values():
        row = {"rows": members}
        link = Dataview(columns["session"]).value(row)
        messages = Dataview(columns["messages"]).value(row)
        rows.append((link, messages or None))
    return sorted(rows)


class Dataview:
    """A Dataview expression of the kinds the index queries use: fields and ``a.b``, numbers
    and strings, ``!``, ``AND``, ``OR``, ``=``, ``<=``, ``+``, calls (``default``, ``min``,
    ``sum``, ``map``, ``filter``, ``minby``, ``length``) and lambdas ``(r) => …``, which see
    the row they are evaluated in (as Dataview's do)."""

    _TOKEN = re.compile(r'\s*(=>|<=|!|\(|\)|,|\.|=|\+|"(?:[^"\\]|\\.)*"|\d+|[A-Za-z_]\w*)')
    _CALLS = {
        "default": lambda v, d: d if v is None else v,
        "min": lambda xs: min((x for x in xs if x is not None), default=None),
        "sum": lambda xs: sum(x for x in xs if x is not None) if xs else None,
        "length": len,
        "map": lambda xs, f: [f(x) for x in xs],
        "filter": lambda xs, f: [x for x in xs if _truthy(f(x))],
        "minby": lambda xs, f: min(xs, key=f) if xs else None,
    }

    def __init__(self, text: str) -> None:
        self.tokens, at = [], 0
        while at < len(text.rstrip()):
            m = self._TOKEN.match(text, at)
            assert m, f"not an expression this test reads: {text[at:]!r}"
            self.tokens.append(m.group(1))
            at = m.end()

    def value(self, env: dict[str, Any]) -> Any:
        self.at = 0
        result = self._or()(env)
        assert self.at == len(self.tokens), f"left unread: {self.tokens[self.at :]}"
        return result

    def _peek(self, ahead: int = 0) -> str | None:
        at = self.at + ahead
        return self.tokens[at] if at < len(self.tokens) else None

    def _take(self, expected: str | None = None) -> str:
        token = self.tokens[self.at]
        assert expected is None or token == expected, (token, expected)
        self.at += 1
        return token

    def _or(self) -> Callable[[dict[str, Any]], Any]:
        left = self._and()
        while self._peek() == "OR":
            self._take()
            a, b = left, self._and()
            left = lambda env, a=a, b=b: _truthy(a(env)) or _truthy(b(env))  # noqa: E731
        return left

    def _and(self) -> Callable[[dict[str, Any]], Any]:
        left = self._compare()
        while self._peek() == "AND":
            self._take()
            a, b = left, self._compare()
            left = lambda env, a=a, b=b: _truthy(a(env)) and _truthy(b(env))  # noqa: E731
        return left

    def _compare(self) -> Callable[[dict[str, Any]], Any]:
        left = self._sum()
        if self._peek() in ("=", "<="):
            op, right = self._take(), self._sum()
            if op == "=":
                return lambda env: left(env) == right(env)
            return lambda env: left(env) is not None and right(env) is not None and (
                left(env) <= right(env))  # fmt: skip
        return left

    def _sum(self) -> Callable[[dict[str, Any]], Any]:
        left = self._unary()
        while self._peek() == "+":
            self._take()
            a, b = left, self._unary()
            left = lambda env, a=a, b=b: (  # noqa: E731
                str(a(env)) + str(b(env)) if isinstance(a(env), str) else a(env) + b(env)
            )
        return left

    def _unary(self) -> Callable[[dict[str, Any]], Any]:
        if self._peek() == "!":
            self._take()
            inner = self._unary()
            return lambda env: not _truthy(inner(env))
        value = self._primary()
        while self._peek() == ".":
            self._take()
            name, inner = self._take(), value
            value = lambda env, name=name, inner=inner: _member(inner(env), name)  # noqa: E731
        return value

    def _primary(self) -> Callable[[dict[str, Any]], Any]:
        token = self._take()
        if token == "(":
            if self._peek(1) == ")" and self._peek(2) == "=>":  # a lambda of one argument
                arg = self._take()
                self._take(")")
                self._take("=>")
                body = self._or()
                return lambda env: lambda x: body({**env, arg: x})
            inner = self._or()
            self._take(")")
            return inner
        if token.isdigit():
            return lambda env: int(token)
        if token.startswith('"'):
            text = token[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            return lambda env: text
        if self._peek() == "(":
            self._take()
            args = [self._or()]
            while self._peek() == ",":
                self._take()
                args.append(self._or())
            self._take(")")
            call = self._CALLS[token]
            return lambda env: call(*(a(env) for a in args))
        return lambda env: env.get(token)


def _member(value: Any, name: str) -> Any:
    if isinstance(value, list):  # (Dataview's swizzle: the field of each)
        return [_member(v, name) for v in value]
    return value.get(name) if isinstance(value, dict) else None
