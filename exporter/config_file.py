"""A settings file as text: read (a regular file, UTF-8 with or without a byte-order mark,
TOML) and searched for the line that sets a key, so that an error can name it (tomllib
gives no positions); and a value written as TOML writes it (``config show``; tomllib reads
TOML but does not write it)."""

from __future__ import annotations

import os
import re
import stat
import tomllib
from datetime import date, datetime, time
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
        said = _clash(path, text, str(exc)) or f"{path}: not valid TOML ({exc})"
        raise ConfigError(said) from None


_OVERWRITE = re.compile(r"^Cannot overwrite a value \(at line (\d+), column \d+\)$")
_SWITCHED_TABLES = ("index", "redact", "daily")  # tables whose ``enabled`` key the plain name sets


def _clash(path: Path, text: str, error: str) -> str | None:
    """What tomllib's "Cannot overwrite a value" means when a plain ``redact = false`` comes
    before a ``[redact]`` table (or a ``redact.allow`` key): the docs show both forms, and
    TOML takes only one of them. None for any other error."""
    found = _OVERWRITE.match(error)
    if found is None:
        return None
    number = int(found.group(1))
    lines = text.splitlines()
    if number > len(lines):
        return None
    here = lines[number - 1].strip()
    name = _BARE.match(here.lstrip("[").strip())
    if name is None or not (here.startswith("[") or here[name.end() :].lstrip().startswith(".")):
        return None
    table = name.group(0)
    before = key_lines("\n".join(lines[: number - 1]))
    if (table,) not in before:
        return None
    how = (
        f"write `enabled = …` inside [{table}] instead of `{table} = …` above it"
        if table in _SWITCHED_TABLES
        else f"write all of {table}'s settings in one of the two forms"
    )
    return (
        f"{path}, line {number}: `{table} = …` (line {before[(table,)]}) and the [{table}] table "
        f"cannot both be set: TOML takes one or the other; {how}"
    )


KeyPath = tuple[str | int, ...]  # ("redact", "extra", 0, "pattern"): an int is an array's item
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def at_line(text: str, key: str | KeyPath) -> str:
    """``", line N"`` for the line that sets ``key`` (``since``, ``index.enabled``,
    ``redact.extra[0].pattern``, or the parts themselves: ``("prices", "claude-3.5*",
    "input")``) in a config file's text, or ``""`` when it cannot be told. A key inside a
    table is found however the file writes it: under a ``[table]`` header, as a dotted key,
    in an inline table or array. A table with no line of its own is named by its first key's
    line; a key not written at all (a value checked as a whole) by the line of the nearest
    table or key holding it."""
    path = key if isinstance(key, tuple) else key_path(key)
    if not text or not path:
        return ""
    lines = key_lines(text)
    if path in lines:
        return f", line {lines[path]}"
    inside = [line for found, line in lines.items() if found[: len(path)] == path]
    if inside:
        return f", line {min(inside)}"
    for size in range(len(path) - 1, 0, -1):
        if path[:size] in lines:
            return f", line {lines[path[:size]]}"
    return ""


def key_path(key: str) -> KeyPath:
    """``redact.extra[1].id`` -> ``("redact", "extra", 1, "id")`` (a plain dotted name; the
    parts of a name with dots of its own are given as a tuple)."""
    path: list[str | int] = []
    for part in key.split("."):
        name, *items = re.split(r"\[(\d+)\]", part)
        path.append(name)
        path.extend(int(item) for item in items if item)
    return tuple(path)


def key_name(key: str | KeyPath) -> str:
    """A key as the file spells it: ``prices."claude-3.5*".input``, ``redact.extra[0].id``."""
    if isinstance(key, str):
        return key
    text = ""
    for part in key:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + (part if _BARE.fullmatch(part) else toml_string(part))
    return text


class Failure:
    """``fail(key, why)``: the ConfigError naming ``where`` (the file, or "command line"),
    the key (``"since"``, ``"index.dataview"``, or its parts when one holds a dot:
    ``("prices", "claude-3.5*")``; a flag's spelling for ``flags``) and, when ``text`` (the
    file's) shows it, the line that sets it."""

    def __init__(self, where: str, text: str = "", *, flags: bool = False) -> None:
        self.where, self.text, self.flags = where, text, flags

    def __call__(self, key: str | KeyPath, why: str) -> ConfigError:
        if self.flags and isinstance(key, str):
            flag = "--source" if key == "sources" else f"--{key.replace('_', '-')}"
        else:
            flag = f"'{key_name(key)}'"
        return ConfigError(f"{self.where}{at_line(self.text, key)}: {flag} {why}")


def table_headers(text: str) -> list[tuple[int, KeyPath, str]]:
    """Each ``[table]`` and ``[[array]]`` header of the text: its line, the path of the table
    it opens (``("redact", "extra", 0)``), and the header as written (``[[redact.extra]]``)."""
    return _scanned(text).headers


def key_lines(text: str) -> dict[KeyPath, int]:
    """Each key path the text sets (tables, keys, the keys of inline tables and the items of
    arrays, each ``[[array]]`` table by its number) -> the line it starts on (1-based). The
    text is one tomllib has read; should it hold a form not foreseen here, the keys before
    it are still given."""
    return _scanned(text).found


def _scanned(text: str) -> _KeyScan:
    """The text scanned as far as it goes (the keys and headers before a form not foreseen)."""
    scan = _KeyScan(text)
    try:
        scan.document()
    except (IndexError, ValueError, tomllib.TOMLDecodeError):
        pass
    return scan


