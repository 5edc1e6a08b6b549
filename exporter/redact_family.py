"""A family's secrets across units: a session and its relatives read in units of their own.

A family read in one unit shares its secrets there (``redact_sessions``). Some families
are split over units: a Codex subagent's rollout names its parent thread, Claude Code's
older ``agent-<id>.jsonl`` is a file of its own, a fork or a saved copy names the session
it went on from. Their links are known to the run's plan (``plan.LinkPlan``), so their
secrets follow them there, both ways: a session read after a relative looks for the
relative's secrets too (``inherited``), and a relative whose note may lack a secret learned
since is exported once more (``to_redo``): one read this run without it, or one an earlier
run wrote whose note holds it. Secrets are never stored, so a relative this run did not
read (its unit unchanged) is read too when its note holds a redaction
(``unread_redacted``): what it named may stand in the notes of those read. Families with
no secret are read once as before.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING

from . import vaultio
from .model import session_key
from .notespec import part_key
from .redact_names import PLACEHOLDER

if TYPE_CHECKING:
    from .model import Session
    from .vault import Vault

PLACED_START = PLACEHOLDER.partition("{")[0]  # (``[REDACTED:``)
Found = tuple[tuple[str, str], ...]  # (value, rule id), as ``session_secrets`` carries them


def relatives(vault: Vault, session: Session, coming: Iterable[str] = ()) -> list[str]:
    """The keys of the sessions linked to ``session``: its parent, the session it went on
    from, its subagents (known from earlier runs, or ``coming`` this run) and the sessions
    that went on from it."""
    source = session.source
    keys = [
        *vault.state.children.get(session.key, ()),
        *coming,
        *(key for key, _how, _start in vault.state.forks.get(session.key, ())),
        *(session_key(source, ident) for ident, _how in session.forks),
    ]
    for relative in (session.parent_id, session.forked_from):
        if relative:
            keys.append(session_key(source, relative))
    return list(dict.fromkeys(k for k in keys if k != session.key))


def inherited(keys: Iterable[str], secrets_by_key: Mapping[str, Found]) -> Found:
    """The secrets the sessions of ``keys`` carried as this run placed them."""
    return tuple(found for key in keys for found in secrets_by_key.get(key, ()))


def to_redo(
    vault: Vault,
    found: Found,
    keys: Iterable[str],
    placed: Mapping[str, Found | None],
    unit_of: Mapping[str, str],
    unit: str,
) -> list[str]:
    """The units (other than ``unit``) of the relatives ``keys`` whose notes may lack one of
    ``found``: read this run (``placed``: what each carried) without one of them, or
    written by an earlier run, their note holding one."""
    values = {value for value, _rule in found}
    units: list[str] = []
    for key in keys:
        other = unit_of.get(key)
        if not other or other == unit or other in units:
            continue
        if key in placed:
            carried = {value for value, _rule in placed[key] or ()}
            if not values <= carried:
                units.append(other)
        elif _note_holds(vault, key, values):
            units.append(other)
    return units


def unread_redacted(
    vault: Vault,
    relatives_of: Mapping[str, list[str]],
    placed: Collection[str],
    unit_of: Mapping[str, str],
) -> list[str]:
    """The units of the relatives (``relatives_of``: by the key of a session placed this
    run) that this run did not read (not ``placed``) and whose notes hold a placeholder:
    their sessions may carry secrets the sessions read this run were redacted without (a
    subagent's rollout goes on while its parent's is unchanged, or the other way)."""
    units: list[str] = []
    for key, keys in relatives_of.items():
        for other in keys:
            unit = unit_of.get(other)
            if other in placed or not unit or unit == unit_of.get(key) or unit in units:
                continue
            if _note_holds(vault, other, {PLACED_START}):
                units.append(unit)
    return units


def _note_holds(vault: Vault, key: str, values: set[str]) -> bool:
    """Does a note of ``key`` (any of its parts) an earlier run wrote hold one of ``values``?"""
    number = 1
    while (record := vault.state.notes.get(part_key(key, number))) is not None:
        try:  # (as every read of the vault: no link followed, a FIFO never opened)
            found = vaultio.read_file(vault.root, record.path)
        except OSError:
            found = None
        text = found[0].decode("utf-8", "replace") if found else ""
        if any(value in text for value in values):
            return True
        number += 1
    return False
