"""What a run given ``--timezone`` says of the zone later runs use (review40 L5, cli8).

The vault keeps the machine's zone from its first export (``zones``), whatever zone that
run dated its notes in: a first ``ccexport --timezone America/New_York`` kept ``Etc/UTC``,
and the next plain run wrote every note again, five hours earlier; so did the next plain
run after any run given the flag. The flag is for one run; a zone to keep is the
``timezone`` setting, so the run says where to put it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import VAULT_CONFIG, resolve
from .zones import kept_zone, machine_zone_name, named_zone

if TYPE_CHECKING:
    from .config import Settings


def zone_advice(settings: Settings, cli: dict[str, Any], dry_run: bool = False) -> str:
    """The summary's line for a run given ``--timezone`` when a run without the flag would
    date the notes in another zone ("": none to say). Asked before the run, which keeps the
    vault's zone on a first export. A later run too (cli8): into a vault that keeps
    ``Etc/UTC``, ``--timezone America/New_York`` wrote every note in New York's time, and
    the next plain run wrote them all back without a word. A dry run wrote no note in the
    flag's zone, so a run without it writes none again."""
    given = cli.get("timezone")
    if not given or settings.vault is None:
        return ""
    vault = settings.vault.expanduser()
    plain = resolve({**cli, "timezone": None})  # (a zone of the config files wins)
    kept = kept_zone(vault)
    if plain.timezone:
        later = plain.timezone
        origin = plain.origin.get("timezone", "the config")
        why, where = f"the timezone of your {origin}", "there"
    elif kept and named_zone(kept) is not None:  # a later run: the zone the vault keeps
        later, why = kept, "the zone this vault keeps from its first export"
        where = f"in {vault / VAULT_CONFIG}"
    else:  # a first export: it keeps this machine's zone
        machine = machine_zone_name()
        later = machine if machine and named_zone(machine) is not None else None
        why = "this machine's zone, which the vault keeps from its first export"
        where = f"in {vault / VAULT_CONFIG}"
    if later and _same_zone(later, given):  # (``UTC`` and ``Etc/UTC``: one zone, two names)
        return ""
    dated = f"in {later} ({why})" if later else "in this machine's local time"
    if dry_run:
        done = f"Notes would be dated in {given} by --timezone; a run without it dates them {dated}"
    else:
        done = (f"Notes dated in {given} by --timezone; a run without it dates them {dated} "
                "and writes them all again")  # fmt: skip
    return f'{done}: to keep {given}, put timezone = "{given}" {where}.'


def advice_kept(advice: str, vault: Path, dry_run: bool) -> str:
    """The advice, if the run made the vault (a run that found nothing makes none)."""
    return advice if dry_run or vault.expanduser().is_dir() else ""


def _same_zone(a: str, b: str) -> bool:
    """Do the zones named ``a`` and ``b`` date every moment alike? Their offsets at noon of
    each day of the years around now (zones whose clocks differ do on some day of them)."""
    if a == b:
        return True
    first, second = named_zone(a), named_zone(b)
    if first is None or second is None:
        return False
    start = datetime(datetime.now(UTC).year - 1, 1, 1, 12, tzinfo=UTC)
    days = (start + timedelta(days=n) for n in range(3 * 366))
    return all(
        day.astimezone(first).utcoffset() == day.astimezone(second).utcoffset() for day in days
    )
