"""A bad key or value inside a config table is named with its dotted key and its own line
(docsaudit M3: the message named the table and its header's line only); ``config show``
prints each value as TOML writes it (docsaudit L1: it printed Python's reprs)."""

from __future__ import annotations

import math
import tomllib
from datetime import UTC, date, datetime, time, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from exporter import config_file
from exporter.cli import app


# Looked up when called: each test fails on its own (not the whole file) without the mend.
def at_line(*args):
    return config_file.at_line(*args)


def key_lines(*args):
    return config_file.key_lines(*args)


def key_name(*args):
    return config_file.key_name(*args)


def toml_value(*args):
    return config_file.toml_value(*args)


runner = CliRunner()


def config_error(tmp_path: Path, text: str) -> str:
    """What ``config show`` says of a vault config holding ``text`` (it must stop, exit 2)."""
    vault = tmp_path / "v"
    (vault / ".ccexport").mkdir(parents=True, exist_ok=True)
    (vault / ".ccexport" / "config.toml").write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["config", "show", "--vault", str(vault)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert str(vault / ".ccexport" / "config.toml") in result.stderr
    return result.stderr


UNKNOWN_IN_A_TABLE = [
    # the audit's six files (M3), each then named with the key, its line and a suggestion
    ("[index]\nenabled = true\ndataviw = true\n",
     "line 3: 'index.dataviw' is not a setting ccexport knows (did you mean dataview?); "
     "'index' takes 'enabled' and 'dataview' (true or false)"),
    ('[frontmatter]\nadd = {}\ndorp = ["x"]\n',
     "line 3: 'frontmatter.dorp' is not a setting ccexport knows (did you mean drop?); "
     "'frontmatter' takes 'add' (a table of properties), 'drop' (a list) and 'project_tag' (a tag)"),
    ("[redact]\nallow = []\nextras = []\n",
     "line 3: 'redact.extras' is not a setting ccexport knows (did you mean extra?); "
     "'redact' takes true or false, or a table of 'enabled', 'extra', 'allow'"),
    ('[daily]\nfolder = "J"\nfromat = "YYYY"\n',
     "line 3: 'daily.fromat' is not a setting ccexport knows (did you mean format?); "
     "'daily' takes 'enabled' (true or false), 'folder' and 'format'"),
    ('# mine\n[paths]\nclaudecode = ["~/x"]\n',
     "line 3: 'paths.claudecode' is not a source (did you mean claude-code?); "
     "'paths' must map source names (claude-code, "),
    ('[prices."x*"]\ninput = 1.0\noutptu = 2.0\n',
     "line 3: 'prices.\"x*\".outptu' is not a setting ccexport knows (did you mean output?); "
     "a price takes input, output, cache_read, cache_write"),
    # the same keys written as dotted keys and inline tables
    ('folder = "x"\nindex.dataviw = true\n', "line 2: 'index.dataviw' is not a setting"),
    ('folder = "x"\n\nindex = { enabled = true, dataviw = true }\n',
     "line 3: 'index.dataviw' is not a setting"),
    ('folder = "x"\nprices."claude-3.5*".outptu = 2.0\n',
     "line 2: 'prices.\"claude-3.5*\".outptu' is not a setting"),
    ('[prices]\n"a*" = { input = 1 }\n"b*" = { input = 1, outptu = 2 }\n',
     "line 3: 'prices.\"b*\".outptu' is not a setting"),
    ('[redact]\nextra = [\n  { id = "a", pattern = "b" },\n  { id = "c", patern = "d" },\n]\n',
     "line 4: 'redact.extra[1].patern' is not a setting ccexport knows (did you mean pattern?); "
     "'redact.extra[1]' takes 'id', 'pattern'"),
    ("[[redact.extra]]\nid = 'a'\npattern = 'b'\n[[redact.extra]]\nid = 'c'\nkeyword = ['x']\n",
     "line 6: 'redact.extra[1].keyword' is not a setting ccexport knows (did you mean keywords?)"),
    ("[index]\nenabled = true\nzzz = 1\n", "line 3: 'index.zzz' is not a setting ccexport knows; "),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), UNKNOWN_IN_A_TABLE)
