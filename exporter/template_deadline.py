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
# A template that ran past its deadline on this many notes and in time on none is slow on
# every note: the run's later notes fail at once with that cause, not after ten seconds
# each (a nightly run of 20,000 sessions would take two days). One that rendered a note in
# time is slow only on some (the longest sessions) and is tried on every note.
GIVE_UP_AFTER = 5
_late: dict[str, int] = {}  # template -> notes it ran past its deadline on, this run
_in_time: set[str] = set()  # templates that rendered a note in time, this run
# The filter each ``{% for %}``'s sequence is passed through (a name no template can write).
LOOP_CHECK = "(loop started)"


_WHY = (
    "(a loop in a loop over turns or items, or a big text worked over in a loop? do less per note)"
)


class TooSlow(Exception):
    """A note's template ran past its deadline; raised at its line."""


def start_clock() -> None:
    """A note's render begins: its template may run for ``RENDER_SECONDS``."""
    _deadline[0] = time.monotonic() + RENDER_SECONDS


def stop_clock() -> None:
    _deadline[0] = float("inf")


def forget_late_templates() -> None:
    """A run begins (``Renderer``): every template is tried again; a worker process forked
    after this starts with nothing given up too."""
    _late.clear()
    _in_time.clear()


def given_up(template: str) -> TooSlow | None:
    """The error a note of ``template`` fails with at once, if that template ran past its
    deadline on each of the ``GIVE_UP_AFTER`` notes it rendered first."""
    if _late.get(template, 0) < GIVE_UP_AFTER or template in _in_time:
        return None
    return TooSlow(
        f"took longer than {RENDER_SECONDS} s for each of the first {GIVE_UP_AFTER} notes "
        f"it rendered, so it is not run again in this run {_WHY}"
    )


def rendered_in_time(template: str, late: bool) -> None:
    if late:
        _late[template] = _late.get(template, 0) + 1
    else:
        _in_time.add(template)


def check_clock() -> None:
    """Stop the template where it is when the note's time is up."""
    if time.monotonic() > _deadline[0]:
        raise late()


def late() -> TooSlow:
    return TooSlow(
        f"took longer than {RENDER_SECONDS} s for one note (a loop in a loop over turns or "
        "items, or a big text worked over in a loop? do less per note)"
    )


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
