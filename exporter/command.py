"""The ``ccexport`` command's first code (and ``python -m exporter``'s). A Ctrl-C while the
command line's modules are still being imported (the first few tenths of a second) ends the
run as a Ctrl-C at any later moment does, "interrupted" and exit 130, not a traceback.
Output to a pipe its reader closed is dropped (``cli_output.closed_pipes_dropped``)."""

from __future__ import annotations

import sys


def console() -> None:
    try:
        _import_orjson_held()
        from .cli import console as run
        from .cli_output import closed_pipes_dropped
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    closed_pipes_dropped()  # (``ccexport … | head -1``: its own exit status, no traceback)
    run()


def _import_orjson_held() -> None:
    """orjson, imported with Ctrl-C held back until it is in: a Ctrl-C landing while its
    module starts crashes the process (SIGSEGV, about half the time: `import orjson`, 150
    Ctrl-Cs at random moments). Held, it arrives right after, as a KeyboardInterrupt. Every
    export imports orjson anyway; ``--help`` pays about a millisecond."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # (Windows: no such crash seen; no mask)
        import orjson  # noqa: F401

        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        import orjson  # noqa: F401
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
