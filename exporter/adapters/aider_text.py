"""How Aider's files are decoded: a run of its log in the encoding the run's command line
names (``--encoding``), what is not UTF-8 said; and the prompt history
(``.aider.input.history``), which dates the prompts a log holds."""

from __future__ import annotations

import codecs
import re
from datetime import datetime, tzinfo
from pathlib import Path

from ..errors import Problem
from ._jsonl import NOT_UTF8
from ._times import Times
from .aider import SOURCE
from .base import cannot_read, read_regular

# Aider writes its log in the encoding ``--encoding`` names (UTF-8 by default), and names
# the option in the command line it logs first in each run: ``> /usr/bin/aider --encoding
# cp1252``. Looked for in the run's first lines only (a prompt may quote the option).
_ENCODING = re.compile(rb"\A(?:[^\n]*\n){0,6}?> [^\n]*--encoding[= ]([A-Za-z0-9_.:-]{1,40})")


def as_utf8(chunk: bytes) -> bytes:
    """A run written in the encoding its command line names, as UTF-8 (one it does not
    name, or that Python does not know, is left as it is: read as UTF-8)."""
    found = _ENCODING.match(chunk)
    if found is None:
        return chunk
    name = found.group(1).decode("ascii")
    try:
        if codecs.lookup(name).name == "utf-8":
            return chunk
        return chunk.decode(name, "replace").encode("utf-8")
    except (LookupError, ValueError):
        return chunk


def not_utf8_said(chunk: bytes, path: Path, first_line: int, problems: list[Problem]) -> None:
    """A run's bytes that are not UTF-8 (damaged, or written in an encoding the run does
    not name) are read with U+FFFD in their place: said, naming the line of the first."""
    try:
        chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + chunk.count(b"\n", 0, exc.start)
        problems.append(Problem(str(path), NOT_UTF8, line, "warning", SOURCE))


def read_input_history(
    path: Path, problems: list[Problem] | None = None, zone: tzinfo | None = None
) -> list[tuple[datetime, str]]:
    """``.aider.input.history`` (prompt_toolkit's history file): per entry ``# <local
    time>`` then the input's lines, each prefixed ``+``. Sorted by time. It only dates the
    prompts the log holds: a file that cannot be read, or an entry whose time cannot be,
    costs those times, reported in ``problems`` (a missing file is no problem)."""
    try:
        text = read_regular(path).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    except OSError as exc:
        why = f"{cannot_read(exc)}; prompts are not dated from it"
        if problems is not None:
            problems.append(Problem(str(path), why, severity="warning", source=SOURCE))
        return []
    from .aider_runs import as_utc

    entries: list[tuple[datetime, list[str]]] = []
    current: list[str] | None = None  # the lines of the entry being read (None: undated)
    times = Times()
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("# "):
            try:
                when = as_utc(datetime.fromisoformat(line[2:].strip()), zone)
            except (ValueError, OverflowError, OSError):  # not a time, or none here
                times.unread(line[2:].strip(), number)
                current = None
                continue
            current = []
            entries.append((when, current))
        elif line.startswith("+") and current is not None:
            current.append(line[1:])
    if problems is not None:
        times.report(problems, path, SOURCE)
    return sorted((when, "\n".join(lines)) for when, lines in entries)
