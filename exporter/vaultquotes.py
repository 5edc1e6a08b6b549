"""What the vault quotes of a note as it was before a run rewrote it: a conflict copy of
the person's edited version, and a ``--diff``. Both pass through the vault's ``scrub`` (the
redaction rules, and for a note being written its session's secrets: ``Vault.write_note``),
so an old secret is not quoted again."""

from __future__ import annotations

import difflib
import itertools
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from . import vaultio
from .state import STATE_DIR
from .vaultpaths import safe_component

if TYPE_CHECKING:
    from .vault import Vault


def save_conflict(vault: Vault, relpath: str, text: str) -> str:
    """The copy is named by the second it is saved; another in that second (``watch``
    while the person types, two notes of one name) takes (2), (3)…: never replaced."""
    stamp, note = datetime.now().strftime("%Y-%m-%d %H%M%S"), vault.scrub(Path(relpath).name)
    for n in itertools.count(1):
        name = safe_component(f"{stamp} ({n}) {note}" if n > 1 else f"{stamp} {note}")
        target = f"{STATE_DIR}/conflicts/{name}"  # (short, too)
        if vaultio.kind(vault.root, target) in ("missing", "blocked"):
            break  # (blocked: the write says why)
    if not vault.dry_run:
        vaultio.write_file(vault.root, target, vault.scrub(text).encode("utf-8", "replace"))
    return target


def quoted_diff(vault: Vault, old: str, new: str, relpath: str) -> str:
    """The change of a note's whole file, when the run was asked for diffs."""
    if not vault.want_diff:
        return ""
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), f"a/{relpath}", f"b/{relpath}", lineterm=""
    )
    return vault.scrub("\n".join(lines))