def test_an_unknown_key_in_a_table_is_named_with_its_own_line(tmp_path, text, message):
    assert message in config_error(tmp_path, text)


BAD_VALUE_IN_A_TABLE = [
    ('[paths]\nclaude-code = "~/c"\naider = 3\n',
     "line 3: 'paths.aider' must be a folder or a list of folders"),
    ('[prices."claude-3.5*"]\ninput = 1.0\noutput = "a"\n',
     "line 3: 'prices.\"claude-3.5*\".output' must be a price in USD per million tokens"),
    ('[prices]\n"x*" = 3\n', "line 2: 'prices.\"x*\"' must be a table such as"),
    ('[frontmatter]\nadd = { status = "x", when = { a = 1 } }\n',
     "line 2: 'frontmatter.add.when' must be a string, a number"),
    ('[prices."a*"]\ninput = 1.0\n[prices."b*"]\ninput = -1\n',
     "line 4: 'prices.\"b*\".input' must be a price"),
    ('[redact]\nextra = [\n  { id = "a", pattern = "b" },\n  { id = "Bad", pattern = "c" },\n]\n',
     "line 4: 'redact.extra[1].id' must be a name"),
    # already right before (kept: the scanner must not lose them)
    ('[index]\nenabled = true\n\n\ndataview = 3\n', "line 5: 'index.dataview' must be true or false"),
    ('[daily]\nenabled = true\n# a comment with format = 1\nformat = 1\n',
     "line 4: 'daily.format' must be a string"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), BAD_VALUE_IN_A_TABLE)
def test_a_bad_value_in_a_table_is_named_with_its_keys_line(tmp_path, text, message):
    assert message in config_error(tmp_path, text)


def test_a_price_pattern_with_dots_is_found_on_its_own_line():
    """``"claude-3.5*"`` holds a dot: split at every dot, the key was not found at all."""
    text = '[prices."claude-3-*"]\ninput = 1.0\n[prices."claude-3.5*"]\ninput = -1\n'
    assert at_line(text, ("prices", "claude-3.5*", "input")) == ", line 4"
    assert at_line(text, ("prices", "claude-3.5*")) == ", line 3"
    assert at_line(text, "prices") == ", line 1"


def test_key_lines_reads_past_strings_comments_and_multiline_values():
    text = (
        "# [index]\n"  # 1
        'folder = "a = [b" # x = 1\n'  # 2
        "layout = '''\n"  # 3
        "[index]\n"  # 4: inside the string
        "dataview = true'''\n"  # 5
        "since = 1979-05-27 07:32:00Z\n"  # 6
        "[ redact ]\n"  # 7
        "allow = [\n"  # 8
        '  "x", # a comment ]\n'  # 9
        '  """y\n'  # 10
        ' z""""\n'  # 11
        "]\n"  # 12
        "[[redact.extra]]\n"  # 13
        "id = 'a'\n"  # 14
        "[[redact.extra]]\n"  # 15
        "id = 'b'\n"  # 16
        "[redact.extra.sub]\n"  # 17: a table of the second [[redact.extra]]
        "k = 1\n"  # 18
    )
    tomllib.loads(text)
    lines = key_lines(text)
    assert lines[("folder",)] == 2 and lines[("layout",)] == 3 and lines[("since",)] == 6
    assert ("index",) not in lines and ("dataview",) not in lines
    assert lines[("redact",)] == 7 and lines[("redact", "allow")] == 8
    assert lines[("redact", "allow", 0)] == 9 and lines[("redact", "allow", 1)] == 10
    assert lines[("redact", "extra", 0, "id")] == 14 and lines[("redact", "extra", 1, "id")] == 16
    assert lines[("redact", "extra", 1, "sub", "k")] == 18


