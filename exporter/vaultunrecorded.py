"""A run into a vault whose notes this machine has no record of (a new machine, or
``.ccexport/`` lost): each note is found by its session id, but one the person deleted
before is not known as deleted, and is written again. The run says so with the notes it
created (review29 F2).

Until such a run finishes, the vault keeps a mark (``.ccexport/unrecorded``: the session
notes it held as the run began). A run stopped before its end (Ctrl-C, a nightly run
killed) has written notes and perhaps its state, so the next run has a record, of part of
the notes; without the mark it said nothing, and the notes the stopped run created were
never named. With it, the next run says the warning for both, and a finished run removes
the mark.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from . import vaultio
from .errors import Problem
from .notefile import INDEX_PREFIX
from .notespec import is_later_part
from .state import STATE_DIR, STATE_FILE
from .vault import Action, Change

if TYPE_CHECKING:
    from .vault import Vault

MARK = f"{STATE_DIR}/unrecorded"  # while a run without a record has not finished
NAMED_CREATED = 5  # the notes created the warning names

NO_RECORD = (
    "this machine {has} no record of the {n} session notes in this vault{when} (ccexport "
    "keeps it in .ccexport/, which sync tools do not carry: a new machine, or the folder "
    "was lost): each is found by its session id and updated where it is, but a note "
    "deleted from the vault before is not known as deleted here, and is written again: "
    "the {count} {created} ({names}) {are} the vault did not hold, new sessions or ones "
    "deleted before. Delete again any you deleted before"
)
STOPPED = " when a run began that was stopped before it finished"


@dataclass(frozen=True)
class Unrecorded:
    """The session notes a vault held with no record of them (``count``), as a run began;
    ``stopped``: as an earlier run began, which did not finish, and ``earlier`` the session
    notes created since (their paths)."""

    count: int = 0
    stopped: bool = False
    earlier: list[str] = field(default_factory=list)


def unrecorded_at_start(vault: Vault, searched: bool) -> Unrecorded:
    """How many session notes the vault holds while this machine has no record of the
    vault (no state, not a damaged one: that is said in ``vault_notices``), or held when a
    run without a record began that has not finished (``MARK``). ``searched``: the run
    searched the vault by identity (it recorded no session note). A run that writes, with
    no record, marks the vault until it finishes."""
    if vault.state.unreadable:
        return Unrecorded()
    marked = _marked(vault)
    if marked is not None:
        return Unrecorded(len(marked), True, _created_since(vault, marked, searched))
    if not searched or (vault.root / STATE_DIR / STATE_FILE).exists():
        return Unrecorded()  # (a state that records no note yet: every note failed)
    held = [key for key in vault.identities() if not key.startswith(INDEX_PREFIX)]
    if held and not vault.dry_run:
        try:  # (a read-only or linked .ccexport: the state's write says so, at the end)
            vaultio.write_file(vault.root, MARK, orjson.dumps(sorted(held)))
        except OSError:
            pass
    return Unrecorded(len(held))


def run_finished(vault: Vault) -> None:
    """A run finished: the notes it found unrecorded are now, and it said the warning."""
    with contextlib.suppress(OSError):  # (left: the next run says it again)
        vaultio.remove_file(vault.root, MARK)


def unrecorded_notes(unrecorded: Unrecorded, changes: list[Change], dry_run: bool) -> list[Problem]:
    """Say that a run without a record of the vault's notes wrote again those deleted from
    it (review29 F2): only of a run that created session notes, or followed one stopped
    after creating some, with them."""
    done = (Action.CREATED, Action.RENAMED)
    created = list(dict.fromkeys([
        *unrecorded.earlier,
        *(c.relpath for c in changes if c.action in done and _session_note(c.key)),
    ]))  # fmt: skip
    if not unrecorded.count or not created:
        return []
    one = len(created) == 1
    names = ", ".join(path.rpartition("/")[2] for path in created[:NAMED_CREATED])
    names += f" and {len(created) - NAMED_CREATED} more" if len(created) > NAMED_CREATED else ""
    if not unrecorded.stopped:
        how = "this run would list as created" if dry_run else "this run lists as created"
    else:
        how = "created since, or that this run would create" if dry_run else "created since"
    said = NO_RECORD.format(
        has="had" if unrecorded.stopped else "has", n=unrecorded.count,
        when=STOPPED if unrecorded.stopped else "",
        count="session note" if one else f"{len(created)} session notes", created=how,
        names=names, are="is one" if one else "are ones",
    )  # fmt: skip
    return [Problem(f"{STATE_DIR}/{STATE_FILE}", said)]


def _session_note(key: str) -> bool:
    return not key.startswith(INDEX_PREFIX) and not is_later_part(key)


def _marked(vault: Vault) -> set[str] | None:
    """The session notes the vault held as a run without a record began, if that run has
    not finished; None if no run left the mark (or it cannot be read: then nothing is
    said, as before the mark)."""
    try:
        found = vaultio.read_file(vault.root, MARK)
        held = orjson.loads(found[0]) if found else None
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(held, list):
        return None
    return {key for key in held if isinstance(key, str)}


def _created_since(vault: Vault, held: set[str], searched: bool) -> list[str]:
    """The session notes made since the mark: recorded now (a stopped run saved its
    state), or found in the vault (``searched``: a killed run saved none), and not held."""
    paths = {key: record.path for key, record in vault.state.notes.items() if not record.deleted}
    if searched:
        paths.update(vault.identities())
    return sorted(path for key, path in paths.items() if key not in held and _session_note(key))
