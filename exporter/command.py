"""The ``ccexport`` command's first code (and ``python -m exporter``'s). A Ctrl-C while the
command line's modules are still being imported (the first few tenths of a second) ends the
run as a Ctrl-C at any later moment does, "interrupted" and exit 130, not a traceback."""

from __future__ import annotations

import sys


def console() -> None:
    try:
        from .cli import console as run
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    run()