def test_config_show_prints_each_value_as_toml_writes_it(tmp_path):
    """Every value printed reads back with tomllib as the value set; ``since`` as written."""
    vault = tmp_path / "v"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text(
        'sources = ["claude-code", "aider"]\n'
        'since = "3650d"\n'
        'folder = "AI \\"Sessions\\""\n'
        "[paths]\n"
        'aider = ["/srv/src"]\n'
        "[frontmatter]\n"
        'add = { status = "inbox", week = "{{ created.strftime(\'%G-W%V\') }}", n = 3 }\n'
        "[redact]\n"
        'extra = [{ id = "acme-key", pattern = "acme_\\\\d{32}", keywords = ["acme_"] }]\n'
        'allow = ["sk-test"]\n'
        '[prices."claude-3.5*"]\n'
        "input = 1.0\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["config", "show", "--vault", str(vault)])
    assert result.exit_code == 0, result.output
    rows = {}
    for line in result.output.split("\n\n")[0].splitlines():  # (the rows: the files follow)
        key, rest = line.split(None, 1)
        rows[key] = rest.rsplit(" from ", 1)[0].strip()

    def read(key: str):
        return tomllib.loads(f"v = {rows[key]}")["v"]

    assert rows["sources"] == '["claude-code", "aider"]'
    assert read("folder") == 'AI "Sessions"'
    assert read("paths") == {"aider": ["/srv/src"]}
    assert rows["frontmatter.add"].startswith('{ status = "inbox", ')
    assert read("frontmatter.add") == {
        "status": "inbox",
        "week": "{{ created.strftime('%G-W%V') }}",
        "n": 3,
    }
    assert read("redact.extra") == [
        {"id": "acme-key", "pattern": "acme_\\d{32}", "keywords": ["acme_"]}
    ]
    assert read("redact.allow") == ["sk-test"] and rows["redact"] == "true"
    assert read("prices") == {"claude-3.5*": {"input": 1.0}}
    assert rows["since"] == '"3650d"'  # as written: a date would no longer count back
    assert rows["index.enabled"] == "true" and rows["note_max_bytes"] == "4194304"
    assert rows["thinking"] == '"folded"' and rows["tool_output_lines"] == "20"
    assert rows["project"] == "-"  # not set


def test_a_since_given_as_a_toml_date_is_shown_as_that_date(tmp_path):
    vault = tmp_path / "v"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text("since = 2026-11-01\n")
    result = runner.invoke(app, ["config", "show", "--vault", str(vault)])
    line = next(line for line in result.output.splitlines() if line.startswith("since "))
    assert line.split()[1] == "2026-11-01"


# Values as tomllib gives them (and as a setting holds them).
_zones = st.integers(-23 * 60 - 59, 23 * 60 + 59).map(lambda m: timezone(timedelta(minutes=m)))
_times = st.times().map(lambda t: t.replace(tzinfo=None))
_scalars = st.one_of(
    st.text(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True),
    st.dates(),
    _times,
    st.datetimes(),
    st.datetimes(timezones=st.one_of(st.just(UTC), _zones)),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(), inner, max_size=4)
    ),
    max_leaves=12,
)


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return (
        type(a) is type(b) and a == b and getattr(a, "tzinfo", None) == getattr(b, "tzinfo", None)
    )


@given(_values)
def test_what_config_show_prints_reads_back_as_the_same_value(value):
    printed = toml_value(value)
    assert "\n" not in printed  # one line of the listing
    assert _same(tomllib.loads(f"v = {printed}")["v"], value), printed


@given(st.text())
def test_a_string_is_printed_with_nothing_a_terminal_would_not_show(text):
    printed = toml_value(text)
    assert printed.isprintable() and tomllib.loads(f"v = {printed}")["v"] == text


@given(st.lists(st.text(min_size=0), min_size=1, max_size=4), st.integers(0, 3))
def test_a_key_named_as_the_file_spells_it_is_found_on_its_line(parts, blank):
    """``key_name`` writes a dotted key TOML reads as those parts, and ``at_line`` finds it
    written so, under a header, or in an inline table."""
    path = tuple(parts)
    assert tomllib.loads(f"{key_name(path)} = 1") == _nested(path, 1)
    before = "\n" * blank
    assert at_line(f"{before}{key_name(path)} = 1\n", path) == f", line {blank + 1}"
    if len(path) > 1 and path[0] != "x":  # (``x`` is the key before the table)
        table, last = path[:-1], path[-1:]
        text = f"x = 0\n{before}[{key_name(table)}]\n{key_name(last)} = 1\n"
        assert tomllib.loads(text) == {"x": 0, **_nested(path, 1)}
        assert at_line(text, path) == f", line {blank + 3}"
        assert at_line(text, table) == f", line {blank + 2}"
        inline = f"{before}{key_name(path[:1])} = {{ {key_name(path[1:])} = 1 }}\n"
        assert tomllib.loads(inline) == _nested(path, 1)
        assert at_line(inline, path) == f", line {blank + 1}"


