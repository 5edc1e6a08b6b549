"""A large unit of many sessions (a database) cut into parts that workers read side by
side (``readahead``): each part a ``SessionRef`` of its own whose ``part`` fact names what
of the unit it holds, and whose size is the bytes it is estimated to hold."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .base import FileStamp, SessionRef

# About this much of a unit per part a worker reads: a large database is read side by side,
# each worker holding one part at a time. (Each adapter imports it; a test lowers it there.)
PART_BYTES = 4 * 1024 * 1024


def runs(weighed: Iterable[tuple[str, float]], most_bytes: int) -> list[tuple[str, int]] | None:
    """Ids in order, cut into runs of about ``most_bytes`` by their weights: each run's ids
    joined by commas, and its estimated bytes. None if an id holds a comma."""
    cut: list[tuple[str, int]] = []
    run: list[str] = []
    weight = 0.0
    for ident, bytes_ in weighed:
        if "," in ident:
            return None  # not an id a part can name
        run.append(ident)
        weight += bytes_
        if weight >= most_bytes:
            cut.append((",".join(run), int(weight)))
            run, weight = [], 0.0
    if run:
        cut.append((",".join(run), int(weight)))
    return cut


def part_refs(
    ref: SessionRef, where: Path, cut: list[tuple[str, int]], *facts: str
) -> list[SessionRef]:
    """The parts of ``ref``, named ``<where>#<n>``, each with ``facts`` and ``part=<what>``.
    A part depends on the unit's files (its ``related``, so a change is seen)."""
    return [
        SessionRef(
            ref.source,
            f"{ref.session_id}#{number}",
            FileStamp(Path(f"{where}#{number}"), size, ref.main.mtime_ns),
            ref.files,
            (*facts, f"part={what}"),
        )
        for number, (what, size) in enumerate(cut)
    ]


def held_size(ref: SessionRef) -> int:
    """A part holds about its share of the unit; a unit, its files."""
    return ref.main.size if ref.fact("part") is not None else ref.size
