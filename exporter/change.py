"""What a run did to one note: the shape every write, skip and failure is reported in,
from the vault to the report."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Action(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    CONFLICT = "conflict"  # updated, the user's edit inside the owned region saved aside
    RENAMED = "renamed"  # created under another name: a foreign file held the path
    KEPT = "kept"  # not updated: the source now holds less than the note (see ``force``)
    DELETED = "deleted"  # the person deleted the note: left deleted (see ``restore``)
    # Not updated: the person saved the note while this run updated it (``land``); kept
    # as they saved it, and updated by the next run.
    SAVED_MEANWHILE = "saved meanwhile"
    FAILED = "failed"


@dataclass(slots=True)
class Change:
    action: Action
    key: str
    relpath: str
    message: str = ""
    diff: str = ""