class _KeyScan:
    """The few rules of TOML's grammar that say where keys are: strings (which may hold
    ``=``, ``#`` or brackets), comments, headers, inline tables and arrays."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.found: dict[KeyPath, int] = {}
        self.headers: list[tuple[int, KeyPath, str]] = []
        self.arrays: dict[KeyPath, int] = {}  # [[name]] -> the number of its latest table
        self._breaks = [n for n, ch in enumerate(text) if ch == "\n"]

    def line(self, at: int) -> int:
        from bisect import bisect_left

        return bisect_left(self._breaks, at) + 1

    def record(self, path: KeyPath, at: int) -> None:
        self.found.setdefault(path, self.line(at))

    def document(self) -> None:
        text, table = self.text, ()
        while True:
            self.blank(lines=True)
            if self.i >= len(text):
                return
            start = self.i
            if text[self.i] == "[":
                double = text.startswith("[[", self.i)
                self.i += 2 if double else 1
                table = self.header(self.key(), double)
                self.skip_ws()
                self.expect("]]" if double else "]")
                self.record(table, start)
                self.headers.append((self.line(start), table, text[start : self.i]))
            else:
                path = table + self.key()
                self.skip_ws()
                self.expect("=")
                self.record(path, start)
                self.value(path)

    def header(self, parts: tuple[str, ...], double: bool) -> KeyPath:
        """A header's path, with the number of each ``[[array]]`` table it names or is in."""
        path: KeyPath = ()
        for n, part in enumerate(parts):
            path += (part,)
            if double and n == len(parts) - 1:
                self.arrays[path] = self.arrays.get(path, -1) + 1
                path += (self.arrays[path],)
            elif path in self.arrays:
                path += (self.arrays[path],)
        return path

    def key(self) -> tuple[str, ...]:
        parts = []
        while True:
            self.skip_ws()
            ch = self.text[self.i]
            if ch in "\"'":
                end = self.string_end(self.i)
                parts.append(tomllib.loads("k = " + self.text[self.i : end])["k"])
                self.i = end
            else:
                bare = _BARE.match(self.text, self.i)
                if not bare:
                    raise ValueError(f"no key at {self.i}")
                parts.append(bare.group())
                self.i = bare.end()
            self.skip_ws()
            if self.text[self.i] != ".":
                return tuple(parts)
            self.i += 1

    def value(self, path: KeyPath) -> None:
        self.skip_ws()
        text, ch = self.text, self.text[self.i]
        if ch in "\"'":
            self.i = self.string_end(self.i)
        elif ch == "[":
            self.i += 1
            item = 0
            while True:
                self.blank(lines=True)
                if text[self.i] == "]":
                    self.i += 1
                    return
                self.record((*path, item), self.i)
                self.value((*path, item))
                self.blank(lines=True)
                if text[self.i] == ",":
                    self.i += 1
                    item += 1
        elif ch == "{":
            self.i += 1
            while True:
                self.blank(lines=True)
                if text[self.i] == "}":
                    self.i += 1
                    return
                if text[self.i] == ",":
                    self.i += 1
                    continue
                start = self.i
                inner = (*path, *self.key())
                self.skip_ws()
                self.expect("=")
                self.record(inner, start)
                self.value(inner)
        else:  # a number, true/false, a date and time (which may hold a space)
            end = re.compile(r"[^,\]}#\r\n]*").match(text, self.i)
            assert end is not None
            if end.end() == self.i:
                raise ValueError(f"no value at {self.i}")
            self.i = end.end()

    def string_end(self, at: int) -> int:
        """Where the string starting at ``at`` ends (one past its closing quote)."""
        text = self.text
        quote = text[at]
        if text.startswith(quote * 3, at):
            i = at + 3
            while not text.startswith(quote * 3, i):
                i += 2 if quote == '"' and text[i] == "\\" else 1
                if i >= len(text):
                    raise ValueError("unclosed string")
            i += 3
            for _ in range(2):  # """a"""" ends in a quote: up to two may come before the three
                if i < len(text) and text[i] == quote:
                    i += 1
            return i
        i = at + 1
        while text[i] != quote:
            i += 2 if quote == '"' and text[i] == "\\" else 1
        return i + 1

    def skip_ws(self) -> None:
        while self.i < len(self.text) and self.text[self.i] in " \t":
            self.i += 1

    def blank(self, *, lines: bool) -> None:
        """Past spaces, comments and (with ``lines``) line ends."""
        text = self.text
        while self.i < len(text):
            ch = text[self.i]
            if ch in " \t" or (lines and ch in "\r\n"):
                self.i += 1
            elif ch == "#":
                end = text.find("\n", self.i)
                self.i = len(text) if end < 0 else end
            else:
                return

    def expect(self, token: str) -> None:
        if not self.text.startswith(token, self.i):
            raise ValueError(f"{token!r} expected at {self.i}")
        self.i += len(token)


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}  # fmt: skip


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string: quoted, with TOML's escapes; a character a terminal
    would not show (a control, a zero-width or bidirectional mark) as ``\\uXXXX``."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        elif "\ud800" <= ch <= "\udfff":  # a byte no encoding names (from a file name): not TOML
            out.append("\\uFFFD")
        else:
            out.append(f"\\u{ord(ch):04X}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08X}")
    return '"' + "".join(out) + '"'


def toml_value(value: Any) -> str:
    """A setting's value as TOML writes it: ``"AI Sessions"``, ``true``, ``["a", "b"]``,
    ``{ status = "inbox" }``, ``2026-11-01``; a path as a string. tomllib reads it back as
    the same value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)  # 3.0, 1e-07, 1e+16: each a TOML float
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        pairs = (f"{key_name((str(k),))} = {toml_value(v)}" for k, v in value.items())
        return "{ " + ", ".join(pairs) + " }"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")
