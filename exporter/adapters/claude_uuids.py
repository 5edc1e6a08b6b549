"""Lines of a Claude Code transcript that share a uuid (FORMATS.md §1.6).

Claude Code writes some lines twice under their uuid, the second time perhaps with another
parent, branch, version or flags: the same line, dropped. A line that shows something else
under a uuid already seen (a file damaged or trimmed by hand can give many lines one uuid)
is another line: kept, and the kept ones reported once per file. A resumed session's copy
of the first lines is read apart, by ``claude_discovery.Replays``.

Kept apart from claude_transcript.py, which builds the messages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..errors import Problem


class LineUuids:
    """Each line's uuid, with a digest of what a note shows of the first line of that uuid
    (``key``: ``replay_keys``'s or ``shown_key``'s; None for nothing), and the lines kept
    although their uuid was an earlier line's: how many, and where the first is: its line
    number when ``locate`` tells it (a file being read), else that line itself (for a
    caller that holds the lines, to find it among them)."""

    def __init__(self, locate: Callable[[], object] | None = None) -> None:
        self.first: dict[str, bytes | None] = {}
        self.locate = locate
        self._others: dict[str, set[bytes]] = {}  # keys of the other lines, per such uuid
        self.reused = 0
        self.reused_at: int | None = None
        self.reused_line: dict[str, Any] | None = None  # (only one line held)

    def another_line(self, uuid: str, key: bytes | None) -> bool:
        """Is a line whose uuid was seen another line? The same line written again when a
        note would show nothing of it, or what an earlier line of its uuid showed. Only a
        uuid seen again costs more than a look-up: a line's key is a digest made anyway."""
        if key is None or key == self.first[uuid]:
            return False
        others = self._others.setdefault(uuid, set())
        if key in others:
            return False
        others.add(key)
        return True

    def kept_again(self, rec: dict[str, Any]) -> None:
        """Count a line kept although its uuid was an earlier line's (and where it is)."""
        self.reused += 1
        if self.reused > 1:
            return
        where = self.locate() if self.locate is not None else None
        if isinstance(where, int):
            self.reused_at = where
        elif self.locate is None:
            self.reused_line = rec


def report_reused(
    problems: list[Problem],
    path: Path,
    source: str,
    readings: Iterable[LineUuids],
    line_of: Callable[[dict[str, Any]], int | None] | None = None,
) -> None:
    """One warning for the lines of a file kept although their uuid was an earlier line's,
    however many readings of its lines found them (its conversation's, each sidechain
    agent's); ``line_of`` finds the number of a line a reading could not locate."""
    count, at = 0, None
    for lines in readings:
        if not lines.reused:
            continue
        count += lines.reused
        where = lines.reused_at
        if where is None and lines.reused_line is not None and line_of is not None:
            where = line_of(lines.reused_line)
        if where is not None and (at is None or where < at):
            at = where
    if not count:
        return
    if count == 1:
        why = "this line has the uuid of an earlier line but other content: kept as a line"
        why += " of its own"
    else:
        why = (
            f"{count} lines have the uuid of an earlier line but other content: each "
            "kept as a line of its own (the first here)"
        )
    problems.append(Problem(str(path), why, at, source=source))
