"""Reading JSON Lines files that may be written to while we read them.

A line counts only once it ends with a newline: the unterminated last line of a session
still being written is left for the next run, and said so. A line that is not valid JSON
in the middle of a file is reported with its number and skipped; the rest is read.

Memory stays bounded whatever a file holds: it is read in chunks, a line longer than
``MAX_LINE_BYTES`` is read through without being kept (reported and skipped), and a
``.zst`` file is decompressed a little input at a time, so a small file that expands into
gigabytes never sits in memory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from ..clock import too_late
from ..errors import Problem, os_reason
from ._values import json_kind
from .base import cannot_read, index_unreadable, open_regular, read_regular

MAX_LINE_BYTES = 64 * 1024 * 1024  # a longer line is skipped and reported
UNFINISHED_LAST_LINE = (
    "the last line is unfinished (no newline, not valid JSON): a session still being "
    "written, or cut off; left out for now, read again when the file changes"
)
_READ_SIZE = 1 << 20  # bytes read from a plain file at a time
# Compressed bytes fed to the decompressor at a time. zstd expands at most about 32,000
# times (a run-length block), so one step never yields more than about 32 MB.
_ZST_INPUT = 1024
# Arrays and objects nested in each other that the lenient reading takes: below what any
# Python's own parser reads (3.11's stops at about 990 levels, 3.13's far deeper), so that a
# damaged line is read alike on each. (orjson, for every undamaged line, reads 1,024.)
MAX_DEPTH = 900


# A control character JSON allows only escaped, standing raw (a NUL): damage, which the
# lenient reading passes over. (Tab, newline and carriage return are whitespace between
# values, so they are not counted.)
_RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
RAW_CONTROL = (
    "holds a control character (such as NUL) that JSON allows only escaped: damaged, "
    "read all the same"
)


def raw_control(raw: bytes | bytearray) -> bool:
    """Does JSON text hold a control character that may stand only escaped?"""
    return _RAW_CONTROL.search(raw) is not None


# Bytes that are not UTF-8 (a flipped bit, a cut multi-byte character): the lenient reading
# puts U+FFFD in their place, which may cost a key its name and so its value. Said, as a raw
# control character is, instead of read in silence.
NOT_UTF8 = "holds bytes that are not UTF-8: damaged, read all the same (each such byte as �)"


def not_utf8(raw: bytes | bytearray) -> bool:
    """Does JSON text hold bytes that are not UTF-8? (Asked only of text orjson refused.)"""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def damage_said(raw: bytes | bytearray) -> list[str]:
    """The warnings JSON text that was read leniently earns: a raw control character, bytes
    that are not UTF-8 (none: read as written)."""
    return [why for why, found in ((RAW_CONTROL, raw_control), (NOT_UTF8, not_utf8)) if found(raw)]


class LongLine(int):
    """In place of a line longer than the limit: its size in bytes."""


class LastLine(bytes):
    """The last line of a file when it has no newline (perhaps still being written)."""


Line = bytes | bytearray | LongLine | LastLine  # a complete line, without its newline


def iter_jsonl(path: Path, problems: list[Problem], source: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, object)`` for every complete, valid line of ``path``.

    ``.zst`` files (compressed Codex rollouts) are decompressed as they are read."""
    if path.suffix == ".zst":
        yield from _parsed(split_lines(_zst_chunks(path)), path, problems, source)
        return
    with open_regular(path) as f:
        yield from _parsed(
            split_lines(iter(lambda: f.read(_READ_SIZE), b"")), path, problems, source
        )


