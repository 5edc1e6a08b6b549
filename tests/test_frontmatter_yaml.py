"""Every string ccexport writes into frontmatter reads back as the same string in a YAML 1.1
reader (PyYAML) and a YAML 1.2 reader (ruamel.yaml, as Obsidian's ecosystem reads it)."""

from __future__ import annotations

import io

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from exporter.notefile import dump_frontmatter

TRAPS = [
    "yes", "no", "on", "off", "y", "n", "Yes", "NO", "true", "False", "~", "null", "Null", "",
    "10:30", "1:20:30", "01234", "0o17", "0x1F", "1e5", "1E-3", "+12", "-0", ".5", "1.", "1_000",
    ".inf", "-.Inf", ".nan", "2026-01-01", "2026-01-01T10:00:00Z", "- item", "-", "? x", ": x",
    "a: b", "#hash", "a #b", "[x]", "{x}", "*alias", "&anchor", "!tag", "%directive", "@at",
    "`tick", "'quoted'", '"dq"', "|", ">", "x\\y", " lead", "trail ", "\u00a0nbsp", "tab\tin",
    "=", "<<", "0.1.2", "1,000", "0b101", "1e5 sessions",
    "08_", "0_8", "1_", "+1_2", "1__2", "1_0.5", "1.5_", "._5", "0x_1F", "0o1_7", "0b1_0",
    "0---", "---", "a\n---",
]  # fmt: skip


def _yaml_of(text: str) -> str:
    """The YAML between the frontmatter's delimiter lines (a value may end in ``---``)."""
    assert text.startswith("---\n") and text.endswith("\n---\n"), text
    return text[len("---\n") : -len("---\n")]


def _read_12(text: str) -> dict:
    return YAML(typ="safe", pure=True).load(io.StringIO(_yaml_of(text)))


def _read_11(text: str) -> dict:
    return yaml.safe_load(_yaml_of(text))


def _round_trips(value: str) -> None:
    written = dump_frontmatter(
        {"title": value, "aliases": [value], "project": value, "cwd": value, "models": [value]}
    )
    for read in (_read_11, _read_12):
        back = read(written)
        assert back["title"] == value, (read.__name__, written)
        assert back["aliases"] == [value] and back["models"] == [value], written
        assert back["project"] == value and back["cwd"] == value, written


@pytest.mark.parametrize("value", TRAPS)
def test_classic_yaml_traps_stay_strings(value):
    _round_trips(value)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
    | st.text("0123456789_.+-eEbox", max_size=8)  # numbers as lenient readers take them
)
def test_any_string_round_trips_in_yaml_1_1_and_1_2(value):
    _round_trips(value)


@settings(max_examples=300, deadline=None)
@given(
    st.from_regex(
        r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-f]+", fullmatch=True
    )
)
def test_number_shaped_titles_stay_strings(value):
    _round_trips(value)


def test_a_title_that_yaml_1_2_reads_as_a_number_is_quoted():
    assert 'title: "1e5"' in dump_frontmatter({"title": "1e5"})
    assert "title: plain words" in dump_frontmatter({"title": "plain words"})


def test_a_small_cost_is_written_with_its_digits_not_an_exponent():
    """``cost: 3.0e-05`` (23 corpus notes) read oddly beside ``cost: 0.2145``."""
    assert "cost: 0.00003\n" in dump_frontmatter({"title": "t", "cost": 3e-05})
    assert "cost: 0.000015\n" in dump_frontmatter({"title": "t", "cost": 1.5e-05})


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.floats(allow_nan=False) | st.floats(min_value=0, max_value=1e-3))
def test_any_number_is_written_without_an_exponent_and_reads_back_the_same(value):
    written = dump_frontmatter({"title": "t", "cost": value})
    line = next(x for x in written.splitlines() if x.startswith("cost: "))
    assert "e" not in line.lower() or "inf" in line.lower(), line
    for read in (_read_11, _read_12):
        assert read(written)["cost"] == value, (read.__name__, line)
