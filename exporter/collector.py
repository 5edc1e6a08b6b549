"""Python's cycle collector, paused while a large graph of objects with no cycle is built.

Reading a state file or a long session makes hundreds of thousands of dicts, lists and
frozen values, none of which refer back to each other. The collector, woken every few
hundred new containers, would scan the growing heap again and again: 20,000 notes' state
loaded in 0.6 s instead of 0.15 s, a 100,000-line session in 2.1 s instead of 1.3 s.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the block, then as the caller had it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
