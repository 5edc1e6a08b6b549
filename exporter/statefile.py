"""The layout of ``state.json`` (version 2): what is remembered per note, in columns.

Version 1 wrote one object per note, every key spelled out and every repeated value again
(the 26 property names, the tags, the render fingerprint of every source): 1.3 kB a note,
and 0.65 s to load 20,000 of them. Here each field is a column (one list per field, a note
is an index), and what repeats is written once in a table and referred to by its index:

- ``tables.dirs``: folders (a note's path and a source's path are a folder and a name);
- ``tables.lists``: lists of strings (a note's tags and the properties it wrote);
- ``tables.shapes``: the key sets of what index notes list about a note (``meta``);
- ``tables.items``: fingerprint entries without a number (the render fingerprint);
- a source's own file in its fingerprint is ``null``, and the notes of a source are the
  indexes of their columns.

Only the file changes: in memory the state holds the same records as before.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class NoteRecord:
    path: str  # vault-relative, "/"-separated
    hash: str  # sha256 of the owned region as last written
    lines: int  # its line count: pins the end marker
    # These two lists are never changed in place: records read from the file share them.
    tags: list[str] = field(default_factory=list)  # the tags the exporter wrote
    keys: list[str] = field(default_factory=list)  # the properties the exporter wrote
    meta: dict[str, Any] = field(default_factory=dict)  # what index notes list about it
    stat: list[int] = field(default_factory=list)  # mtime_ns, size, inode as last written
    deleted: bool = False  # the person deleted the note in the vault: it stays deleted
    # Where it was before the person renamed or moved it, each with the run that found it
    # moved: links to it written before then said that name (see ``vaultlinks``).
    was: list[list[Any]] = field(default_factory=list)
    run: int = 0  # the run that last wrote it (``State.run``; 0: before runs were counted)
    # The files last read and found to be no older copy (``NoteSurvey.replaced``), newest
    # first: the person wrote in the note, or each of two machines that share the state
    # holds its own file of it. Such a file is not read again.
    read: list[list[int]] = field(default_factory=list)
    # The generated parts this machine wrote before the last (their hashes, as end markers
    # carry them), newest first: one of them put back is its own older copy, made again;
    # another intact one is another machine's (``notecopies.behind``).
    hashes: list[str] = field(default_factory=list)
    # The render key of the job the note was last written or found unchanged from
    # (``renderkey``): a job of the same key is not rendered again.
    render_key: str = ""
    # The person's properties (``[frontmatter] add``) once written into it: never added
    # again, so one they delete stays deleted. None: not known (a state an older version
    # wrote, which gave every note each one it lacked, so it holds all it was given).
    seeded: list[str] | None = None
    # Tags of ccexport's the person removed from the note that it writes no more (``[frontmatter]
    # project_tag = false`` for a run): written again later, they stay out (``vaultmerge``).
    removed_tags: list[str] = field(default_factory=list)


def _split(path: str, sep: str) -> tuple[str, str]:
    """A path as (its folder, separator included; its name)."""
    folder, slash, name = path.rpartition(sep)
    return folder + slash, name


def _indexes(values: list[Any], table: dict[Any, int]) -> list[int]:
    """Each value's index in ``table``, where a value not yet in it is added last."""
    return [table.setdefault(value, len(table)) for value in values]


def _list_indexes(values: list[list[str]], table: dict[tuple[str, ...], int]) -> list[int]:
    """``_indexes`` of lists. A list read from the file is the table's, shared by every
    note that has it (so it is never changed in place: a record is given new lists): it
    is looked up by identity, without hashing its content again."""
    seen: dict[int, int] = {}
    found = []
    for value in values:
        index = seen.get(id(value))
        if index is None:
            index = seen[id(value)] = table.setdefault(tuple(value), len(table))
        found.append(index)
    return found


