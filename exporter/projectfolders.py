"""Where a project's notes are, for a machine with no record of the vault (a second synced
machine's first run, or ``.ccexport/`` lost): read from the notes themselves, so that a
project folder the person renamed in Obsidian takes the project's new sessions there too,
as it does on the machine that keeps the record (``plan.LinkPlan._project_renamed``).
Before, that machine made a folder of the project's old name, and the sync tool spread it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .notefile import INDEX_PREFIX

if TYPE_CHECKING:
    from .vault import Vault

# Notes read in each folder beside the project's: one of the project among them makes it
# a place of the project's notes. A few, not all: a folder of the person's own sorting
# holds notes of several projects, and a vault of thousands is not read again whole.
SAMPLE = 3


def found_project_folders(vault: Vault, source: str, project: str, folder: str) -> set[str]:
    """The folders beside ``folder`` (the project's, not in the vault) that hold notes of
    ``source`` whose ``project`` property is ``project``, by the vault's search by
    identity (made anyway by a run without a record) and a few notes' properties each."""
    parent = folder.rpartition("/")[0]
    beside: dict[str, list[str]] = {}
    for key, path in sorted(vault.identities().items(), key=lambda item: item[1]):
        place = path.rpartition("/")[0]
        if (key.startswith(f"{source}:") and not key.startswith(INDEX_PREFIX)
                and place != folder and place.rpartition("/")[0] == parent):  # fmt: skip
            beside.setdefault(place, []).append(path)
    found = set()
    for place, paths in beside.items():
        for path in paths[:SAMPLE]:
            properties = vault.properties(path) or {}
            if properties.get("source") == source and properties.get("project") == project:
                found.add(place)
                break
    return found
