"""Lines of a Claude Code transcript that share a uuid (FORMATS.md §1.6).

Claude Code writes some lines twice under their uuid, the second time perhaps with another
parent, branch, version or flags: the same line, dropped. A line that shows something else
under a uuid already seen (a file damaged or trimmed by hand can give many lines one uuid)
is another line: kept, and the kept ones reported once per file. A resumed session's copy
of the first lines is read apart, by ``claude_discovery.Replays``.

Kept apart from claude_transcript.py, which builds the messages.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import Problem
from ._times import Times


class LineUuids:
    """Each line's uuid, with a digest of what a note shows of the first line of that uuid
    (``key``: ``replay_keys``'s or ``shown_key``'s; None for nothing), and the lines kept
    although their uuid was an earlier line's: how many, and where the first is (when
    ``times`` can tell)."""

    def __init__(self, times: Times | None = None) -> None:
        self.first: dict[str, bytes | None] = {}
        self.times = times
        self._others: dict[str, set[bytes]] = {}  # keys of the other lines, per such uuid
        self.reused = 0
        self.reused_at: int | None = None

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

    def kept_again(self) -> None:
        """Count a line kept although its uuid was an earlier line's (and where it is)."""
        self.reused += 1
        if self.reused == 1 and self.times is not None and self.times.locate is not None:
            where = self.times.locate()
            self.reused_at = where if isinstance(where, int) else None

    def report(self, problems: list[Problem], path: Path, source: str) -> None:
        """One warning for the lines kept although their uuid was an earlier line's."""
        if not self.reused:
            return
        if self.reused == 1:
            why = "this line has the uuid of an earlier line but other content: kept as a line"
            why += " of its own"
        else:
            why = (
                f"{self.reused} lines have the uuid of an earlier line but other content: each "
                "kept as a line of its own (the first here)"
            )
        problems.append(Problem(str(path), why, self.reused_at, source=source))
        self.reused, self.reused_at = 0, None
