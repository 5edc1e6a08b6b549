"""The log a run appends to with ``--log-file`` (the nightly run's, in the vault's
``.ccexport/``), never made where it would make the vault: a nightly run into a mistyped
``--vault`` that found no session made the folder only to log that it found nothing, and
the next night's run into it was an export into a vault nobody opens. Such a run says so
on stderr, which the scheduler mails (cron) or keeps, and exits as it would have.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .state import STATE_DIR

if TYPE_CHECKING:
    from .outcome import ExportReport


def vault_the_log_would_make(log_file: Path) -> Path | None:
    """The vault that writing ``log_file`` would create: the log is in the ``.ccexport``
    folder of a folder that does not exist (a run that exported anything made it). None
    when the vault is there, or the log is not in a vault's ``.ccexport``."""
    folder = Path(log_file).expanduser().parent
    if folder.name != STATE_DIR or folder.parent.exists():
        return None
    return folder.parent


def not_made(vault: Path, log_file: Path) -> str:
    """What a run says instead of making ``vault`` for its log."""
    return (
        f"{vault} does not exist, and this run exported nothing into it: it was not made, "
        f"nor its log {log_file}. If the name is mistyped, install the nightly export again "
        "with the right one (`ccexport schedule install --vault DIR`)"
    )


def append_run_log(log_file: Path, report: ExportReport | None, code: int, error: str = "") -> None:
    """``report.append_log``, unless the log would make the vault: then said on stderr."""
    from .report import append_log

    if (vault := vault_the_log_would_make(log_file)) is not None:
        print(f"ccexport: {not_made(vault, log_file)}", file=sys.stderr)
        return
    append_log(log_file, report, code, error)
