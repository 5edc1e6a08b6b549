"""Commands a run's message tells the person to paste, made to act as this run did.

A hint such as "run ccexport --restore" is written where the run finds its cause, which
knows nothing of how the vault was named. Pasted as it stands, it reads the vault from the
user's config file: with a second vault given by ``--vault`` (a test copy beside the real
one), ``--restore`` wrote again, into the real vault, every note deleted there on purpose,
and the vault the hint was about stayed stuck (review40 M1). So each command a message
names gets the ``--vault`` and ``--home`` the run was given, quoted for the shell.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .outcome import ExportReport

# "ccexport" as the start of a command to paste: followed by one of the export's options or
# a subcommand that reads the vault and the home, and not given a vault or home already
# (so a text completed twice is as once).
_PASTED = re.compile(r"\bccexport(?= (?:--(?!vault\b|home\b)[a-z]|sources\b|doctor\b))")
# Where the vault came from when it is the one a pasted command would read too.
_FROM_CONFIG = "user config"


def run_words(settings: Any, home: Path | None) -> str:
    """The options a pasted command needs to act on this run's vault and home: ``--vault``
    when the vault did not come from the user's config file (``--vault`` or
    ``CCEXPORT_VAULT``: a new shell, a cron job or another terminal lacks the variable),
    ``--home`` when one was given. Full paths: the person may paste it in another folder."""
    words = []
    origin = str(settings.origin.get("vault", ""))
    if settings.vault is not None and not origin.startswith(_FROM_CONFIG):
        words += ["--vault", _full(settings.vault)]
    if home is not None:
        words += ["--home", _full(home)]
    return " ".join(shlex.quote(word) for word in words)


def _full(path: Path) -> str:
    return os.path.abspath(Path(path).expanduser())


def completed(text: str, words: str) -> str:
    """``text`` with each command it names to paste given ``words`` after ``ccexport``."""
    if not words or "ccexport" not in text:
        return text
    return _PASTED.sub(f"ccexport {words}", text)


def complete_report(report: ExportReport, words: str) -> None:
    """Every message of ``report`` (its problems and its notes' changes) with its commands
    completed: the summary, ``--json`` and the nightly log then say the same."""
    if not words:
        return
    report.problems = [
        replace(p, message=completed(p.message, words)) if "ccexport" in p.message else p
        for p in report.problems
    ]
    for change in report.changes:
        change.message = completed(change.message, words)


def complete_error(exc: BaseException, words: str) -> None:
    """An error that stopped the run, its commands completed in place (its type kept)."""
    if words and exc.args and isinstance(exc.args[0], str):
        exc.args = (completed(exc.args[0], words), *exc.args[1:])
