"""Times that are there but cannot be read, counted per file and reported once.

``parse_timestamp`` gives None both for no time at all and for a value it cannot read. The
first is no problem; the second is bad input, and the house rule for bad input is to say
which file, which line and what was wrong. A reader keeps one ``Times`` per file and asks it
only when a parse gave nothing::

    when = parse_timestamp(value) or times.unread(value, number)

so a time that is read costs nothing more than it did. ``unread`` counts the value unless
it is no time: absent (None, a missing key, an empty or blank string) or the placeholder a
JavaScript tool writes for "no date" (0, or any number not above it). ``report`` then adds
one warning for the file, however many times it holds that could not be read: the message
or session keeps everything else and has no time there, as before.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from pathlib import Path

from ..errors import Problem, clipped

SHOWN = 40  # characters of the first unreadable value quoted in the warning

Where = int | str | None  # a line number, or words that find the value in a document


def no_time(value: object) -> bool:
    """Is ``value`` no time at all (rather than a time that cannot be read)?"""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value <= 0  # (NaN is neither: it is a number that is no time, and reported)
    return False


class Times:
    """The unreadable times of one file (or one database). ``locate``, when given, says
    where the reader is when a value comes without a place (a line being read)."""

    __slots__ = ("count", "first", "where", "locate", "_last", "odd")

    def __init__(self, locate: Callable[[], Where] | None = None) -> None:
        self.count = 0
        self.first = ""  # the first value, as quoted
        self.where: Where = None  # and where it is
        self.locate = locate
        self._last: tuple[Where, int] | None = None  # (where, id) of the last value counted
        # Other values of the wrong type met on the way (a tool's name that is a list), each
        # as (where, why): reported with the times, by the same ``report``.
        self.odd: list[tuple[Where, str]] = []

    def unread(self, value: object, where: Where = None) -> None:
        """Count ``value``, which ``parse_timestamp`` could not read, unless it is no time.
        Always None, so that it can follow ``parse_timestamp(value) or``."""
        if no_time(value):
            return None
        if where is None and self.locate is not None:
            where = self.locate()
        if where is not None:
            # The same value of the same line asked about twice (a record's time wanted for
            # the session's span and again for its message) is one value.
            if self._last == (where, id(value)):
                return None
            self._last = (where, id(value))
        self.count += 1
        if self.count == 1:
            self.first, self.where = shown(value), where
        return None

    def wrong_type(self, why: str, where: Where = None) -> None:
        """A value of the wrong type that was left out (``why`` says which, and what was
        shown instead), reported with the file by ``report``."""
        if where is None and self.locate is not None:
            where = self.locate()
        self.odd.append((where, why))

    def report(self, problems: list[Problem], path: Path | str, source: str) -> None:
        """One warning for all the values counted, if any (then counting starts again),
        and one for each value of the wrong type."""
        for where, why in self.odd:
            line = where if isinstance(where, int) else None
            said = f"{where}: {why}" if isinstance(where, str) else why
            problems.append(Problem(str(path), said, line, source=source))
        self.odd = []
        if not self.count:
            return
        where = self.where
        line = where if isinstance(where, int) else None
        if self.count == 1:
            place = f"{where}: " if isinstance(where, str) else ""
            why = f"a timestamp could not be read and was left out ({place}{self.first})"
        else:
            place = f" in {where}" if isinstance(where, str) else " here" if line else ""
            why = (
                f"{self.count} timestamps could not be read and were left out "
                f"(the first{place}: {self.first})"
            )
        problems.append(Problem(str(path), why, line, severity="warning", source=source))
        self.count, self.first, self.where, self._last = 0, "", None, None


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 2 * SHOWN + 10, 2 * SHOWN + 10


def shown(value: object) -> str:
    """``value`` quoted for a warning as Python writes it, in at most about ``SHOWN``
    characters, cut between words (a secret in a time's place is not printed in part)."""
    if isinstance(value, int) and not isinstance(value, bool):
        digits = str(value) if value.bit_length() < 4 * SHOWN else ""
        return digits if 0 < len(digits) <= SHOWN else "a number too long to show"
    whole = _REPR.repr(value[: 2 * SHOWN] if isinstance(value, str) else value)
    text = clipped(whole, SHOWN)
    if text == whole or len(text) > 3:  # whole (however short), or cut between words
        return text
    if isinstance(value, str):  # one long word: none of it is shown
        return f"a text of {len(value):,} characters"
    return f"a {type(value).__name__}"