def _nested(path, value):
    for part in reversed(path):
        value = {part: value}
    return value


def test_paths_dates_and_times_are_printed_as_toml_writes_them():
    assert toml_value(Path("/a b/c")) == '"/a b/c"'
    assert toml_value(date(2026, 11, 1)) == "2026-11-01"
    assert toml_value(time(7, 32)) == "07:32:00"
    assert toml_value(datetime(2026, 11, 1, 8, tzinfo=UTC)) == "2026-11-01T08:00:00+00:00"
    assert (
        toml_value({"a b": [1, 2.5, "\t\x1b\u200b"]}) == '{ "a b" = [1, 2.5, "\\t\\u001B\\u200B"] }'
    )
    assert toml_value({}) == "{}" and toml_value([]) == "[]"


_names = st.text(max_size=6)


@given(st.dictionaries(_names, st.dictionaries(_names, _values, max_size=4), max_size=4))
def test_every_key_of_a_file_of_tables_is_found_on_the_line_that_sets_it(tables):
    """A file written as ``[table]`` headers and ``key = value`` lines, its values inline (any
    string, list or inline table): each table and key is found on its own line, and what a
    value holds on the line of its key."""
    lines, expected = ["# settings"], {}
    for table, keys in tables.items():
        lines.append(f"[{key_name((table,))}]  # {table!r}")
        expected[(table,)] = len(lines)
        for key, value in keys.items():
            lines.append(f"{key_name((key,))} = {toml_value(value)}")
            expected[(table, key)] = len(lines)
    text = "\n".join(lines) + "\n"
    assert _same(tomllib.loads(text), tables)
    found = key_lines(text)
    for path, line in expected.items():
        assert found[path] == line, (path, text)
    assert all(line == expected[path[:2]] for path, line in found.items() if len(path) > 2)


@pytest.mark.parametrize("price", ["nan", "inf", "-0.5"])
def test_a_price_that_is_no_number_of_dollars_is_refused(tmp_path, price):
    """TOML reads ``nan`` and ``inf`` as floats: taken as prices, every estimate was nan or
    inf (the note's ``cost``)."""
    message = config_error(tmp_path, f'[prices."m*"]\ninput = 1.0\noutput = {price}\n')
    assert "line 3: 'prices.\"m*\".output' must be a price in USD per million tokens" in message


def test_config_show_prints_templates_and_paths_as_full_paths(tmp_path, monkeypatch):
    """With a relative ``--vault``, ``templates`` read "v/Templates/mine", a path from the
    folder the command ran in, where the README promises full paths."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "v" / "Templates" / "mine").mkdir(parents=True)
    (tmp_path / "v" / ".ccexport").mkdir()
    (tmp_path / "v" / ".ccexport" / "config.toml").write_text(
        'templates = "Templates/mine"\n[paths]\naider = ["src", "../code"]\n', encoding="utf-8"
    )
    result = runner.invoke(app, ["config", "show", "--vault", "v"])
    assert result.exit_code == 0, result.output
    table = result.output.split("\n\n")[0]  # (the rows: the files named follow)
    rows = {line.split(None, 1)[0]: line.split(None, 1)[1] for line in table.splitlines()}
    templates = tomllib.loads("v = " + rows["templates"].rsplit(" from ", 1)[0])["v"]
    paths = tomllib.loads("v = " + rows["paths"].rsplit(" from ", 1)[0])["v"]
    assert templates == str(tmp_path / "v" / "Templates" / "mine")
    assert paths["aider"] == [str(tmp_path / "v" / "src"), str(tmp_path / "code")]  # no ".."
