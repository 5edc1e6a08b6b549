"""Index notes of a project whose name held a secret: its sessions' notes now name the
project redacted, and the index note written for the old name (before redaction, under
other rules, or before a session's spread pass knew the value) would otherwise stay as it
was, listing none and naming the secret in its file name, its properties and its heading,
with the state keeping its key. It becomes the index note of the project as now named:
moved off its name (``redact_outputs.move_secret_path``), its record kept under the new key,
and rewritten by the run's index pass like any other."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .notefile import INDEX_PREFIX
from .redact_outputs import move_secret_path

if TYPE_CHECKING:
    from .vault import Vault

PROJECT_KEY = f"{INDEX_PREFIX}project/"

Notes = dict[str, tuple[str, dict[str, Any]]]  # (as ``index.Notes``)


def unsecret_indexes(vault: Vault, found: Notes, redact: Callable[[str], str]) -> list[str]:
    """The index notes of ``found`` (every note of the vault) whose project's name
    ``redact`` changes, taken as those of the project as now named; ``found`` lists them
    so. Returns the paths of those moved off a name that held a secret. One whose project
    as now named has an index note already (an older version wrote one beside it), or that
    another machine wrote (no record here), is left to ``doctor``."""
    moved = []
    for key in [k for k in found if k.startswith(PROJECT_KEY)]:
        project = key.removeprefix(PROJECT_KEY)
        new = PROJECT_KEY + redact(project)
        record = vault.state.notes.get(key)
        if new == key or new in found or new in vault.state.notes or record is None:
            continue
        if record.path != found[key][0]:
            continue  # (a sync tool's copy is the one listed: not this record's file)
        clean = move_secret_path(vault, record, redact)
        if clean is not None:
            moved.append(clean)
        vault.state.notes[new] = vault.state.notes.pop(key)
        vault.was_named[new] = key
        found[new] = (record.path, found.pop(key)[1])
    return moved
