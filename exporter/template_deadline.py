"""How long one note's template may run.

The sandbox's limits on what a template builds (``sandbox.py``) stop a loop that grows
something without end, not one that is merely slow: a ``replace`` of a text under the
limits, done a hundred thousand times, or loops over ``turns`` nested three deep on a long
session, run for minutes or hours on one note and hold up the nightly run. So each note's
render has a deadline, looked at where a slow template cannot help passing: each loop as
it starts and at each of its passes (every ``{% for %}`` is compiled with a check on its
sequence), each call (a macro, a method), each value built with ``*``, ``**`` or ``%``,
each ``range()``. Between two of those a template only does a bounded step (a pass's
filters on values the sandbox's limits bound), so a render past its deadline stops soon
after it. The clock is read there and nowhere else (not at each value read or piece
printed): a normal note reads it a few hundred times, which costs it nothing it would
notice. (The shipped templates are not compiled with the check.)
"""

from __future__ import annotations

import time
from typing import Any

# Far more than any note takes with a template that does what it means to (a note of a long
# session renders in a tenth of a second through a copy of ours; a slow machine, busy, may
# take ten times that), little enough that a template gone wrong costs each note it fails on
# seconds, not hours.
RENDER_SECONDS = 10
_deadline = [float("inf")]  # (time.monotonic's, while a note renders)
# A template that ran past its deadline on each of the last few notes it rendered is most
# likely slow on every note: while it is, each note gets a second, not ten (a nightly run of
# 20,000 sessions would otherwise take two days). A note of a template that is slow only on
# some (the longest sessions) renders well within that second, and the next note has the
# whole deadline again: only a note that would run past a second is failed early.
GIVE_UP_AFTER = 5
HURRIED_SECONDS = 1
_late: dict[str, int] = {}  # template -> notes in a row it ran past its deadline on
_seconds = [float(RENDER_SECONDS)]  # the note's time, while it renders
# The filter each ``{% for %}``'s sequence is passed through (a name no template can write).
LOOP_CHECK = "(loop started)"


_WHY = (
    "(a loop in a loop over turns or items, or a big text worked over in a loop? do less per note)"
)


class TooSlow(Exception):
    """A note's template ran past its deadline; raised at its line."""


def start_clock(seconds: float | None = None) -> None:
    """A note's render begins: its template may run for ``seconds`` (``RENDER_SECONDS``)."""
    _seconds[0] = RENDER_SECONDS if seconds is None else seconds
    _deadline[0] = time.monotonic() + _seconds[0]


def stop_clock() -> None:
    _deadline[0] = float("inf")


def forget_late_templates() -> None:
    """A run begins (``Renderer``): no template is late yet; a worker process forked after
    this starts so too."""
    _late.clear()


def seconds_for(template: str) -> float:
    """How long a note of ``template`` may render: ``HURRIED_SECONDS`` after it ran past
    its deadline on each of the last ``GIVE_UP_AFTER`` notes, else ``RENDER_SECONDS``."""
    if _late.get(template, 0) >= GIVE_UP_AFTER:
        return min(HURRIED_SECONDS, RENDER_SECONDS)
    return RENDER_SECONDS


def rendered_in_time(template: str, late: bool) -> None:
    _late[template] = _late.get(template, 0) + 1 if late else 0


def check_clock() -> None:
    """Stop the template where it is when the note's time is up."""
    if time.monotonic() > _deadline[0]:
        raise late()


def late() -> TooSlow:
    seconds = _seconds[0]
    if seconds < RENDER_SECONDS:
        return TooSlow(
            f"took longer than {seconds:g} s for one note, the time a note has after the "
            f"template took longer than {RENDER_SECONDS} s for each of the {GIVE_UP_AFTER} "
            f"notes before it {_WHY}"
        )
    return TooSlow(f"took longer than {seconds:g} s for one note {_WHY}")


def loop_started(sequence: Any) -> Any:
    """The ``LOOP_CHECK`` filter: the sequence, its clock looked at as the loop starts and
    at each pass (a loop whose body only runs filters, ``turns|selectattr(…)|list`` over a
    long session, calls nothing the sandbox sees)."""
    check_clock()
    return _Checked(sequence)


class _Checked:
    """A loop's sequence, the clock looked at before each item; its length the sequence's
    (Jinja's ``loop.length`` asks for it first)."""

    __slots__ = ("_sequence",)

    def __init__(self, sequence: Any) -> None:
        self._sequence = sequence

    def __len__(self) -> int:
        return len(self._sequence)

    def __iter__(self) -> Any:
        for item in self._sequence:
            check_clock()
            yield item


def loops_checked(tree: Any) -> Any:
    """``tree`` (a parsed template) with each ``{% for %}``'s sequence passed through
    ``LOOP_CHECK``: Jinja compiles a loop to a plain Python ``for``, which no hook of the
    sandbox sees, so a loop of loops doing nothing else would run past any deadline."""
    from jinja2 import nodes

    for loop in list(tree.find_all(nodes.For)):
        loop.iter = nodes.Filter(loop.iter, LOOP_CHECK, [], [], None, None, lineno=loop.lineno)
    return tree
