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

from . import vaultio
from .notefile import INDEX_PREFIX
from .redact_outputs import move_secret_path

if TYPE_CHECKING:
    from .state import NoteRecord
    from .vault import Vault

PROJECT_KEY = f"{INDEX_PREFIX}project/"

Notes = dict[str, tuple[str, dict[str, Any]]]  # (as ``index.Notes``)


def unsecret_indexes(
    vault: Vault, found: Notes, redact: Callable[[str], str]
) -> tuple[list[tuple[str, str]], list[str]]:
    """The index notes of ``found`` (every note of the vault) whose project's name
    ``redact`` changes, taken as those of the project as now named; ``found`` lists them
    so. Returns those moved off a name that held a secret (from, to), and the paths of those
    removed: where the project as now named has an index note already (an older version
    wrote one beside it), one that holds nothing but what ccexport wrote (else it is left
    to ``doctor``). One another machine wrote (no record here) is left to it."""
    moved, removed = [], []
    for key in [k for k in found if k.startswith(PROJECT_KEY)]:
        project = key.removeprefix(PROJECT_KEY)
        new = PROJECT_KEY + redact(project)
        record = vault.state.notes.get(key)
        if new == key or record is None or record.path != found[key][0]:
            continue  # (a sync tool's copy is the one listed: not this record's file)
        if new in found or new in vault.state.notes:
            if _only_generated(vault, record):
                removed.append(record.path)
                if not vault.dry_run:
                    vaultio.remove_file(vault.root, record.path)
                    del vault.state.notes[key]
                del found[key]
            continue
        old, clean = record.path, move_secret_path(vault, record, redact)
        if clean is not None:
            moved.append((old, clean))
        vault.state.notes[new] = vault.state.notes.pop(key)
        vault.was_named[new] = key
        found[new] = (record.path, found.pop(key)[1])
    return moved, removed


_INDEX_KEYS = frozenset({"title", "ccexport_index", "project", "sessions", "updated", "tags"})


def _only_generated(vault: Vault, record: NoteRecord) -> bool:
    """Does the index note ``record`` names hold nothing but what ccexport writes: its own
    properties, the generated part as recorded and unedited, and no text of the person's
    around it (``notecopies.only_generated``, as for a part note no longer needed)?"""
    from .index import INDEX_TAG
    from .notecopies import only_generated
    from .notefile import NoteFormatError, parse

    try:
        data = vaultio.read_file(vault.root, record.path)
        parsed = parse(data[0].decode("utf-8")) if data else None
    except (OSError, UnicodeDecodeError, NoteFormatError):
        return False
    return parsed is not None and only_generated(parsed, _INDEX_KEYS, [INDEX_TAG], record.hash)
