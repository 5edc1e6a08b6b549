"""Reading JSON Lines files that may be written to while we read them.

A line counts only once it ends with a newline: the unterminated last line of a session
still being written is left for the next run. A line that is not valid JSON in the middle of
a file is reported with its number and skipped; the rest of the file is read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from ..errors import Problem


def iter_jsonl(path: Path, problems: list[Problem], source: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, object)`` for every complete, valid line of ``path``.

    ``.zst`` files (compressed Codex rollouts) are decompressed as they are read."""
    if path.suffix == ".zst":
        yield from _lines(_zst_lines(path), path, problems, source)
        return
    with open(path, "rb") as f:
        yield from _lines(f, path, problems, source)


def _zst_lines(path: Path) -> Iterator[bytes]:
    import zstandard  # only needed for compressed rollouts

    pending = b""
    decompressor = zstandard.ZstdDecompressor().decompressobj()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            data = decompressor.decompress(chunk)
            while decompressor.eof and decompressor.unused_data:  # another frame follows
                rest = decompressor.unused_data
                decompressor = zstandard.ZstdDecompressor().decompressobj()
                data += decompressor.decompress(rest)
            lines = (pending + data).split(b"\n")
            pending = lines.pop()
            for line in lines:
                yield line + b"\n"
    if not decompressor.eof:
        raise EOFError("the compressed file ends early")
    if pending:
        yield pending


def _lines(
    f: Iterable[bytes], path: Path, problems: list[Problem], source: str
) -> Iterator[tuple[int, Any]]:
    number = 0
    try:
        for number, raw in enumerate(f, start=1):
            if not raw.endswith(b"\n"):
                # The last line without its newline: complete only if it parses; otherwise
                # a session being written right now, read next time.
                try:
                    if raw.strip():
                        yield number, orjson.loads(raw)
                except orjson.JSONDecodeError:
                    pass
                return
            if not raw.strip():
                continue
            try:
                yield number, orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                obj = _lenient(raw)
                if obj is None:
                    problems.append(
                        Problem(
                            str(path),
                            f"not valid JSON, line skipped ({exc})",
                            number,
                            source=source,
                        )
                    )
                    continue
                yield number, obj
    except Exception as exc:
        if not isinstance(exc, OSError | EOFError) and type(exc).__name__ != "ZstdError":
            raise
        # A truncated or corrupt compressed stream: keep what was read before it.
        problems.append(
            Problem(
                str(path),
                f"could not be read after line {number} ({exc})",
                number + 1,
                source=source,
            )
        )


def _lenient(raw: bytes) -> Any:
    """Second chance for lines orjson refuses: invalid UTF-8 or lone surrogates."""
    try:
        text = raw.decode("utf-8", errors="replace")
        obj = json.loads(text)
    except ValueError:
        return None
    return _scrub(obj)


def _scrub(obj: Any) -> Any:
    if isinstance(obj, str):
        return obj.encode("utf-8", "replace").decode("utf-8")
    if isinstance(obj, list):
        return [_scrub(x) for x in obj]
    if isinstance(obj, dict):
        return {_scrub(k): _scrub(v) for k, v in obj.items()}
    return obj


def parse_timestamp(value: object) -> datetime | None:
    """An ISO 8601 string or epoch number as an aware UTC datetime, or None if unreadable."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value[:4].isdigit():
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)
