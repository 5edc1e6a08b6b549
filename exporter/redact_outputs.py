"""Redaction of what a run keeps and prints besides its notes: the state's records for the
index notes, the report (problems, changes, diffs, paths) and notes whose very path holds a
secret. The rules themselves, and the session walk, are redact.py's."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from .redact import Redactor


def redact_state(state: Any, rules: Redactor) -> None:
    """What the state remembers about each note, redacted: for the index notes, and where
    it was before it moved (``vaultlinks``). Notes written before redaction (or with other
    rules) may have left a secret there; an earlier path holding one is forgotten."""
    for record in state.notes.values():
        if record.meta:
            record.meta = rules.value(record.meta)
        if record.was and any(rules.text(path) != path for path, _run in record.was):
            record.was = [move for move in record.was if rules.text(move[0]) == move[0]]


def redact_report(report: Any, redact: Redactor | Callable[[str], str]) -> None:
    """Problems and changes, redacted before they are printed, logged or sent as JSON: a
    problem can quote a line of a source, a diff or a path an old note, and a source's
    path can hold a folder's name. ``redact``: the rules' (``Redactor.text``), and after
    them the secrets of the sessions the run read (an old note's name or text may hold one
    no rule found when it was written)."""
    text = redact.text if isinstance(redact, Redactor) else redact
    report.problems[:] = [
        replace(p, path=text(p.path), message=text(p.message)) for p in report.problems
    ]
    report.empty_units[:] = [(source, text(path)) for source, path in report.empty_units]
    for change in (*report.changes, *report.indexes):
        change.relpath = text(change.relpath)
        change.message = text(change.message)
        change.diff = text(change.diff)


def rename_secret_paths(vault: Any, rules: Redactor) -> list[str]:
    """Notes whose path holds a secret (written before redaction, or with other rules)
    move to the redacted name, text and all: a file name is listed and synced everywhere.
    The same run then rewrites their content. Returns the new paths (a dry run's vault:
    those they would move to, and nothing is moved)."""
    moved = []
    for record in vault.state.notes.values():
        clean = move_secret_path(vault, record, rules.text)
        if clean is not None:
            moved.append(clean)
    return moved


def move_secret_path(vault: Any, record: Any, redact: Callable[[str], str]) -> str | None:
    """The one way a note whose recorded path holds a secret (what ``redact`` changes)
    moves to the redacted path: its bytes written there, then the old file removed, and
    its folder too when that is ccexport's project folder named by the secret, now empty
    (``_remove_emptied``). Returns the new path; None when the path holds none, the note
    is not there (gone, or a link: found again by identity, or left alone) or the new name
    is taken. A dry run's vault moves nothing."""
    from . import vaultio
    from .vault import safe_relpath

    # (against the path as names are made now: a name made under older rules, a mark that
    # turns the text around say, is no secret, and the note is not moved for it)
    old, clean = record.path, safe_relpath(redact(record.path))
    if clean == safe_relpath(old) or vaultio.kind(vault.root, clean) != "missing":
        return None
    if vaultio.kind(vault.root, old) != "file":
        return None
    if vault.dry_run:
        return clean
    found = vaultio.read_file(vault.root, old)
    if found is None:
        return None
    vaultio.write_file(vault.root, clean, found[0])
    vaultio.remove_file(vault.root, old)
    record.path = clean
    _remove_emptied(vault.root, old, clean)
    return clean


def _remove_emptied(root: Path, old: str, clean: str) -> None:
    """The folder ``old`` was in, when it is a project's folder as ccexport names them
    (``<source>/<project>/``, beside the one ``clean`` is in), its name held a secret and
    it is empty now (``rmdir`` removes none that is not: a file of the person's keeps it).
    Obsidian shows an empty folder, and a sync tool copies its name."""
    from . import vaultio
    from .notespec import SOURCE_LABELS

    olds, cleans = old.split("/")[:-1], clean.split("/")[:-1]
    if len(olds) < 2 or len(olds) != len(cleans) or olds[:-1] != cleans[:-1]:
        return
    if olds[-1] == cleans[-1] or olds[-2] not in SOURCE_LABELS:
        return
    folder = "/".join(olds)
    if vaultio.kind(root, folder) == "folder":
        try:
            os.rmdir(root / folder)
        except OSError:  # not empty (the person's files, a sync tool's): it stays
            pass
