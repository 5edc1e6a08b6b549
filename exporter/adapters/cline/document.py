"""Whole JSON documents the extension rewrites on every change (FORMATS.md §0.2).

The editor truncates a task file and writes it again, so a run can catch one half-written:
it then ends in the middle of a value. That is no damage: it is said as a warning, what is
complete of it is read (the whole entries of a list), and the file is read again once it
changes, as a JSONL file's unfinished last line is. A file with a syntax error before its
end cannot be a file being written: that is an error, naming where.

Telling them apart uses where the parser stopped: a file cut short stops at its end, or at
a last token the cut left unfinished (a string not closed, a number, ``true``/``false``/
``null`` or a ``\\u`` escape cut off); anything after that point means the text went wrong
before the end.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ...errors import Problem
from .._jsonl import json_document
from ..base import cannot_read, read_regular

# What may follow the point where the parser stopped, by what it said, in a file cut short:
# the cut-off last token (a string or escape not closed, part of a number or of a literal),
# or nothing. Any other stop (a control character in a string, a bad escape, more after a
# whole value) is a file written wrong.
_CUT_AT = {
    # (the scanner says "Unterminated string" only once it has reached the end of the text
    # with no control character or bad escape in it: those have messages of their own)
    "Unterminated string": re.compile(r".*", re.DOTALL),
    "Invalid \\uXXXX escape": re.compile(r"u[0-9a-fA-F]{0,4}\Z"),  # (it stops at the u)
    "Expecting value": re.compile(r"(?:-|t(?:ru?)?|f(?:a(?:ls?)?)?|n(?:ul?)?)?\Z"),
    "Expecting ',' delimiter": re.compile(r"(?:[.eE][-+0-9eE]*)?\Z"),  # 1. or 1e+ cut off
    "Expecting ':' delimiter": re.compile(r"\Z"),
    "Expecting property name": re.compile(r"\Z"),
}
_SPACE = re.compile(r"\s*")


def read_document(path: Path, problems: list[Problem], source: str, required: bool = True) -> Any:
    """A whole JSON document; None when missing (reported if ``required``), unreadable or
    bad (reported). A document caught half-written is a warning: a list gives the entries
    complete before the cut (None if there are none), anything else None."""
    try:
        raw = read_regular(path)
    except FileNotFoundError:
        if required:
            problems.append(Problem(str(path), "missing", None, "error", source))
        return None
    except OSError as exc:
        problems.append(Problem(str(path), cannot_read(exc), None, "error", source))
        return None
    try:
        doc, damaged = json_document(raw)
    except RecursionError:
        problems.append(Problem(str(path), "not a readable JSON document (nested too deep); "
                                "skipped", None, "error", source))  # fmt: skip
        return None
    except json.JSONDecodeError as exc:
        error = exc
    else:
        if damaged:
            problems.append(Problem(str(path), damaged, None, "warning", source))
        return doc
    text = raw.decode("utf-8", "replace")
    where = f"line {error.lineno}, column {error.colno}"
    if not text.strip():
        problems.append(
            Problem(str(path), "is empty (the editor empties it before writing it again); "
                    "read again when it changes", None, "warning", source)
        )  # fmt: skip
        return None
    if not cut_short(text, error):
        problems.append(
            Problem(str(path), f"not valid JSON at {where} ({error.msg}), before the end of the "
                    "file: damaged, not cut off while being written; skipped, and read again "
                    "next run", error.lineno, "error", source)
        )  # fmt: skip
        return None
    items = complete_items(text)
    if items is None:
        kept = "nothing of it is read for now"
    elif not items:
        kept = "no entry of it is complete yet"
    else:
        kept = f"its {len(items)} complete entries are read" if len(items) > 1 else (
            "its 1 complete entry is read")  # fmt: skip
    problems.append(
        Problem(str(path), f"ends in the middle of a JSON value (the unfinished one starts at "
                f"{where}): the editor was writing it, or it was cut off; {kept}, the whole "
                "file is read again when it changes", error.lineno, "warning", source)
    )  # fmt: skip
    return items or None  # (none complete: nothing was read, as for a file not there)


def cut_short(text: str, error: json.JSONDecodeError) -> bool:
    """Does ``text`` end in the middle of a JSON value (a prefix of a valid document), rather
    than go wrong before its end? ``error`` is what parsing all of it raised."""
    for said, rest in _CUT_AT.items():
        if error.msg.startswith(said):
            return rest.match(text, error.pos) is not None
    return False


def complete_items(text: str) -> list[Any] | None:
    """The entries of a top-level list complete before the point where ``text`` is cut off;
    None when the document is not a list (nothing of it can be read in part)."""
    decoder = json.JSONDecoder()
    at = _SPACE.match(text).end()  # type: ignore[union-attr]
    if not text.startswith("[", at):
        return None
    items: list[Any] = []
    at += 1
    while True:
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        try:
            value, at = decoder.raw_decode(text, at)
        except (json.JSONDecodeError, RecursionError):
            return items  # the entry being written when the file was caught
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        follows = text[at : at + 1]
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if follows not in (",", "]") and (follows or number):
            return items  # a value the cut ended early: 12 of 125, 1 of 1e5
        items.append(value)
        if follows != ",":
            return items
        at += 1
