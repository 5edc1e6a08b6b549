"""What shell completion offers for an option's value (cli10 3): the source names after
``--source``, the choices of "Notes to taste" after ``--thinking``, ``--tools`` and
``--tool-output``, time zones after ``--timezone``, and the forms ``--since`` takes. Before,
each offered nothing, so the shell fell back to file names (zsh: ``_files``) after them.

The options that name a folder (``--vault``, ``--home``, ``--templates``, ``--to``) offer
nothing on purpose: the shell then completes paths itself (bash ``-o default``, zsh
``_files``, fish its files), folder by folder; typer's scripts drop click's item types, so a
folder offered here would be inserted as text, bash adding a space after it.

Each function is typer's ``autocompletion`` callback: it gets the word typed so far and
returns ``(value, help)`` pairs; typer keeps those that start with the word. Nothing heavy
is imported before a completion asks (start-up: ``tests/test_startup.py``).
"""

from __future__ import annotations

from typing import Any

from .sourcenames import SOURCES

SINCE_EXAMPLES = (
    ("1d", "a day ago"),
    ("7d", "a week ago"),
    ("2w", "two weeks ago"),
    ("1mo", "30 days ago"),
    ("3mo", "90 days ago"),
    ("1y", "365 days ago"),
)
SINCE_UNITS = (("min", "minutes"), ("h", "hours"), ("d", "days"), ("w", "weeks"),
               ("mo", "months"), ("y", "years"))  # fmt: skip


def sources(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """Every source's name with its label; one already given (``--source`` repeats) is
    not offered again."""
    given = set((ctx.params or {}).get("source") or ()) if ctx is not None else set()
    return [(name, label) for name, label in SOURCES.items() if name not in given]


def _view(key: str) -> list[tuple[str, str]]:
    from .config_values import VIEW_CHOICES

    choices = VIEW_CHOICES[key]
    return [(c, "the default" if n == 0 else "") for n, c in enumerate(choices)]


def tool_output(incomplete: str) -> list[tuple[str, str]]:
    return _view("tool_output")


def thinking(incomplete: str) -> list[tuple[str, str]]:
    return _view("thinking")


def tools(incomplete: str) -> list[tuple[str, str]]:
    return _view("tools")


def since(incomplete: str) -> list[tuple[str, str]]:
    """A number typed: it with each unit (``3`` → ``3d``, ``3w`` …); else a few times ago,
    and the first of this month as a date."""
    if incomplete.isdigit():
        return [(incomplete + unit, f"{incomplete} {said} ago") for unit, said in SINCE_UNITS]
    from datetime import date

    month = date.today().replace(day=1).isoformat()
    return [*SINCE_EXAMPLES, (month, "the first of this month")]


def timezone(incomplete: str) -> list[tuple[str, str]]:
    """The zones this Python knows (as ``--timezone`` checks a name) that start with the
    word typed (typer keeps those only, in the zone's own case: ``Europe/Be``)."""
    from zoneinfo import available_timezones

    return [(zone, "") for zone in sorted(available_timezones()) if zone.startswith(incomplete)]
