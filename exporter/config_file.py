"""A settings file as text: read (a regular file, UTF-8 with or without a byte-order mark,
TOML) and searched for the line that sets a key, so that an error can name it (tomllib
gives no positions)."""

from __future__ import annotations

import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

from .errors import ConfigError


def load_file(path: Path) -> tuple[dict[str, Any], str]:
    """The file's settings and its text (to name the line of a bad value); none if absent."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO planted there would hang us
            raise ConfigError(f"{path}: not a regular file")
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return {}, ""
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc})") from None
    try:  # "-sig": Windows Notepad starts UTF-8 with a byte-order mark that tomllib refuses
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:  # TOML is UTF-8; a file saved as Latin-1 or UTF-16 is not
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{path}, line {line}: not valid TOML (not UTF-8 text: save the file as UTF-8)"
        ) from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None


_TOML_NAME = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
_TOML_HEADER = re.compile(rf"\s*\[\[?\s*({_TOML_NAME}(?:\s*\.\s*{_TOML_NAME})*)\s*\]")
_TOML_KEY = re.compile(rf"\s*({_TOML_NAME}(?:\s*\.\s*{_TOML_NAME})*)\s*=")


def at_line(text: str, key: str) -> str:
    """``", line N"`` for the line that sets ``key`` (``since``, ``index.enabled``,
    ``redact.extra[0].pattern``) in a config file's text, or ``""`` when it cannot be told:
    tomllib gives no positions, so the lines are read again, simply."""
    names = [re.sub(r"\[\d+\]$", "", part) for part in key.split(".")]
    top, inner = names[0], set(names[1:])
    nth = re.search(r"^([^\[]*)\[(\d+)\]", key)  # redact.extra[1]: the second [[redact.extra]]
    table, near, closer, seen = "", None, None, -1
    for number, line in enumerate(text.splitlines(), 1):
        header = _TOML_HEADER.match(line)
        if header:
            table = _dotted(header.group(1))
            if nth and table == nth.group(1) and line.lstrip().startswith("[["):
                seen += 1
                if seen != int(nth.group(2)):
                    table = "\0"  # another entry of the array: none of its keys is meant
                    continue
            if table == top or table.startswith(top + "."):
                if not inner:
                    return f", line {number}"  # [index] itself is wrong
                near = near or number
            continue
        found = _TOML_KEY.match(line)
        if not found:
            continue
        parts = _dotted(found.group(1)).split(".")
        full = (table.split(".") if table else []) + parts
        if full[0] != top:
            continue
        if not inner or full[-1] == names[-1]:
            return f", line {number}"
        if inner & set(full[1:]) or len(full) == 1:  # an inline table or array holding it
            closer = closer or number
    near = closer or near  # `extra = [` rather than the `[redact]` above it
    return f", line {near}" if near else ""


def _dotted(name: str) -> str:
    """A TOML key or table name as plain dotted text: ``"a b" . c`` -> ``a b.c``."""
    parts = re.findall(r""""([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+)""", name)
    return ".".join(quoted or single or bare for quoted, single, bare in parts)
