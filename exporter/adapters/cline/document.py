"""Whole JSON documents the extension rewrites on every change (FORMATS.md §0.2).

The editor truncates a task file and writes it again, so a run can catch one half-written:
it then ends in the middle of a value. That is no damage: it is said as a warning, what is
complete of it is read (the whole entries of a list, or of Cline 4's ``messages``), and
the file is read again once it
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


def read_document(
    path: Path,
    problems: list[Problem],
    source: str,
    required: bool = True,
    in_part: str | None = None,
) -> Any:
    """A whole JSON document; None when missing (reported if ``required``), unreadable or
    bad (reported). A document caught half-written is a warning: a list gives the entries
    complete before the cut (None if there are none); an object whose list under the key
    ``in_part`` (Cline 4's ``messages``) the cut reached gives its members before the cut,
    that list with the entries complete before it (``read_in_part``); anything else None."""
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
    if in_part is not None and text.lstrip().startswith("{"):
        return _object_in_part(path, text, error, in_part, problems, source)
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
    at = _SPACE.match(text).end()  # type: ignore[union-attr]
    if not text.startswith("[", at):
        return None
    return _list_items(text, at)[0]


def _list_items(text: str, at: int) -> tuple[list[Any], int | None, int]:
    """The entries of the list opening at ``at``, each parsed once (linear in the text:
    a 100 MB file is read in one pass), up to its end or the cut; then where the entry
    the cut left unfinished starts (None: the list is whole; ``_AFTER_ENTRY``: the cut came
    right after a whole one) and where the list ends."""
    items: list[Any] = []
    at += 1
    while True:
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if items == [] and text.startswith("]", at):
            return items, None, at + 1
        start = at
        try:
            value, at = _DECODER.raw_decode(text, at)
        except (json.JSONDecodeError, RecursionError):
            return items, start, start  # the entry being written when the file was caught
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        follows = text[at : at + 1]
        if not _ends_value(value, follows):
            return items, start, start  # a value the cut ended early: 12 of 125, 1 of 1e5
        items.append(value)
        if follows != ",":
            return items, (None if follows == "]" else _AFTER_ENTRY), at + 1
        at += 1


# Where the entry the cut left unfinished starts, when the cut came right after a whole
# entry, before a comma or the list's end: none was begun that the file shows.
_AFTER_ENTRY = -1
_DECODER = json.JSONDecoder(strict=False)  # (a raw control character is read, as elsewhere)


def _ends_value(value: Any, follows: str) -> bool:
    """Is ``value`` whole, followed by ``follows``? A number the cut ended is not."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return follows in (",", "]", "}") or not (follows or number)


def read_in_part(text: str, key: str) -> tuple[dict[str, Any], int | None] | None:
    """What can be read of a top-level object cut off in or after its list under ``key``:
    its members complete before the cut, that list holding its entries complete before it;
    and where the entry the cut left unfinished starts (None: the list is whole, the cut
    came after it; ``_AFTER_ENTRY``: the cut came right after a whole entry). None when
    the cut came before that list began (or the text is no object). One pass over the
    text: every member and entry is parsed once."""
    at = _SPACE.match(text).end()  # type: ignore[union-attr]
    if not text.startswith("{", at):
        return None
    doc: dict[str, Any] = {}
    at += 1
    while True:
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        try:
            name, at = _DECODER.raw_decode(text, at)
        except (json.JSONDecodeError, RecursionError):
            name = None
        colon = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if not isinstance(name, str) or not text.startswith(":", colon):
            break
        at = _SPACE.match(text, colon + 1).end()  # type: ignore[union-attr]
        if name == key and text.startswith("[", at):
            items, unfinished, at = _list_items(text, at)
            doc[name] = items
            if unfinished is not None:
                return doc, unfinished
        else:
            try:
                value, at = _DECODER.raw_decode(text, at)
            except (json.JSONDecodeError, RecursionError):
                break
            if not _ends_value(value, text[_SPACE.match(text, at).end() :][:1]):  # type: ignore[union-attr]
                break
            doc[name] = value
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if not text.startswith(",", at):
            break
        at += 1
    return (doc, None) if isinstance(doc.get(key), list) else None


def _object_in_part(
    path: Path,
    text: str,
    error: json.JSONDecodeError,
    key: str,
    problems: list[Problem],
    source: str,
) -> dict[str, Any] | None:
    """An object cut short (``read_document``), read as far as it is whole: the entries of
    its list under ``key`` complete before the cut. The warning names the entry cut off by
    its number and line, a line the note says it lacks (``Problem.left_out``), as a JSONL
    file's unfinished last line is said; None, said, when not one entry is complete."""
    where = f"line {error.lineno}, column {error.colno}"
    found = read_in_part(text, key)
    items = found[0][key] if found else []
    lead = (
        f"ends in the middle of a JSON value (the unfinished one starts at {where}): Cline "
        "was writing it, or it was cut off"
    )
    again = "the whole file is read again when it changes"
    one = key.removesuffix("s")  # (messages: message)
    if found is None or not items:
        problems.append(Problem(str(path), f"{lead}; no {one} of it is complete yet, "
                                f"nothing of it is read for now, {again}", error.lineno,
                                "warning", source))  # fmt: skip
        return None
    doc, unfinished = found
    if unfinished is None:
        said = f"{lead} after its {key}: all {len(items)} of them are read, {again}"
        problems.append(Problem(str(path), said, error.lineno, "warning", source))
        return doc
    if unfinished == _AFTER_ENTRY:  # (whether more followed, the file does not say)
        said = (f"{lead} after {one} {len(items)}, before its list of {key} is closed: all "
                f"{len(items)} are read, {again}")  # fmt: skip
        problems.append(Problem(str(path), said, error.lineno, "warning", source))
        return doc
    line = text.count("\n", 0, unfinished) + 1
    kept = f"its {len(items)} complete {key} are read" if len(items) > 1 else (
        f"the 1 complete one of its {key} is read")  # fmt: skip
    said = (
        f"{lead}; {kept}, not the one cut off ({one} {len(items) + 1}, from line {line}) "
        f"nor anything after it, {again}"
    )
    problems.append(Problem(str(path), said, line, "warning", source, left_out=True))
    return doc
