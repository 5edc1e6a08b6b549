"""Redaction of what a run keeps and prints besides its notes: the state's records for the
index notes, the report (problems, changes, diffs, paths) and notes whose very path holds a
secret. The rules themselves, and the session walk, are redact.py's."""

from __future__ import annotations

from dataclasses import replace
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


def redact_report(report: Any, rules: Redactor) -> None:
    """Problems and changes, redacted before they are printed, logged or sent as JSON: a
    problem can quote a line of a source, a diff or a path an old note, and a source's
    path can hold a folder's name."""
    report.problems[:] = [
        replace(p, path=rules.text(p.path), message=rules.text(p.message)) for p in report.problems
    ]
    report.empty_units[:] = [(source, rules.text(path)) for source, path in report.empty_units]
    for change in (*report.changes, *report.indexes):
        change.relpath = rules.text(change.relpath)
        change.message = rules.text(change.message)
        change.diff = rules.text(change.diff)


def rename_secret_paths(vault: Any, rules: Redactor) -> list[str]:
    """Notes whose path holds a secret (written before redaction, or with other rules)
    move to the redacted name, text and all: a file name is listed and synced everywhere.
    The same run then rewrites their content. Returns the new paths (a dry run's vault:
    those they would move to, and nothing is moved)."""
    from . import vaultio
    from .vault import safe_relpath

    moved = []
    for record in vault.state.notes.values():
        # (against the path as names are made now: a name made under older rules, a mark
        # that turns the text around say, is no secret, and the note is not moved for it)
        clean = safe_relpath(rules.text(record.path))
        if clean == safe_relpath(record.path) or vaultio.kind(vault.root, clean) != "missing":
            continue
        if vaultio.kind(vault.root, record.path) != "file":
            continue  # gone, or a link: found again by identity, or left alone
        if vault.dry_run:
            moved.append(clean)
            continue
        found = vaultio.read_file(vault.root, record.path)
        if found is None:
            continue
        vaultio.write_file(vault.root, clean, found[0])
        vaultio.remove_file(vault.root, record.path)
        record.path = clean
        moved.append(clean)
    return moved
