"""An Aider chat log cut into runs at its ``# aider chat started at`` headers, each dated by
its header: all that discovery needs (aider.py), without the log parser (aider_log.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from ..errors import Problem
from .aider import SOURCE

_HEADER = re.compile(rb"^# aider chat started at (.*?)[ \t]*\r?$", re.M)


@dataclass(slots=True)
class Run:
    """One ``aider`` launch: its header's time text, where it is, and its lines."""

    header: str | None
    first_line: int  # 1-based line number of the header (or 1 for text before any header)
    start: int = 0  # byte offsets in the log
    end: int = 0
    lines: list[str] = field(default_factory=list)


def split_runs(raw: bytes, lines: bool = True) -> Iterator[Run]:
    """The log cut at its headers; text before the first header is a run without one.
    ``lines``: decode each run's lines (discovery only needs where runs are)."""
    starts = list(_HEADER.finditer(raw))
    if not starts or raw[: starts[0].start()].strip():
        end = starts[0].start() if starts else len(raw)
        yield Run(None, 1, 0, end, _lines(raw[:end]) if lines else [])
    line_no, counted = 1, 0
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(raw)
        line_no += raw.count(b"\n", counted, match.start())
        counted = match.start()
        header = match.group(1).decode("utf-8", "replace")
        body = _lines(raw[match.end() : end]) if lines else []
        yield Run(header, line_no, match.start(), end, body)


def _lines(chunk: bytes) -> list[str]:
    return chunk.decode("utf-8", "replace").splitlines()


def parse_header(header: str | None, zone: tzinfo | None = None) -> datetime | None:
    """A header's local time as UTC (Aider writes this machine's local time, no zone)."""
    try:
        return as_utc(datetime.strptime(header or "", "%Y-%m-%d %H:%M:%S"), zone)
    except (ValueError, OverflowError, OSError):  # no such time here (year 1 east of UTC)
        return None


def as_utc(local: datetime, zone: tzinfo | None) -> datetime:
    """A local time without a zone, in UTC: read in ``zone``, the vault's (the machine's,
    kept from its first export: a run with another ``TZ`` reads it alike), else in this
    process's local time."""
    return (local.replace(tzinfo=zone) if zone else local.astimezone()).astimezone(UTC)


def header_time(
    run: Run, path: Path, problems: list[Problem], zone: tzinfo | None = None
) -> datetime | None:
    started = parse_header(run.header, zone)
    if run.header is not None and started is None:
        problems.append(
            Problem(str(path), f"unreadable session start {run.header!r}; the session is undated",
                    run.first_line, "warning", SOURCE)
        )  # fmt: skip
    return started
