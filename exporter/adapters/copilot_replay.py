"""VS Code's chat session log (``.jsonl``, VS Code >= 1.109) replayed into the session
object it describes (FORMATS.md §5.2).

The log's four entry kinds are replayed in full: 0 replaces the whole state (also when it
comes again later), 1 sets a value at a path (an empty path replaces the root), 2 truncates
the array at a path to ``i`` if given and then appends ``v``, 3 deletes a property. An entry
before the first kind 0, of an unknown kind, or whose path does not exist is reported with
its line number and skipped; the rest of the log still applies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import Problem
from ._jsonl import iter_json_objects
from ._values import json_kind

SOURCE = "copilot"


class _Missing(Exception):
    pass


def _fits_root(kind: Any, entry: dict[str, Any], state: Any) -> bool:
    """A change of the whole session keeps its shape: one damaged line cannot replace it
    with something else."""
    if kind == 1:
        return isinstance(entry.get("v"), dict)
    return kind != 2 or isinstance(state, list)


# The error of a log that lost its start: a warning instead when the document the log was
# migrated from still holds the chat (``CopilotAdapter.load``).
LOST_START = "the log lost its start, the chat's initial state (its kind 0 entry)"


def replay(path: Path, problems: list[Problem]) -> Any:
    """The session object a ``.jsonl`` mutation log describes (None if it never starts:
    then one warning, not one per entry; said once, as the file is not read again until it
    changes: nobody can mend VS Code's log)."""
    state: Any = None
    early: list[Problem] = []  # entries before the initial state
    for number, entry in iter_json_objects(path, problems, SOURCE):
        kind = entry.get("kind")
        kind = kind if type(kind) is int else None  # False == 0, but is no kind
        if kind == 0 and (state is None or isinstance(entry.get("v"), dict)):
            state = entry.get("v")
            continue
        if kind == 0:
            problems.append(
                Problem(str(path), "a new session that is not an object, skipped", number,
                        source=SOURCE)
            )  # fmt: skip
            continue
        if state is None:
            why = "log entry before the initial state (kind 0), skipped"
            early.append(Problem(str(path), why, number, source=SOURCE))
            continue
        if early:  # the state started late: the entries before it are what was lost
            problems.extend(early)
            early = []
        if kind not in (1, 2, 3):
            shown = kind if kind is not None else json_kind(entry.get("kind"))
            why = f"unknown log entry kind {shown}, skipped"
            problems.append(Problem(str(path), why, number, source=SOURCE))
            continue
        if "k" not in entry:  # (an empty path is written as [])
            why = f"log entry (kind {kind}) with no path (k), skipped"
            problems.append(Problem(str(path), why, number, source=SOURCE))
            continue
        keys = entry.get("k")
        try:
            if not isinstance(keys, list) or (not keys and not _fits_root(kind, entry, state)):
                raise TypeError("a path that is not a list, or a root of the wrong type")
            if kind == 1:
                if not keys:
                    state = entry.get("v")
                else:
                    parent = _walk(state, keys[:-1])
                    _assign(parent, keys[-1], entry.get("v"))
            elif kind == 2:
                parent = _walk(state, keys[:-1]) if keys else None
                current = _read(parent, keys[-1]) if keys else state
                items = list(current) if isinstance(current, list) else []
                if isinstance(entry.get("i"), int):
                    del items[entry["i"] :]
                items.extend(entry.get("v") or [])
                if keys:
                    _assign(parent, keys[-1], items)
                else:
                    state = items
            else:  # kind 3
                parent = _walk(state, keys[:-1])
                if isinstance(parent, dict):
                    parent.pop(keys[-1], None)
                elif (
                    isinstance(parent, list)
                    and isinstance(keys[-1], int)
                    and keys[-1] < len(parent)
                ):
                    parent[keys[-1]] = None
        except (_Missing, IndexError, KeyError, TypeError):
            where = "/".join(str(k) for k in keys) if isinstance(keys, list) else json_kind(keys)
            problems.append(
                Problem(
                    str(path),
                    f"log entry for a path that does not exist ({where}), skipped",
                    number,
                    source=SOURCE,
                )
            )
    if state is None and early:
        why = f"{LOST_START}, so none of its {len(early)} later entries can be placed: no note"
        problems.append(Problem(str(path), why, source=SOURCE))
    else:
        problems.extend(early)
    return state


def _walk(node: Any, keys: list[Any]) -> Any:
    for key in keys:
        node = _read(node, key)
        if node is None:
            raise _Missing
    return node


def _read(node: Any, key: Any) -> Any:
    if isinstance(node, dict) and isinstance(key, str):
        return node.get(key)
    if isinstance(node, list) and isinstance(key, int) and -len(node) <= key < len(node):
        return node[key]
    raise _Missing


def _assign(parent: Any, key: Any, value: Any) -> None:
    if isinstance(parent, dict) and isinstance(key, str):
        parent[key] = value
    elif isinstance(parent, list) and isinstance(key, int) and key <= len(parent):
        if key == len(parent):
            parent.append(value)
        else:
            parent[key] = value
    else:
        raise _Missing
