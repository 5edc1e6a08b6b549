"""What a person's template is given: its own copy of every list and dict.

A template may change what it is given (``properties.update(…)``, ``sessions.clear()``),
as a template building its own list with ``append`` does; the note's frontmatter and the
index notes are made from the same values, and must not change with it.
"""

from __future__ import annotations

import copy
from typing import Any


def unshared(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """``value`` with each list and dict in it copied: a template may change what it is
    given (``properties.update(…)``, ``sessions.clear()``, as a template building its own
    list with ``append`` does), and the note's frontmatter and the index notes, made from
    the same values, must not change with it. Other values (a session, a date) are not
    changed by any call a template may make: shared."""
    memo = {} if memo is None else memo
    if not isinstance(value, (dict, list)):
        return value
    if id(value) in memo:  # (one item in two places: one copy, in both)
        return memo[id(value)]
    copied = copy.copy(value)  # (a subclass stays itself)
    memo[id(value)] = copied
    if isinstance(copied, dict):
        for key, item in copied.items():
            copied[key] = unshared(item, memo)
    else:
        copied[:] = [unshared(item, memo) for item in copied]
    return copied
