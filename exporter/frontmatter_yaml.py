"""The YAML of a note's frontmatter: PyYAML as the reference, and a direct writer for the
plain shapes notes have.

PyYAML (python-frontmatter on top) is the reference: its representers below decide how
Obsidian and other readers will see each value. Its Python-level representer and serializer
cost about 5% of an export, though a note's frontmatter is nearly always the same few
shapes: short texts, numbers, date-times, lists of those. ``fast_block`` writes those lines
itself, exactly as libyaml's emitter would, and returns None for anything it has not made
sure of (non-BMP characters, controls, very long texts, deeper nesting, shared objects that
PyYAML would anchor, ...); the caller then asks PyYAML. Correctness over coverage: every
rule here mirrors a decision of the representer, the resolver or the emitter, and
tests/test_frontmatter_fast.py compares both ways byte for byte.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml


def datetime_text(value: datetime) -> str:
    return (
        value.isoformat(timespec="seconds") if value.tzinfo else value.strftime("%Y-%m-%dT%H:%M:%S")
    )


def _represent_datetime(dumper: yaml.SafeDumper, value: datetime) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", datetime_text(value))


# Plain scalars a YAML 1.2 reader (core schema; ruamel.yaml, the JavaScript ``yaml``
# package) resolves to something other than a string. PyYAML already quotes what YAML 1.1
# would read differently (``yes``, ``on``, ``10:30``, ``2026-01-01``); these it does not
# (``1e5``, ``0o17``), so a session titled ``1e5`` would get the number 100000 as title.
# Readers take digits with underscores too (ruamel.yaml reads ``08_`` as 8, ``1_0.5`` as
# 10.5; the JavaScript readers allow ``1_000``): quoted as well.
_YAML12_NOT_STR = re.compile(
    r"~|null|Null|NULL|true|True|TRUE|false|False|FALSE"
    r"|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
    r"|[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?0x[0-9a-fA-F_]+|[-+]?[0-9][0-9_]*|[-+][0-9_]+"
    r"|[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
    r"|[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
)


def yaml12_not_text(plain: str) -> bool:
    """Does a YAML 1.2 reader (Obsidian's) take this plain scalar for something other than
    text (a number, true, false, null)?"""
    return _YAML12_NOT_STR.fullmatch(plain) is not None


# Of those, the ones YAML 1.2's core schema reads, one group per kind of value.
_YAML12_CORE = re.compile(
    r"(?P<null>~|null|Null|NULL)|(?P<true>true|True|TRUE)|(?P<false>false|False|FALSE)"
    r"|(?P<int>[-+]?[0-9]+)|0o(?P<oct>[0-7]+)|0x(?P<hex>[0-9a-fA-F]+)"
    r"|(?P<float>[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)"
    r"|(?P<inf>[-+]?\.(?:inf|Inf|INF))|(?P<nan>\.(?:nan|NaN|NAN))"
)


def yaml12_value(plain: str, read: Any) -> Any:
    """The value a YAML 1.2 reader (Obsidian's) gives a plain scalar that PyYAML (YAML 1.1)
    read as ``read``: ``yes``, ``on``, ``1:30`` and ``2026-01-01`` are text; ``017`` is
    17, ``0o17`` 15. A form only some readers take for a number (``1_000``) is left as
    PyYAML read it."""
    if not plain:
        return None
    if not yaml12_not_text(plain):
        return plain
    found = _YAML12_CORE.fullmatch(plain)
    kind = next((k for k, v in found.groupdict().items() if v is not None), "") if found else ""
    if kind in ("null", "true", "false"):
        return {"null": None, "true": True, "false": False}[kind]
    if kind in ("int", "oct", "hex"):
        return int(found[kind], {"int": 10, "oct": 8, "hex": 16}[kind])
    if kind == "nan" and isinstance(read, float):
        return read  # (PyYAML's one not-a-number: equal to itself as a list item)
    if kind:  # (Python spells infinity and not-a-number without the dot)
        return float(plain.replace(".", "", 1) if kind in ("inf", "nan") else plain)
    return read


def read_in_obsidian(node: yaml.Node, value: Any) -> Any:
    """``value``, which PyYAML constructed from ``node``, as a YAML 1.2 reader reads that
    text: each plain scalar (a list's items too) with the tag PyYAML's own resolver gives
    it (not one the person wrote, ``!!int``) is read by ``yaml12_value``."""
    import yaml

    if isinstance(node, yaml.SequenceNode) and type(value) is list:
        if len(node.value) == len(value):
            return [read_in_obsidian(n, v) for n, v in zip(node.value, value, strict=True)]
    elif isinstance(node, yaml.ScalarNode) and not node.style:  # (plain: None, "" in C)
        if _implicit_tag(node.value) == node.tag:
            return yaml12_value(node.value, value)
    return value


@lru_cache(maxsize=4096)
def _implicit_tag(plain: str) -> str:
    """The tag PyYAML's resolver gives a plain scalar."""
    import yaml

    return yaml.resolver.Resolver().resolve(yaml.ScalarNode, plain, (True, False))


# The usual characters: \x20-\x7e \xa1-\u167f \u1681-\u1fff \u2010-\u2027 \u2030-\u205e
# \u2070-\u2fff \u3001-\ud7ff \ue000-\ufdcf \ufdf0-\ufefe \uff00-\ufff8. Written as their
# complement (below the last of them), a class compiles in a tenth of the time: 1.6 instead
# of 10 ms of every start (tests/test_frontmatter_fast.py checks every code point).
_UNUSUAL_BMP = (
    "\x00-\x1f\x7f-\xa0\u1680\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ud800-\udfff"
    "\ufdd0-\ufdef\ufeff\ufff9-\uffff"
)
# Past the BMP, only the private-use planes are unusual (but libyaml escapes them all).
_UNUSUAL = re.compile(f"[{_UNUSUAL_BMP}\U000f0000-\U0010ffff]")


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    # Space-like and invisible characters are where readers differ most: quote those too.
    if _YAML12_NOT_STR.fullmatch(value) or _UNUSUAL.search(value) or value != value.strip():
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    return dumper.represent_str(value)


@lru_cache(maxsize=1)
def _dumper() -> Any:
    """YAML as Obsidian reads it: date-times as ``2026-11-20T09:01:07``, no line folding.
    Made (PyYAML imported, 13 ms) with the first frontmatter ``fast_block`` leaves to it:
    a run whose notes are all of the plain shapes never imports it."""
    import yaml

    # libyaml's emitter when PyYAML was built with it (its wheels are): ten times faster.
    base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    dumper = type("FrontmatterDumper", (base,), {})
    dumper.add_representer(datetime, _represent_datetime)
    dumper.add_representer(str, _represent_str)
    dumper.add_representer(float, _represent_float)
    return dumper


def reference_block(metadata: dict[str, Any]) -> str:
    """``---``, the YAML of ``metadata``, ``---``: through PyYAML."""
    import frontmatter

    post = frontmatter.Post("")
    post.metadata.update(metadata)
    return frontmatter.dumps(post, Dumper=_dumper(), sort_keys=False, width=1_000_000) + "\n"


# What the direct writer takes on. Texts: only characters that libyaml prints as they are
# (its "printable" set stops at the BMP: an emoji is escaped) and that ``_represent_str``
# does not call unusual; short enough that no line reaches the folding width.
_NOT_SIMPLE = re.compile(f"[{_UNUSUAL_BMP}\U00010000-\U0010ffff]")


def simple_text(text: str) -> bool:
    """Does ``text`` hold only the usual characters of the BMP?"""
    return not _NOT_SIMPLE.search(text)


_MAX_TEXT = 10_000
_MAX_KEY = 40  # characters: at most 120 bytes; past 128, libyaml writes "? key"
_MAX_INT = 10**18  # far below Python's limit on int-to-text conversion
_CACHED_TEXT = 200  # texts up to this length are remembered (keys, sources, models, tags)
# What makes libyaml's emitter refuse a plain scalar in block context (yaml_emitter_analyze_
# scalar's "block indicators"), for simple texts, which hold no tab or line break.
_BLOCK_INDICATOR = re.compile(r"\A(?:---|\.\.\.|[#,\[\]{}&*!|>'\"%@`]|[-?:](?: |\Z))|:(?: |\Z)| #")
BLOCK_INDICATOR = _BLOCK_INDICATOR  # (a plain scalar read back must not hold one either)
_STR = "tag:yaml.org,2002:str"
_FLOAT = "tag:yaml.org,2002:float"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_NULL = "tag:yaml.org,2002:null"
_INF = float("inf")


def fast_block(metadata: dict[str, Any]) -> str | None:
    """What ``reference_block`` returns for ``metadata``, or None where not sure of it."""
    if type(metadata) is not dict or not metadata:
        return None
    lines = ["---"]
    seen: set[int] = set()  # PyYAML anchors an object met twice (a list, a date-time)
    for key, value in metadata.items():
        if not _entry(lines, key, value, "", seen):
            return None
    lines.append("---\n")
    return "\n".join(lines)


def _entry(lines: list[str], key: Any, value: Any, indent: str, seen: set[int]) -> bool:
    """Append the lines of ``key: value`` (a mapping value only at the top level)."""
    if type(key) is not str or len(key) > _MAX_KEY:  # _MAX_KEY < _CACHED_TEXT
        return False
    name = _short_text(key)
    if name is None:
        return False
    kind = type(value)
    if kind is not list and kind is not dict:
        text = _scalar(value, seen)
        if text is None:
            return False
        lines.append(f"{indent}{name}: {text}")
        return True
    if id(value) in seen:
        return False
    seen.add(id(value))
    if not value:
        lines.append(f"{indent}{name}: {'[]' if kind is list else '{}'}")
        return True
    lines.append(f"{indent}{name}:")
    if kind is dict:
        # Nested mappings are indented by two; sequences in a mapping are not.
        return not indent and all(_entry(lines, k, v, "  ", seen) for k, v in value.items())
    for item in value:
        text = _scalar(item, seen)
        if text is None:
            return False
        lines.append(f"{indent}- {text}")
    return True


def _scalar(value: Any, seen: set[int]) -> str | None:
    """A value as SafeRepresenter (and ``_Dumper``'s own representers) write it."""
    kind = type(value)
    if kind is str:
        return _text(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value) if -_MAX_INT < value < _MAX_INT else None
    if value is None:
        return "null"
    if kind is float:
        return _plain_as(float_text(value), _FLOAT)
    if kind is datetime or kind is date:
        if id(value) in seen:
            return None
        seen.add(id(value))
        return _plain_as(
            datetime_text(value) if kind is datetime else value.isoformat(), _TIMESTAMP
        )
    return None  # tuples, sets, bytes, subclasses, ...: PyYAML decides (or refuses)


def float_text(value: float) -> str:
    """A number's text: SafeRepresenter's, but with every digit written out where Python
    writes an exponent (a cost of ``3e-05`` reads ``0.00003``, as the Properties view shows
    it), and always with a point, so that YAML 1.1 and 1.2 read it as the same number."""
    if value != value:
        return ".nan"
    if value == _INF:
        return ".inf"
    if value == -_INF:
        return "-.inf"
    text = repr(value)
    if "e" in text:
        from decimal import Decimal  # (rare: only for such a number)

        text = format(Decimal(text), "f")
    return text if "." in text else text + ".0"


def _represent_float(dumper: yaml.SafeDumper, value: float) -> yaml.Node:
    return dumper.represent_scalar(_FLOAT, float_text(value))


def _plain_as(text: str, tag: str) -> str | None:
    """``text`` when it is written plain: it reads back with ``tag`` and is plain-safe."""
    if _resolved(text) != tag or not simple_text(text) or _BLOCK_INDICATOR.search(text):
        return None
    return text


def _text(value: str) -> str | None:
    """A string as ``_represent_str`` and libyaml write it, or None."""
    # Keys and many values (sources, models, tags, projects) recur from note to note.
    return _short_text(value) if len(value) <= _CACHED_TEXT else _written_text(value)


def _written_text(value: str) -> str | None:
    if len(value) > _MAX_TEXT or not simple_text(value):
        return None
    if _YAML12_NOT_STR.fullmatch(value) or value != value.strip():
        # Double quotes: of the characters allowed here only these two are escaped.
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if _resolved(value) == _STR and not _BLOCK_INDICATOR.search(value):
        return value
    # Plain is refused (it would read as another type, or an indicator leads) and nothing
    # here rules out single quotes: the emitter's next choice.
    return "'" + value.replace("'", "''") + "'"


_short_text = lru_cache(maxsize=2048)(_written_text)


# How PyYAML's resolver (YAML 1.1's types, as PyYAML implements them) reads a plain scalar,
# written out here so that writing a frontmatter does not import PyYAML: 20 ms of a first
# export's main process. Tried in PyYAML's order; the first that matches gives the tag.
# tests/test_frontmatter_fast.py compares the two on generated numbers, times and words.
_DIGITS = "[0-9][0-9_]*"
_EXPONENT = "(?:[eE][-+][0-9]+)?"
_SEXAGESIMAL = "(?::[0-5]?[0-9])+"
_RESOLVERS = [
    ("tag:yaml.org,2002:bool", "yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE"
     "|on|On|ON|off|Off|OFF"),
    (_FLOAT, f"[-+]?{_DIGITS}\\.[0-9_]*{_EXPONENT}|\\.[0-9][0-9_]*{_EXPONENT}"
     f"|[-+]?{_DIGITS}{_SEXAGESIMAL}\\.[0-9_]*|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)"),
    ("tag:yaml.org,2002:int", "[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)"
     f"|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*{_SEXAGESIMAL}"),
    ("tag:yaml.org,2002:merge", "<<"),
    (_NULL, "~|null|Null|NULL"),  # and "" (below)
    (_TIMESTAMP, "[0-9]{4}-[0-9]{2}-[0-9]{2}"
     "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \\t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]*)?"
     "(?:[ \\t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?"),
    ("tag:yaml.org,2002:value", "="),
    ("tag:yaml.org,2002:yaml", "[!&*]"),  # an indicator alone
]  # fmt: skip
_TAGS = {f"t{i}": tag for i, (tag, _) in enumerate(_RESOLVERS)}


@lru_cache(maxsize=1)
def _resolver() -> re.Pattern[str]:
    """One pattern, a named group per type: "$" as PyYAML's patterns end (before a final
    line break too; the texts asked about hold none). Compiled when the first note is
    written (1 ms), not by every command that imports this module."""
    named = (f"(?P<t{i}>{pattern})" for i, (_, pattern) in enumerate(_RESOLVERS))
    return re.compile("^(?:" + "|".join(named) + ")$")


def _resolved(text: str) -> str:
    """The tag PyYAML's resolver gives ``text`` as a plain scalar."""
    if not text:  # not in the pattern, whose "$" would take "\n" for it too: PyYAML picks
        return _NULL  # its patterns by the first character, and none starts with a newline
    found = _resolver().match(text)
    return _TAGS[found.lastgroup] if found else _STR


resolved_tag = _resolved  # (for frontmatter_read)
