"""The latest time a source may give: one more than a day past the clock is no time a
session was had (a clock set wrong, 9999-12-31 as "never"). Read, it would date the note
and, after the repair, keep the note "fuller" (review44 M4). Shared by the readers, which
leave such a time out, and the vault, which no longer counts a note's end past it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

AHEAD = timedelta(days=1)
_latest = datetime.now(UTC) + AHEAD  # moved on, if a time past it is met, by ``too_late``


def too_late(when: datetime) -> bool:
    """Is ``when`` more than ``AHEAD`` past the clock (so it cannot be read)?"""
    global _latest
    if when <= _latest:  # (the usual case costs one comparison)
        return False
    _latest = datetime.now(UTC) + AHEAD
    return when > _latest
