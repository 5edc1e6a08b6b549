"""What the vault quotes of a note as it was before a run rewrote it: a ``--diff``. It
passes through the vault's ``scrub`` (the redaction rules, and for a note being written its
session's secrets: ``Vault.write_note``), so an old secret is not quoted again: both texts
before they are compared (a secret's lines read whole, as ``editdiff`` does: in the diff the
new note's lines fall between the old note's, and a private key there is no longer one
block), and the diff after. (A conflict copy of the person's edited version is
``editcopies``'.)"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .vault import Vault


def quoted_diff(vault: Vault, old: str, new: str, relpath: str) -> str:
    """The change of a note's whole file, when the run was asked for diffs."""
    if not vault.want_diff:
        return ""
    old, new = vault.scrub(old), vault.scrub(new)
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), f"a/{relpath}", f"b/{relpath}", lineterm=""
    )
    return vault.scrub("\n".join(lines))