def encode(sources: dict[str, dict[str, Any]], notes: dict[str, NoteRecord]) -> dict[str, Any]:
    """The ``notes``, ``sources`` and ``tables`` of a version 2 state file."""
    dirs: dict[str, int] = {}
    lists: dict[tuple[str, ...], int] = {}
    shapes: dict[tuple[str, ...], int] = {}
    items: dict[tuple[str, ...], int] = {}
    records = list(notes.values())
    paths = [r.path.rpartition("/") for r in records]
    columns = {
        "key": list(notes),
        "dir": [dirs.setdefault(folder + slash, len(dirs)) for folder, slash, _ in paths],
        "name": [name for _, _, name in paths],
        "hash": [r.hash for r in records],
        "lines": [r.lines for r in records],
        "tags": _list_indexes([r.tags for r in records], lists),
        "keys": _list_indexes([r.keys for r in records], lists),
        "meta": [
            [shapes.setdefault(tuple(r.meta), len(shapes)), *r.meta.values()] for r in records
        ],
        "stat": [r.stat for r in records],
        "deleted": [n for n, r in enumerate(records) if r.deleted],
        "was": {str(n): r.was for n, r in enumerate(records) if r.was},
        "run": [r.run for r in records],
        "read": {str(n): r.read for n, r in enumerate(records) if r.read},
        "hashes": {str(n): r.hashes for n, r in enumerate(records) if r.hashes},
        "render_keys": {str(n): r.render_key for n, r in enumerate(records) if r.render_key},
        # Each note's given properties as a shared list (most notes share one), -1 where not
        # known, which stays so: the column's absence says that of every note, in a state an
        # older version wrote.
        "given": [
            -1 if r.seeded is None else n
            for r, n in zip(
                records, _list_indexes([r.seeded or [] for r in records], lists), strict=True
            )
        ],  # fmt: skip
    }
    # Tags the person removed, as shared lists, for the few notes that have them: a state
    # where none has is written as before.
    removed = [n for n, r in enumerate(records) if r.removed_tags]
    if removed:
        indexes = _list_indexes([records[n].removed_tags for n in removed], lists)
        columns["removed_tags"] = {str(n): i for n, i in zip(removed, indexes, strict=True)}
    position = {key: n for n, key in enumerate(notes)}
    units = [_split(unit, os.sep) for unit in sources]
    shared: dict[int, int] = {}  # a fingerprint entry read from the file -> its table index
    return {
        "notes": columns,
        "sources": {
            "dir": _indexes([folder for folder, _ in units], dirs),
            "name": [name for _, name in units],
            "fingerprint": [
                _fingerprint(record.get("fingerprint", []), unit, items, shared)
                for unit, record in sources.items()
            ],
            "notes": [
                [position.get(key, key) for key in record.get("notes", [])]
                for record in sources.values()
            ],
        },
        "tables": {
            name: [list(v) if isinstance(v, tuple) else v for v in table]
            for name, table in (
                ("dirs", dirs),
                ("lists", lists),
                ("shapes", shapes),
                ("items", items),
            )
        },
    }


def _fingerprint(
    fingerprint: list[list[Any]], unit: str, items: dict[tuple[str, ...], int],
    shared: dict[int, int],
) -> list[Any]:  # fmt: skip
    """A source's fingerprint: its own file's path left out, the entries without a number
    (the render fingerprint, shared by every source) as their index in ``items``. An entry
    read from the file is the table's own list, known by identity."""
    found: list[Any] = []
    for item in fingerprint:
        index = shared.get(id(item))
        if index is not None:
            found.append(index)
        elif item and item[0] == unit:
            found.append([None, *item[1:]])
        elif all(isinstance(value, str) for value in item):
            found.append(shared.setdefault(id(item), items.setdefault(tuple(item), len(items))))
        else:
            found.append(item)
    return found


