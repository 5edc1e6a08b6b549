"""A tool call's remaining arguments as YAML, the text of a note's code block: every value
as the call gave it, so search finds a Windows folder or a regex as typed. As JSON each
backslash was doubled and each quote escaped (``"C:\\\\Users\\\\dev"``, ``"#\\\\[test\\\\]"``).

PyYAML writes it: a plain value where YAML allows one, else single quotes, which escape
nothing but a single quote; text with a line break inside, or a quoted one holding a single
quote, as a literal block, whose lines are the text itself (one ending with a line break, in
double quotes: a block's last line breaks depend on how the block ends). A YAML reader gives
back exactly the arguments (tests/test_input_yaml.py). libyaml writes it five times faster
but escapes every character beyond the first 65,536 (an emoji read ``"\\U0001F680"``) and
writes an empty key and some texts in double quotes as PyYAML does not: its lines are used
only where it wrote neither, so that a note is the same on a machine without libyaml."""

from __future__ import annotations

import re
from typing import Any

import yaml

_WIDTH = 1_000_000_000  # never fold a long value: a folded line is not found as typed


# What libyaml writes its own way: an empty key (also after a key of many lines: ": '': v")
# and a text in double quotes (a key holding an escape, say); its lines are then not used.
_THEIR_OWN_WAY = re.compile(r"(?:^[ ?-]*|: )(?:'':|\")", re.MULTILINE)
_LONE_BREAKS = re.compile("[\r\x85\u2028\u2029]")


class _ArgumentDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # an argument shown twice is written twice, not as an ``&id001`` anchor


def _represent_text(dumper: yaml.SafeDumper, text: str) -> yaml.Node:
    if _LONE_BREAKS.search(text) or text.endswith("\n"):
        # Elsewhere a reader takes those for line breaks and changes them; and a block's
        # line breaks at its end depend on how it ends (the note's fence adds one)
        style = '"'
    elif "\n" in text or ("'" in text and _quoted(text)):
        style = "|"
    else:
        style = None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


def _quoted(text: str) -> bool:
    """Would YAML quote this text (it cannot be a plain value)? Asked of the emitter itself."""
    quoted = yaml.dump(text, Dumper=yaml.SafeDumper, allow_unicode=True, width=_WIDTH)
    return quoted.startswith(("'", '"'))


def _represent_other(dumper: yaml.SafeDumper, value: object) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value))


_ArgumentDumper.add_representer(str, _represent_text)
_ArgumentDumper.add_representer(tuple, yaml.SafeDumper.represent_list)
_ArgumentDumper.add_multi_representer(object, _represent_other)  # what JSON could not hold
_FAST: list[type] = []
if hasattr(yaml, "CSafeDumper"):  # PyYAML built with libyaml, as its wheels are

    class _FastArgumentDumper(yaml.CSafeDumper):
        ignore_aliases = _ArgumentDumper.ignore_aliases
        yaml_representers = _ArgumentDumper.yaml_representers
        yaml_multi_representers = _ArgumentDumper.yaml_multi_representers

    _FAST.append(_FastArgumentDumper)


def arguments_yaml(value: Any) -> str:
    """``value`` (a tool's arguments, or what is left of them) as YAML lines, without the
    last line break."""
    text = _dump(value, _FAST[0]) if _FAST and not _beyond_bmp(value) else None
    if text is None or _THEIR_OWN_WAY.search(text):
        text = _dump(value, _ArgumentDumper)
    return text.removesuffix("\n...\n").removesuffix("\n")  # a lone value ends its document


def _dump(value: Any, dumper: type) -> str:
    return yaml.dump(
        value, Dumper=dumper, allow_unicode=True, sort_keys=False, default_flow_style=False,
        width=_WIDTH,
    )  # fmt: skip


def _beyond_bmp(value: Any) -> bool:
    """Does a text in ``value`` (a key too) hold a character beyond the first 65,536, which
    libyaml escapes (an emoji: ``"\\U0001F680"``)?"""
    if isinstance(value, str):
        return not value.isascii() and max(value) > "\uffff"
    if isinstance(value, dict):
        return any(_beyond_bmp(k) or _beyond_bmp(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_beyond_bmp(item) for item in value)
    return False
