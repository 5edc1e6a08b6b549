"""Ctrl-C held back for the few milliseconds where being cut halfway would do harm, and
never lost."""

from __future__ import annotations

import signal
import sys
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


_pressed = [False]  # a Ctrl-C came during ``ctrl_c_noted``


@contextmanager
def ctrl_c_noted() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt as usual and is noted too: Python drops an exception
    raised while it runs a weakref callback or a finalizer (it prints "Exception ignored"),
    so a Ctrl-C that lands there would be lost and the run would go on to the end;
    ``check_ctrl_c`` raises it again at the next safe point, and the block's end does if
    none came after it (a block that ended normally though a Ctrl-C came: a ``watch`` kept
    running after one that landed late in an export). Main thread only; a block inside
    another hands its Ctrl-C on by raising it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        _pressed[0] = True
        raise KeyboardInterrupt

    def unraisable(info: sys.UnraisableHookArgs) -> None:
        if not (_pressed[0] and isinstance(info.exc_value, KeyboardInterrupt)):
            hook(info)  # a dropped Ctrl-C is raised again, not printed as "ignored"

    check_ctrl_c()  # (in a block, one dropped before this one began)
    before, hook = signal.signal(signal.SIGINT, interrupt), sys.unraisablehook
    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
        sys.unraisablehook = hook
        dropped, _pressed[0] = _pressed[0], False
    if dropped:
        raise KeyboardInterrupt


def check_ctrl_c() -> None:
    """Raise KeyboardInterrupt if a Ctrl-C came (under ``ctrl_c_noted``) and was dropped."""
    if _pressed[0]:
        raise KeyboardInterrupt