def iter_json_objects(
    path: Path, problems: list[Problem], source: str, stop: int | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``iter_jsonl``'s lines that hold a JSON object (with ``stop``, up to that line); a
    line holding any other value is reported and skipped."""
    for number, obj in iter_jsonl(path, problems, source):
        if stop is not None and number > stop:
            return
        if type(obj) is dict:
            yield number, obj
        else:
            why = "not a JSON object, line skipped"
            problems.append(Problem(str(path), why, number, source=source, left_out=True))


def _zst_chunks(path: Path) -> Iterator[bytes]:
    """The decompressed bytes of every frame in turn, in bounded pieces. A file that ends
    inside a frame raises EOFError, damage raises ZstdError: after what came before."""
    import zstandard  # only needed for compressed rollouts

    decompressor = zstandard.ZstdDecompressor()
    frame, started = decompressor.decompressobj(), False
    with open_regular(path) as f:
        while data := f.read(_ZST_INPUT):
            while data:
                started = True
                out = frame.decompress(data)
                if out:
                    yield out
                if not frame.eof:
                    break
                data = frame.unused_data  # another frame follows
                frame, started = decompressor.decompressobj(), False
    if started:
        raise EOFError("the compressed file ends in the middle of a frame")


def split_lines(chunks: Iterable[bytes], limit: int | None = None) -> Iterator[Line]:
    """Every line of a byte stream, newline removed. A line longer than ``limit`` is read
    through without being kept and comes out as a LongLine."""
    limit = MAX_LINE_BYTES if limit is None else limit
    pending = bytearray()
    skipped = -1  # bytes of an over-long line read so far; -1 when not skipping
    for data in chunks:
        first = data.find(b"\n")
        if first < 0:
            if skipped >= 0:
                skipped += len(data)
            else:
                pending += data
                if len(pending) > limit:
                    skipped, pending = len(pending), bytearray()
            continue
        if skipped >= 0:
            yield LongLine(skipped + first)
            skipped = -1
        else:
            pending += memoryview(data)[:first]
            yield pending if len(pending) <= limit else LongLine(len(pending))
            pending = bytearray()
        lines = data[first + 1 :].split(b"\n")
        last = lines.pop()
        for line in lines:
            yield line if len(line) <= limit else LongLine(len(line))
        pending += last
        if len(pending) > limit:
            skipped, pending = len(pending), bytearray()
    if skipped >= 0:
        yield LongLine(skipped)
    elif pending:
        yield LastLine(pending)


def _parsed(
    lines: Iterable[Line], path: Path, problems: list[Problem], source: str
) -> Iterator[tuple[int, Any]]:
    number = 0
    # Damage read all the same (``damage_said``) is said once per file, at its first line,
    # counting the lines that hold it: a file written in another encoding is one cause.
    read_anyway: dict[str, list[int]] = {}  # why -> [index in problems, lines]

    def skip(message: str, left_out: bool = True) -> None:
        """Report the line (``left_out``: not read at all, which its note says)."""
        problems.append(Problem(str(path), message, number, source=source, left_out=left_out))

    def said(raw: bytes | bytearray) -> None:
        for why in damage_said(raw):
            if why in read_anyway:
                where = read_anyway[why]
                where[1] += 1
                first = problems[where[0]]
                many = f"{why} ({where[1]:,} lines, the first here)"
                problems[where[0]] = replace(first, message=many)
            else:
                read_anyway[why] = [len(problems), 1]
                skip(why, left_out=False)  # (read all the same)

    try:
        for number, raw in enumerate(lines, start=1):
            try:
                yield number, orjson.loads(raw)
                continue
            except orjson.JSONDecodeError as exc:
                error = exc
            if isinstance(raw, LongLine):
                skip(
                    f"{raw:,} bytes long, over the limit of {MAX_LINE_BYTES:,} bytes, line skipped"
                )
            elif not raw.strip():
                continue
            elif isinstance(raw, LastLine):
                # The last line without its newline: complete only if it parses; otherwise
                # a session being written right now (or cut off by a crash): said, not
                # counted as damage, and read again once the file changes.
                if (obj := _lenient(raw)) is not None:
                    said(raw)
                    yield number, obj
                else:
                    skip(UNFINISHED_LAST_LINE)
            elif (obj := _lenient(raw)) is not None:
                said(raw)
                yield number, obj
            else:
                skip(f"not valid JSON, line skipped ({error})")
    except Exception as exc:
        if not isinstance(exc, OSError | EOFError) and type(exc).__name__ != "ZstdError":
            raise
        # A truncated or damaged file: what was read before it is kept, and the run fails.
        why = os_reason(exc)  # (an OSError's text repeats the path the problem names)
        problems.append(
            Problem(
                str(path),
                f"could not be read after line {number} ({why}); the lines before were kept"
                if number
                else f"could not be read ({why}); nothing of it was read",
                number + 1,
                severity="error",
                source=source,
            )
        )


def _lenient(raw: bytes | bytearray | str) -> Any:
    """Second chance for JSON orjson refuses (None if it is not JSON either): invalid UTF-8,
    lone surrogates, numbers too large for 64 bits, a control character (a NUL) left raw
    inside a string by damage."""
    try:
        text = raw if isinstance(raw, str) else raw.decode("utf-8", errors="replace")
        return without_surrogates(json.loads(text, strict=False))
    except (ValueError, RecursionError):  # RecursionError: nested past the limit
        return None


lenient_loads = _lenient  # for values read elsewhere (database rows)


def json_document(raw: bytes) -> tuple[Any, str | None]:
    """A whole JSON document, as orjson reads it, else read leniently (invalid UTF-8, lone
    surrogates, numbers past 64 bits, a control character left raw in a string); and the
    warning such damage earns (``damage_said``, joined; None: none). Raises
    ``json.JSONDecodeError`` (or ``RecursionError``, nested too deep) when it is not JSON."""
    try:
        return orjson.loads(raw), None
    except orjson.JSONDecodeError:
        pass
    # (a note cannot hold a lone surrogate: written escaped, it parses as one)
    doc = without_surrogates(json.loads(raw.decode("utf-8", "replace"), strict=False))
    return doc, "; ".join(damage_said(raw)) or None


def read_index_json(
    source: str, path: Path, gives: str, shape: tuple[type, str]
) -> tuple[Any, Problem | None]:
    """The JSON document of an index beside the sessions (titles, folders), and why it could
    not be read when it is there (a warning saying it ``gives``: locked, caught half
    rewritten, or holding a value other than the ``shape`` it is: its type and its name,
    ``(list, "a list of tasks")``; ``null`` too, which is no missing file). An index that is
    not there is no problem: the tool's version writes none."""
    doc, unread = _index_document(source, path, gives)
    if unread is None and doc is not _ABSENT and not isinstance(doc, shape[0]):
        why = f"holds {json_kind(doc)}, not {shape[1]}"
        return None, index_unreadable(source, path, why, gives)
    return (None if doc is _ABSENT else doc), unread


_ABSENT = object()  # (no index file: not the same as one holding null)


def _index_document(source: str, path: Path, gives: str) -> tuple[Any, Problem | None]:
    try:
        data = read_regular(path)
    except FileNotFoundError:
        return _ABSENT, None
    except OSError as exc:
        return None, index_unreadable(source, path, cannot_read(exc), gives)
    try:
        return orjson.loads(data), None
    except orjson.JSONDecodeError:
        doc = _lenient(data)
    if doc is None:
        return None, index_unreadable(source, path, "not valid JSON", gives)
    return doc, None


def without_surrogates(obj: Any) -> Any:
    """Lone surrogates replaced, without recursion (the value may be nested deep). Raises
    ``RecursionError`` for a value nested deeper than ``MAX_DEPTH``: Python's own parser
    reads far deeper from 3.13 on, and a value read here should not depend on which Python
    runs (nor reach code that walks it recursively)."""
    if isinstance(obj, str):
        return obj.encode("utf-8", "replace").decode("utf-8")
    if not isinstance(obj, dict | list):
        return obj
    root: list[Any] = [None]
    todo: list[tuple[Any, Any, Any, int]] = [(root, 0, obj, 0)]  # (container, slot, value, depth)
    while todo:
        container, slot, value, depth = todo.pop()
        if isinstance(value, str):
            container[slot] = value.encode("utf-8", "replace").decode("utf-8")
        elif isinstance(value, dict | list) and depth >= MAX_DEPTH:
            raise RecursionError(f"nested deeper than {MAX_DEPTH:,} levels")
        elif isinstance(value, list):
            copy = [None] * len(value)
            container[slot] = copy
            todo.extend((copy, i, v, depth + 1) for i, v in enumerate(value))
        elif isinstance(value, dict):
            copy_d: dict[Any, Any] = {}
            container[slot] = copy_d
            for k, v in value.items():
                key = k.encode("utf-8", "replace").decode("utf-8")
                copy_d[key] = None
                todo.append((copy_d, key, v, depth + 1))
        else:
            container[slot] = value
    return root[0]


def json_or_text(value: Any) -> Any:
    """A value some versions of a format write as a JSON string and others as the object
    itself (tool arguments): decoded when it is JSON, else as it is."""
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def json_text(value: Any, *, indent: bool = False) -> str:
    """A parsed JSON value written back as JSON text (a tool's input or result shown as it
    was), as orjson writes it. The lenient parse can give what orjson cannot write (an
    integer past 64 bits, a value nested past its limit): the json module writes that, and
    ``str`` what even it cannot, so one odd value never costs the session."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()
    except TypeError:  # orjson.JSONEncodeError is one
        pass
    try:
        if indent:
            return json.dumps(value, ensure_ascii=False, indent=2, default=str)
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (ValueError, TypeError, RecursionError):
        return str(value)


def token_count(value: Any) -> int:
    """A token count; anything else (a damaged value, a number past 2**53) counts 0."""
    if type(value) is int:  # the usual case, tested first: this runs for every usage line
        return value if 0 <= value < 2**53 else 0
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53
    return value if ok else 0


def parse_timestamp(value: object) -> datetime | None:
    """An ISO 8601 string or epoch number as an aware UTC datetime, or None if unreadable."""
    if type(value) is str:  # the usual case first: this runs for every line of a log
        return _parse_iso(value)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        if not value > 0:  # 0 (or less, or NaN) is a placeholder, never 1970: no time known
            return None
        try:
            seconds = value / 1000 if value > 1e11 else value
            when = datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
        return None if too_late(when) else when
    return _parse_iso(value) if isinstance(value, str) else None


def _parse_iso(value: str) -> datetime | None:
    if not value[:4].isdigit():
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        dt = dt.astimezone(UTC)
    except OverflowError:  # year 1 east of UTC, year 9999 west of it: no time in UTC
        return None
    return None if too_late(dt) else dt
