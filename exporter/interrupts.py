"""Ctrl-C held back for the few milliseconds where being cut halfway would do harm."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def ctrl_c_held() -> Iterator[None]:
    """SIGINT blocked while the block runs (POSIX, main thread) and delivered as it ends, as
    KeyboardInterrupt. Elsewhere (Windows, another thread) the block runs unprotected."""
    if (
        not hasattr(signal, "pthread_sigmask")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    # The mask to restore is read before SIGINT is blocked: blocking also runs the handler
    # of a Ctrl-C that came just before, and that KeyboardInterrupt must not leave it blocked.
    before = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
