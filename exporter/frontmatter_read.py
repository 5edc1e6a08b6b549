"""Reading a note's frontmatter without PyYAML, where it has the plain shape ccexport writes.

A run whose render settings changed (every upgrade) reads every note's frontmatter back and
splices ours into it. PyYAML's constructor (Python code, even over libyaml) took a sixth of
such a run, though nearly every frontmatter is what ``frontmatter_yaml.fast_block`` wrote:
``key: scalar`` lines and block lists of scalars. ``entries`` reads exactly those, and
returns None for anything else (comments, blank lines, flow or nested collections, tags,
anchors, multi-line or escaped scalars, line ends other than ``\\n``, keys written twice,
numbers in any but the plainest form, ...): the caller then asks PyYAML, whose reading
stays the reference. tests/test_frontmatter_read.py compares both on generated texts.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import Any, NamedTuple

from .frontmatter_yaml import BLOCK_INDICATOR, resolved_tag

# Characters PyYAML reads as they are in a plain or quoted scalar of one line: no tab, no
# line break but "\n" (PyYAML also breaks at "\r", "\x85", "\u2028", "\u2029"), no
# control, no byte order mark, no surrogate.
_UNSURE_CHAR = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?\Z")
_ITEM = re.compile(r"( *)-(?: (.*))?\Z")
_DOUBLE = re.compile(r'"((?:[^"\\]|\\[\\"])*)"\Z')
_SINGLE = re.compile(r"'((?:[^']|'')*)'\Z")
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]{0,30})\Z")  # (far below int()'s limit)
_FLOAT = re.compile(r"[-+]?[0-9]+\.[0-9]*\Z")
_ESCAPED = re.compile(r"\\(.)")


class Entry(NamedTuple):
    """A top-level key, its value, the lines of its text (as ``yaml_lines`` counts them:
    the first and the last, whose node marks ``splice_frontmatter`` reads), and whether
    its value is a list (a sequence node)."""

    name: str
    value: Any
    first: int
    last: int
    is_list: bool


class _Unsure(Exception):
    """Not a text this reader is sure of."""


def load(text: str) -> dict[str, Any] | None:
    """What ``yaml.load(text) or {}`` gives, or None where not sure of it."""
    found = entries(text)
    return None if found is None else {e.name: e.value for e in found}


# The last text read (kept alive, so its identity cannot be reused) and what was read: a
# note's frontmatter is read to parse the note, then again to splice ours into it.
_last: list[tuple[str | None, list[Entry] | None]] = [(None, None)]


def entries(text: str) -> list[Entry] | None:
    """The top-level keys of a frontmatter of the plain shape, in order; None for any other
    (``[]`` for an empty text). Not to be changed: the list is that of the last text read."""
    last, found = _last[0]
    if last is text:
        return found
    found = _entries(text)
    _last[0] = (text, found)
    return found


def _entries(text: str) -> list[Entry] | None:
    if _UNSURE_CHAR.search(text):
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    found: list[Entry] = []
    names: set[str] = set()
    row = 0
    try:
        while row < len(lines):
            key = _KEY.match(lines[row])
            if key is None:
                return None
            name, rest = key.group(1), key.group(2)
            if name in names or name in _WORDS:  # (a key read as true, false or null)
                return None
            names.add(name)
            if rest is not None:
                value = _scalar(rest, in_list=False)
                found.append(Entry(name, value, row, row, type(value) is list))
                row += 1
                continue
            items, last = _items(lines, row + 1)
            found.append(Entry(name, items, row, last, items is not None))
            row = last + 1
    except _Unsure:
        return None
    return found


def _items(lines: list[str], row: int) -> tuple[list[Any] | None, int]:
    """The block list that starts at ``row`` (None when there is none: the key's value is
    empty, null) and its last line."""
    items: list[Any] = []
    indent: str | None = None
    while row < len(lines):
        item = _ITEM.match(lines[row])
        if item is None or (indent is not None and item.group(1) != indent):
            break
        indent = item.group(1)
        text = item.group(2)
        items.append(None if text is None else _scalar(text, in_list=True))
        row += 1
    if indent is None:
        return None, row - 1
    if row < len(lines) and lines[row].startswith(" "):
        raise _Unsure  # (a list item's text continued, or indented otherwise)
    return items, row - 1


def _scalar(text: str, in_list: bool) -> Any:
    """A scalar of one line, as PyYAML's safe constructor builds it."""
    first = text[:1]
    if first == '"':
        quoted = _DOUBLE.match(text)
        if quoted is None:
            raise _Unsure
        return _ESCAPED.sub(r"\1", quoted.group(1))
    if first == "'":
        quoted = _SINGLE.match(text)
        if quoted is None:
            raise _Unsure
        return quoted.group(1).replace("''", "'")
    if text in ("[]", "{}") and not in_list:
        return [] if text == "[]" else {}
    if not text or text[-1] == " " or first == " " or BLOCK_INDICATOR.search(text):
        raise _Unsure
    # PyYAML's resolver tries the patterns of a text's first character only: a text that
    # starts with another is a text, one that starts with a letter of theirs is one unless
    # it is one of their words.
    if first in _WORD_FIRST:
        return _WORDS.get(text, text)
    if first not in _PATTERN_FIRST:
        return text
    kind = resolved_tag(text).rpartition(":")[2]
    if kind == "str":
        return text
    if kind == "int" and _DECIMAL.match(text):
        return int(text)
    if kind == "float" and _FLOAT.match(text):
        return float(text)
    if kind == "timestamp":
        return _date_time(text)
    raise _Unsure


_WORDS: dict[str, Any] = dict.fromkeys(
    ("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True
)
_WORDS |= dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False)
_WORDS |= dict.fromkeys(("null", "Null", "NULL"), None)
_WORD_FIRST = frozenset("yYnNtTfFoO")
_PATTERN_FIRST = frozenset("-+0123456789.~<=!&*")
_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:([-+])([0-9]{2}):([0-9]{2}))?\Z"
)


def _date_time(text: str) -> Any:
    """A date or date-time as PyYAML's ``construct_yaml_timestamp`` builds it: directly in
    the form ccexport writes, by PyYAML's own code in any other."""
    try:
        found = _DATE_TIME.match(text)
        if found is None:
            return _timestamp()(text)
        year, month, day, hour, minute, second, sign, tz_hour, tz_minute = found.groups()
        zone = None
        if sign:
            delta = timedelta(hours=int(tz_hour), minutes=int(tz_minute))
            zone = timezone(-delta if sign == "-" else delta)
        return datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), 0, zone
        )
    except ValueError:  # (a day the calendar lacks: PyYAML's own error, from its path)
        raise _Unsure from None


@lru_cache(maxsize=1)
def _timestamp() -> Any:
    """PyYAML's own construction of a date or date-time (a new object each time, as
    PyYAML's: a note whose ``created`` and ``updated`` are equal holds two)."""
    import yaml

    constructor = yaml.SafeLoader("")
    tag = "tag:yaml.org,2002:timestamp"
    return lambda text: constructor.construct_yaml_timestamp(yaml.ScalarNode(tag, text))