def decode(data: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, NoteRecord]]:
    """The sources and notes of a version 2 state file; raises (KeyError, TypeError,
    ValueError, IndexError) on a file that does not have this layout."""
    tables, columns, units = data["tables"], data["notes"], data["sources"]
    dirs, lists, items = tables["dirs"], tables["lists"], tables["items"]
    shapes = [tuple(shape) for shape in tables["shapes"]]
    keys = columns["key"]
    notes = {
        key: NoteRecord(
            dirs[folder] + name,
            hash_,
            lines,
            lists[tags],
            lists[props],
            dict(zip(shapes[meta[0]], meta[1:], strict=True)),
            stat,
        )
        for key, folder, name, hash_, lines, tags, props, meta, stat in zip(
            keys,
            columns["dir"],
            columns["name"],
            columns["hash"],
            columns["lines"],
            columns["tags"],
            columns["keys"],
            columns["meta"],
            columns["stat"],
            strict=True,
        )
    }
    if not all(isinstance(r.path, str) and type(r.lines) is int for r in notes.values()):
        raise TypeError("a note's path or line count is not what it should be")
    for n in columns["deleted"]:
        notes[keys[n]].deleted = True
    # (neither column in files written before 4 December)
    for n, was in columns.get("was", {}).items():
        if not isinstance(was, list) or not all(_is_move(x) for x in was):
            raise TypeError("a note's earlier paths are not what they should be")
        notes[keys[int(n)]].was = was
    runs = columns.get("run", [0] * len(keys))
    if len(runs) != len(keys) or not all(type(run) is int for run in runs):
        raise TypeError("the runs that wrote the notes are not what they should be")
    for key, run in zip(keys, runs, strict=True):
        notes[key].run = run
    for n, read in columns.get("read", {}).items():  # (not in files before 5 December)
        if not isinstance(read, list) or not all(_is_stat(x) for x in read):
            raise TypeError("a note's files as last read are not what they should be")
        notes[keys[int(n)]].read = read
    for n, hashes in columns.get("hashes", {}).items():  # (not in files before 6 December)
        if not isinstance(hashes, list) or not all(isinstance(h, str) for h in hashes):
            raise TypeError("a note's earlier generated parts are not what they should be")
        notes[keys[int(n)]].hashes = hashes
    for n, rendered in columns.get("render_keys", {}).items():  # (none before 6 December)
        if not isinstance(rendered, str):
            raise TypeError("a note's render key is not what it should be")
        notes[keys[int(n)]].render_key = rendered
    given = columns.get("given")  # (not in a state an older version wrote: each stays None)
    if given is not None:
        if len(given) != len(keys) or not all(type(g) is int and g >= -1 for g in given):
            raise TypeError("the notes' added properties are not what they should be")
        for key, g in zip(keys, given, strict=True):
            notes[key].seeded = None if g == -1 else lists[g]
    for n, seeded in columns.get("seeded", {}).items():  # (7 December, 01:02-02:30 only)
        if isinstance(seeded, list) and all(isinstance(k, str) for k in seeded):
            notes[keys[int(n)]].seeded = seeded
    for n, removed in columns.get("removed_tags", {}).items():  # (not in files before 7 December)
        if type(removed) is not int or not 0 <= removed < len(lists):
            raise TypeError("a note's removed tags are not what they should be")
        notes[keys[int(n)]].removed_tags = lists[removed]
    sources = {}
    for folder, name, fingerprint, unit_notes in zip(
        units["dir"], units["name"], units["fingerprint"], units["notes"], strict=True
    ):
        unit = dirs[folder] + name
        sources[unit] = {
            "fingerprint": [
                items[x] if type(x) is int else [unit, *x[1:]] if x and x[0] is None else x
                for x in fingerprint
            ],
            "notes": [keys[k] if type(k) is int else k for k in unit_notes],
        }
    return sources, notes


def _is_stat(entry: Any) -> bool:
    """``[mtime_ns, size, inode]``: a file as ``stat_key`` knows it."""
    return isinstance(entry, list) and len(entry) == 3 and all(type(x) is int for x in entry)


def _is_move(entry: Any) -> bool:
    """``[path, run]``: where a note was, and the run that found it moved."""
    return (
        isinstance(entry, list)
        and len(entry) == 2
        and isinstance(entry[0], str)
        and type(entry[1]) is int
    )
